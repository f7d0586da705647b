/**
 * acp-kit's ACP server over Streamable HTTP and WebSocket: wire-compatible with the
 * official SDK 2.4.0, with opt-in resumable streams, authentication, an Origin allow-list
 * and limits. See docs/remote.md.
 *
 * @module
 */
export {
  createAcpHttpHandler,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_BUFFERED_BYTES_PER_STREAM,
  DEFAULT_MAX_STREAMS_PER_CONNECTION,
  type AcpHttpHandler,
  type AcpWebSocketUpgrade,
} from "./handler.js";
export type { AcpSocket, AcpSocketEvents } from "./websocket.js";
export { bearerTokenAuth, isLoopbackOrigin } from "./auth.js";
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
export {
  attachAcpHandler,
  createAcpNodeServer,
  type AcpNodeServer,
  type AttachOptions,
} from "./node.js";
export * from "../shared/wire.js";
