/**
 * Running agents as child processes: `spawnAgent`, its options and its errors.
 *
 * @module
 */
export { spawnAgent, type SpawnedAgent, type AgentInitializeOptions } from "./agent.js";
export { DEFAULT_KILL_GRACE_MS } from "../process-group.js";
export {
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  DEFAULT_SPAWN_TIMEOUT_MS,
  DEFAULT_STDERR_LINES,
  type SpawnAgentOptions,
  type AgentStderrMode,
} from "./options.js";
export {
  AgentExitError,
  AgentStartupError,
  type AgentExit,
  type AgentStartupPhase,
  type AgentStartupErrorCode,
  type AgentStartupErrorOptions,
} from "./errors.js";
