/**
 * Building blocks of scenario validation: issues with a path, what is wrong and what was
 * expected; type checks; unknown keys with "did you mean" suggestions; protocol types
 * checked against the ACP schema.
 *
 * @module
 */
import { isPlainObject } from "../../base/messages.js";
import { validate } from "../../schema/validate.js";
import type * as schema from "../../schema/types.gen.js";
import type { ValidatedType } from "../../schema/validators.gen.js";

/** One problem of a scenario. */
export interface ScenarioIssue {
  /** Where: `turns[0].steps[2].text`, `agent.capabilities.loadSession`, ... (`""` is the root). */
  readonly path: string;
  /** What is wrong (with a suggestion when one is likely). */
  readonly message: string;
  /** What was expected there, when it says more than the message. */
  readonly expected?: string;
}

/**
 * One issue as a line of text: `path: message (expected ...)`.
 *
 * @param issue - The issue.
 */
export function formatScenarioIssue(issue: ScenarioIssue): string {
  const where = issue.path === "" ? "scenario" : issue.path;
  const expected = issue.expected === undefined ? "" : ` (expected ${issue.expected})`;
  return `${where}: ${issue.message}${expected}`;
}

/** Collects issues while walking a scenario. @internal */
export class Checker {
  readonly issues: ScenarioIssue[] = [];

  /** Records an issue. */
  fail(path: string, message: string, expected?: string): false {
    this.issues.push(expected === undefined ? { path, message } : { path, message, expected });
    return false;
  }

  /** True for a plain object; records an issue otherwise. */
  object(value: unknown, path: string, expected = "an object"): value is Record<string, unknown> {
    if (isPlainObject(value)) return true;
    return this.fail(path, `is ${describe(value)}`, expected);
  }

  /** True for a string (non-empty unless `allowEmpty`). */
  string(value: unknown, path: string, allowEmpty = true): value is string {
    if (typeof value !== "string") return this.fail(path, `is ${describe(value)}`, "a string");
    if (!allowEmpty && value === "") return this.fail(path, "is empty", "a non-empty string");
    return true;
  }

  /** True for an integer in `[min, max]`. */
  integer(value: unknown, path: string, min = 0, max = Number.MAX_SAFE_INTEGER): value is number {
    if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) {
      return true;
    }
    return this.fail(path, `is ${describe(value)}`, `an integer from ${min} to ${max}`);
  }

  /** True for a boolean. */
  boolean(value: unknown, path: string, expected = "true or false"): value is boolean {
    if (typeof value === "boolean") return true;
    return this.fail(path, `is ${describe(value)}`, expected);
  }

  /** True for an array. */
  array(value: unknown, path: string, expected = "an array"): value is unknown[] {
    if (Array.isArray(value)) return true;
    return this.fail(path, `is ${describe(value)}`, expected);
  }

  /** True for one of `choices`, with a suggestion otherwise. */
  oneOf(value: unknown, path: string, choices: readonly string[]): boolean {
    if (typeof value === "string" && choices.includes(value)) return true;
    const hint = typeof value === "string" ? didYouMean(value, choices) : "";
    return this.fail(path, `is ${describe(value)}${hint}`, `one of ${choices.join(", ")}`);
  }

  /** Records every key of `value` that is not in `allowed`, suggesting the closest one. */
  keys(value: Record<string, unknown>, path: string, allowed: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (allowed.includes(key)) continue;
      const expected = allowed.length === 0 ? "no other keys" : `one of ${allowed.join(", ")}`;
      this.fail(join(path, key), `unknown key "${key}"${didYouMean(key, allowed)}`, expected);
    }
  }

  /** Records a missing required key; true when present. */
  required(value: Record<string, unknown>, path: string, key: string, expected: string): boolean {
    if (value[key] !== undefined) return true;
    return this.fail(join(path, key), "is missing", expected);
  }

  /** Checks a value against an ACP schema type, one issue per schema complaint. */
  protocol(type: ValidatedType, value: unknown, path: string): boolean {
    const result = validate(type, value, { strict: true });
    if (result.ok) return true;
    for (const issue of result.issues) {
      this.fail(pointerToPath(path, issue.path), issue.message, `a valid ACP ${type}`);
    }
    return false;
  }
}

/** `path.key`, or `path[index]` for numbers. @internal */
export function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  const safe = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
  if (path === "") return safe;
  return safe.startsWith('"') ? `${path}[${safe}]` : `${path}.${safe}`;
}

function pointerToPath(base: string, pointer: string): string {
  let path = base;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    path = join(path, /^\d+$/.test(key) ? Number(key) : key);
  }
  return path;
}

/** A short description of a value for messages: `a number (3)`, `an array`, ... @internal */
export function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)}`;
    case "number":
      return `the number ${value}`;
    case "boolean":
      return `${value}`;
    case "object":
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

/** ` (did you mean "x"?)` for the closest candidate, or `""` when none is close. @internal */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const best = closest(word, candidates);
  return best === undefined ? "" : ` (did you mean "${best}"?)`;
}

/** The candidate closest to `word` by edit distance, if close enough. @internal */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const limit = Math.min(Math.max(2, Math.floor(word.length / 3)), word.length - 1);
  if (bestDistance <= limit) return best;
  // A prefix ("allow" for "allow_once") is a likely slip too.
  return lower.length >= 3
    ? candidates.find((candidate) => candidate.toLowerCase().startsWith(lower))
    : undefined;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** A name a step uses that is checked once the whole scenario was walked. @internal */
export interface StepReference {
  readonly path: string;
  readonly kind: "placeholder" | "toolCall";
  readonly name: string;
}

/** What step validation knows and collects. @internal */
export interface StepContext {
  readonly checker: Checker;
  /** Names given to `saveAs`. */
  readonly saved: Set<string>;
  /** Ids given to `toolCall` steps. */
  readonly toolCallIds: Set<string>;
  /** Names to check at the end. */
  readonly references: StepReference[];
  /** The scenario's mode ids (undefined: no modes). */
  readonly modes: readonly string[] | undefined;
  /** The scenario's config options. */
  readonly configOptions: readonly schema.SessionConfigOption[] | undefined;
}
