/**
 * Scenario files: their types, validation and placeholders, and the built-in demo.
 *
 * @module
 */
export type * from "./types.js";
export type * from "./step-types.js";
export { formatScenarioIssue, type ScenarioIssue } from "./check.js";
export {
  assertScenario,
  parseScenario,
  ScenarioError,
  validateScenario,
  type ScenarioValidation,
} from "./validate.js";
export { BUILTIN_PLACEHOLDERS } from "./placeholders.js";
export { DEMO_FILE_NAME, demoScenario } from "./demo.js";
