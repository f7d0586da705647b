/**
 * The client probe (`acp-kit check-client`): an agent that checks the editor that runs it.
 *
 * @module
 */
export {
  ProbeAgent,
  runClientProbe,
  defaultProbeReportPath,
  type ClientProbeOptions,
} from "./agent.js";
export { DEFAULT_CLIENT_PROBE_TIMEOUTS, type ClientProbeTimeouts } from "./context.js";
export { PROBE_TOOL_CALLS } from "./interactive.js";
