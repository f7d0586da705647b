/**
 * Proxies and conductors (the proxy-chains draft): write a proxy that sits between any
 * client and any agent, run it under a conductor or standalone, and conduct chains.
 * Runtime-neutral; starting programs as components is in `acp-kit/node`.
 *
 * @module
 */
export { defineProxy, ProxyDefinition } from "./proxy.js";
export type {
  ProxyHostOptions,
  ProxyMcpServers,
  ProxyNotificationContext,
  ProxyNotificationHandler,
  ProxyPeer,
  ProxyRequestContext,
  ProxyRequestHandler,
  RunningProxy,
} from "./proxy.js";
export { Conductor } from "./conductor.js";
export type {
  ConductorComponent,
  ConductorEnd,
  ConductorOptions,
  ConductorTraceEvent,
  StartedComponent,
} from "./conductor.js";
export type {
  ConductorMcpBridge,
  ConductorMcpBridgeFactory,
  ConductorMcpStdioShim,
} from "./mcp-stage.js";
export type { ProxyDialect } from "./dialect.js";
export { PROXY_DIALECTS } from "./dialect.js";
export type { Channel, ChannelHandlers } from "./channel.js";
export { redactSecrets, REDACTED } from "./redact.js";
