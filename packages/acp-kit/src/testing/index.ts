/**
 * acp-kit/testing: a scripted agent driven by scenario files (and the built-in demo),
 * a test client for agent authors' unit tests, and the conformance checks.
 *
 * @packageDocumentation
 */

// Scripted agent
export type * from "./scenario-types.js";
export type * from "./scenario-step-types.js";
export { formatScenarioIssue, type ScenarioIssue } from "./scenario-check.js";
export {
  assertScenario,
  parseScenario,
  ScenarioError,
  validateScenario,
  type ScenarioValidation,
} from "./scenario-validate.js";
export { BUILTIN_PLACEHOLDERS } from "./scenario-placeholders.js";
export {
  createScriptedAgent,
  DEFAULT_SCRIPTED_CAPABILITIES,
  runScriptedAgent,
  type ScriptedAgentOptions,
} from "./scripted-agent.js";
export {
  loadScenarioFile,
  runScriptedAgentCli,
  SCRIPTED_AGENT_USAGE_ERROR,
  type ScriptedAgentCliIo,
} from "./scripted-agent-cli.js";
export { DEMO_FILE_NAME, demoScenario } from "./demo-scenario.js";

// Test client
export { TestClient, type TestClientOptions, type ExtMethodHandler } from "./test-client.js";
export { MemoryFiles, sliceLines, isAbsolutePath } from "./test-client-files.js";
export {
  FakeTerminals,
  type FakeTerminal,
  type FakeTerminalScript,
  type TerminalScripts,
} from "./test-client-terminals.js";
export {
  PendingPermissions,
  fixedAnswer,
  type PermissionPolicy,
} from "./test-client-permissions.js";
export type {
  TestClientRecord,
  UpdateRecord,
  RequestRecord,
  NotificationRecord,
  RecordedResponse,
} from "./test-client-records.js";

// Conformance checks
export { runAgentChecks, type AgentCheckOptions } from "./conformance-agent.js";
export { DEFAULT_AGENT_CHECK_TIMEOUTS, type AgentCheckTimeouts } from "./check-support.js";
export type { AgentCommand } from "./conformance-process.js";
export type { CheckerPermission } from "./conformance-client.js";
export { AGENT_CHECKS, CLIENT_CHECKS, type CheckDefinition } from "./conformance-catalog.js";
export {
  ProbeAgent,
  runClientProbe,
  defaultProbeReportPath,
  type ClientProbeOptions,
} from "./probe-agent.js";
export { DEFAULT_CLIENT_PROBE_TIMEOUTS, type ClientProbeTimeouts } from "./probe-context.js";
export { PROBE_TOOL_CALLS } from "./probe-interactive.js";
export * from "./report.js";
export { formatReport, formatReportMarkdown, capabilityPaths } from "./report-format.js";
