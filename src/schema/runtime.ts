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
 * Mutable state shared by the generated validators during one (synchronous) run.
 * @internal
 */
export const validatorState = {
  /** Issues recorded by the current recording pass. */
  issues: [] as ValidationIssue[],
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
  if (validator(value, undefined)) {
    return { ok: true, value: value as T, unknownVariants: validatorState.unknownVariants };
  }
  const issues: ValidationIssue[] = [];
  validatorState.issues = issues;
  validator(value, "");
  validatorState.issues = [];
  if (issues.length === 0) issues.push({ path: "", message: "does not match the schema" });
  return { ok: false, issues };
}
