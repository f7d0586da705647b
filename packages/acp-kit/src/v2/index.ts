/**
 * `acp-kit/v2`: ACP v2, a draft that this entry tracks at one pinned schema revision (the
 * official `@agentclientprotocol/sdk` 2.4.0 package's `schema/v2/schema.unstable.json`;
 * its sha256 is in the generated files' header and in docs/v2.md). Every v2 type, the
 * validators (`validateV2`, `isValidV2`) and the method table. Types may change with the
 * draft in any release; the v1 API of `acp-kit` does not.
 *
 * ```ts
 * import { AGENT_METHODS, validateV2, type SessionUpdate } from "acp-kit/v2";
 *
 * const result = validateV2("SessionUpdate", params.update);
 * if (result.ok) handle(result.value);
 * ```
 *
 * @module
 */
export type * from "../schema/v2/types.gen.js";
export {
  AGENT_METHODS,
  CLIENT_METHODS,
  PROTOCOL_METHODS,
  METHOD_SPECS,
  type AgentRequestTypes,
  type AgentNotificationTypes,
  type ClientRequestTypes,
  type ClientNotificationTypes,
} from "../schema/v2/methods.gen.js";
export type { MethodSpec, MethodHandler } from "../schema/method-spec.js";
export { validateV2, isValidV2 } from "../schema/v2/validate.js";
export type { ValidatedType } from "../schema/v2/validators.gen.js";
export type { ValidationIssue, ValidationResult, ValidateOptions } from "../base/validation.js";

export { reduceSessionV2, terminalOutputText } from "../session/reduce-v2.js";

export type { Agent, Client, RequestContext } from "./agent.js";
export { AgentSideConnection } from "./agent-side-connection.js";
export { ClientSideConnection } from "./client-side-connection.js";
export {
  AgentSession,
  MessageWriter,
  ToolCallWriter,
  TerminalWriter,
  type AgentSessionOptions,
  type NewTerminal,
  type NewToolCall,
  type SessionSink,
  type Turn,
  type TurnHandler,
  type TurnOutcome,
  type TurnStopReason,
} from "./agent-session.js";
export { RequestError } from "../jsonrpc/errors.js";
export { ndJsonStream } from "../transport/ndjson.js";

/** The protocol version this entry speaks: ACP v2 (a draft). */
export const PROTOCOL_VERSION_V2 = 2;
export {
  protocolRouter,
  ProtocolRouter,
  type ProtocolRouterOptions,
  type RoutedConnection,
  type RoutedSession,
} from "./protocol-router.js";
export {
  negotiate,
  NegotiationError,
  type NegotiateOptions,
  type Negotiated,
  type NegotiationAttempt,
  type ProtocolChoice,
} from "./negotiate.js";
export { bridge, type Bridge, type BridgeOptions, type BridgeVersions } from "./bridge.js";
export type { LossyEvent } from "./lossy.js";
