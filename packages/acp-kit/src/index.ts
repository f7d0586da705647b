/**
 * acp-kit: the Agent Client Protocol for TypeScript.
 *
 * The classic API (`Agent`, `Client`, `AgentSideConnection`, `ClientSideConnection`,
 * `ndJsonStream`, `RequestError`, `TerminalHandle`, ...) on a validated, fast JSON-RPC
 * engine. This entry is runtime-neutral: Web Streams only, nothing from `node:`.
 *
 * @packageDocumentation
 */

// Typed sides
export { AgentSideConnection } from "./peer/agent-side-connection.js";
export { ClientSideConnection } from "./peer/client-side-connection.js";
export { TerminalHandle, type TerminalCalls } from "./peer/terminal-handle.js";
export type { Agent, RequestContext } from "./peer/agent.js";
export type { Client } from "./peer/client.js";
export type { AcpConnectionOptions } from "./peer/acp-connection.js";
export { PROTOCOL_VERSION, methods } from "./peer/methods.js";
export { VERSION } from "./base/version.js";

// Agent-side helpers: sessions, prompt turns, tool calls, plans, permissions
export * from "./agent/index.js";

// Session state: a thread model folded from session/update
export * from "./session/index.js";

// Protocol types, validation and the method table
export type * from "./schema/types.gen.js";
export {
  AGENT_METHODS,
  CLIENT_METHODS,
  PROTOCOL_METHODS,
  METHOD_SPECS,
  type AgentRequestTypes,
  type AgentNotificationTypes,
  type ClientRequestTypes,
  type ClientNotificationTypes,
} from "./schema/methods.gen.js";
export type { MethodSpec, MethodHandler } from "./schema/method-spec.js";
export { validate, isValid } from "./schema/validate.js";
export type { ValidatedType } from "./schema/validators.gen.js";
export type {
  ValidationIssue,
  ValidationResult,
  ValidateOptions,
  RawValidator,
} from "./base/validation.js";

// JSON-RPC engine and transports
export { ndJsonStream, DEFAULT_MAX_MESSAGE_BYTES } from "./transport/ndjson.js";
export type { NdJsonStream, NdJsonStreamOptions } from "./transport/ndjson.js";
export {
  memoryStreamPair,
  memoryTransportPair,
  type StreamPair,
  type TransportPair,
} from "./transport/memory.js";
export { isTransport } from "./transport/transport.js";
export type {
  Transport,
  TransportSink,
  TransportContext,
  OversizedMessage,
  EnvelopeInfo,
} from "./transport/transport.js";
export { RequestError, ConnectionError, MessageTooLargeError } from "./jsonrpc/errors.js";
export { ErrorCodes } from "./base/error-codes.js";
export type { ConnectionErrorCode } from "./jsonrpc/errors.js";
export { describePeerError, errorDataText, type PeerErrorLike } from "./jsonrpc/error-text.js";
export {
  JsonRpcConnection,
  type ConnectionOptions,
  type MessageObserver,
  type SendRequestOptions,
} from "./jsonrpc/connection.js";
export { peerRequestObserver, type PeerRequestEvent } from "./jsonrpc/observe-requests.js";
export type { Router, RequestRoute, NotificationRoute } from "./jsonrpc/dispatch.js";
export type { ResultShape } from "./jsonrpc/pending.js";
export type { InboundRequestContext } from "./jsonrpc/inbound.js";
export { consoleLogger, silentLogger } from "./base/logger.js";
export type { Logger, LogFields, LogLevel } from "./base/logger.js";
export type {
  AnyMessage,
  AnyRequest,
  AnyResponse,
  AnyNotification,
  ErrorResponse,
  JsonRpcId,
  MaybePromise,
  Result,
  Stream,
} from "./base/messages.js";
