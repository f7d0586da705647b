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
export { spawnAgent, type SpawnedAgent, type AgentInitializeOptions } from "./spawn-agent.js";
export {
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_SPAWN_TIMEOUT_MS,
  DEFAULT_STDERR_LINES,
  type SpawnAgentOptions,
  type AgentStderrMode,
} from "./spawn-options.js";
export {
  AgentExitError,
  AgentStartupError,
  type AgentExit,
  type AgentStartupPhase,
  type AgentStartupErrorCode,
  type AgentStartupErrorOptions,
} from "./spawn-errors.js";

// Being an agent over stdio
export { agentStdioStream, type AgentStdioOptions } from "./agent-stdio.js";

// Serving files
export {
  FileSystemHandler,
  DEFAULT_MAX_CONCURRENT_READS,
  DEFAULT_MAX_READ_BYTES,
  type FileSystemHandlerOptions,
  type SessionRoots,
} from "./file-system.js";
export { FileSystemErrorReasons, type FileSystemErrorReason } from "./fs-errors.js";

// Serving terminals
export { TerminalManager } from "./terminals.js";
export {
  DEFAULT_TERMINAL_OUTPUT_BYTE_LIMIT,
  MAX_TERMINAL_OUTPUT_BYTE_LIMIT,
  DEFAULT_MAX_TERMINALS,
  DEFAULT_EXIT_DRAIN_MS,
  type TerminalManagerOptions,
  type TerminalInfo,
  type TerminalOutputEvent,
  type TerminalExitEvent,
} from "./terminal-options.js";
export type { TerminalStream } from "./terminal-output.js";
export { resolveCommand, type ResolvedCommand } from "./terminal-command.js";

// Permissions
export * from "./permissions/index.js";

// The ACP agent registry: load it, install and resolve agents by id
export * from "./registry/index.js";
