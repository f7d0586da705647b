/**
 * `!command` in the live view: runs a shell command locally, in the session's directory,
 * and shows its output in the transcript. Nothing of it is sent to the agent.
 *
 * @module
 */
import { spawn } from "node:child_process";
import {
  endProcessGroup,
  groupRunning,
  trackGroup,
  untrackGroup,
  USES_PROCESS_GROUPS,
  TerminalOutputBuffer,
  type GroupLeader,
} from "acp-kit/internal";

/** How a shell command ended, and what it printed (stdout and stderr, interleaved). */
export interface ShellResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
  /** Set when the command could not be started. */
  readonly error?: string;
  /** Set when it was stopped (Ctrl-C). */
  readonly stopped?: boolean;
}

/** A shell command running: how it ends, and how to stop it. */
export interface RunningShell {
  readonly command: string;
  /** Settles once it ended, and nothing it started holds its output any more. */
  readonly result: Promise<ShellResult>;
  /**
   * Ends it and what it started: SIGTERM to its process group, SIGKILL to what is left
   * after `graceMs`. Resolves once nothing of it runs.
   */
  stop(graceMs?: number): Promise<void>;
}

/** The most output kept from one command (its end), in bytes. */
const MAX_OUTPUT = 1024 * 1024;

/**
 * Runs `command` with the system shell (`/bin/sh`, `cmd.exe` on Windows) in `cwd`, with no
 * input, and collects its output. It runs in a process group of its own (not on Windows),
 * which the exit hook of acp-kit's process groups ends if this program leaves first: a
 * `!tail -f` never outlives the live view.
 */
export function runShell(command: string, cwd: string): RunningShell {
  // Its last MiB, decoded per stream (a character split between two reads stays whole).
  const output = new TerminalOutputBuffer(MAX_OUTPUT);
  let stopped = false;
  let exited = false;
  const child = spawn(command, {
    cwd,
    shell: true,
    stdio: ["ignore", "pipe", "pipe"],
    detached: USES_PROCESS_GROUPS,
  });
  const pid = child.pid;
  if (pid !== undefined && USES_PROCESS_GROUPS) trackGroup(pid);
  const leaderExited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      exited = true;
      resolve();
    });
    child.once("error", () => {
      exited = true;
      resolve();
    });
  });
  const leader: GroupLeader | undefined =
    pid === undefined
      ? undefined
      : {
          pid,
          exited: leaderExited,
          hasExited: () => exited,
          killLeader: (signal) => child.kill(signal),
        };
  const forget = (): void => {
    if (leader !== undefined && USES_PROCESS_GROUPS && !groupRunning(leader))
      untrackGroup(pid ?? 0);
  };
  const result = new Promise<ShellResult>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => output.write("stdout", chunk));
    child.stderr.on("data", (chunk: Buffer) => output.write("stderr", chunk));
    const text = (): string => {
      output.end("stdout");
      output.end("stderr");
      return output.read().output;
    };
    child.on("error", (error) =>
      resolve({ code: null, signal: null, output: text(), error: error.message }),
    );
    child.on("close", (code, signal) => {
      forget();
      resolve({ code, signal, output: text(), ...(stopped ? { stopped: true } : {}) });
    });
  });
  let stopping: Promise<void> | undefined;
  return {
    command,
    result,
    stop(graceMs = 2000) {
      stopped = true;
      stopping ??= leader === undefined ? Promise.resolve() : endProcessGroup(leader, { graceMs });
      return stopping;
    },
  };
}

/**
 * What the transcript shows for a command: `! command`, its output (the last `maxLines`
 * lines, saying how many are left out) and how it ended when it failed.
 */
export function shellText(command: string, result: ShellResult, maxLines = 40): string {
  const lines = result.output.replace(/\n$/, "").split("\n");
  const shown = lines.length > maxLines ? lines.slice(-maxLines) : lines;
  const parts = [`! ${command}`];
  if (lines.length > maxLines) parts.push(`… ${lines.length - maxLines} earlier lines`);
  if (result.output !== "") parts.push(...shown);
  if (result.error !== undefined) parts.push(`(could not run it: ${result.error})`);
  else if (result.stopped === true) parts.push("(stopped)");
  else if (result.signal !== null) parts.push(`(killed by ${result.signal})`);
  else if (result.code !== 0) parts.push(`(exit ${String(result.code)})`);
  return parts.join("\n");
}
