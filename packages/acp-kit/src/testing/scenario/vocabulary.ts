/**
 * The words of the scenario format: step kinds with their options, and the protocol's
 * closed value sets the validator checks against.
 *
 * @module
 */
import { ALL_TOOL_KINDS } from "../../schema/tool-kinds.js";
import type { ScenarioStep } from "./step-types.js";

/** The kind keys of steps. */
export type StepKind = (typeof STEP_KIND_NAMES)[number];

/** Every step kind, in the order the docs list them. @internal */
export const STEP_KIND_NAMES = [
  "text",
  "thought",
  "message",
  "delay",
  "plan",
  "planEntry",
  "toolCall",
  "toolUpdate",
  "permission",
  "readFile",
  "writeFile",
  "terminal",
  "mode",
  "commands",
  "setConfig",
  "sessionInfo",
  "usage",
  "update",
  "waitForCancel",
  "fail",
  "stop",
] as const;

/** The step of kind `K`. */
export type StepOf<K extends StepKind> = Extract<ScenarioStep, Readonly<Record<K, unknown>>>;

const BRANCHES = ["then", "onError"] as const;

/** The option keys each step kind accepts besides its kind key. @internal */
export const STEP_OPTIONS: Readonly<Record<StepKind, readonly string[]>> = {
  text: ["chunk", "delayMs", "messageId"],
  thought: ["chunk", "delayMs", "messageId"],
  message: ["messageId"],
  delay: [],
  plan: [],
  planEntry: ["status"],
  toolCall: ["toolCallId", "kind", "status", "content", "locations", "rawInput", "rawOutput"],
  toolUpdate: ["toolCallId"],
  permission: ["toolCallId", "call", "allow", "reject", "cancelled"],
  readFile: ["line", "limit", "saveAs", ...BRANCHES],
  writeFile: ["content", ...BRANCHES],
  terminal: ["args", "env", "cwd", "outputByteLimit", "toolCallId", "wait", "saveAs", ...BRANCHES],
  mode: [],
  commands: [],
  setConfig: [],
  sessionInfo: [],
  usage: [],
  update: [],
  waitForCancel: [],
  fail: [],
  stop: [],
};

/** The keys of a step that hold nested steps. @internal */
export const BRANCH_KEYS: readonly string[] = [
  "allow",
  "reject",
  "cancelled",
  "then",
  "onError",
  "waitForCancel",
];

/** The kind of a (valid) step. @internal */
export function stepKind(step: ScenarioStep): StepKind {
  for (const name of STEP_KIND_NAMES) if (name in step) return name;
  throw new TypeError("Not a scenario step");
}

/** `StopReason` values. @internal */
export const STOP_REASONS = [
  "end_turn",
  "max_tokens",
  "max_turn_requests",
  "refusal",
  "cancelled",
] as const;
/** `ToolKind` values. @internal */
export const TOOL_KIND_VALUES = ALL_TOOL_KINDS;
/** `ToolCallStatus` values. @internal */
export const TOOL_STATUSES = ["pending", "in_progress", "completed", "failed"] as const;
/** `PlanEntryStatus` values. @internal */
export const PLAN_STATUSES = ["pending", "in_progress", "completed"] as const;
/** `PlanEntryPriority` values. @internal */
export const PLAN_PRIORITIES = ["high", "medium", "low"] as const;
/** `PermissionOptionKind` values. @internal */
export const PERMISSION_KINDS = ["allow_once", "allow_always", "reject_once", "reject_always"];
