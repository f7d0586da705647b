/**
 * Real processes for the tests of `serve` and `--url`: the built CLI (dist/cli.js), `serve`
 * of the remote-agent fixture on a free loopback port, and what the tests look at.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export const repoRoot = new URL("../../", import.meta.url).pathname;
export const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
export const remoteAgent = [
  process.execPath,
  join(repoRoot, "test", "cli", "fixtures", "remote-agent.mjs"),
];

if (!existsSync(cli)) throw new Error("Build first (npm run build): these tests run dist/cli.js");

export interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  /** Resolves with the exit code (or signal name) once `serve` has exited. */
  readonly exited: Promise<number | string>;
}

/**
 * Starts `serve` on a free loopback port for `agent` (default: the remote-agent fixture, as
 * a command after `--`); resolves with its URL.
 */
export async function serve(
  extra: string[] = [],
  env: Record<string, string> = {},
  agent: string[] = ["--", ...remoteAgent],
): Promise<Served> {
  const child = spawn(process.execPath, [cli, "serve", "--port", "0", ...extra, ...agent], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "?")),
  );
  child.stderr.resume();
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const line = out.split("\n")[0];
      if (out.includes("\n") && line !== undefined) resolve(line.trim());
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, url, exited };
}

export async function stop(served: Served): Promise<void> {
  if (served.child.exitCode === null && served.child.signalCode === null) {
    served.child.kill("SIGKILL");
  }
  await served.exited;
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI; `onStdout` sees each chunk of its output (to act once a turn has started). */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; onStdout?: (text: string) => void } = {},
): Promise<Run> {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    options.onStdout?.(stdout);
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  if (options.input !== undefined) child.stdin.end(options.input);
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

/** True while `pid` runs (a zombie does not). */
export { processRunning as alive } from "../support/processes.js";

/** Polls `predicate` until it holds, at most `ms` (a safety bound, not a timing assertion). */
export async function waitFor(predicate: () => boolean, ms = 15_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** The agent pid the remote-agent fixture printed. */
export function agentPid(stdout: string): number {
  const match = /pid (\d+)/.exec(stdout);
  if (match?.[1] === undefined) throw new Error(`no pid in ${JSON.stringify(stdout)}`);
  return Number(match[1]);
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `prompt --url URL hang`; resolves once the turn runs, with the agent's pid. */
export async function hangingPrompt(url: string): Promise<{ pid: number; done: Promise<Run> }> {
  let started!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => (started = resolve));
  const done = runCli(["prompt", "--url", url, "hang"], {
    onStdout: (text) => {
      if (/pid \d+/.test(text)) started(agentPid(text));
    },
  });
  return {
    pid: await Promise.race([pid, done.then((r) => Promise.reject(new Error(r.stderr)))]),
    done,
  };
}

/** Agent pids a test saw; killed at the end in case a failed test left them running. */
export const leftovers: number[] = [];

/** Kills what {@link leftovers} names. */
export function killLeftovers(): void {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}
