/**
 * What an agent's `initialize` answer says about its MCP transports, and the rewrite of
 * `acp` declarations a bridge makes for it.
 *
 * @module
 */
import { agentMcpTransports, isAcpMcpServer } from "../../mcp/binding.js";
import type { BridgedMcpServer, McpHttpBridge, McpStdioShimCommand } from "./bridge.js";

/**
 * How `acp` declarations reach an agent: `native` (it advertises `acp`: unchanged), `http`
 * (rewritten into `http` entries served by the bridge), `stdio` (rewritten into stdio shim
 * entries), or `unavailable` (left unchanged: nothing the agent could use is served).
 */
export type McpBridgeMode = "native" | "http" | "stdio" | "unavailable";

/**
 * The mode for an agent: `native` when it advertises `acp`; else `http` when it
 * advertises `http`; else `stdio` when a shim command is given (every agent launches stdio
 * servers); else `unavailable`.
 *
 * @param initializeResponse - The agent's `initialize` answer (v1 or v2).
 * @param stdioShim - The command that runs the stdio shim, when one may be offered.
 */
export function mcpBridgeMode(
  initializeResponse: unknown,
  stdioShim?: McpStdioShimCommand,
): McpBridgeMode {
  const transports = agentMcpTransports(initializeResponse);
  if (transports.acp) return "native";
  if (transports.http) return "http";
  return stdioShim === undefined ? "unavailable" : "stdio";
}

/**
 * `mcpServers` rewritten for a mode: `acp` entries become `http` (mode `http`) or stdio
 * shim (mode `stdio`) entries served by `bridge`; in modes `native` and `unavailable`, and
 * for every other entry, nothing changes. Returns the same array when there is nothing to
 * rewrite, or when the bridge cannot listen (nothing is advertised that is not served).
 *
 * @param servers - A session request's `mcpServers` (v1 or v2).
 * @param bridge - The bridge that serves the rewritten entries.
 * @param mode - From {@link mcpBridgeMode}.
 * @param stdioShim - The shim command (needed for mode `stdio`).
 */
export async function rewriteMcpServers<S>(
  servers: readonly S[],
  bridge: McpHttpBridge,
  mode: McpBridgeMode,
  stdioShim?: McpStdioShimCommand,
): Promise<readonly (S | BridgedMcpServer)[]> {
  if (mode === "native" || mode === "unavailable" || !servers.some(isAcpMcpServer)) return servers;
  if (mode === "stdio" && stdioShim === undefined) return servers;
  try {
    return await bridge.adaptServers(servers, mode === "stdio" ? stdioShim : undefined);
  } catch {
    // A bridge that cannot listen advertises nothing.
    return servers;
  }
}
