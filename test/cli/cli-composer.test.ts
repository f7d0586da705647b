/**
 * The composer's habits (those of Claude Code), in a real terminal (tmux), as a person uses
 * them: `\` + Enter and Shift-Enter for a new line, a bracketed paste sent as one message,
 * `!command` run locally, Ctrl-R through the prompts sent in this directory (kept across
 * runs) and `@file` mentions completed with Tab and sent as resources. What the agent got
 * is read from the scripted agent's sessions file (each turn's prompt blocks).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { testTempDir } from "../support/temp-dir.js";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";
import { processRunning } from "../support/processes.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const scenarioFile = join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json");
const sessions: TmuxSession[] = [];

/** A project with a few files, its own state directory, and the agent's sessions file. */
function workspace(options: { embedded?: boolean } = {}) {
  const dir = testTempDir("acp-kit-composer-");
  const project = join(dir, "project");
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(join(project, "notes.md"), "# Notes\nremember the milk\n");
  writeFileSync(join(project, "src", "app.ts"), "export const app = 1;\n");
  writeFileSync(join(project, "secret.txt"), "not for the agent\n");
  writeFileSync(join(project, ".gitignore"), "secret.txt\n");
  const scenario = JSON.parse(readFileSync(scenarioFile, "utf8")) as Record<string, unknown>;
  if (options.embedded === false) {
    const agent = scenario.agent as Record<string, unknown>;
    agent.capabilities = { loadSession: true, promptCapabilities: {} };
  }
  const scenarioCopy = join(dir, "scenario.json");
  writeFileSync(scenarioCopy, JSON.stringify(scenario));
  const sessionsFile = join(dir, "agent-sessions.json");
  const state = join(dir, "state");
  /** Starts `acp-kit run` against the scripted agent in the project. */
  const run = (env: Record<string, string> = {}): TmuxSession => {
    const agent = [process.execPath, scriptedAgent, "--sessions-file", sessionsFile, scenarioCopy];
    const line = [process.execPath, cli, "run", "--", ...agent].map(shellQuote).join(" ");
    const session = TmuxSession.start(line, {
      cwd: project,
      width: 100,
      height: 40,
      env: { ACP_KIT_STATE_DIR: state, ...env },
    });
    sessions.push(session);
    return session;
  };
  return { project, state, sessionsFile, run };
}

/** The content blocks of every prompt the agent got, in order, from its sessions file. */
function receivedPrompts(sessionsFile: string): unknown[] {
  if (!existsSync(sessionsFile)) return [];
  const blocks: unknown[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v);
    } else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if (record.sessionUpdate === "user_message_chunk") blocks.push(record.content);
      else for (const v of Object.values(record)) walk(v);
    }
  };
  walk(JSON.parse(readFileSync(sessionsFile, "utf8")));
  return blocks;
}

/** Waits until the agent has recorded a prompt block that matches. */
async function waitForBlock(sessionsFile: string, match: (block: unknown) => boolean) {
  for (let i = 0; i < 200; i++) {
    const found = receivedPrompts(sessionsFile).find(match);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `The agent never got that block; it got ${JSON.stringify(receivedPrompts(sessionsFile))}`,
  );
}

/** Resolves once `condition` holds (checked every 50 ms; fails after 20 s). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i >= 400) throw new Error("timed out waiting for a condition");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const textBlock = (text: string) => (block: unknown) =>
  typeof block === "object" &&
  block !== null &&
  (block as { type?: unknown }).type === "text" &&
  (block as { text?: unknown }).text === text;

beforeAll(() => {
  if (!hasTmux()) throw new Error("tmux is needed for the CLI's terminal tests");
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Build first (npm run build): these tests run the built CLI");
  }
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

describe("acp-kit run: the composer", { timeout: 60_000 }, () => {
  it("\\ + Enter and Shift-Enter (as kitty, xterm and others send it) start a new line", async () => {
    const w = workspace();
    const t = w.run();
    await t.waitFor("CLI test agent 1.2.3");
    t.type("one\\");
    await t.waitFor("› one\\");
    t.keys("Enter");
    await t.waitFor(/› one\n/);
    t.type("two");
    // kitty's CSI 13;2u, xterm's modifyOtherKeys CSI 27;2;13~, and ESC CR.
    t.keys("-H", "1b", "5b", "31", "33", "3b", "32", "75");
    t.type("three");
    t.keys("-H", "1b", "5b", "32", "37", "3b", "32", "3b", "31", "33", "7e");
    t.type("four");
    t.keys("-H", "1b", "0d");
    t.type("five");
    await t.waitFor(/› one\n\s*two\n\s*three\n\s*four\n\s*five/);
    expect(t.screen()).not.toContain("default answer");
    t.keys("Enter");
    await t.waitFor("default answer");
    await waitForBlock(w.sessionsFile, textBlock("one\ntwo\nthree\nfour\nfive"));
  });

  it("sends a bracketed paste as one message; lines typed ahead in one read stay separate prompts", async () => {
    const w = workspace();
    const t = w.run();
    await t.waitFor("CLI test agent 1.2.3");
    // What a terminal sends for a paste of two lines ending in a line break, once the
    // program has asked for bracketed paste: nothing is sent until Enter.
    const paste = Buffer.from("\u001b[200~first pasted\rsecond pasted\r\u001b[201~", "latin1");
    t.keys("-H", ...[...paste].map((b) => b.toString(16).padStart(2, "0")));
    await t.waitFor(/› first pasted\n\s*second pasted/);
    expect(t.screen()).not.toContain("default answer");
    t.keys("BSpace", "Enter");
    await waitForBlock(w.sessionsFile, textBlock("first pasted\nsecond pasted"));
    // Two lines typed ahead, each with its Enter, that reach the program in one read (as
    // over SSH, or from a multiplexer): two prompts, the second queued behind the first.
    t.type("typed one\rtyped two\r");
    await waitForBlock(w.sessionsFile, textBlock("typed one"));
    await waitForBlock(w.sessionsFile, textBlock("typed two"));
  });

  it("runs !command in the session's directory and shows its output; the agent gets nothing", async () => {
    const w = workspace();
    const t = w.run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("!ls; echo made > made.txt; exit 3");
    await t.waitFor("(exit 3)");
    const screen = t.screen();
    expect(screen).toMatch(/! ls; echo made > made\.txt; exit 3\n[\s\S]*notes\.md/);
    expect(readFileSync(join(w.project, "made.txt"), "utf8")).toBe("made\n");
    // A command that runs a while is said to be running until it ends.
    t.send("!until [ -f go ]; do sleep 0.1; done; echo went");
    await t.waitFor("Running !until [ -f go ]");
    writeFileSync(join(w.project, "go"), "");
    await t.waitFor(/^went$/m);
    expect(t.screen()).not.toContain("Running !");
    t.send("after the command");
    await waitForBlock(w.sessionsFile, textBlock("after the command"));
    expect(JSON.stringify(receivedPrompts(w.sessionsFile))).not.toContain("ls;");
  });

  it("Ctrl-C stops a !command; leaving ends the ones still running", async () => {
    const w = workspace();
    const t = w.run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("!echo $$ > first.pid; sleep 303; echo never");
    await t.waitFor("Running !echo $$ > first.pid; sleep 303; echo never… (Ctrl-C stops it)");
    t.keys("C-c");
    await t.waitFor("(stopped)");
    expect(t.screen()).not.toMatch(/^never$/m);
    expect(t.screen()).not.toContain("Running !");
    // Another key: the next Ctrl-C starts over (it arms, it does not exit).
    t.send("!echo $$ > second.pid; sleep 304");
    await t.waitFor("Running !echo $$ > second.pid");
    const pidFile = join(w.project, "second.pid");
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
    const shell = Number(readFileSync(pidFile, "utf8"));
    expect(processRunning(shell)).toBe(true);
    t.keys("C-c", "C-c");
    await t.waitFor("[exited 0]");
    // The view has left: its !command did not outlive it (it ran on before).
    await until(() => !processRunning(shell));
  });

  it("Ctrl-G edits the text in $EDITOR: what it saves is the text; a failing editor changes nothing", async () => {
    const w = workspace();
    // An editor that adds to the file (or fails while a file named fail is here).
    const editor = join(w.project, "..", "editor.sh");
    writeFileSync(
      editor,
      "#!/bin/sh\nif [ -f fail ]; then exit 1; fi\nprintf ' and the editor\\n' >> \"$1\"\n",
      { mode: 0o755 },
    );
    const t = w.run({ EDITOR: editor, VISUAL: "" });
    await t.waitFor("CLI test agent 1.2.3");
    t.type("draft");
    await t.waitFor(/› draft/);
    t.keys("C-g");
    await t.waitFor(/› draft and the editor/);
    writeFileSync(join(w.project, "fail"), "");
    t.keys("C-g");
    await t.waitFor("exited with code 1: the text is unchanged.");
    expect(t.screen()).toMatch(/› draft and the editor/);
    t.keys("Enter");
    await waitForBlock(w.sessionsFile, textBlock("draft and the editor"));
  });

  it("Ctrl-R finds a prompt sent here in an earlier run; Esc goes back; ↑ recalls too", async () => {
    const w = workspace();
    const first = w.run();
    const written = join(w.state, "..", "screen.log");
    first.record(written);
    await first.waitFor("CLI test agent 1.2.3");
    first.send("where is the milk");
    await first.waitFor(/in \//);
    first.send("please stream");
    await first.waitFor("one two three four five");
    first.send("/quit");
    await first.waitFor("[exited 0]");
    // Bracketed paste (on while the view ran: see the paste test) is off once it has left.
    expect(readFileSync(written, "latin1")).toContain("\u001b[?2004l");
    // A new run in the same directory.
    const t = w.run();
    await t.waitFor("CLI test agent 1.2.3");
    t.type("draft");
    t.keys("C-r");
    await t.waitFor("history search:");
    t.type("milk");
    await t.waitFor(/history search: milk[\s\S]*where is the milk/);
    // Esc leaves the search: the draft is back, and nothing is cancelled or cleared.
    t.keys("Escape");
    await t.waitFor(/› draft/);
    expect(t.screen()).not.toContain("history search:");
    t.keys("C-u", "C-r");
    t.type("milk");
    await t.waitFor(/history search: milk[\s\S]*where is the milk/);
    t.keys("Enter");
    await t.waitFor(/› where is the milk/);
    t.keys("Enter");
    await t.waitFor(/› where is the milk\nin \//);
    // ↑ brings back what was sent, in this run and then in the earlier one.
    t.keys("Up");
    await t.waitFor(/› where is the milk\s*$/m);
    t.keys("Up");
    await t.waitFor(/› \/quit\s*$/m);
  });

  it("completes @file with Tab (skipping .gitignored files) and embeds the file", async () => {
    const w = workspace();
    const t = w.run();
    await t.waitFor("CLI test agent 1.2.3");
    t.type("look at @no");
    await t.waitFor("  @notes.md");
    t.keys("Tab");
    await t.waitFor(/› look at @notes\.md /);
    t.type("and @sec");
    await t.waitFor(/› look at @notes\.md and @sec/);
    expect(t.screen()).not.toContain("@secret.txt");
    t.keys("C-w");
    t.type("please");
    t.keys("Enter");
    await t.waitFor("default answer");
    await waitForBlock(w.sessionsFile, textBlock("look at @notes.md and please"));
    const uri = pathToFileURL(join(w.project, "notes.md")).href;
    const embedded = await waitForBlock(
      w.sessionsFile,
      (b) => (b as { type?: unknown }).type === "resource",
    );
    expect(embedded).toEqual({
      type: "resource",
      resource: { uri, text: "# Notes\nremember the milk\n" },
    });
  });

  it("sends @file as a resource link to an agent without embedded context", async () => {
    const w = workspace({ embedded: false });
    const t = w.run();
    await t.waitFor("CLI test agent 1.2.3");
    t.type("check @src/a");
    t.keys("Tab");
    await t.waitFor(/› check @src\/app\.ts /);
    t.keys("Enter");
    await t.waitFor("default answer");
    const link = await waitForBlock(
      w.sessionsFile,
      (b) => (b as { type?: unknown }).type === "resource_link",
    );
    expect(link).toEqual({
      type: "resource_link",
      uri: pathToFileURL(join(w.project, "src", "app.ts")).href,
      name: "src/app.ts",
      size: 22,
    });
    expect(receivedPrompts(w.sessionsFile)).not.toContainEqual(
      expect.objectContaining({ type: "resource" }),
    );
  });

  it("a key pasted at a login prompt is the key alone (the paste's marks are not text)", async () => {
    const w = workspace();
    const agent = [
      process.execPath,
      scriptedAgent,
      join(repoRoot, "test", "cli", "fixtures", "env-login-scenario.json"),
    ];
    const line = [process.execPath, cli, "run", "--", ...agent].map(shellQuote).join(" ");
    const t = TmuxSession.start(line, {
      cwd: w.project,
      width: 100,
      height: 40,
      env: { ACP_KIT_STATE_DIR: w.state },
    });
    sessions.push(t);
    await t.waitFor("Env login agent 1.0.0");
    t.send("hello there");
    await t.waitFor("❯ 1. API key (sets ACP_KIT_TEST_KEY)");
    t.keys("Enter");
    await t.waitFor("Test API key:");
    t.paste("sk-pasted-key");
    await t.waitFor(/Test API key: •{13}(?!•)/);
    t.keys("Enter");
    await t.waitFor("Logged in (API key).");
  });
});
