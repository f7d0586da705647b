/**
 * acp-kit/node: Node.js helpers for ACP clients and agents — spawning agents, serving
 * the file system and terminals, permission policies, and the agent's own stdio.
 *
 * @packageDocumentation
 */

// A complete client in one call
export {
  connectAgent,
  ConnectedAgent,
  AgentSession,
  type ConnectAgentOptions,
  type OpenSessionOptions,
  type PromptInput,
} from "./connect-agent.js";
export { ClientToolkit, type ClientToolkitOptions, type SessionPlace } from "./client-toolkit.js";

// Running agents as child processes
export * from "./spawn/index.js";

// Being an agent over stdio
export { agentStdioStream, type AgentStdioOptions } from "./agent-stdio.js";

// Serving files
export * from "./fs/index.js";

// Serving terminals
export * from "./terminals/index.js";

// Permissions
export * from "./permissions/index.js";

// The ACP agent registry: load it, install and resolve agents by id
export * from "./registry/index.js";

// Proxy programs and conductor components.
export { runProxy, type RunProxyOptions } from "./proxy/run-proxy.js";
export { commandComponent, type CommandComponentOptions } from "./proxy/command-component.js";
export { quoteCommandLine, splitCommandLine } from "./proxy/command-line.js";
export { conductorMcpBridge } from "./proxy/conductor-mcp-bridge.js";

// MCP-over-ACP for agents without native support: the loopback HTTP bridge and stdio shim
export * from "./mcp-bridge/index.js";
