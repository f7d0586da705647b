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
} from "./agent.js";
export {
  loadScenarioFile,
  runScriptedAgentCli,
  SCRIPTED_AGENT_USAGE_ERROR,
  type ScriptedAgentCliIo,
} from "./agent-cli.js";
