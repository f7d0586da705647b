/**
 * The live view of `acp-kit run` and `acp-kit demo`, driven in a real terminal (tmux):
 * keys are sent and the screen is read, as a person would.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { groupMembers, isAlive, waitFor } from "../node/fixtures/terminal-helpers.js";
import { longTerminalScenario } from "../support/long-terminal.js";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => join(repoRoot, "test", "cli", "fixtures", name);
const sessions: TmuxSession[] = [];

function start(
  args: string,
  env: Record<string, string> = {},
  size = { width: 100, height: 45 },
): TmuxSession {
  const session = TmuxSession.start(`${shellQuote(process.execPath)} ${shellQuote(cli)} ${args}`, {
    cwd: repoRoot,
    ...size,
    env,
  });
  sessions.push(session);
  return session;
}

function runScenario(scenario: string): TmuxSession {
  return start(
    `run -- ${shellQuote(process.execPath)} ${shellQuote(scriptedAgent)} ${shellQuote(fixture(scenario))}`,
  );
}

beforeAll(() => {
  if (!hasTmux())
    throw new Error("tmux is needed for the CLI's terminal tests (apt-get install tmux)");
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
  }
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

describe("acp-kit run (live view)", () => {
  it("streams text, renders Markdown, and completes slash commands", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("please stream");
    await t.waitFor("one two three four five");
    t.send("markdown");
    const screen = await t.waitFor("const answer = 42;");
    expect(screen).toContain("Big title");
    expect(screen).toMatch(/• item one/);
    expect(screen).not.toContain("# Big title"); // rendered, not raw
    t.type("/sh");
    await t.waitFor("/shout text to shout — Repeat loudly");
    t.keys("Tab");
    t.send("hello");
    await t.waitFor("hello!!!");
  });

  it("edits like a shell: cursor keys, a held Backspace, a pasted block kept whole", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.type("please strXam");
    t.keys("Left", "Left", "BSpace", "e");
    await t.waitFor("› please stream");
    t.keys("End", "C-u"); // Ctrl-U deletes back to the start of the line
    t.type("abcdefgh");
    t.keys("BSpace", "BSpace", "BSpace");
    await t.waitFor(/› abcde\s*$/m);
    t.keys("C-u");
    // A paste of several lines is not sent line by line.
    t.paste("first line\nsecond stream line");
    await t.waitFor(/› first line\n\s+second stream line/);
    expect(t.screen()).not.toContain("one two three");
    t.keys("Enter");
    await t.waitFor("one two three four five");
  });

  it("updates a tool call row in place, from running to completed", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("run the tool");
    const running = await t.waitFor(/search Scan the files/);
    expect(running).not.toMatch(/✓ search Scan the files/);
    // The reply that follows the tool call may come a frame later.
    const done = await t.waitFor(/✓ search Scan the files[\s\S]*Scan done\./);
    expect(done.match(/Scan the files/g)).toHaveLength(1); // one row, updated in place
  });

  it("asks for permission and takes the choice from the keyboard", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("permission please");
    await t.waitFor("Permission requested");
    await t.waitFor("❯ 1. Allow");
    t.keys("Down");
    await t.waitFor("❯ 2. Reject");
    t.keys("Enter");
    await t.waitFor("REJECTED");
    t.send("permission again");
    await t.waitFor("Permission requested");
    t.keys("1");
    await t.waitFor("ALLOWED");
  });

  it("cancels the turn on Ctrl-C, and exits on a second Ctrl-C", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("wait for me");
    await t.waitFor("Waiting for you to cancel.");
    t.keys("C-c");
    await t.waitFor("(stopped)");
    const ended = await t.waitFor("(the turn ended: cancelled)");
    // The hint above the status line follows: "Cancelling the turn…", then this (the
    // transcript says that the turn was cancelled).
    await t.waitFor("Ctrl-C again to exit.");
    // The turn's prompt comes before what was said about it.
    expect(ended.indexOf("› wait for me")).toBeLessThan(ended.indexOf("(the turn ended"));
    t.keys("C-c");
    await t.waitFor("[exited 0]");
  });

  it("keeps a reply taller than the window from wiping the scrollback or losing lines", async () => {
    const dir = testTempDir("acp-kit-tall-");
    const scenario = join(dir, "tall.json");
    const words = Array.from({ length: 400 }, (_, i) => `word${i + 1}`);
    const lines = Array.from({ length: 40 }, (_, i) => words.slice(i * 10, i * 10 + 10).join(" "));
    writeFileSync(
      scenario,
      JSON.stringify({
        agent: { info: { name: "tall", version: "1" } },
        turns: [{ steps: [{ text: lines.join("\n"), chunk: "line", delayMs: 15 }] }],
      }),
    );
    const t = TmuxSession.start(
      `seq -f MARKER-%g 1 30; ${shellQuote(process.execPath)} ${shellQuote(cli)} run -- ${shellQuote(process.execPath)} ${shellQuote(scriptedAgent)} ${shellQuote(scenario)}`,
      { cwd: repoRoot, width: 80, height: 24 },
    );
    sessions.push(t);
    await t.waitFor("tall 1");
    t.send("go");
    // While it streams, the live area shows the end of the reply and says what is above.
    await t.waitFor(/the start is above/);
    await t.waitFor(/word391 .* word400\n/);
    await t.waitFor(/›\s+type a message/);
    t.type("x");
    const screen = await t.waitFor("› x");
    // Every line of the reply was printed once, in order, and what was on the terminal
    // before the CLI started is still in the scrollback.
    const printed = screen.split("\n").filter((l) => /^word\d+ /.test(l));
    expect(printed).toEqual(lines);
    expect(screen.match(/MARKER-\d+/g)).toHaveLength(30);
  });

  it("exits only on two Ctrl-C in a row: another key in between starts the count again", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.keys("C-c");
    await t.waitFor("Press Ctrl-C again to exit.");
    t.type("x");
    await t.waitFor("› x");
    expect(t.screen()).not.toContain("Press Ctrl-C again to exit."); // the count is gone
    t.keys("C-c");
    await t.waitFor("Press Ctrl-C again to exit.");
    expect(t.screen()).not.toContain("[exited");
    t.keys("C-c");
    await t.waitFor("[exited 0]");
  });

  it("closing the terminal (SIGHUP) kills the terminals the agent started", async () => {
    const scenario = longTerminalScenario();
    const t = start(
      `run -- ${shellQuote(process.execPath)} ${shellQuote(scriptedAgent)} ${shellQuote(scenario.path)}`,
    );
    await t.waitFor("builder 0.1.0");
    t.send("build it");
    const terminalPid = await scenario.terminalPid();
    expect(isAlive(terminalPid)).toBe(true);
    t.kill();
    await waitFor(() => !isAlive(terminalPid), "the terminal's process to end");
    expect(groupMembers(terminalPid)).toEqual([]);
  });

  it("ends with a message and code 3 when the agent cannot start: no restart offered", async () => {
    const t = start("run -- /no/such/agent");
    const screen = await t.waitFor("[exited 3]");
    expect(screen).toMatch(/acp-kit: .*\/no\/such\/agent/);
    expect(screen).not.toContain("Press r to restart");
    expect(screen).not.toContain("Starting the agent");
  });

  it("leaves a clean screen on /quit: no input line or status left behind", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("/quit");
    const screen = await t.waitFor("[exited 0]");
    expect(screen).not.toContain("type a message");
    expect(screen).toMatch(/^\[exited 0\]$/m);
  });

  it("says when the agent dies, quotes its stderr, and restarts it", async () => {
    const t = start(
      `run -- ${shellQuote(process.execPath)} ${shellQuote(fixture("crash-agent.mjs"))}`,
    );
    await t.waitFor("crasher 0.0.1");
    t.send("hello");
    const screen = await t.waitFor("The agent exited with code 3.");
    expect(screen).toContain("fatal: the model backend went away");
    expect(screen).toContain("Press r to restart it, q to quit.");
    t.keys("r");
    await t.waitFor("Restarting the agent…");
    await t.waitFor(/crasher 0\.0\.1[\s\S]*›/);
    t.keys("q");
  });

  it("logs in with a terminal method: the login command gets the screen, then the agent restarts", async () => {
    const marker = join(testTempDir("acp-kit-login-"), "logged-in");
    const t = start(
      `run -- ${shellQuote(process.execPath)} ${shellQuote(fixture("login-agent.mjs"))} ${shellQuote(marker)}`,
    );
    await t.waitFor("The agent needs you to log in. Choose a method:");
    await t.waitFor("❯ 1. Log in with a token (runs a login command here)");
    t.keys("Enter");
    await t.waitFor("Token for the login agent:");
    t.send("open sesame");
    await t.waitFor("Logged in (Log in with a token); agent restarted.");
    expect(existsSync(marker)).toBe(true);
    t.send("hi");
    await t.waitFor("Hello, logged-in user.");
    // A second login mid-session (its command fails): the view comes back without printing
    // the transcript again (it did after each terminal login).
    t.send("/login");
    await t.waitFor("Log in to the agent. Choose a method:");
    t.keys("Enter");
    await t.waitFor(/Token for the login agent: $/m);
    t.send("wrong");
    const after = await t.waitFor("The login command ended with code 1");
    expect(after.split("Hello, logged-in user.")).toHaveLength(2);
    expect(after.split("agent restarted.")).toHaveLength(2);
  });

  it("a login that expires during a turn: after the terminal login, the text being written is still there", async () => {
    const marker = join(testTempDir("acp-kit-login-"), "logged-in");
    writeFileSync(marker, "logged in\n");
    const t = start(
      `run -- ${shellQuote(process.execPath)} ${shellQuote(fixture("login-agent.mjs"))} ${shellQuote(marker)}`,
    );
    await t.waitFor("login-agent 2.0.0");
    t.send("expire");
    await t.waitFor("Working…");
    t.type("my draft");
    await t.waitFor(/› my draft/);
    writeFileSync(`${marker}.go`, "");
    await t.waitFor("❯ 1. Log in with a token (runs a login command here)");
    t.keys("Enter");
    await t.waitFor(/Token for the login agent: $/m);
    t.send("open sesame");
    await t.waitFor("Logged in (Log in with a token); agent restarted.");
    // The view mounted again goes on with the same text (a new view started empty).
    await t.waitFor(/› my draft/);
    t.keys("Enter");
    await t.waitFor(/› my draft\n+Hello, logged-in user\./);
  });

  it("logs in with an agent method (authenticate), then opens the session", async () => {
    const t = runScenario("auth-scenario.json");
    await t.waitFor("❯ 1. Use a token");
    t.keys("Enter");
    await t.waitFor("Logging in with Use a token…");
    await t.waitFor("type a message");
    t.send("hello");
    await t.waitFor("logged in and answering");
  });

  it("passes the client probe (acp-kit check-client) when a person answers its questions", async () => {
    const report = join(testTempDir("acp-kit-probe-"), "report.json");
    // The v1 probe (check-client serves v2 too: see the test after this one).
    const t = start(
      `run --protocol 1 -- ${shellQuote(process.execPath)} ${shellQuote(cli)} check-client --report ${shellQuote(report)}`,
    );
    await t.waitFor("acp-kit client probe");
    t.send("check my client");
    // The tool call's title shows in the thread before the agent asks: wait for the box.
    await t.waitFor("❯ 1. Allow (nothing will happen)");
    t.keys("1");
    await t.waitFor("Did all of these show up?");
    // What the probe asks about is on the screen: check it as the person would.
    await t.waitFor("❯ 1. Yes");
    const screen = await t.waitFor("☑ First step");
    for (const shown of [
      "(probe) a user message chunk",
      "• one",
      "✻ (probe) a thought",
      "☑ First step",
      "mode: Probe (other)",
      "acp-kit probe",
      "1.2k/200k tokens",
    ]) {
      expect(screen).toContain(shown);
    }
    t.keys("1");
    await t.waitFor("press Cancel/Stop in your editor now");
    t.keys("C-c");
    await t.waitFor(
      "11 passed, 0 failed (MUST), 0 warnings (SHOULD), 0 inconclusive, 0 skipped (11 checks): OK",
    );
    await t.waitFor("(the turn ended: cancelled)");
    const json = JSON.parse(readFileSync(report, "utf8")) as {
      ok: boolean;
      checks: { status: string }[];
    };
    expect(json.ok).toBe(true);
    expect(json.checks.every((check) => check.status === "pass")).toBe(true);
  });

  it("passes the v2 client probe too: the CLI negotiates v2 and folds it (plan, usage, title)", async () => {
    const report = join(testTempDir("acp-kit-probe-v2-"), "report.json");
    const t = start(
      `run -- ${shellQuote(process.execPath)} ${shellQuote(cli)} check-client --report ${shellQuote(report)}`,
    );
    await t.waitFor("ACP v2");
    t.send("check my client");
    await t.waitFor("acp-kit client probe (ACP v2)");
    await t.waitFor("❯ 1. Allow (nothing will happen)");
    t.keys("1");
    await t.waitFor("Did all of these show up?");
    const screen = await t.waitFor("☑ First step");
    for (const shown of [
      "Upserted and appended.",
      "tool output",
      "Second step",
      "1.2k/200k tokens",
    ]) {
      expect(screen).toContain(shown);
    }
    // The replaced entry is gone from the plan (the question itself names it).
    expect(screen).not.toMatch(/^\s*[☐☑◐▶○●] Old step/m);
    t.keys("1");
    await t.waitFor("press Cancel/Stop in your editor now");
    t.keys("C-c");
    await t.waitFor("cancelled at the permission request");
    await t.waitFor("(the turn ended: cancelled)");
    // The v2 probe writes its report when it is done (it prints no summary in the thread).
    await waitFor(() => existsSync(report), "the probe's report");
    const json = JSON.parse(readFileSync(report, "utf8")) as {
      ok: boolean;
      checks: { id: string; status: string }[];
    };
    expect(json.ok).toBe(true);
    expect(json.checks.filter((check) => check.status !== "pass")).toEqual([]);
  });

  it("starts a new session with /new, lists them and loads one back with /sessions", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("please stream");
    await t.waitFor("one two three four five");
    t.send("/new");
    await t.waitFor("New session session-2.");
    t.send("/sessions");
    await t.waitFor(/ {2}1\. session-1[^\n]*\n[^\n]*❯ 2\. session-2 ✓/);
    t.keys("Escape");
    await t.waitFor("type a message");
    t.send("/sessions session-1");
    // The agent replays the session's history, and it is shown again.
    await t.waitFor(
      /Switching to session session-1…\s+› please stream\s+one two three four five\s+Loaded session session-1\./,
    );
  });

  it("switches modes with /mode", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("mode: Ask");
    t.send("/mode code");
    await t.waitFor("mode: Code");
  });

  it("says so for an unknown command instead of sending it; // sends it as it is", async () => {
    const t = runScenario("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("/bogus now");
    await t.waitFor("Unknown command /bogus: /help lists the commands.");
    t.send("/config nope 1");
    await t.waitFor("This agent has no config options.");
    // A path is not a command; "//" sends a slash command the agent did not offer.
    t.send("//shout loud");
    await t.waitFor("loud!!!");
  });
});

describe("acp-kit demo (live view)", () => {
  it("prints a plain transcript, and says why, on a terminal with CI set", async () => {
    // Ink draws no frames when CI is set: a live view would hide the permission question.
    const t = start("demo --fast", { CI: "1" });
    await t.waitFor("CI is set in the environment, so this is a plain transcript", 30_000);
    await t.waitFor("[exited 0]", 60_000);
    const screen = t.screen();
    expect(screen).toContain("[permission]");
    expect(screen).toMatch(/node --version/);
  });

  it("fits a permission box and the plan in a small window without wiping the scrollback", async () => {
    const t = TmuxSession.start(
      `seq -f MARKER-%g 1 30; ${shellQuote(process.execPath)} ${shellQuote(cli)} demo --fast`,
      { cwd: repoRoot, width: 80, height: 24 },
    );
    sessions.push(t);
    const asking = await t.waitFor("❯ 1. Allow", 30_000);
    expect(asking.match(/MARKER-\d+/g)).toHaveLength(30);
    t.keys("Enter");
    const done = await t.waitFor(/✓ run .*node --version/, 30_000);
    expect(done.match(/MARKER-\d+/g)).toHaveLength(30);
  });

  it("leaves the input line at the bottom of the screen after a turn, not blank rows under it", async () => {
    const t = start("demo --fast", {}, { width: 100, height: 30 });
    await t.waitFor("❯ 1. Allow", 30_000);
    t.keys("Enter");
    await t.waitFor(/Next, try \/explain/, 30_000);
    await t.waitFor(/›\s+type a message/);
    // The transcript is longer than the screen, so it fills it: what a live area that
    // shrank left behind would show as empty rows below the input line. Frames still
    // being drawn may show them for a moment: the screen must come to none (it did after
    // a fixed 500 ms, which a loaded machine may not keep).
    const rowsUnderInput = (rows: string[]): number =>
      rows.length - 1 - rows.findIndex((row) => /›\s+type a message/.test(row));
    let rows = t.visibleRows();
    for (const deadline = Date.now() + 20_000; rowsUnderInput(rows) > 1 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = t.visibleRows();
    }
    expect(rows).toHaveLength(30);
    expect(rowsUnderInput(rows), rows.join("\n")).toBeLessThanOrEqual(1);
  });

  it("clears the screen at most once when the window gets shorter under a permission box", async () => {
    const t = start("demo --fast", {}, { width: 100, height: 45 });
    const raw = join(testTempDir("acp-kit-resize-"), "raw.txt");
    t.record(raw);
    await t.waitFor("❯ 1. Allow", 30_000);
    // Ink clears the screen once when the window gets shorter than its last frame (that
    // frame cannot be erased line by line any more). After that, every frame must fit the
    // new height; before, the live area kept the old one until something re-rendered, and
    // Ink cleared the screen and scrollback on every frame of the spinner.
    t.resize(100, 18);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    t.keys("Enter");
    await t.waitFor(/✓ run .*node --version/, 30_000);
    await t.waitFor(/›\s+type a message/);
    expect(t.visibleRows()).toHaveLength(18);
    const clears = readFileSync(raw, "latin1").split("\u001b[3J").length - 1;
    expect(clears).toBeLessThanOrEqual(1);
  });

  it("has no colours with NO_COLOR, on a terminal too", async () => {
    const t = start("demo --fast", { NO_COLOR: "1" });
    await t.waitFor("Permission requested", 30_000);
    // No foreground colour sequence (ESC [ 3x m or ESC [ 9x m) anywhere.
    expect(t.screen(true)).not.toMatch(new RegExp(String.fromCharCode(27) + "\\[(3\\d|9\\d)m"));
    t.keys("Escape");
    await t.waitFor(/✓ run .*node --version/, 30_000);
  });

  it("runs the tour and writes its file only after permission is granted", async () => {
    const t = start("demo --fast");
    const intro = await t.waitFor(/acp-kit demo: a scripted agent working in (\S+)/);
    const dir = /working in (\S+)/.exec(intro)?.[1] ?? "";
    await t.waitFor("Permission requested", 30_000);
    expect(existsSync(join(dir, "acp-kit-demo.md"))).toBe(false);
    // The proposed edit is a diff in colour: added lines green.
    expect(t.screen(true)).toContain("\u001b[32m+# acp-kit demo");
    t.keys("Enter");
    await t.waitFor("acp-kit-demo.md is written", 30_000);
    await t.waitFor(/✓ run .*node --version/, 30_000);
    expect(readFileSync(join(dir, "acp-kit-demo.md"), "utf8")).toContain("# acp-kit demo");
    t.keys("C-c");
    t.keys("C-c");
    await t.waitFor("[exited 0]");
  });
});
