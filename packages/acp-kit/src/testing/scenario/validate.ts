/**
 * {@link validateScenario}: checks a scenario document, reporting every problem with its
 * path, what is wrong and what was expected.
 *
 * @module
 */
import {
  Checker,
  formatScenarioIssue,
  join,
  type ScenarioIssue,
  type StepContext,
} from "./check.js";
import { placeholderProblem } from "./placeholders.js";
import type { Scenario } from "./types.js";
import { checkSteps } from "./validate-steps.js";
import { checkAgent, checkConfigOptions, checkModes, checkSessions } from "./validate-setup.js";

/** The outcome of {@link validateScenario}. */
export type ScenarioValidation =
  | { readonly ok: true; readonly scenario: Scenario }
  | { readonly ok: false; readonly issues: readonly ScenarioIssue[] };

/** A scenario that is not valid: `issues` says why, one line each in the message. */
export class ScenarioError extends Error {
  /** Every problem found. */
  readonly issues: readonly ScenarioIssue[];

  /**
   * Creates the error.
   *
   * @param issues - The problems.
   * @param source - Where the scenario came from (a file name), for the message.
   */
  constructor(issues: readonly ScenarioIssue[], source = "scenario") {
    const lines = issues.map((issue) => `  ${formatScenarioIssue(issue)}`);
    const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
    super(`Invalid ${source} (${count}):\n${lines.join("\n")}`);
    this.name = "ScenarioError";
    this.issues = issues;
  }
}

const TOP_KEYS = [
  "$schema",
  "name",
  "description",
  "agent",
  "modes",
  "configOptions",
  "commands",
  "sessions",
  "turns",
];
const MATCHERS = ["exact", "contains", "regex", "command"];

/**
 * Checks that `value` is a valid {@link Scenario}: every key known (misspellings get a
 * suggestion), every protocol object valid against the ACP schema, every step well
 * formed, every placeholder and tool call id defined.
 *
 * @param value - The parsed JSON document.
 */
export function validateScenario(value: unknown): ScenarioValidation {
  const checker = new Checker();
  if (!checker.object(value, "", "a scenario object")) return { ok: false, issues: checker.issues };
  checker.keys(value, "", TOP_KEYS);
  for (const key of ["$schema", "name", "description"]) {
    if (value[key] !== undefined) checker.string(value[key], key);
  }
  checkAgent(value.agent, checker);
  const modes = checkModes(value.modes, checker);
  const configOptions = checkConfigOptions(value.configOptions, checker);
  if (value.commands !== undefined && checker.array(value.commands, "commands")) {
    value.commands.forEach((command, index) =>
      checker.protocol("AvailableCommand", command, join("commands", index)),
    );
  }
  checkSessions(value.sessions, checker);
  const context: StepContext = {
    checker,
    saved: new Set(),
    toolCallIds: new Set(),
    references: [],
    modes,
    configOptions,
  };
  if (
    checker.required(value, "", "turns", "an array of turns") &&
    checker.array(value.turns, "turns")
  ) {
    value.turns.forEach((turn, index) => checkTurn(turn, join("turns", index), context));
  }
  checkReferences(context);
  return checker.issues.length === 0
    ? { ok: true, scenario: value as unknown as Scenario }
    : { ok: false, issues: checker.issues };
}

/**
 * The scenario, or a {@link ScenarioError} listing its problems.
 *
 * @param value - The parsed document.
 * @param source - Where it came from, for the error message.
 * @throws ScenarioError when it is not valid.
 */
export function assertScenario(value: unknown, source?: string): Scenario {
  const result = validateScenario(value);
  if (!result.ok) throw new ScenarioError(result.issues, source);
  return result.scenario;
}

/**
 * Parses and validates a scenario from JSON text.
 *
 * @param text - The JSON document.
 * @param source - Where it came from (a file name), for the error message.
 * @throws ScenarioError when it is not JSON or not a valid scenario.
 */
export function parseScenario(text: string, source?: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ScenarioError([{ path: "", message: `is not valid JSON: ${reason}` }], source);
  }
  return assertScenario(value, source);
}

function checkTurn(turn: unknown, path: string, context: StepContext): void {
  const { checker } = context;
  if (!checker.object(turn, path, '{ "match"?, "steps" }')) return;
  checker.keys(turn, path, ["name", "match", "steps"]);
  if (turn.name !== undefined) checker.string(turn.name, join(path, "name"));
  if (turn.match !== undefined) checkMatcher(turn.match, join(path, "match"), checker);
  if (checker.required(turn, path, "steps", "an array of steps")) {
    checkSteps(turn.steps, join(path, "steps"), context, false);
  }
}

function checkMatcher(matcher: unknown, path: string, checker: Checker): void {
  const expected = `an object with one of ${MATCHERS.join(", ")}`;
  if (!checker.object(matcher, path, expected)) return;
  const kinds = Object.keys(matcher).filter((key) => MATCHERS.includes(key));
  checker.keys(
    matcher,
    path,
    kinds[0] === "regex" ? ["regex", "flags"] : kinds.length === 1 ? kinds : MATCHERS,
  );
  if (kinds.length !== 1) {
    if (kinds.length > 1)
      checker.fail(path, `has several matchers (${kinds.join(", ")})`, "one matcher");
    else if (Object.keys(matcher).length === 0) checker.fail(path, "is empty", expected);
    return;
  }
  const [kind = ""] = kinds;
  const value = matcher[kind];
  if (!checker.string(value, join(path, kind), kind === "exact")) return;
  if (kind === "command" && !/^[^\s/]+$/.test(value)) {
    checker.fail(
      join(path, kind),
      `"${value}" is not a command name`,
      'the name without "/" or spaces, e.g. "explain"',
    );
  }
  if (kind === "regex") {
    const flags = matcher.flags;
    if (flags !== undefined && !checker.string(flags, join(path, "flags"))) return;
    try {
      new RegExp(value, flags);
    } catch (error) {
      checker.fail(
        join(path, "regex"),
        `is not a valid regular expression: ${(error as Error).message}`,
        "a JavaScript regular expression",
      );
    }
  }
}

function checkReferences(context: StepContext): void {
  for (const reference of context.references) {
    if (reference.kind === "placeholder") {
      const problem = placeholderProblem(reference.name, context.saved);
      if (problem !== undefined) {
        context.checker.fail(
          reference.path,
          problem,
          "${cwd}, ${sessionId}, ${turn}, ${prompt}, ${args}, ${error}, ${match.N} or a saveAs name",
        );
      }
    } else if (
      !reference.name.includes("${") &&
      !context.toolCallIds.has(reference.name) &&
      !/^call_\d+$/.test(reference.name)
    ) {
      const known = [...context.toolCallIds];
      const hint = known.length === 0 ? "" : `; known ids: ${known.join(", ")}`;
      context.checker.fail(
        reference.path,
        `no toolCall step has the id "${reference.name}"${hint}`,
        "the toolCallId of a toolCall step",
      );
    }
  }
}
