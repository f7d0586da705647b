/**
 * The `acp-kit trace` and `acp-kit trace view` commands, as called by `src/cli/main.ts`.
 *
 * @module
 */
import { statSync } from "node:fs";
import { UsageError, type AgentTarget } from "../target.js";
import { viewTrace } from "./trace-view.js";
import { writeTraceHtml } from "./trace-html.js";
import { exitWithStatus, runTraceProxy } from "./trace-proxy.js";

/** Options of `acp-kit trace`. */
export interface TraceCommandOptions {
  /** `--out <file>`: the trace file (default under `$TMPDIR/acp-kit-traces/`). */
  readonly out?: string;
}

/** Options of `acp-kit trace view`. */
export interface TraceViewCommandOptions {
  /** `--html <file>`: write a self-contained HTML page there instead of printing. */
  readonly html?: string;
  /** `--full`: do not fold long payloads, do not cut lines to the terminal's width. */
  readonly full?: boolean;
  /** Colour the output (false when stdout is not a TTY or `NO_COLOR` is set). */
  readonly color: boolean;
}

/**
 * `acp-kit trace [--out FILE] -- <agent command...>` or `acp-kit trace [--out FILE] NAME`
 * (a named agent, as for `run`): runs the agent behind the recording proxy over this
 * process's stdio. Resolves with the agent's exit code once it has exited
 * and everything was forwarded. When a signal killed the agent, this process is killed by
 * the same signal instead (so the editor sees what it would have seen without the proxy).
 *
 * @param target - The agent: a command and its arguments (the words after `--`), or a
 *   named agent resolved as `run` does (its environment added to this process's).
 * @param options - Where to write the trace.
 */
export async function runTraceCommand(
  target: readonly string[] | AgentTarget,
  options: TraceCommandOptions = {},
): Promise<number> {
  const [command = "", ...args] = isWords(target) ? target : [target.command, ...target.args];
  const env = isWords(target) ? undefined : target.env;
  const result = await runTraceProxy({
    command,
    args,
    ...(env === undefined ? {} : { env: { ...process.env, ...env } }),
    ...(options.out === undefined ? {} : { out: options.out }),
  });
  // Nothing more will be read: let the process end even if the editor keeps its end open.
  process.stdin.destroy();
  if (result.signal !== null && result.code === null) exitWithStatus(result);
  return result.exitCode;
}

function isWords(target: readonly string[] | AgentTarget): target is readonly string[] {
  return Array.isArray(target);
}

/**
 * `acp-kit trace view FILE [--html OUT] [--full]`: prints the trace as a timeline on
 * stdout, or writes it as an HTML page (then names the page on stdout). Resolves with the
 * exit code (0); rejects when the file cannot be read or is not a trace.
 *
 * @param file - The trace file.
 * @param options - HTML output, folding, colours.
 */
export async function runTraceView(
  file: string,
  options: TraceViewCommandOptions,
): Promise<number> {
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats === undefined) throw new UsageError(`${file} does not exist.`);
  if (!stats.isFile()) throw new UsageError(`${file} is not a file.`);
  if (options.html !== undefined) {
    await writeTraceHtml(file, options.html);
    process.stdout.write(`wrote ${options.html}\n`);
    return 0;
  }
  const full = options.full === true;
  const width = !full && process.stdout.isTTY ? process.stdout.columns : 0;
  const text = await viewTrace(file, {
    color: options.color,
    width,
    ...(full ? { foldBytes: Infinity } : {}),
  });
  await new Promise<void>((resolve, reject) =>
    process.stdout.write(text, (error) => (error == null ? resolve() : reject(error))),
  );
  return 0;
}
