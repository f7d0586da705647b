/**
 * acp-kit's ACP server over Streamable HTTP and WebSocket: wire-compatible with the
 * official SDK 2.4.0, with opt-in resumable streams, authentication, an Origin allow-list
 * and limits. See docs/remote.md.
 *
 * @module
 */
export * from "./core.js";
export {
  attachAcpHandler,
  createAcpNodeServer,
  type AcpNodeServer,
  type AcpNodeServerOptions,
  type AttachOptions,
} from "./node.js";
