/**
 * `acp-kit run --plain` with stdin on a pipe, as an editor or a script drives it: closing
 * stdin means that no more prompts come (the running turn goes on to its end, then the
 * program exits); Ctrl-C (SIGINT) cancels the turn. Runs the built CLI.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const scenario = join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json");
const scriptedArgs = [process.execPath, scriptedAgent, "--no-delays", scenario];

beforeAll(() => {
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Run `npm run build` first: these tests run the built CLI.");
  }
});

interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything printed to stdout so far. */
  stdout(): string;
  /** Resolves once stdout contains `text`; rejects after `ms`. */
  waitFor(text: string, ms?: number): Promise<void>;
  /** The exit code, once the process has exited. */
  readonly exited: Promise<number | null>;
}

const started: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

function runPlain(agent: readonly string[] = scriptedArgs): Running {
  const child = spawn(process.execPath, [cli, "run", "--plain", "--", ...agent], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: "pipe",
  });
  started.push(child);
  let out = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    for (const waiter of [...waiters]) {
      if (out.includes(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return {
    child,
    stdout: () => out,
    exited,
    waitFor: (text, ms = 30_000) =>
      new Promise<void>((resolve, reject) => {
        if (out.includes(text)) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`no ${JSON.stringify(text)} within ${ms} ms:\n${out}\n${err}`)),
          ms,
        );
        waiters.push({
          text,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
  };
}

/** The exit code, or `"still running"` when the process has not exited within `ms`. */
function exitWithin(run: Running, ms: number): Promise<number | null | "still running"> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    run.exited,
    new Promise<"still running">((resolve) => (timer = setTimeout(resolve, ms, "still running"))),
  ]).finally(() => clearTimeout(timer));
}

describe("acp-kit run --plain with stdin on a pipe", { timeout: 60_000 }, () => {
  it("lets the running turn go on when stdin closes; SIGINT cancels it (exit 13)", async () => {
    const run = runPlain();
    await run.waitFor("connected to");
    run.child.stdin.write("please wait\n");
    // The scripted agent's turn now runs until it is cancelled.
    await run.waitFor("Waiting for you to cancel.");
    run.child.stdin.end();
    await new Promise((resolve) => run.child.stdin.once("close", resolve));
    run.child.kill("SIGINT");
    expect(await exitWithin(run, 10_000)).toBe(13);
    const out = run.stdout();
    expect(out).not.toContain("stdin closed");
    // The agent saw session/cancel: its after-cancel steps ran and the turn ended cancelled.
    expect(out).toContain("(stopped)");
    expect(out).toContain("(cancelled)");
  });

  it("sends every line, and ends normally when stdin closes between turns", async () => {
    const run = runPlain();
    await run.waitFor("connected to");
    run.child.stdin.write("where are we\n");
    await run.waitFor("(end_turn)");
    run.child.stdin.write("hello\n");
    await run.waitFor("default answer");
    await run.waitFor("default answer\n(end_turn)");
    run.child.stdin.end();
    expect(await exitWithin(run, 10_000)).toBe(0);
    expect(run.stdout()).not.toContain("stdin closed");
    expect(run.stdout().match(/\(end_turn\)/g)).toHaveLength(2);
  });
});
