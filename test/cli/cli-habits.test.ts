/**
 * Habits of other agent CLIs, in a real terminal (tmux): Esc cancels a turn, Enter during
 * a turn queues the prompt (shown, sent after the turn, Esc clears the queue), Shift-Tab
 * cycles modes, `/sessions 1` takes a number, descriptions stay on one line.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const scenario = join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json");
const sessions: TmuxSession[] = [];

/** `run` against the scripted agent, which starts `startDelay` seconds late when given. */
function run(startDelay?: number): TmuxSession {
  const agent = [process.execPath, scriptedAgent, scenario];
  const command =
    startDelay === undefined
      ? agent
      : ["sh", "-c", `sleep ${startDelay}; exec ${agent.map(shellQuote).join(" ")}`];
  const line = [process.execPath, cli, "run", "--", ...command].map(shellQuote).join(" ");
  const session = TmuxSession.start(line, { cwd: repoRoot, width: 100, height: 45 });
  sessions.push(session);
  return session;
}

beforeAll(() => {
  if (!hasTmux()) throw new Error("tmux is needed for the CLI's terminal tests");
  if (!existsSync(cli)) throw new Error("Build first (npm run build)");
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

describe("acp-kit run: the keys people expect", () => {
  it("Esc cancels the running turn", async () => {
    const t = run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("wait for me");
    await t.waitFor("Waiting for you to cancel.");
    t.keys("Escape");
    await t.waitFor("(stopped)");
    await t.waitFor("(the turn ended: cancelled)");
  });

  it("keeps what is typed while the agent starts, and sends it once it is ready", async () => {
    // The agent takes three seconds to start: a person types ahead meanwhile.
    const t = run(3);
    await t.waitFor("type a message");
    expect(t.screen()).not.toContain("CLI test agent 1.2.3");
    t.send("/mode code");
    await t.waitFor("⧗ queued: /mode code");
    // (One line at a time: lines that reach the program in one read are taken as a paste.)
    t.send("where are we");
    // In order once the session is ready: the command, then the prompt.
    await t.waitFor(`in ${repoRoot.replace(/\/$/, "")}`);
    expect(t.screen()).toMatch(/mode: code[\s\S]*› where are we[\s\S]*in \//);
  });

  it("leaves at once, cleanly and with exit 0, on a /quit typed while the agent starts", async () => {
    const t = run(3);
    await t.waitFor("type a message");
    t.send("/quit");
    // Well before the agent would have started; closing it is not the agent's failure.
    const screen = await t.waitFor("[exited", 2_500);
    expect(screen).toMatch(/^\[exited 0\]$/m);
    expect(screen).not.toContain("Connection closed");
    expect(screen).not.toContain("type a message");
  });

  it("queues a prompt sent during a turn, shows it, and sends it after the turn", async () => {
    const t = run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("please stream");
    await t.waitFor("Working…");
    t.send("where are we");
    await t.waitFor("⧗ queued: where are we");
    await t.waitFor("one two three four five");
    await t.waitFor(`in ${repoRoot.replace(/\/$/, "")}`);
    expect(t.screen()).toMatch(/one two three four five[\s\S]*› where are we[\s\S]*in \//);
  });

  it("Esc clears the queue before it cancels anything", async () => {
    const t = run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("wait for me");
    await t.waitFor("Waiting for you to cancel.");
    t.send("where are we");
    await t.waitFor("⧗ queued: where are we");
    t.keys("Escape");
    await t.waitFor("Queue cleared.");
    expect(t.screen()).not.toContain("⧗ queued");
    expect(t.screen()).not.toContain("(stopped)");
    t.keys("Escape");
    await t.waitFor("(the turn ended: cancelled)");
    expect(t.screen()).not.toMatch(/› where are we/);
  });

  it("Shift-Tab switches to the next mode", async () => {
    const t = run();
    await t.waitFor("mode: Ask");
    t.keys("BTab");
    await t.waitFor("mode: Code");
  });

  it("/sessions takes a number from its list", async () => {
    const t = run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("please stream");
    await t.waitFor("one two three four five");
    t.send("/new");
    await t.waitFor("New session session-2.");
    // Alone, /sessions opens a picker of them; Esc leaves it.
    t.send("/sessions");
    await t.waitFor(/ {2}1\. session-1[^\n]*\n[^\n]*❯ 2\. session-2 ✓/);
    t.keys("Escape");
    await t.waitFor("type a message");
    t.send("/sessions 1");
    await t.waitFor("Loaded session session-1.");
  });
});
