/**
 * {@link AgentProcessWatch}: follows a spawned agent process: its exit, its stderr, the
 * end of its stdio, and the termination of its process group.
 *
 * The connection is closed with an {@link AgentExitError} once the exit is known and
 * everything the agent wrote before it was read: stdout usually ends before Node reports
 * the exit, and the last stderr lines (often a stack trace) may arrive after it, so each
 * side waits for the other, for a bounded time.
 *
 * A helper the agent started (an MCP or language server) inherits its stdio and may keep
 * stdout or stderr open after the agent died, ignoring SIGTERM until the kill grace ends.
 * So the watch does not wait for those pipes to end: what the agent wrote before it
 * exited is already in the pipes when the exit is reported and is read within
 * milliseconds, so once a pipe has been quiet for {@link QUIET_MS} since the exit (or the
 * exit is {@link SETTLE_MAX_MS} old and the connection keeps up), the exit is reported.
 *
 * @module
 */
import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { endProcessGroup } from "../process-group.js";
import { settlesWithin } from "../settles-within.js";
import type { AgentExit } from "./errors.js";
import type { SpawnSettings } from "./options.js";
import { stdinWritable, stdoutReadable } from "./streams.js";
import { StderrRing } from "./stderr-ring.js";

/** How long the end of stdout and the exit wait for each other. */
const EXIT_WAIT_MS = 2000;
/** How long an exit waits for the rest of stderr before it is reported. */
const STDERR_WAIT_MS = 2000;
/** How long an exit waits for a busy connection to read what came before it. */
const BACKLOG_WAIT_MS = 30_000;
/** How long a pipe still held open after the exit must be silent to count as drained. */
const QUIET_MS = 25;
/** Longest wait after the exit for a pipe that a leftover process keeps writing to. */
const SETTLE_MAX_MS = 100;
/** How often the settling after an exit looks at the pipes. */
const SETTLE_POLL_MS = 5;

/** Milliseconds on a monotonic clock. */
function now(): number {
  return performance.now();
}

/** Resolves after `ms` milliseconds. */
function delay(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

/** What the watch does to the connection. */
export interface WatchedConnection {
  /**
   * Closes the connection because the agent exited. Returns `false` when it does not (yet:
   * the output then simply ends, for whoever reads it to see).
   */
  closeWithExit(exit: AgentExit): boolean | void;
  /** Resolves when the connection is closed. */
  readonly closed: Promise<void>;
}

/**
 * See the module comment.
 * @internal
 */
export class AgentProcessWatch {
  /** Resolves when the process exits. */
  readonly exited: Promise<AgentExit>;
  private status: AgentExit | undefined;
  private readonly ring: StderrRing | undefined;
  private readonly stderrDone: Promise<void>;
  private stdoutEnded = false;
  private stderrEnded = false;
  /** When the exit was reported, on the {@link now} clock. */
  private exitAt = 0;
  /** When stdout and stderr last delivered data, on the {@link now} clock. */
  private stdoutDataAt = 0;
  private stderrDataAt = 0;
  private connection: WatchedConnection | undefined;
  private closingWithExit: Promise<boolean> | undefined;
  private terminating: Promise<void> | undefined;

  constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    private readonly settings: SpawnSettings,
  ) {
    let resolveExit: (exit: AgentExit) => void = () => undefined;
    this.exited = new Promise<AgentExit>((resolve) => (resolveExit = resolve));
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (this.status !== undefined) return;
      this.status = { code, signal };
      this.exitAt = now();
      resolveExit(this.status);
      this.afterExit();
    };
    if (child.exitCode !== null || child.signalCode !== null) {
      queueMicrotask(() => onExit(child.exitCode, child.signalCode));
    } else {
      child.once("exit", onExit);
    }

    const stderr = child.stderr;
    if (settings.stderr === "pipe" && stderr !== null) {
      const logger = settings.connection.logger;
      const ring = new StderrRing({
        capacity: settings.stderrLines,
        onLine: settings.onStderr,
        onError: (error) => logger?.error?.("The onStderr callback threw", { error }),
      });
      this.ring = ring;
      stderr.on("data", (chunk: Buffer) => {
        this.stderrDataAt = now();
        ring.push(chunk);
      });
      this.stderrDone = new Promise<void>((resolve) => {
        let done = false;
        const finish = (): void => {
          if (done) return;
          done = true;
          this.stderrEnded = true;
          ring.end();
          resolve();
        };
        stderr.once("end", finish);
        stderr.once("close", finish);
      });
    } else {
      this.stderrDone = Promise.resolve();
    }
  }

  /** How the process ended, once it has. */
  get exitStatus(): AgentExit | undefined {
    return this.status;
  }

  /** The last `count` stderr lines (all kept lines by default). */
  stderrTail(count?: number): string[] {
    return this.ring?.tail(count) ?? [];
  }

  /** The readable the connection reads the agent's messages from. */
  stdoutReadable(stdout: Readable): ReadableStream<Uint8Array> {
    const markEnded = (): void => {
      this.stdoutEnded = true;
    };
    stdout.once("end", markEnded);
    stdout.once("close", markEnded);
    stdout.on("data", () => {
      this.stdoutDataAt = now();
    });
    return stdoutReadable(stdout, async () => {
      if (!(await settlesWithin(this.exited, EXIT_WAIT_MS))) return false;
      return this.closeWithExit();
    });
  }

  /** The writable the connection writes to the agent's stdin. */
  stdinWritable(stdin: Writable): WritableStream<Uint8Array> {
    return stdinWritable(stdin, async () => {
      if (await settlesWithin(this.exited, EXIT_WAIT_MS)) await this.closeWithExit();
    });
  }

  /** Connects the watch to the connection it closes when the agent exits. */
  attach(connection: WatchedConnection): void {
    this.connection = connection;
  }

  /**
   * Ends the process group: SIGTERM, then SIGKILL to whatever is left after the grace
   * period. Resolves once the agent itself has exited. Runs once.
   */
  terminate(): Promise<void> {
    this.terminating ??= this.endGroup();
    return this.terminating;
  }

  private endGroup(): Promise<void> {
    const { child } = this;
    return endProcessGroup(
      {
        pid: this.pid,
        exited: this.exited,
        hasExited: () => this.status !== undefined,
        killLeader: (signal) => child.kill(signal),
      },
      { graceMs: this.settings.killGraceMs },
    );
  }

  /** Resolves with false when the connection declined to close (see {@link WatchedConnection}). */
  private closeWithExit(): Promise<boolean> {
    this.closingWithExit ??= (async () => {
      await this.stderrSettled();
      const exit = this.status;
      if (exit === undefined) return true;
      return this.connection?.closeWithExit(exit) !== false;
    })();
    return this.closingWithExit;
  }

  private afterExit(): void {
    // What the agent left in its group (helpers, the real agent behind a wrapper) goes too.
    void this.terminate();
    const connection = this.connection;
    if (connection !== undefined) void this.closeAfterExit(connection);
  }

  /**
   * Resolves once stderr ended, or (a leftover process holds it open) has been quiet for
   * {@link QUIET_MS} since the exit, or the exit is {@link SETTLE_MAX_MS} old; an
   * unfinished last line then counts as a line. Before the exit, waits for it first
   * (bounded by {@link STDERR_WAIT_MS}).
   */
  private async stderrSettled(): Promise<void> {
    if (this.ring === undefined) return;
    if (this.status === undefined) await settlesWithin(this.exited, STDERR_WAIT_MS);
    const exitAt = this.status === undefined ? now() : this.exitAt;
    for (;;) {
      if (this.stderrEnded) return;
      const t = now();
      if (t - Math.max(exitAt, this.stderrDataAt) >= QUIET_MS || t - exitAt >= SETTLE_MAX_MS) {
        break;
      }
      await settlesWithin(this.stderrDone, SETTLE_POLL_MS);
    }
    this.ring.flushPartial();
  }

  /**
   * Normally the end of stdout closes the connection. If stdout stays open after the exit
   * (a leftover process holds it), the exit closes it once stdout has been quiet for
   * {@link QUIET_MS} (or the exit is {@link SETTLE_MAX_MS} old) and the connection has
   * read everything; a connection still busy reading what the agent wrote before exiting
   * gets up to {@link BACKLOG_WAIT_MS}.
   */
  private async closeAfterExit(connection: WatchedConnection): Promise<void> {
    const state = { closed: false };
    void connection.closed.then(() => (state.closed = true));
    // A consumer stuck for good (a handler that never settles) must not keep this
    // process alive forever: after a while the exit wins.
    for (;;) {
      await delay(SETTLE_POLL_MS);
      if (state.closed || this.stdoutEnded) return;
      const t = now();
      const caughtUp = this.child.stdout?.isPaused() !== true;
      const quiet = t - Math.max(this.exitAt, this.stdoutDataAt) >= QUIET_MS;
      if (caughtUp && (quiet || t - this.exitAt >= SETTLE_MAX_MS)) break;
      if (t - this.exitAt >= BACKLOG_WAIT_MS) break;
    }
    await this.closeWithExit();
  }
}
