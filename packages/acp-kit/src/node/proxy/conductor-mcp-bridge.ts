/**
 * {@link conductorMcpBridge}: the loopback HTTP bridge as the conductor's MCP stage.
 *
 * @module
 */
import type { ConductorMcpBridgeFactory } from "../../proxy/mcp-stage.js";
import { McpHttpBridge, type McpHttpBridgeOptions } from "../mcp-bridge/bridge.js";

/**
 * The bridge factory for a `Conductor`'s MCP stage (its `mcpBridge` option): each
 * chain gets an {@link McpHttpBridge} on 127.0.0.1 whose MCP requests go up the chain as
 * `mcp/message`, so that an agent without MCP-over-ACP support (but with `http`) can call
 * the chain's `acp` servers. MCP clients of the 2025 revisions are served too.
 *
 * ```ts
 * new Conductor({ agent: commandComponent("my-agent"), mcpBridge: conductorMcpBridge() });
 * ```
 *
 * @param options - The bridge's limits (see {@link McpHttpBridgeOptions}).
 */
export function conductorMcpBridge(options: McpHttpBridgeOptions = {}): ConductorMcpBridgeFactory {
  return (caller) => new McpHttpBridge(caller, options);
}
