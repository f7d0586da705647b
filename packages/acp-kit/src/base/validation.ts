/**
 * Run-time support for the generated validators in `validators.gen.ts`.
 *
 * A generated validator has the shape `(value, path) => boolean`. Called with
 * `path === undefined` it only answers yes or no and allocates nothing; called with a
 * JSON Pointer string it also records every issue it finds. {@link runValidator} does
 * the fast pass first and the recording pass only when the value is invalid.
 *
 * @module
 */

/** One reason a value does not match its schema. */
export interface ValidationIssue {
  /** JSON Pointer (RFC 6901) to the offending value, relative to the validated value. */
  readonly path: string;
  /** A short, value-free description of what is wrong. */
  readonly message: string;
}

/** A generated validator: see the module comment. */
export type RawValidator = (value: unknown, path: string | undefined) => boolean;

/** The most issues one validation run records. */
export const MAX_ISSUES = 20;

/**
 * The most repairs one message may need before it is rejected instead.
 * @internal
 */
export const MAX_REPAIRS = 10_000;

/**
 * A repair the schema allows for an invalid part of a value, as the protocol's reference
 * decoder does: drop an invalid optional field (`x-deserialize-default-on-error`), reset a
 * `null` to its default (`x-deserialize-default-on-null`), or skip an invalid list item
 * (`x-deserialize-skip-invalid-items`).
 * @internal
 */
export interface Repair {
  /** JSON Pointer of the object or array holding the invalid part. */
  readonly path: string;
  /** The property name or array index of the invalid part. */
  readonly key: string | number;
  /** What to do with it. */
  readonly action: "delete" | "empty-array" | "empty-object" | "drop";
}

/**
 * Mutable state shared by the generated validators during one (synchronous) run.
 * @internal
 */
export const validatorState = {
  /** Issues recorded by the current recording pass. */
  issues: [] as ValidationIssue[],
  /** Repairs recorded by the current recording pass. */
  repairs: [] as Repair[],
  /** When true, an unknown variant of an open union is an error instead of a pass-through. */
  strict: false,
  /** How many unknown variants of open unions the current run let through. */
  unknownVariants: 0,
};

/**
 * Records an issue and returns `false`, so generated code can write `ok = fail(...)`.
 * @internal
 */
export function fail(path: string, message: string): false {
  const issues = validatorState.issues;
  if (issues.length < MAX_ISSUES) issues.push({ path, message });
  return false;
}

/**
 * Records that the invalid part `key` of the value at `path` may be repaired; returns
 * `false` like {@link fail}.
 * @internal
 */
export function repair(path: string, key: string | number, action: Repair["action"]): false {
  const repairs = validatorState.repairs;
  if (repairs.length <= MAX_REPAIRS) repairs.push({ path, key, action });
  return false;
}

/**
 * Escapes an object key for use in a JSON Pointer.
 * @internal
 */
export function escapePointer(key: string): string {
  return key.includes("~") || key.includes("/")
    ? key.replaceAll("~", "~0").replaceAll("/", "~1")
    : key;
}

/**
 * True when `text` has at least `min` Unicode code points (JSON Schema counts code
 * points, not UTF-16 units).
 * @internal
 */
export function hasMinCodePoints(text: string, min: number): boolean {
  if (text.length < min) return false;
  if (text.length >= min * 2) return true;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count >= min) return true;
  }
  return false;
}

/**
 * The JSON type of a value, as JSON Schema names it (`integer` is reported as `number`).
 * @internal
 */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** The outcome of validating a value against one schema type. */
export type ValidationResult<T> =
  | {
      readonly ok: true;
      readonly value: T;
      /** How many variants of open unions were unknown to this version and passed through. */
      readonly unknownVariants: number;
    }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/** Options for one validation run. */
export interface ValidateOptions {
  /**
   * Treat unknown variants of open unions (`SessionUpdate`, `ContentBlock`,
   * `ToolCallContent`) as errors, exactly as the JSON Schema does. Default `false`: they
   * pass through so newer peers keep working.
   */
  readonly strict?: boolean;
}

/**
 * Runs a generated validator: a fast yes/no pass, and a second, recording pass only when
 * the value is invalid.
 * @internal
 */
export function runValidator<T>(
  validator: RawValidator,
  value: unknown,
  strict = false,
): ValidationResult<T> {
  validatorState.strict = strict;
  validatorState.unknownVariants = 0;
  try {
    if (validator(value, undefined)) {
      return { ok: true, value: value as T, unknownVariants: validatorState.unknownVariants };
    }
    const issues: ValidationIssue[] = [];
    validatorState.issues = issues;
    validator(value, "");
    validatorState.issues = [];
    if (issues.length === 0) issues.push({ path: "", message: "does not match the schema" });
    return { ok: false, issues };
  } finally {
    // The engine calls validators directly, outside this function: leave the lenient default.
    validatorState.strict = false;
  }
}

/**
 * The outcome of {@link ValueCheck.recheck}: valid as received, valid after repairs, or
 * invalid.
 * @internal
 */
export type RecheckResult<T = unknown> =
  | {
      readonly ok: true;
      readonly value: T;
      /** What was repaired (empty when the value was valid as received). */
      readonly repaired: readonly ValidationIssue[];
    }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/**
 * What the engine does with params or a result its validator's fast pass rejected
 * (`validate(value, undefined) === false`): say why, or repair the value. Called only
 * then, never for a valid message. The engine's own is {@link STRICT_CHECK}; the protocol
 * layer supplies a repairing one (`schema/salvage.ts`) for lenient connections.
 * @internal
 */
export interface ValueCheck {
  /** Checks `value` again, recording its issues (and, if this check repairs, repairing it). */
  recheck(validate: RawValidator, value: unknown): RecheckResult;
}

const NO_REPAIRS: readonly ValidationIssue[] = [];

/** See {@link STRICT_CHECK}. */
class StrictCheck implements ValueCheck {
  recheck(validate: RawValidator, value: unknown): RecheckResult {
    const outcome = runValidator(validate, value);
    return outcome.ok ? { ok: true, value: outcome.value, repaired: NO_REPAIRS } : outcome;
  }
}

/**
 * A {@link ValueCheck} that repairs nothing: the issues of {@link runValidator}'s
 * recording pass.
 * @internal
 */
export const STRICT_CHECK: ValueCheck = new StrictCheck();
