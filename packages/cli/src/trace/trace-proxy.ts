/**
 * {@link runTraceProxy}: `acp-kit trace -- <agent command...>`, a transparent proxy that
 * records an ACP session between an editor and an agent.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";
import { ProxySession } from "./proxy-session.js";
import { defaultTracePath } from "./trace-path.js";
import { TraceClock, TraceRecorder } from "./trace-recorder.js";
import { TraceWriter } from "./trace-writer.js";
import { startTracedAgent, type ExitStatus } from "./traced-agent.js";

export type { ExitStatus } from "./traced-agent.js";

/** The default limit on one recorded line: 1 MiB (longer lines are recorded truncated). */
export const DEFAULT_TRACE_MAX_LINE_BYTES = 1024 * 1024;

/** Options of {@link runTraceProxy}. */
export interface TraceProxyOptions {
  /** The agent's command. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** The trace file (default: {@link defaultTracePath}, under the temporary directory). */
  readonly out?: string;
  /** The agent's environment (default: this process's). Never recorded. */
  readonly env?: NodeJS.ProcessEnv;
  /** The agent's working directory (default: this process's). */
  readonly cwd?: string;
  /** Lines longer than this are recorded truncated (default 1 MiB); all are forwarded whole. */
  readonly maxLineBytes?: number;
  /** Record the agent's stderr lines too (default true). Stderr is always passed on. */
  readonly recordStderr?: boolean;
  /** How long the agent may take to exit after stdin ended, in ms (default 3000). */
  readonly stdinGraceMs?: number;
  /** How long after SIGTERM survivors of the group get SIGKILL, in ms (default 2000). */
  readonly killGraceMs?: number;
  /** Records queued for the file beyond this many characters are dropped (default 64 Mi). */
  readonly maxQueueChars?: number;
  /**
   * Pass SIGINT, SIGTERM and SIGHUP to the agent's group (default: true when `stdin` is
   * not given, that is when proxying this process's own stdio).
   */
  readonly handleSignals?: boolean;
  /** Do not name the trace file on stderr at start (warnings are still written). */
  readonly quiet?: boolean;
  /** Where the client's messages come from (default `process.stdin`). */
  readonly stdin?: Readable;
  /** Where the agent's messages go (default `process.stdout`; nothing else is written there). */
  readonly stdout?: Writable;
  /** Where the agent's stderr and the proxy's notices go (default `process.stderr`). */
  readonly stderr?: Writable;
}

/** How a proxy run ended. */
export interface TraceProxyResult extends ExitStatus {
  /**
   * The status for `process.exit()`: the agent's exit code; 128 + the signal number when
   * a signal ended it; 127 (not found) or 126 (any other reason) when it could not start.
   */
  readonly exitCode: number;
  /** The trace file. */
  readonly tracePath: string;
  /** False when the trace file could not be (completely) written. */
  readonly traceWritten: boolean;
  /** Why the agent could not be started, when it could not. */
  readonly error?: Error;
}

/** The exit status a shell would report: the code, or 128 + the signal's number. */
export function exitCodeOf(status: ExitStatus): number {
  if (status.code !== null) return status.code;
  if (status.signal !== null) {
    const number = (constants.signals as Partial<Record<string, number>>)[status.signal];
    return 128 + (number ?? 0);
  }
  return 1;
}

/**
 * Ends this process the way the agent ended: with its exit code, or killed by the same
 * signal (re-raised on itself; if something else handles that signal, it exits with
 * 128 + its number instead). Call it once {@link runTraceProxy} has resolved.
 */
export function exitWithStatus(status: ExitStatus): void {
  if (status.signal !== null && status.code === null && process.platform !== "win32") {
    setTimeout(() => process.exit(exitCodeOf(status)), 500).unref();
    try {
      process.kill(process.pid, status.signal);
      return;
    } catch {
      // Fall through to a plain exit.
    }
  }
  process.exit(exitCodeOf(status));
}

function errorCode(error: Error): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === "string" ? code : undefined;
}

/** Why the agent could not start, in words (a missing `cwd` also reports ENOENT). */
async function startFailure(command: string, cwd: string, error: Error): Promise<string> {
  const what = `cannot start ${JSON.stringify(command)}`;
  if (errorCode(error) === "ENOENT") {
    const cwdExists = await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!cwdExists) return `${what}: its working directory ${JSON.stringify(cwd)} does not exist`;
    return `${what}: command not found (${error.message})`;
  }
  return `${what}: ${error.message}`;
}

/**
 * Runs `command args` as the agent behind a transparent proxy over this process's stdio
 * (or the streams given), recording every line in both directions to a trace file (format:
 * `trace-format.ts`). Resolves once the agent has exited and everything was forwarded and
 * written, with its exit status; pass that to {@link exitWithStatus}.
 *
 * - Bytes pass through unchanged, chunk by chunk, with backpressure; nothing else is ever
 *   written to stdout. Notices (the trace file's name, a failed trace file) go to stderr,
 *   prefixed `acp-kit trace:`, as does everything the agent writes to its stderr.
 * - The recording cannot stall the proxy: it is written asynchronously through a bounded
 *   queue; if the file cannot be written, proxying goes on and one warning is printed.
 * - The agent runs in its own process group, ended when stdin ends and it does not exit
 *   within `stdinGraceMs`, when this process gets SIGINT/SIGTERM/SIGHUP, or when this
 *   process exits (an exit hook SIGKILLs it).
 */
export async function runTraceProxy(options: TraceProxyOptions): Promise<TraceProxyResult> {
  const args = options.args ?? [];
  const cwd = options.cwd ?? process.cwd();
  const out = options.out ?? defaultTracePath();
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_TRACE_MAX_LINE_BYTES;
  const recordStderr = options.recordStderr ?? true;
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const notice = (message: string): void => {
    if (!stderr.destroyed && !stderr.writableEnded) stderr.write(`acp-kit trace: ${message}\n`);
  };

  const clock = new TraceClock();
  const recorderRef: { current?: TraceRecorder } = {};
  const writer = new TraceWriter(out, {
    maxQueueChars: options.maxQueueChars ?? 64 * 1024 * 1024,
    warn: notice,
    droppedRecord: (count) => recorderRef.current?.droppedRecord(count) ?? "",
  });
  const recorder = new TraceRecorder(writer, clock);
  recorderRef.current = recorder;
  if (options.quiet !== true) notice(`recording to ${out}`);
  const header = { command: options.command, args, cwd, maxLineBytes, recordStderr };

  let agent;
  try {
    agent = await startTracedAgent({
      command: options.command,
      args,
      cwd,
      env: options.env ?? process.env,
    });
  } catch (cause) {
    const error = cause instanceof Error ? cause : new Error(String(cause));
    const reason = await startFailure(options.command, cwd, error);
    notice(reason);
    recorder.header({ ...header, pid: null });
    const code = errorCode(error) === "ENOENT" ? 127 : 126;
    recorder.exit(null, null, reason);
    await writer.close(5000);
    endUnlessProcessStream(stdout, stderr);
    return {
      code,
      signal: null,
      exitCode: code,
      tracePath: out,
      traceWritten: !writer.broken,
      error,
    };
  }

  recorder.header({ ...header, pid: agent.pid });
  const session = new ProxySession(agent, recorder, {
    stdin,
    stdout,
    stderr,
    maxLineBytes,
    recordStderr,
    stdinGraceMs: options.stdinGraceMs ?? 3000,
    killGraceMs: options.killGraceMs ?? 2000,
    handleSignals: options.handleSignals ?? options.stdin === undefined,
  });
  const exit = await session.run();
  recorder.exit(exit.code, exit.signal);
  await writer.close(5000);
  await session.flushOutput();
  endUnlessProcessStream(stdout, stderr);
  return { ...exit, exitCode: exitCodeOf(exit), tracePath: out, traceWritten: !writer.broken };
}

/** Ends given streams (tests see the end), never this process's own stdout and stderr. */
function endUnlessProcessStream(...streams: Writable[]): void {
  for (const stream of streams) {
    if (stream === process.stdout || stream === process.stderr) continue;
    if (!stream.writableEnded && !stream.destroyed) stream.end();
  }
}
