/**
 * The scripted agent: runs a scenario as an ACP agent, in process or as a program.
 *
 * @module
 */
export {
  createScriptedAgent,
  DEFAULT_SCRIPTED_CAPABILITIES,
  runScriptedAgent,
  type ScriptedAgentOptions,
  type ScriptedAgentProtocol,
  type ScriptedAgentServer,
} from "./agent.js";
export { createScriptedAgentV2 } from "./v2-agent.js";
export type {
  ScriptedCommand,
  ScriptedCommandResult,
  ScriptedCommandRunner,
  ScriptedFileSystem,
} from "./v2-steps.js";
export {
  loadScenarioFile,
  runScriptedAgentCli,
  SCRIPTED_AGENT_USAGE_ERROR,
  type ScriptedAgentCliIo,
} from "./agent-cli.js";
