/**
 * Validation of the steps of scenario turns.
 *
 * @module
 */
import { isPlainObject } from "../../base/messages.js";
import { closest, join, type Checker, type StepContext } from "./check.js";
import { placeholderNames } from "./placeholders.js";
import { checkStepValue } from "./validate-values.js";
import { BRANCH_KEYS, STEP_KIND_NAMES, STEP_OPTIONS, type StepKind } from "./vocabulary.js";

const KINDS: readonly string[] = STEP_KIND_NAMES;
const NEEDS_TOOL_CALL: readonly StepKind[] = ["toolUpdate", "permission", "terminal"];

/**
 * Checks a list of steps.
 *
 * @param value - The list.
 * @param path - Its path.
 * @param context - What validation knows and collects.
 * @param hasToolCall - Whether a tool call was reported before the list (in the same turn).
 * @internal
 */
export function checkSteps(
  value: unknown,
  path: string,
  context: StepContext,
  hasToolCall: boolean,
): void {
  if (!context.checker.array(value, path, "an array of steps")) return;
  let toolCallSeen = hasToolCall;
  value.forEach((step, index) => {
    toolCallSeen = checkStep(step, join(path, index), context, toolCallSeen);
  });
}

/** Checks one step; returns whether a tool call has been reported after it. */
function checkStep(value: unknown, path: string, context: StepContext, hasToolCall: boolean) {
  const { checker } = context;
  if (!checker.object(value, path, `a step object with one of the keys ${KINDS.join(", ")}`)) {
    return hasToolCall;
  }
  const kind = findKind(value, path, checker);
  if (kind === undefined) return hasToolCall;
  checker.keys(value, path, [kind, ...STEP_OPTIONS[kind]]);
  checkStepValue(kind, value, path, context);
  // A permission step's own `call` is a tool call of its own (its id, if given, is new).
  const newCall = kind === "toolCall" || (kind === "permission" && value.call !== undefined);
  for (const key of BRANCH_KEYS) {
    const branch = value[key];
    if (branch === undefined || (key === "waitForCancel" && branch === true)) continue;
    if (key !== kind && !STEP_OPTIONS[kind].includes(key)) continue;
    checkSteps(branch, join(path, key), context, hasToolCall || newCall);
  }
  collectNames(value, path, context);
  const toolCallId = value.toolCallId;
  if (newCall) {
    if (typeof toolCallId === "string") context.toolCallIds.add(toolCallId);
    return true;
  }
  if (NEEDS_TOOL_CALL.includes(kind)) {
    if (typeof toolCallId === "string") {
      context.references.push({
        path: join(path, "toolCallId"),
        kind: "toolCall",
        name: toolCallId,
      });
    } else if (!hasToolCall) {
      checker.fail(
        path,
        `a ${kind} step needs a tool call, but none is reported before it in this turn`,
        'a toolCall step before it, or a "toolCallId"',
      );
    }
  }
  return hasToolCall;
}

/** The step's kind key, or undefined (with an issue) when it has none or several. */
function findKind(step: Record<string, unknown>, path: string, checker: Checker) {
  const kinds = Object.keys(step).filter((key) => KINDS.includes(key)) as StepKind[];
  const expected = `exactly one of the step kinds ${KINDS.join(", ")}`;
  if (kinds.length === 1) return kinds[0];
  if (kinds.length > 1) {
    checker.fail(path, `has several step kinds (${kinds.join(", ")})`, "one step kind per step");
    return undefined;
  }
  const allOptions = new Set(Object.values(STEP_OPTIONS).flat());
  for (const key of Object.keys(step)) {
    if (allOptions.has(key)) continue;
    const guess = closest(key, KINDS);
    const hint = guess === undefined ? "" : ` (did you mean "${guess}"?)`;
    checker.fail(join(path, key), `unknown step kind "${key}"${hint}`, expected);
    return undefined;
  }
  checker.fail(path, "has no step kind", expected);
  return undefined;
}

/** Records every placeholder in the step's strings (nested steps are walked on their own). */
function collectNames(step: Record<string, unknown>, path: string, context: StepContext): void {
  for (const [key, item] of Object.entries(step)) {
    if (BRANCH_KEYS.includes(key) && item !== true) continue;
    collectPlaceholders(item, join(path, key), context);
  }
  if (typeof step.saveAs === "string") context.saved.add(step.saveAs);
}

function collectPlaceholders(value: unknown, path: string, context: StepContext): void {
  if (typeof value === "string") {
    for (const name of placeholderNames(value)) {
      context.references.push({ path, kind: "placeholder", name });
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => collectPlaceholders(item, join(path, index), context));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      collectPlaceholders(item, join(path, key), context);
    }
  }
}
