/**
 * `!command` in the live view: runs a shell command locally, in the session's directory,
 * and shows its output in the transcript. Nothing of it is sent to the agent.
 *
 * @module
 */
import { spawn } from "node:child_process";

/** How a shell command ended, and what it printed (stdout and stderr, interleaved). */
export interface ShellResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
  /** Set when the command could not be started. */
  readonly error?: string;
}

/** The most output kept from one command, in characters. */
const MAX_OUTPUT = 1024 * 1024;

/**
 * Runs `command` with the system shell (`/bin/sh`, `cmd.exe` on Windows) in `cwd`, with no
 * input, and collects its output.
 */
export function runShell(command: string, cwd: string): Promise<ShellResult> {
  return new Promise((resolve) => {
    let output = "";
    const child = spawn(command, { cwd, shell: true, stdio: ["ignore", "pipe", "pipe"] });
    const take = (chunk: Buffer): void => {
      if (output.length < MAX_OUTPUT) output += chunk.toString("utf8");
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", (error) =>
      resolve({ code: null, signal: null, output, error: error.message }),
    );
    child.on("close", (code, signal) => resolve({ code, signal, output }));
  });
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
  else if (result.signal !== null) parts.push(`(killed by ${result.signal})`);
  else if (result.code !== 0) parts.push(`(exit ${String(result.code)})`);
  return parts.join("\n");
}
