/**
 * Exit codes of `acp-kit prompt` (and the other commands), documented in `--help`.
 *
 * @module
 */
import { describePeerError, errorDataText } from "acp-kit";
import { ConnectionError, ErrorCodes, RequestError } from "acp-kit";
import { AgentExitError, AgentStartupError } from "acp-kit/node";
import type { StopReason } from "acp-kit";
import { SettingValueError } from "./session-options.js";
import { SessionUnavailableError } from "./session-memory.js";
import { UsageError } from "./target.js";

/** Every exit code the CLI uses. */
export const ExitCodes = {
  /** The turn ended normally (`end_turn`), or the command succeeded. */
  OK: 0,
  /** Something else failed (the message says what). */
  FAILURE: 1,
  /**
   * The command line was wrong (also a `--mode` or `--model` value the agent does not
   * offer, found once the session opened).
   */
  USAGE: 2,
  /** The agent could not be started (command not found, not executable, no initialize). */
  AGENT_START: 3,
  /** The agent refused (`refusal`). */
  REFUSAL: 10,
  /** The turn hit the token limit (`max_tokens`). */
  MAX_TOKENS: 11,
  /** The turn hit the model-request limit (`max_turn_requests`). */
  MAX_TURN_REQUESTS: 12,
  /** The turn was cancelled (`cancelled`, e.g. Ctrl-C). */
  CANCELLED: 13,
  /**
   * `prompt --fail-on-refusal`: a permission request was refused (by the person asked, by
   * a policy, or for want of anyone to ask), and the turn otherwise ended normally.
   */
  PERMISSION_REFUSED: 14,
  /** `prompt --timeout`: the run took longer than allowed; its turn was cancelled. */
  TIMED_OUT: 15,
  /** The agent needs authentication first (`-32000`). */
  AUTH_REQUIRED: 20,
  /** The agent exited or crashed. */
  AGENT_CRASHED: 30,
  /**
   * The agent answered a request with an error (its own failure: a network error, a
   * missing key, an internal error); the message says what the error and its data say.
   */
  AGENT_ERROR: 31,
  /**
   * The agent broke the protocol: an invalid answer, no answer in time, an answer too large
   * to read, or a stop reason this version does not know.
   */
  PROTOCOL_ERROR: 40,
  /**
   * The session asked for cannot be continued (`prompt --session`/`--continue`,
   * `run --resume`): the agent can neither load nor resume sessions, it does not know the
   * session, or there is none to continue.
   */
  SESSION_UNAVAILABLE: 32,
  /**
   * `--url`: the connection to the remote agent failed (refused, dropped, an HTTP error
   * other than 401) or the server ended it. A 401 is {@link ExitCodes.AUTH_REQUIRED}.
   */
  REMOTE_FAILED: 33,
  /** `acp-kit check`: at least one conformance check failed. */
  CHECK_FAILED: 50,
} as const;

/**
 * The key, in an error's `data`, that marks an answer the `--url` bridge made itself for
 * a request its connection failed (the remote agent never answered it). Its value:
 * `{ status?: number }`, the HTTP status when there was one.
 */
export const REMOTE_FAILURE = "acpKitRemoteFailure";

/** The HTTP status in an answer the `--url` bridge made for a failed request, if it is one. */
function remoteFailure(error: RequestError): { status?: number } | undefined {
  const data = error.data;
  if (typeof data !== "object" || data === null) return undefined;
  const failure = (data as Record<string, unknown>)[REMOTE_FAILURE];
  if (typeof failure !== "object" || failure === null) return undefined;
  const status = (failure as { status?: unknown }).status;
  return typeof status === "number" ? { status } : {};
}

/** The exit code for a stop reason. */
export function exitCodeForStopReason(stopReason: StopReason): number {
  switch (stopReason) {
    case "end_turn":
      return ExitCodes.OK;
    case "refusal":
      return ExitCodes.REFUSAL;
    case "max_tokens":
      return ExitCodes.MAX_TOKENS;
    case "max_turn_requests":
      return ExitCodes.MAX_TURN_REQUESTS;
    case "cancelled":
      return ExitCodes.CANCELLED;
    default:
      return ExitCodes.PROTOCOL_ERROR;
  }
}

/**
 * How a failure maps to an exit code and a message. `target`: the agent it came from; for
 * the `--url` bridge, its exit codes {@link ExitCodes.REMOTE_FAILED} and
 * {@link ExitCodes.AUTH_REQUIRED} name the connection's failure, in the words of its
 * last stderr line.
 */
export function describeFailure(
  error: unknown,
  target?: { readonly remote?: boolean },
): { exitCode: number; message: string } {
  if (error instanceof SettingValueError)
    return { exitCode: ExitCodes.USAGE, message: error.message };
  if (error instanceof SessionUnavailableError)
    return { exitCode: ExitCodes.SESSION_UNAVAILABLE, message: error.message };
  if (error instanceof UsageError) return { exitCode: ExitCodes.USAGE, message: error.message };
  if (error instanceof AgentStartupError)
    return { exitCode: ExitCodes.AGENT_START, message: error.message };
  if (error instanceof ConnectionError) {
    const bridge = target?.remote === true ? bridgeFailure(error.cause) : undefined;
    if (bridge !== undefined) return bridge;
    if (error.cause instanceof AgentExitError || error.code === "connection_closed") {
      return { exitCode: ExitCodes.AGENT_CRASHED, message: error.message };
    }
    switch (error.code) {
      case "invalid_response": {
        const issues = (error.issues ?? [])
          .slice(0, 3)
          .map((i) => `${i.path || "/"}: ${i.message}`)
          .join("; ");
        return {
          exitCode: ExitCodes.PROTOCOL_ERROR,
          message: `The agent broke the protocol: ${error.message}${issues === "" ? "" : `: ${issues}`}`,
        };
      }
      case "timeout":
      case "message_too_large":
        return {
          exitCode: ExitCodes.PROTOCOL_ERROR,
          message: `The agent broke the protocol: ${error.message}`,
        };
      case "cancelled":
        return { exitCode: ExitCodes.CANCELLED, message: error.message };
    }
    return { exitCode: ExitCodes.FAILURE, message: error.message };
  }
  if (error instanceof RequestError) {
    const remote = remoteFailure(error);
    if (remote !== undefined) {
      return {
        exitCode: remote.status === 401 ? ExitCodes.AUTH_REQUIRED : ExitCodes.REMOTE_FAILED,
        message: `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}`,
      };
    }
    const text = describePeerError(error);
    if (error.code === ErrorCodes.AUTH_REQUIRED) {
      const detail = errorDataText(error.data);
      return {
        exitCode: ExitCodes.AUTH_REQUIRED,
        message: `The agent requires authentication (${error.message}${detail === undefined ? "" : `: ${detail}`}).`,
      };
    }
    if (error.code === ErrorCodes.REQUEST_CANCELLED) {
      return { exitCode: ExitCodes.CANCELLED, message: `The request was cancelled: ${text}` };
    }
    return { exitCode: ExitCodes.AGENT_ERROR, message: `The agent reported an error: ${text}` };
  }
  return {
    exitCode: ExitCodes.FAILURE,
    message: error instanceof Error ? error.message : String(error),
  };
}

/**
 * The `--url` bridge's own account of why it ended (see `runRemoteStdio`): its exit code
 * for a failed connection or a 401, and its last stderr line; `undefined` for any other end.
 */
function bridgeFailure(cause: unknown): { exitCode: number; message: string } | undefined {
  if (!(cause instanceof AgentExitError)) return undefined;
  if (cause.code !== ExitCodes.REMOTE_FAILED && cause.code !== ExitCodes.AUTH_REQUIRED)
    return undefined;
  const line = cause.stderrTail
    .filter((text) => text.trim() !== "")
    .at(-1)
    ?.replace(/^acp-kit: /, "");
  const fallback =
    cause.code === ExitCodes.AUTH_REQUIRED
      ? "the server refused the credentials (HTTP 401)"
      : "the connection to the remote agent failed";
  const text = line ?? fallback;
  return { exitCode: cause.code, message: `${text.charAt(0).toUpperCase()}${text.slice(1)}` };
}

/** The exit-code table as help text. */
export const EXIT_CODE_HELP = `Exit codes:
  0   the turn ended normally (end_turn)
  1   other failure
  2   wrong command line (also a --mode or --model value the agent does not offer)
  3   the agent could not be started
  10  refusal
  11  max_tokens
  12  max_turn_requests
  13  cancelled (Ctrl-C)
  14  --fail-on-refusal: a permission request was refused
  15  --timeout: the run took too long (its turn was cancelled)
  20  the agent requires authentication (--url: also the server answered HTTP 401)
  30  the agent exited or crashed
  31  the agent reported an error (its message and data are printed)
  32  the session cannot be continued (--session, --continue, --resume: the agent can
      neither load nor resume sessions, or it has no such session)
  33  --url: the connection to the remote agent failed (refused, dropped, an HTTP error)
      or the server ended it
  40  the agent broke the protocol (invalid answer, no answer, unknown stop reason)
  129 ended by SIGHUP, 143 by SIGTERM (the agent and its terminals are ended first)`;

/**
 * A failure in one line for the user: a peer's error with what its data says (see
 * `describePeerError`), a local error's message.
 */
export function failureText(error: unknown): string {
  return describeFailure(error).message;
}
