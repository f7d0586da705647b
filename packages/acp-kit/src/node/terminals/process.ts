/**
 * {@link TerminalProcess}: one spawned command, its process group, its output and its
 * exit status.
 *
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { RequestError } from "../../jsonrpc/errors.js";
import type { TerminalExitStatus } from "../../schema/types.gen.js";
import {
  groupEscapees,
  signalEscapees,
  trackGroup,
  untrackGroup,
  USES_PROCESS_GROUPS,
  type Escapee,
} from "../process-group.js";
import type { ResolvedCommand } from "./command.js";
import { TerminalOutputBuffer, type TerminalStream } from "./output.js";

/** How to start a {@link TerminalProcess}. */
export interface TerminalProcessOptions {
  /** What to run. */
  command: ResolvedCommand;
  /** The working directory (absolute). */
  cwd: string;
  /** The full environment. */
  env: NodeJS.ProcessEnv;
  /** The most output bytes to keep. */
  outputByteLimit: number;
  /** How long a killed group has to exit after `SIGTERM` before it gets `SIGKILL`. */
  killGraceMs: number;
  /** How long to wait for the pipes to drain after the command exits. */
  drainMs: number;
  /** Called with each piece of decoded output, in arrival order. */
  onOutput: (text: string, stream: TerminalStream) => void;
  /** Called once with the exit status. */
  onExit: (status: TerminalExitStatus) => void;
}

/** Spawn failures that the request's command or cwd caused. */
const BAD_COMMAND_CODES = new Set(["ENOENT", "EACCES", "ENOTDIR", "EISDIR", "ENOEXEC"]);
const POSIX = USES_PROCESS_GROUPS;

/**
 * A running (or finished) command in its own process group (POSIX: spawned detached, so
 * `kill(-pid)` reaches every process it started that stayed in the group).
 */
export class TerminalProcess {
  /** The retained output. */
  readonly output: TerminalOutputBuffer;
  /** The exit status once the command has exited and its output has drained. */
  exitStatus: TerminalExitStatus | undefined;
  private readonly exited: Promise<TerminalExitStatus>;
  private groupGone = false;
  private killTimer: NodeJS.Timeout | undefined;
  private resolveGone: () => void = () => undefined;
  private readonly gone = new Promise<void>((resolveGone) => {
    this.resolveGone = resolveGone;
  });

  private constructor(
    private readonly child: ChildProcess,
    /** The process id (and, on POSIX, the process group id). */
    readonly pid: number,
    private readonly options: TerminalProcessOptions,
  ) {
    this.output = new TerminalOutputBuffer(options.outputByteLimit);
    // If this process exits while the group lives, the exit hook kills the group.
    if (POSIX) trackGroup(pid);
    this.exited = new Promise((resolveExit) => {
      this.listen(resolveExit);
    });
  }

  /**
   * Spawns the command; resolves once it runs, rejects with a {@link RequestError} when it
   * cannot start (`-32602` for a missing or non-executable program, `-32603` otherwise).
   *
   * @param options - What to run and where output and exit go.
   */
  static start(options: TerminalProcessOptions): Promise<TerminalProcess> {
    const { command } = options;
    let child: ChildProcess;
    try {
      child = spawn(command.file, command.args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: POSIX,
        windowsHide: true,
      });
    } catch (error) {
      // Arguments Node refuses outright (such as a NUL byte in a string).
      const data = { command: command.file, message: (error as Error).message };
      return Promise.reject(RequestError.invalidParams(data, `cannot run ${command.file}`));
    }
    return new Promise((resolveStart, rejectStart) => {
      child.once("spawn", () => {
        if (child.pid === undefined) {
          rejectStart(RequestError.internalError(undefined, "the command has no process id"));
          return;
        }
        resolveStart(new TerminalProcess(child, child.pid, options));
      });
      child.on("error", (error: NodeJS.ErrnoException) => {
        // After a successful start, errors (a failed signal on Windows) change nothing.
        if (child.pid !== undefined) return;
        const data = { command: command.file, code: error.code, message: error.message };
        rejectStart(
          error.code !== undefined && BAD_COMMAND_CODES.has(error.code)
            ? RequestError.invalidParams(data, `cannot run ${command.file}`)
            : RequestError.internalError(data, `cannot run ${command.file}`),
        );
      });
    });
  }

  /**
   * Resolves with the exit status once the command has exited (at once if it has).
   *
   * @param signal - Rejects the wait with `-32800` (request cancelled) when it aborts.
   */
  async waitForExit(signal?: AbortSignal): Promise<TerminalExitStatus> {
    if (signal === undefined) return this.exited;
    if (signal.aborted) throw RequestError.requestCancelled();
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(RequestError.requestCancelled());
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([this.exited, aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Stops the command and everything in its process group: `SIGTERM` now, `SIGKILL` after
   * the grace period to whatever is left. Also reaches processes that outlived the
   * command itself (such as `sleep 100 &`). On Linux, processes that left the group
   * (`setsid`, bash job control) but still descend from the command are found in `/proc`
   * and signalled the same way; one whose parent already exited cannot be found. Calling
   * it again while a kill is underway does nothing.
   */
  kill(): void {
    if (this.groupGone || this.killTimer !== undefined) return;
    // Found before the group is signalled: once their parents in it die, they are adopted
    // by init and no longer lead back here.
    const escapees = this.findEscapees();
    if (!this.signalGroup("SIGTERM")) return;
    const signalled = signalEscapees(escapees, "SIGTERM");
    if (signalled.length > 0) {
      // On their own clock: the group may be gone long before them.
      setTimeout(() => signalEscapees(signalled, "SIGKILL"), this.options.killGraceMs);
    }
    this.killTimer = setTimeout(() => {
      this.forceKill();
    }, this.options.killGraceMs);
  }

  /**
   * Sends `SIGKILL` to the whole group now, and to the processes that left it but still
   * descend from the command (see {@link TerminalProcess.kill}); the group is forgotten
   * afterwards.
   */
  forceKill(): void {
    if (this.groupGone) return;
    const escapees = this.findEscapees();
    this.signalGroup("SIGKILL");
    signalEscapees(escapees, "SIGKILL");
    this.markGone();
  }

  /**
   * The processes the command started that left its group (`setsid`, bash job control)
   * and still descend from it; Linux only (`[]` elsewhere).
   */
  private findEscapees(): Escapee[] {
    return POSIX ? groupEscapees(this.pid) : [];
  }

  /**
   * Resolves once nothing is left to kill: the group was found empty after the command
   * exited, or got `SIGKILL`.
   */
  whenGone(): Promise<void> {
    return this.gone;
  }

  private markGone(): void {
    clearTimeout(this.killTimer);
    if (POSIX) untrackGroup(this.pid);
    this.groupGone = true;
    this.resolveGone();
  }

  /** Signals the group; `false` when nothing is left in it (it is then marked gone). */
  private signalGroup(signal: NodeJS.Signals | 0): boolean {
    try {
      if (POSIX) process.kill(-this.pid, signal);
      else this.child.kill(signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") {
        this.markGone();
        return false;
      }
    }
    return true;
  }

  /** After the command exits: is anything left in its group? */
  private probeGroup(): void {
    if (POSIX) {
      if (!this.groupGone) this.signalGroup(0);
    } else {
      this.markGone(); // no process groups: nothing outlives the command for us
    }
  }

  private listen(resolveExit: (status: TerminalExitStatus) => void): void {
    const { child, options } = this;
    const open = new Set<TerminalStream>();
    const attach = (name: TerminalStream): void => {
      const stream = child[name];
      if (stream === null) return;
      open.add(name);
      stream.on("error", () => undefined); // a broken pipe just ends the output
      stream.on("data", (chunk: Buffer) => this.deliver(this.output.write(name, chunk), name));
      stream.once("close", () => {
        this.deliver(this.output.end(name), name);
        open.delete(name);
        if (open.size === 0) settle();
      });
    };
    let status: TerminalExitStatus | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    // The exit status is reported once the pipes have closed, so that it comes after all
    // the output. A process that outlives the command (`sleep 100 &`) may keep the pipes
    // open: then it is reported `drainMs` after the exit, and later output still counts.
    const settle = (): void => {
      if (status === undefined || this.exitStatus !== undefined) return;
      clearTimeout(drainTimer);
      this.exitStatus = status;
      options.onExit(status);
      resolveExit(status);
    };
    attach("stdout");
    attach("stderr");
    child.once("exit", (code, signal) => {
      status = { exitCode: code, signal };
      this.probeGroup();
      if (open.size === 0) settle();
      else drainTimer = setTimeout(settle, options.drainMs);
    });
  }

  private deliver(text: string, stream: TerminalStream): void {
    if (text !== "") this.options.onOutput(text, stream);
  }
}
