/**
 * `run` with a task, as people use `claude -p`, `codex exec` or acpx: piped on stdin (the
 * program waits for the answer, then exits), given after the agent's name (the live view
 * starts with it), and `--continue` to go on with the last session. Real processes and
 * pipes; the live view in tmux.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { testTempDir } from "../support/temp-dir.js";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const scenario = join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json");

/**
 * A project directory, a state directory and a user agent table naming the scripted agent
 * `scripted` (its sessions kept in a file, so that a later run can load them).
 */
function workspace() {
  const dir = testTempDir("acp-kit-run-task-");
  const project = join(dir, "project");
  const config = join(dir, "config");
  mkdirSync(project);
  mkdirSync(join(config, "acp-kit"), { recursive: true });
  const args = [scriptedAgent, "--sessions-file", join(dir, "agent-sessions.json"), scenario];
  writeFileSync(
    join(config, "acp-kit", "agents.json"),
    JSON.stringify({ agents: { scripted: { command: process.execPath, args } } }),
  );
  const env = { ACP_KIT_STATE_DIR: join(dir, "state"), XDG_CONFIG_HOME: config };
  /** `acp-kit ...words` with `input` on stdin (a pipe, closed once written). */
  const run = (words: string[], input = "") => {
    const result = spawnSync(process.execPath, [cli, ...words], {
      cwd: project,
      input,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", ...env },
      timeout: 60_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  return { project, env, run };
}

const sessions: TmuxSession[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

beforeAll(() => {
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Run `npm run build` first: these tests run the built CLI.");
  }
});

describe("echo task | acp-kit run AGENT", { timeout: 60_000 }, () => {
  it("runs the task, waits for the whole answer, and exits 0", () => {
    const w = workspace();
    // The reply streams word by word: stdin has ended long before the turn does.
    const result = w.run(["run", "scripted"], "please stream\n");
    expect(result.stdout).not.toContain("cancelling");
    expect(result.stdout).toContain("> please stream");
    expect(result.stdout).toContain("one two three four five\n(end_turn)");
    expect(result.code).toBe(0);
  });

  it("sends every line piped, each after the answer to the one before", () => {
    const w = workspace();
    const result = w.run(["run", "scripted"], "please stream\nwhere are we\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /> please stream\none two three four five\n\(end_turn\)\n> where are we\nin \/.*\n\(end_turn\)/,
    );
  });

  it("exits with the code of the last turn (a refusal: 10)", () => {
    const w = workspace();
    const result = w.run(["run", "scripted"], "refuse\n");
    expect(result.stdout).toContain("No.\n(refusal)");
    expect(result.code).toBe(10);
  });
});

describe('acp-kit run AGENT "task"', { timeout: 60_000 }, () => {
  it("starts with the task, then takes stdin's lines", () => {
    const w = workspace();
    const result = w.run(["run", "scripted", "where", "are", "we"], "please stream\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /> where are we\nin \/[^\n]*project\n\(end_turn\)\n> please stream\none two three four five/,
    );
  });

  it("takes the task before -- when the agent is a command", () => {
    const w = workspace();
    const result = w.run(["run", "where are we", "--", process.execPath, scriptedAgent, scenario]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("> where are we\nin /");
    // The command to resume names the agent, not the task.
    expect(result.stderr).toContain(`--resume session-1 -- ${process.execPath} ${scriptedAgent}`);
    expect(result.stderr).not.toContain("where are we");
  });

  it.runIf(hasTmux())("opens the live view with the task sent, ready for more", async () => {
    const w = workspace();
    const line = [process.execPath, cli, "run", "scripted", "please stream"]
      .map(shellQuote)
      .join(" ");
    const t = TmuxSession.start(line, { cwd: w.project, width: 100, height: 30, env: w.env });
    sessions.push(t);
    await t.waitFor("one two three four five");
    t.send("where are we");
    const screen = await t.waitFor(/in \/[^\n]*project/);
    expect(screen).toMatch(/› please stream[\s\S]*one two three four five[\s\S]*› where are we/);
  });
});

describe("acp-kit run AGENT --continue", { timeout: 60_000 }, () => {
  it("goes on with the last session here; with none, exits 32", async () => {
    const w = workspace();
    const none = w.run(["run", "--continue", "scripted"]);
    expect(none.code).toBe(32);
    expect(none.stdout).toContain("No session to continue");
    expect(w.run(["run", "scripted", "please stream"]).code).toBe(0);
    // Plain: the history is replayed, then the new prompt.
    const plain = w.run(["run", "--continue", "scripted"], "where are we\n");
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/> please stream\none two three four five[\s\S]*> where are we/);
    expect(plain.stderr).toContain("--resume session-1");
    expect(w.run(["run", "--continue", "--resume", "x", "scripted"]).code).toBe(2);
    if (!hasTmux()) return;
    // The live view, as a person opens it again.
    const line = [process.execPath, cli, "run", "scripted", "--continue"].map(shellQuote).join(" ");
    const t = TmuxSession.start(line, { cwd: w.project, width: 100, height: 30, env: w.env });
    sessions.push(t);
    await t.waitFor(/› where are we[\s\S]*type a message/);
    expect(t.screen()).toMatch(
      /› please stream[\s\S]*one two three four five[\s\S]*› where are we/,
    );
  });
});
