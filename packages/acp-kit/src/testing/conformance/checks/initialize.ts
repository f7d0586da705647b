/**
 * Checks of `initialize`: version negotiation and the shape of the answer.
 *
 * @module
 */
import { PROTOCOL_VERSION } from "../../../peer/methods.js";
import type { InitializeRequest } from "../../../schema/types.gen.js";
import { VERSION } from "../../../base/version.js";
import { failed, passed, type CheckOutcome } from "../catalog.js";
import type { WireLog } from "../log.js";
import type { WireOutcome } from "../wire.js";
import { describe, exchangeOf, invalidBecause } from "./support.js";

/** The version a client from the future asks for. */
export const FUTURE_PROTOCOL_VERSION = 999;

/** The `initialize` params of a checker connection. */
export function initializeParams(protocolVersion: number, capable: boolean): InitializeRequest {
  return {
    protocolVersion,
    clientCapabilities: capable
      ? { fs: { readTextFile: true, writeTextFile: true }, terminal: true }
      : { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "acp-kit-check", title: "acp-kit conformance check", version: VERSION },
  };
}

function versionOf(outcome: WireOutcome | undefined): unknown {
  if (outcome?.kind !== "result") return undefined;
  const result = outcome.result;
  return typeof result === "object" && result !== null
    ? (result as Record<string, unknown>).protocolVersion
    : undefined;
}

/** `initialize` answers a valid result: capabilities well-typed, no unrequested terminal auth. */
export function checkInitializeResult(log: WireLog, outcome: WireOutcome): CheckOutcome {
  if (outcome.kind !== "result") {
    return failed(`initialize ${describe(outcome)}`, exchangeOf(log, outcome));
  }
  const invalid = invalidBecause("InitializeResponse", outcome.result);
  if (invalid !== undefined)
    return failed(`The initialize result is ${invalid}`, exchangeOf(log, outcome));
  const result = outcome.result as Record<string, unknown>;
  const methods = Array.isArray(result.authMethods) ? (result.authMethods as unknown[]) : [];
  const terminal = methods.some(
    (method) =>
      typeof method === "object" &&
      method !== null &&
      (method as { type?: unknown }).type === "terminal",
  );
  if (terminal) {
    return failed(
      'authMethods lists a "terminal" method although the client did not send auth.terminal: true',
      exchangeOf(log, outcome),
    );
  }
  const notes: string[] = [];
  if (result.agentInfo === undefined || result.agentInfo === null) {
    notes.push("No agentInfo: agents SHOULD say who they are (rule 13).");
  }
  if (result.agentCapabilities === undefined) {
    notes.push("No agentCapabilities: agents SHOULD declare them (rule 20).");
  }
  return passed(notes);
}

/**
 * Version negotiation: asked for 1 the agent answers 1; asked for a version from the
 * future it answers its newest (a real version, not an echo of the request).
 */
export function checkProtocolVersion(
  log: WireLog,
  current: WireOutcome,
  future: WireOutcome | undefined,
): CheckOutcome {
  const answer = versionOf(current);
  if (current.kind !== "result") {
    return failed(
      `initialize with protocolVersion ${PROTOCOL_VERSION} ${describe(current)}`,
      exchangeOf(log, current),
    );
  }
  if (answer !== PROTOCOL_VERSION) {
    return failed(
      `Asked for protocol version ${PROTOCOL_VERSION}, the agent answered ${JSON.stringify(answer)}; ` +
        `an agent that supports version ${PROTOCOL_VERSION} must answer with it`,
      exchangeOf(log, current),
    );
  }
  if (future === undefined) return passed(["The request for a future version could not be made."]);
  if (future.kind !== "result") {
    return failed(
      `initialize with protocolVersion ${FUTURE_PROTOCOL_VERSION} ${describe(future)}; the agent must ` +
        "answer with the newest version it supports",
      exchangeOf(log, future),
    );
  }
  const newest = versionOf(future);
  if (typeof newest !== "number" || !Number.isInteger(newest) || newest < 1 || newest > 65535) {
    return failed(
      `Asked for version ${FUTURE_PROTOCOL_VERSION}, the agent answered ${JSON.stringify(newest)}, not a protocol version`,
      exchangeOf(log, future),
    );
  }
  if (newest >= FUTURE_PROTOCOL_VERSION) {
    return failed(
      `Asked for version ${FUTURE_PROTOCOL_VERSION}, the agent answered ${newest}: it echoed the request ` +
        "instead of answering with the newest version it supports",
      exchangeOf(log, future),
    );
  }
  if (newest < PROTOCOL_VERSION) {
    return failed(
      `Asked for version ${FUTURE_PROTOCOL_VERSION}, the agent answered ${newest}, older than version ` +
        `${PROTOCOL_VERSION} which it supports`,
      exchangeOf(log, future),
    );
  }
  return passed(newest === PROTOCOL_VERSION ? [] : [`The agent's newest version is ${newest}.`]);
}
