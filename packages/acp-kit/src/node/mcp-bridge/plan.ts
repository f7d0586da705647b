/**
 * What an agent's `initialize` answer says about its MCP transports, and the rewrite of
 * `acp` declarations a bridge makes for it.
 *
 * @module
 */
import { isAcpMcpServer, isJsonObject } from "../../mcp/binding.js";
import type * as schema from "../../schema/types.gen.js";
import type { McpHttpBridge, McpStdioShimCommand } from "./bridge.js";

/**
 * How `acp` declarations reach an agent: `native` (it advertises `acp`: unchanged), `http`
 * (rewritten into `http` entries served by the bridge), `stdio` (rewritten into stdio shim
 * entries), or `unavailable` (left unchanged: nothing the agent could use is served).
 */
export type McpBridgeMode = "native" | "http" | "stdio" | "unavailable";

/**
 * The MCP transports an agent advertises, read from its `initialize` answer: v1
 * `agentCapabilities.mcpCapabilities` or v2 `capabilities.session.mcp` (a marker object
 * per transport).
 *
 * @param initializeResponse - The agent's `initialize` answer (v1 or v2).
 */
export function agentMcpTransports(initializeResponse: unknown): {
  readonly acp: boolean;
  readonly http: boolean;
} {
  const answer = isJsonObject(initializeResponse) ? initializeResponse : {};
  const v1 = isJsonObject(answer.agentCapabilities) ? answer.agentCapabilities : {};
  const v1Mcp = isJsonObject(v1.mcpCapabilities) ? v1.mcpCapabilities : {};
  const v2 = isJsonObject(answer.capabilities) ? answer.capabilities : {};
  const v2Session = isJsonObject(v2.session) ? v2.session : {};
  const v2Mcp = isJsonObject(v2Session.mcp) ? v2Session.mcp : {};
  const has = (name: string): boolean =>
    v1Mcp[name] === true ||
    (v2Mcp[name] !== undefined && v2Mcp[name] !== null && v2Mcp[name] !== false);
  return { acp: has("acp"), http: has("http") };
}

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
 * @param servers - A session request's `mcpServers`.
 * @param bridge - The bridge that serves the rewritten entries.
 * @param mode - From {@link mcpBridgeMode}.
 * @param stdioShim - The shim command (needed for mode `stdio`).
 */
export async function rewriteMcpServers(
  servers: readonly schema.McpServer[],
  bridge: McpHttpBridge,
  mode: McpBridgeMode,
  stdioShim?: McpStdioShimCommand,
): Promise<readonly schema.McpServer[]> {
  if (mode === "native" || mode === "unavailable" || !servers.some(isAcpMcpServer)) return servers;
  if (mode === "stdio" && stdioShim === undefined) return servers;
  try {
    return await bridge.adaptServers(servers, mode === "stdio" ? stdioShim : undefined);
  } catch {
    // A bridge that cannot listen advertises nothing.
    return servers;
  }
}
