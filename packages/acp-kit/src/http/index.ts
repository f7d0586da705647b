/**
 * acp-kit/http: ACP over Streamable HTTP and WebSocket, wire-compatible with the official
 * SDK's experimental transports. The server serves any agent written with
 * `AgentSideConnection` (a Fetch API handler, a Node adapter, WebSocket on `ws`), with
 * opt-in resumable streams, authentication, an Origin allow-list and limits; the clients
 * (`connectHttp`, `connectWebSocket`) give a stream for `ClientSideConnection` that
 * reconnects and resumes by itself.
 *
 * @packageDocumentation
 */
export * from "./server/index.js";
export * from "./client/index.js";
