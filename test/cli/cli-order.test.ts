/**
 * The live view's transcript tells what happened, in order, and its permission box is
 * safe by default, in a real terminal (tmux) against the scripted agent mimicking real
 * agents: Claude lists "Always Allow" first; Codex asks about a command before it reports
 * it and never reports a refused one.
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

function run(): TmuxSession {
  const line = [process.execPath, cli, "run", "--", process.execPath, scriptedAgent, scenario]
    .map(shellQuote)
    .join(" ");
  const session = TmuxSession.start(line, { cwd: repoRoot, width: 100, height: 45 });
  sessions.push(session);
  return session;
}

/** Asserts that `texts` appear in `screen` in this order (each after the one before). */
function inOrder(screen: string, ...texts: string[]): void {
  let from = 0;
  for (const text of texts) {
    const at = screen.indexOf(text, from);
    expect(at, `"${text}" after position ${from} in:\n${screen}`).toBeGreaterThanOrEqual(0);
    from = at + text.length;
  }
}

beforeAll(() => {
  if (!hasTmux()) throw new Error("tmux is needed for the CLI's terminal tests");
  if (!existsSync(cli)) throw new Error("Build first (npm run build)");
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

describe("acp-kit run: a safe permission box", () => {
  it("highlights the one-time allow when the agent lists Always Allow first", async () => {
    const t = run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("ask like claude");
    await t.waitFor("Permission requested");
    await t.waitFor("❯ 2. Allow");
    expect(t.screen()).not.toContain("❯ 1. Always Allow");
    t.keys("Enter");
    await t.waitFor("ALLOWED");
    // Allowed once, so the next edit asks again (an "always" would be remembered).
    t.send("ask like claude");
    await t.waitFor(/ALLOWED[\s\S]*Permission requested/);
    await t.waitFor("❯ 2. Allow");
  });
});

describe("acp-kit run: the transcript in the order things happened", () => {
  it("prints how a turn ended after that turn's items", async () => {
    const t = run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("refuse");
    const refused = await t.waitFor("(the turn ended: refusal)");
    inOrder(refused, "› refuse", "No.", "(the turn ended: refusal)");
    t.send("fail midway");
    const failed = await t.waitFor("boom");
    inOrder(failed, "› fail midway", "Starting.", "boom");
  });

  it("keeps a command the agent asked about and you refused, where it was asked", async () => {
    const t = run();
    await t.waitFor("CLI test agent 1.2.3");
    t.send("run like codex");
    await t.waitFor("Permission requested");
    await t.waitFor("rm -rf build");
    t.keys("Escape");
    const screen = await t.waitFor("Understood, I left the build alone.");
    inOrder(
      screen,
      "› run like codex",
      "I will clean the build.",
      "rm -rf build",
      "refused by you",
      "Understood, I left the build alone.",
    );
  });

  it("keeps the call of a box cancelled with Ctrl-C, and says once that the turn was cancelled", async () => {
    const t = run();
    await t.waitFor("CLI test agent 1.2.3");
    // Announced, then asked about (as Claude does).
    t.send("permission");
    await t.waitFor("Permission requested");
    t.keys("C-c");
    const first = await t.waitFor("(the turn ended: cancelled)");
    inOrder(first, "› permission", "Delete build output", "(the turn ended: cancelled)");
    await t.waitFor("Ctrl-C again to exit.");
    // Asked about before it is announced (as Codex does).
    t.keys("a");
    t.keys("BSpace");
    t.send("run like codex");
    await t.waitFor(/run like codex[\s\S]*Permission requested/);
    t.keys("C-c");
    const second = await t.waitFor(/run like codex[\s\S]*\(the turn ended: cancelled\)/);
    inOrder(
      second,
      "› run like codex",
      "I will clean the build.",
      "rm -rf build",
      "cancelled at the permission request",
      "(the turn ended: cancelled)",
    );
    // A cancel that drops queued prompts says so in the same notice.
    t.send("wait for me");
    await t.waitFor(/wait for me[\s\S]*Waiting for you to cancel\./);
    t.send("where are we");
    await t.waitFor("⧗ queued: where are we");
    t.keys("C-c");
    await t.waitFor("(the turn ended: cancelled; 1 queued prompt dropped)");
    // One notice per cancel: the transcript says it, the hint does not say it again.
    const screen = t.screen();
    expect(screen.match(/the turn ended: cancelled/g)).toHaveLength(3);
    expect(screen).not.toMatch(/^\(1 queued prompt dropped\)/m);
    expect(screen).not.toContain("The turn was cancelled");
  });
});
