/**
 * The runtime-neutral part of the HTTP server (no `node:` imports, no `ws`): the Fetch API
 * core, its WebSocket interface, auth helpers and wire constants. Use it on Deno, Bun,
 * workers or any Fetch-style server; `createAcpNodeServer` lives in the full entry.
 *
 * @module
 */
export {
  createAcpHttpHandler,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_BUFFERED_BYTES_PER_STREAM,
  DEFAULT_MAX_STREAMS_PER_CONNECTION,
  DEFAULT_MAX_INBOUND_BYTES_PER_CONNECTION,
  type AcpHttpHandler,
  type AcpWebSocketUpgrade,
} from "./handler.js";
export type { AcpSocket, AcpSocketEvents } from "./websocket.js";
export { bearerTokenAuth, isLoopbackOrigin } from "./auth.js";
export { pipeAgentStream } from "./bridge.js";
export type {
  AcpAgentContext,
  AcpAgentFactory,
  AcpHttpHandlerOptions,
  AcpPrincipal,
  AcpResumableOptions,
  AcpServerEvent,
  AuthenticateResult,
  ConnectionCloseInfo,
  ConnectionCloseReason,
} from "./options.js";
export * from "../shared/wire.js";
