/**
 * `acp-kit run` with a v2 agent, in a real terminal (tmux): the live view folds the
 * agent's own v2 updates, so a v2 diff shows as the patch it is (not the text v1 would
 * get through the bridge) and the agent's own terminal shows its output.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => join(repoRoot, "test", "cli", "fixtures", name);
const sessions: TmuxSession[] = [];

/** The scripted agent playing `scenario` in v2 only (a v1 initialize gets -32022). */
function v2Agent(scenario: string): string[] {
  return [process.execPath, scriptedAgent, "--no-delays", "--protocol", "2", scenario];
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

describe("acp-kit run with a v2 agent", () => {
  it("shows the agent's v2 diff as a patch and its own terminal's output", async () => {
    const dir = testTempDir("acp-cli-v2-view-");
    const scenario = join(dir, "scenario.json");
    writeFileSync(
      scenario,
      JSON.stringify({
        agent: { info: { name: "v2-view-agent", version: "2.0.0" } },
        turns: [
          {
            steps: [
              {
                toolCall: "Edit notes.txt",
                kind: "edit",
                content: [{ diff: "notes.txt", oldText: "one\n", newText: "one\ntwo\n" }],
              },
              { toolUpdate: { status: "completed" } },
              { toolCall: "Run node", kind: "execute" },
              {
                terminal: process.execPath,
                args: ["-e", "console.log('agent terminal says hi')"],
              },
              { toolUpdate: { status: "completed" } },
              { text: "All done." },
            ],
          },
        ],
      }),
    );
    const command = [process.execPath, cli, "run", "--", process.execPath, scriptedAgent]
      .concat(["--no-delays", "--protocol", "2", scenario])
      .map(shellQuote)
      .join(" ");
    const t = TmuxSession.start(command, { cwd: dir, width: 100, height: 40 });
    sessions.push(t);
    await t.waitFor("ACP v2");
    t.send("go");
    const screen = await t.waitFor("All done.");
    // The patch's lines, not the "@@ ... " text block of v1's view.
    expect(screen).toContain(join(dir, "notes.txt"));
    expect(screen).toMatch(/^\s*\+two\s*$/m);
    expect(screen).not.toContain("diff --git");
    expect(screen).toContain("agent terminal says hi");
    expect(screen).not.toContain("(no output yet)");
  });

  it("logs in as with a v1 agent: the methods listed, chosen, then auth/login", async () => {
    const command = [process.execPath, cli, "run", "--", ...v2Agent(fixture("auth-scenario.json"))]
      .map(shellQuote)
      .join(" ");
    const t = TmuxSession.start(command, { cwd: repoRoot, width: 100, height: 40 });
    sessions.push(t);
    await t.waitFor("❯ 1. Use a token");
    t.keys("Enter");
    await t.waitFor("Logging in with Use a token…");
    await t.waitFor("type a message");
    t.send("hello");
    await t.waitFor("logged in and answering");
  });

  it("prompt: the same exit codes and login hint as with a v1 agent", () => {
    const run = (scenario: string, text: string) =>
      spawnSync(process.execPath, [cli, "prompt", text, "--", ...v2Agent(fixture(scenario))], {
        cwd: repoRoot,
        encoding: "utf8",
        input: "",
      });
    const auth = run("auth-scenario.json", "hi");
    expect(auth.status).toBe(20);
    expect(auth.stderr).toContain("Use a token");
    const refusal = run("cli-scenario.json", "refuse");
    expect(refusal.status).toBe(10);
    expect(refusal.stderr).toContain("stop reason: refusal");
    const ok = run("cli-scenario.json", "please stream");
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("one two three four five");
  });

  it("prompt (auto) with a v1 agent that exits on a v2 initialize: started again, in v1", () => {
    const refuser = join(repoRoot, "test", "cli", "fixtures", "refuses-v2-agent.mjs");
    const result = spawnSync(
      process.execPath,
      [cli, "prompt", "hi", "--", process.execPath, refuser],
      {
        cwd: repoRoot,
        encoding: "utf8",
        input: "",
      },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("pong: hi");
  });
});
