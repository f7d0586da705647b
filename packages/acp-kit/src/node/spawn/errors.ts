/**
 * The errors of {@link spawnAgent}: {@link AgentExitError} (the agent exited; it is the
 * `cause` of the `connection_closed` errors its pending requests reject with) and
 * {@link AgentStartupError} (the agent could not be started, or did not answer
 * `initialize` in time).
 *
 * @module
 */

/** How an agent process ended: an exit code, or the signal that killed it. */
export interface AgentExit {
  /** The exit code, or `null` when a signal ended the process. */
  readonly code: number | null;
  /** The signal that ended the process, or `null` when it exited by itself. */
  readonly signal: NodeJS.Signals | null;
}

/** Quotes stderr lines for an error message (or says why there are none). */
function quoteTail(tail: readonly string[] | undefined): string {
  if (tail === undefined) return " (its stderr was not captured)";
  if (tail.length === 0) return " (it wrote nothing to stderr)";
  return `; its last stderr lines:\n${tail.map((line) => `  | ${line}`).join("\n")}`;
}

/** "exited with code 1" / "was killed by signal SIGKILL". */
function describeExit(exit: AgentExit): string {
  if (exit.signal !== null) return `was killed by signal ${exit.signal}`;
  return `exited with code ${exit.code ?? "unknown"}`;
}

/**
 * The agent process exited (or was killed) while its connection was open.
 *
 * Pending requests then reject with a `ConnectionError("connection_closed")` whose
 * message starts `Connection closed: the agent exited with code 1; its last stderr
 * lines: ...` and whose `cause` is this error.
 *
 * ```ts
 * try {
 *   await agent.connection.prompt(params);
 * } catch (error) {
 *   if (error instanceof ConnectionError && error.cause instanceof AgentExitError) {
 *     console.error(`agent died (code ${error.cause.code})`, error.cause.stderrTail);
 *   }
 * }
 * ```
 */
export class AgentExitError extends Error {
  /** The exit code, or `null` when a signal ended the process. */
  readonly code: number | null;
  /** The signal that ended the process, or `null`. */
  readonly signal: NodeJS.Signals | null;
  /** The last lines the agent wrote to stderr (empty when stderr was not captured). */
  readonly stderrTail: readonly string[];

  /**
   * Describes an exit.
   *
   * @param exit - The exit code or signal.
   * @param stderrTail - The last stderr lines, or `undefined` when stderr was not captured.
   */
  constructor(exit: AgentExit, stderrTail: readonly string[] | undefined) {
    super(`the agent ${describeExit(exit)}${quoteTail(stderrTail)}`);
    this.name = "AgentExitError";
    this.code = exit.code;
    this.signal = exit.signal;
    this.stderrTail = stderrTail ?? [];
  }
}

/** The startup phase that failed: starting the process, or its `initialize` answer. */
export type AgentStartupPhase = "spawn" | "initialize";

/** Why an agent could not be started. */
export type AgentStartupErrorCode =
  /** The command was not found (`ENOENT`). */
  | "command_not_found"
  /** The command exists but may not be executed (`EACCES`). */
  | "permission_denied"
  /** The working directory does not exist or is not a directory. */
  | "invalid_cwd"
  /** Starting the process failed for another reason. */
  | "spawn_failed"
  /** The phase did not finish within its time limit. */
  | "timeout";

/** Options of an {@link AgentStartupError}. */
export interface AgentStartupErrorOptions {
  /** The failing phase. */
  readonly phase: AgentStartupPhase;
  /** Why it failed. */
  readonly code: AgentStartupErrorCode;
  /** The command that was started. */
  readonly command: string;
  /** The last stderr lines, or `undefined` when stderr was not captured. */
  readonly stderrTail?: readonly string[] | undefined;
  /** The underlying error. */
  readonly cause?: unknown;
}

/**
 * The agent could not be started (`phase: "spawn"`: the command does not exist, may not
 * be executed, or the working directory is missing) or did not answer `initialize` in
 * time (`phase: "initialize"`, `code: "timeout"`). The message says what happened and
 * what to do, and quotes the agent's last stderr lines when there are any.
 *
 * ```ts
 * try {
 *   await spawnAgent({ command: "my-agent" });
 * } catch (error) {
 *   if (error instanceof AgentStartupError && error.code === "command_not_found") {
 *     console.error("Install my-agent first");
 *   }
 * }
 * ```
 */
export class AgentStartupError extends Error {
  /** The phase that failed. */
  readonly phase: AgentStartupPhase;
  /** Why it failed. */
  readonly code: AgentStartupErrorCode;
  /** The command that was started. */
  readonly command: string;
  /** The last lines the agent wrote to stderr (empty when none or not captured). */
  readonly stderrTail: readonly string[];

  /**
   * Creates a startup error.
   *
   * @param message - What happened and what to do (the stderr tail is appended).
   * @param options - Phase, code, command, stderr tail and cause.
   */
  constructor(message: string, options: AgentStartupErrorOptions) {
    const tail = options.stderrTail;
    const quoted = tail !== undefined && tail.length > 0 ? quoteTail(tail) : "";
    super(
      `${message}${quoted}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "AgentStartupError";
    this.phase = options.phase;
    this.code = options.code;
    this.command = options.command;
    this.stderrTail = tail ?? [];
  }
}

/**
 * The startup error for a failed `spawn()` (the child's `error` event).
 * @internal
 */
export function spawnFailure(error: unknown, command: string, cwd: string): AgentStartupError {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const detail = error instanceof Error ? error.message : String(error);
  const quoted = JSON.stringify(command);
  if (errno === "ENOENT") {
    return new AgentStartupError(
      `Could not start the agent: the command ${quoted} was not found (${detail}). ` +
        "Check that it is installed and on the PATH of the agent's environment, " +
        "or give its absolute path.",
      { phase: "spawn", code: "command_not_found", command, cause: error },
    );
  }
  if (errno === "EACCES" || errno === "EPERM") {
    return new AgentStartupError(
      `Could not start the agent: the command ${quoted} may not be executed (${detail}). ` +
        "Check that it is an executable file (chmod +x) and not a directory.",
      { phase: "spawn", code: "permission_denied", command, cause: error },
    );
  }
  return new AgentStartupError(
    `Could not start the agent ${quoted} in ${JSON.stringify(cwd)}: ${detail}`,
    { phase: "spawn", code: "spawn_failed", command, cause: error },
  );
}
