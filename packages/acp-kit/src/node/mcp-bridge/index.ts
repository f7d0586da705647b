/**
 * The loopback MCP bridge: `acp` declarations served to agents without MCP-over-ACP
 * support, over HTTP (MCP 2026-07-28 exactly as the official SDK's bridge, and the 2025
 * revisions through an `initialize` front end) or through the stdio shim.
 *
 * @module
 */
export {
  McpHttpBridge,
  mcpProviderTarget,
  MCP_SHIM_TOKEN_ENV,
  type McpBridgeTarget,
  type BridgedMcpServer,
  type McpBridgeCallOptions,
  type McpHttpBridgeOptions,
  type McpStdioShimCommand,
} from "./bridge.js";
export { agentMcpTransports } from "../../mcp/binding.js";
export { mcpBridgeMode, rewriteMcpServers, type McpBridgeMode } from "./plan.js";
export { McpClientBridge, type McpClientBridgeOptions } from "./client.js";
export { runMcpStdioShim, type McpStdioShimOptions } from "./shim.js";
