/**
 * The client side of `acp-kit/http`: talk to a remote ACP agent over Streamable HTTP or
 * a WebSocket, with a plain message stream for `ClientSideConnection`.
 *
 * @module
 */
export { connectHttp, HttpStatusError } from "./http.js";
export {
  connectWebSocket,
  type WebSocketClientOptions,
  type WebSocketConstructor,
} from "./websocket.js";
export { MemoryCookieStore, type CookieStore } from "./cookies.js";
export {
  ResumeGapError,
  TRANSPORT_ERROR_CODE,
  transportInfo,
  type TransportInfo,
  type RemoteClientOptions,
  type RemoteEvent,
  type RemoteStream,
  type ReconnectOptions,
} from "./options.js";
export {
  remoteAllows,
  remoteClientCapabilities,
  restrictForRemote,
  type RemoteCapabilityOptions,
} from "./profile.js";
