/**
 * Exit codes of `acp-kit prompt` (and the other commands), documented in `--help`.
 *
 * @module
 */
import { ConnectionError, RequestError } from "acp-kit";
import { AgentExitError, AgentStartupError } from "acp-kit/node";
import type { StopReason } from "acp-kit";

/** Every exit code the CLI uses. */
export const ExitCodes = {
  /** The turn ended normally (`end_turn`), or the command succeeded. */
  OK: 0,
  /** Something else failed (the message says what). */
  FAILURE: 1,
  /** The command line was wrong. */
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
  /** The agent needs authentication first (`-32000`). */
  AUTH_REQUIRED: 20,
  /** The agent exited or crashed. */
  AGENT_CRASHED: 30,
  /** The agent broke the protocol (an invalid or unexpected answer). */
  PROTOCOL_ERROR: 40,
  /** `acp-kit check`: at least one conformance check failed. */
  CHECK_FAILED: 50,
} as const;

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

/** How a failure maps to an exit code and a message. */
export function describeFailure(error: unknown): { exitCode: number; message: string } {
  if (error instanceof AgentStartupError)
    return { exitCode: ExitCodes.AGENT_START, message: error.message };
  if (error instanceof ConnectionError) {
    if (error.cause instanceof AgentExitError || error.code === "connection_closed") {
      return { exitCode: ExitCodes.AGENT_CRASHED, message: error.message };
    }
    if (error.code === "invalid_response") {
      const issues = (error.issues ?? []).map((i) => `${i.path || "/"}: ${i.message}`).join("; ");
      return { exitCode: ExitCodes.PROTOCOL_ERROR, message: `${error.message}: ${issues}` };
    }
    return { exitCode: ExitCodes.FAILURE, message: error.message };
  }
  if (error instanceof RequestError) {
    if (error.code === -32000) return { exitCode: ExitCodes.AUTH_REQUIRED, message: error.message };
    return {
      exitCode: ExitCodes.PROTOCOL_ERROR,
      message: `The agent answered an error: ${error.message} (${error.code})`,
    };
  }
  return {
    exitCode: ExitCodes.FAILURE,
    message: error instanceof Error ? error.message : String(error),
  };
}

/** The exit-code table as help text. */
export const EXIT_CODE_HELP = `Exit codes:
  0   the turn ended normally (end_turn)
  1   other failure
  2   wrong command line
  3   the agent could not be started
  10  refusal
  11  max_tokens
  12  max_turn_requests
  13  cancelled
  20  the agent requires authentication
  30  the agent exited or crashed
  40  the agent broke the protocol
  129 ended by SIGHUP, 143 by SIGTERM (the agent and its terminals are ended first)`;
