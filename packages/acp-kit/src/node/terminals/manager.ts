/**
 * {@link TerminalManager}: the client side of `terminal/*`, running commands as local
 * processes.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { ErrorCodes } from "../../base/error-codes.js";
import { RequestError } from "../../jsonrpc/errors.js";
import { silentLogger, type Logger } from "../../base/logger.js";
import type { Client } from "../../peer/client.js";
import type { RequestContext } from "../../peer/agent.js";
import type * as schema from "../../schema/types.gen.js";
import {
  defaultShell,
  mergeEnv,
  resolveCommand,
  resolveCwd,
  resolveOutputLimit,
} from "./command.js";
import {
  DEFAULT_EXIT_DRAIN_MS,
  DEFAULT_MAX_TERMINALS,
  DEFAULT_TERMINAL_OUTPUT_BYTE_LIMIT,
  MAX_TERMINAL_OUTPUT_BYTE_LIMIT,
  type TerminalInfo,
  type TerminalManagerOptions,
} from "./options.js";
import { TerminalProcess, type TerminalProcessOptions } from "./process.js";
import { DEFAULT_KILL_GRACE_MS } from "../process-group.js";

interface Entry {
  readonly info: TerminalInfo;
  readonly proc: TerminalProcess;
}

/** The error for an id that is unknown, released, or another session's. */
function terminalNotFound(terminalId: string): RequestError {
  return new RequestError(ErrorCodes.RESOURCE_NOT_FOUND, `Terminal not found: ${terminalId}`, {
    terminalId,
  });
}

/**
 * Runs the commands an agent asks for and answers its `terminal/*` requests. Its methods
 * have the {@link Client} names and signatures:
 *
 * ```ts
 * const terminals = new TerminalManager({ cwd: (sessionId) => sessions.get(sessionId)?.cwd });
 * const client: Client = {
 *   ...,
 *   createTerminal: (p) => terminals.createTerminal(p),
 *   terminalOutput: (p) => terminals.terminalOutput(p),
 *   waitForTerminalExit: (p, c) => terminals.waitForTerminalExit(p, c),
 *   killTerminal: (p) => terminals.killTerminal(p),
 *   releaseTerminal: (p) => terminals.releaseTerminal(p),
 * };
 * connection.closed.finally(() => terminals.dispose());
 * ```
 *
 * - Commands run in their own process group; kill, release and {@link TerminalManager.dispose} signal the
 *   whole group (`SIGTERM`, then `SIGKILL` after `killGraceMs`), so processes a command
 *   started die with it.
 * - How `command` is run (directly, or through `/bin/sh -c` when it has no `args` and
 *   contains whitespace or shell syntax) is described at `resolveCommand`.
 * - The request's `env` is set over the client's environment (option `env`); `cwd` must be
 *   absolute and defaults to the `cwd` option.
 * - stdout and stderr are interleaved into one output in arrival order. The newest
 *   `outputByteLimit` bytes are kept (default 1 MiB, at most 16 MiB), cut at a character
 *   boundary.
 * - A terminal belongs to the session that created it. An unknown or released id, or one
 *   of another session, is answered `-32002` (resource not found) with `data: { terminalId }`.
 * - Bad params (relative or missing `cwd`, negative limit, a program that does not exist
 *   or cannot be executed) are answered `-32602`; too many terminals (`maxTerminals`) or
 *   a disposed manager `-32603`.
 */
export class TerminalManager implements Pick<
  Required<Client>,
  "createTerminal" | "terminalOutput" | "waitForTerminalExit" | "killTerminal" | "releaseTerminal"
> {
  private readonly terminals = new Map<string, Entry>();
  /** Released terminals whose process group may still be alive. */
  private readonly dying = new Set<TerminalProcess>();
  private starting = 0;
  private closed = false;
  private readonly logger: Logger;

  /**
   * Creates a manager; it runs nothing until asked.
   *
   * @param options - Defaults, limits and live-output callbacks.
   */
  constructor(private readonly options: TerminalManagerOptions = {}) {
    this.logger = options.logger ?? silentLogger;
  }

  /** `terminal/create`: starts the command and answers with its id once it runs. */
  async createTerminal(
    params: schema.CreateTerminalRequest,
  ): Promise<schema.CreateTerminalResponse> {
    this.checkCapacity();
    const terminalId = `term_${randomUUID()}`;
    const { sessionId } = params;
    // Invalid params are answered at once, without waiting for room.
    const startOptions = this.startOptions(params, terminalId);
    // No await between the last check and the reservation: creates made at the same time
    // each see the others' reservations.
    while (this.blockedByReleased()) await this.oneReleasedGone();
    this.checkCapacity();
    this.starting++;
    let proc: TerminalProcess;
    try {
      proc = await TerminalProcess.start(startOptions);
    } finally {
      this.starting--;
    }
    if (this.isClosed()) {
      // Disposed while starting: this one must not survive either.
      proc.forceKill();
      throw new RequestError(ErrorCodes.INTERNAL_ERROR, "Terminals are closed");
    }
    const info: TerminalInfo = {
      terminalId,
      sessionId,
      command: params.command,
      args: [...(params.args ?? [])],
      cwd: startOptions.cwd,
      viaShell: startOptions.command.viaShell,
      pid: proc.pid,
    };
    this.terminals.set(terminalId, { info, proc });
    this.notify("onCreate", () => this.options.onCreate?.({ ...info, args: [...info.args] }));
    return { terminalId };
  }

  /** `terminal/output`: the retained output, and the exit status once exited. */
  terminalOutput(params: schema.TerminalOutputRequest): Promise<schema.TerminalOutputResponse> {
    return this.run(params, ({ proc }) => {
      const { output, truncated } = proc.output.read();
      const result: schema.TerminalOutputResponse = { output, truncated };
      if (proc.exitStatus !== undefined) result.exitStatus = { ...proc.exitStatus };
      return result;
    });
  }

  /**
   * `terminal/wait_for_exit`: resolves with the exit status once the command has exited
   * (at once if it already has). Releasing the terminal while waiting kills the command,
   * so the wait then resolves with the status of that kill (a `signal`). Rejects with
   * `-32800` if the request is cancelled (`context.signal`).
   */
  async waitForTerminalExit(
    params: schema.WaitForTerminalExitRequest,
    context?: RequestContext,
  ): Promise<schema.WaitForTerminalExitResponse> {
    const { proc } = await this.run(params, (entry) => entry);
    return { ...(await proc.waitForExit(context?.signal)) };
  }

  /**
   * `terminal/kill`: stops the command and its process group; the terminal stays valid
   * (output and wait_for_exit still work) until released.
   */
  killTerminal(params: schema.KillTerminalRequest): Promise<schema.KillTerminalResponse> {
    return this.run(params, ({ proc }) => {
      proc.kill();
      return {};
    });
  }

  /**
   * `terminal/release`: kills the command and its process group if anything still runs,
   * and forgets the terminal: its id is invalid from now on.
   */
  releaseTerminal(params: schema.ReleaseTerminalRequest): Promise<schema.ReleaseTerminalResponse> {
    return this.run(params, ({ info }) => {
      this.release(info.terminalId);
      return {};
    });
  }

  /**
   * Releases every terminal of a session (for example when the session closes).
   *
   * @param sessionId - The session whose terminals to release.
   */
  releaseSession(sessionId: string): void {
    for (const { info } of [...this.terminals.values()]) {
      if (info.sessionId === sessionId) this.release(info.terminalId);
    }
  }

  /**
   * The terminals not yet released, optionally of one session.
   *
   * @param sessionId - Only this session's terminals.
   */
  list(sessionId?: string): TerminalInfo[] {
    return [...this.terminals.values()]
      .filter(({ info }) => sessionId === undefined || info.sessionId === sessionId)
      .map(({ info, proc }) => {
        const copy: TerminalInfo = { ...info, args: [...info.args] };
        if (proc.exitStatus !== undefined) copy.exitStatus = { ...proc.exitStatus };
        return copy;
      });
  }

  /**
   * Kills every terminal, released ones still dying included, with their process groups
   * (`SIGTERM`, then `SIGKILL` after `killGraceMs`), and refuses new ones. Call it when the
   * connection closes. The `SIGTERM`s are sent before this returns, so they go out even
   * if the process exits right after; the promise resolves once no group is left running
   * (at most about `killGraceMs`).
   */
  async dispose(): Promise<void> {
    this.closed = true;
    for (const terminalId of [...this.terminals.keys()]) this.release(terminalId);
    await Promise.all([...this.dying].map((proc) => proc.whenGone()));
  }

  /** Same as {@link TerminalManager.dispose} (for `await using`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  private release(terminalId: string): void {
    const entry = this.terminals.get(terminalId);
    if (entry === undefined) return;
    this.terminals.delete(terminalId);
    const { proc } = entry;
    proc.kill();
    this.dying.add(proc);
    void proc.whenGone().then(() => this.dying.delete(proc));
  }

  /**
   * Released terminals count toward `maxTerminals` until their process group is gone, so
   * that create-and-release cannot pile up processes that ignore `SIGTERM`. True when only
   * they stand in the way of a new terminal; `createTerminal` then waits for one to go
   * (each goes at most `killGraceMs` after its release).
   */
  private blockedByReleased(): boolean {
    const live = this.terminals.size + this.starting;
    const max = this.maxTerminals();
    return !this.closed && live < max && live + this.dying.size >= max;
  }

  private oneReleasedGone(): Promise<void> {
    return Promise.race([...this.dying].map((proc) => proc.whenGone()));
  }

  private maxTerminals(): number {
    return this.options.maxTerminals ?? DEFAULT_MAX_TERMINALS;
  }

  private checkCapacity(): void {
    if (this.closed) throw new RequestError(ErrorCodes.INTERNAL_ERROR, "Terminals are closed");
    const max = this.maxTerminals();
    if (this.terminals.size + this.starting >= max) {
      throw new RequestError(
        ErrorCodes.INTERNAL_ERROR,
        `Too many terminals: at most ${max} at once; release one first`,
        { maxTerminals: max },
      );
    }
  }

  /** Validates a create request and turns it into what to spawn. */
  private startOptions(
    params: schema.CreateTerminalRequest,
    terminalId: string,
  ): TerminalProcessOptions {
    const { options } = this;
    const { sessionId } = params;
    const cwd = resolveCwd(params.cwd, this.defaultCwd(sessionId));
    return {
      command: resolveCommand(params.command, params.args, cwd, options.shell ?? defaultShell()),
      cwd,
      env: mergeEnv(options.env ?? process.env, params.env),
      outputByteLimit: resolveOutputLimit(
        params.outputByteLimit,
        options.defaultOutputByteLimit ?? DEFAULT_TERMINAL_OUTPUT_BYTE_LIMIT,
        options.maxOutputByteLimit ?? MAX_TERMINAL_OUTPUT_BYTE_LIMIT,
      ),
      killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      drainMs: options.exitDrainMs ?? DEFAULT_EXIT_DRAIN_MS,
      onOutput: (text, stream) => {
        this.notify("onOutput", () => options.onOutput?.({ terminalId, sessionId, stream, text }));
      },
      onExit: (exitStatus) => {
        this.notify("onExit", () => options.onExit?.({ terminalId, sessionId, exitStatus }));
      },
    };
  }

  /** Read through a method: `dispose()` may have run while `createTerminal` awaited. */
  private isClosed(): boolean {
    return this.closed;
  }

  /** Finds the caller's terminal and applies `action`, turning throws into rejections. */
  private run<T>(
    params: { sessionId: string; terminalId: string },
    action: (entry: Entry) => T,
  ): Promise<T> {
    try {
      const entry = this.terminals.get(params.terminalId);
      if (entry?.info.sessionId !== params.sessionId) {
        throw terminalNotFound(params.terminalId);
      }
      return Promise.resolve(action(entry));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private defaultCwd(sessionId: string): string {
    const { cwd } = this.options;
    if (typeof cwd === "function") return cwd(sessionId) ?? process.cwd();
    return cwd ?? process.cwd();
  }

  private notify(callback: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.error?.(`TerminalManager ${callback} callback failed`, { error });
    }
  }
}
