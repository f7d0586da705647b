/**
 * {@link AgentProcessWatch}: follows a spawned agent process: its exit, its stderr, the
 * end of its stdio, and the termination of its process group.
 *
 * The connection is closed with an {@link AgentExitError} once the exit is known and
 * everything the agent wrote before it was read: stdout usually ends before Node reports
 * the exit, and the last stderr lines (often a stack trace) may arrive after it, so each
 * side waits for the other, for a bounded time.
 *
 * @module
 */
import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { endProcessGroup } from "./process-group.js";
import { settlesWithin } from "./settles-within.js";
import type { AgentExit } from "./spawn-errors.js";
import type { SpawnSettings } from "./spawn-options.js";
import { stdinWritable, stdoutReadable } from "./spawn-streams.js";
import { StderrRing } from "./stderr-ring.js";

/** How long the end of stdout and the exit wait for each other. */
const EXIT_WAIT_MS = 2000;
/** How long an exit waits for the rest of stderr before it is reported. */
const STDERR_WAIT_MS = 2000;
/** How long an exit waits for a busy connection to read what came before it. */
const BACKLOG_WAIT_MS = 30_000;

/** What the watch does to the connection. */
export interface WatchedConnection {
  /** Closes the connection because the agent exited. */
  closeWithExit(exit: AgentExit): void;
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
  private connection: WatchedConnection | undefined;
  private closingWithExit: Promise<void> | undefined;
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
      stderr.on("data", (chunk: Buffer) => ring.push(chunk));
      this.stderrDone = new Promise<void>((resolve) => {
        let done = false;
        const finish = (): void => {
          if (done) return;
          done = true;
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
    return stdoutReadable(stdout, async () => {
      if (!(await settlesWithin(this.exited, EXIT_WAIT_MS))) return false;
      await this.closeWithExit();
      return true;
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

  private closeWithExit(): Promise<void> {
    this.closingWithExit ??= (async () => {
      await settlesWithin(this.stderrDone, STDERR_WAIT_MS);
      const exit = this.status;
      if (exit !== undefined) this.connection?.closeWithExit(exit);
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
   * Normally the end of stdout closes the connection. If stdout stays open after the exit
   * (a leftover process holds it), the exit closes it after a while, unless the connection
   * is still busy reading what the agent wrote before exiting.
   */
  private async closeAfterExit(connection: WatchedConnection): Promise<void> {
    const state = { closed: false };
    void connection.closed.then(() => (state.closed = true));
    // A consumer stuck for good (a handler that never settles) must not keep this
    // process alive forever: after a while the exit wins.
    for (let waited = 0; waited < BACKLOG_WAIT_MS; waited += EXIT_WAIT_MS) {
      await settlesWithin(connection.closed, EXIT_WAIT_MS);
      if (state.closed || this.stdoutEnded) return;
      if (this.child.stdout?.isPaused() !== true) break;
    }
    await this.closeWithExit();
  }
}
