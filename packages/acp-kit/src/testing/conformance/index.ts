/**
 * Conformance checks of agents (`acp-kit check`) and their reports.
 *
 * @module
 */
export { runAgentChecks, type AgentCheckOptions, type CheckProtocol } from "./agent.js";
export { DEFAULT_AGENT_CHECK_TIMEOUTS, type AgentCheckTimeouts } from "./checks/support.js";
export type { AgentCommand } from "./process.js";
export type { CheckerPermission } from "./client.js";
export {
  AGENT_CHECKS,
  AGENT_CHECKS_V2,
  CLIENT_CHECKS,
  NEGOTIATION_CHECK,
  type CheckDefinition,
} from "./catalog.js";
export * from "./report.js";
export { formatReport, formatReportMarkdown, capabilityPaths } from "./report-format.js";
export { CHECKLIST_RULES, formatChecklist, type ChecklistRule, type RuleLevel } from "./rules.js";
