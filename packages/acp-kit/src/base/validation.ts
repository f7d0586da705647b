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

/** The outcome of {@link salvage}: valid as received, valid after repairs, or invalid. */
export type SalvageResult<T> =
  | {
      readonly ok: true;
      readonly value: T;
      /** What was repaired (empty when the value was valid as received). */
      readonly repaired: readonly ValidationIssue[];
    }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

const MAX_SALVAGE_ROUNDS = 4;
/** The most repairs one message may need before it is rejected instead. */
const MAX_REPAIRS = 10_000;

function pointerSegments(path: string): string[] {
  if (path === "") return [];
  return path
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function resolvePointer(root: unknown, path: string): unknown {
  let node = root;
  for (const segment of pointerSegments(path)) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function keyPath(repair: Repair): string {
  return `${repair.path}/${escapePointer(String(repair.key))}`;
}

/** The index of the first element of sorted `list` that is `>= key`, searching from `from`. */
function lowerBound(list: readonly string[], key: string, from: number): number {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] ?? "") < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Keeps only repairs with no other repair beneath them (in O(n log n)). */
function leafRepairs(repairs: readonly Repair[]): Repair[] {
  const unique = new Map<string, Repair>();
  for (const r of repairs) unique.set(keyPath(r), r);
  // A path's descendants sort after it; the first path >= "path/" tells whether it has any.
  const paths = [...unique.keys()].sort();
  const leaves: Repair[] = [];
  paths.forEach((path, i) => {
    const prefix = path + "/";
    const next = paths[lowerBound(paths, prefix, i + 1)];
    const fix = unique.get(path);
    if (fix !== undefined && next?.startsWith(prefix) !== true) leaves.push(fix);
  });
  return leaves;
}

/** Applies repairs; drops from one array are done in a single pass. Returns those applied. */
function applyRepairs(root: unknown, fixes: readonly Repair[]): Repair[] {
  const applied: Repair[] = [];
  const drops = new Map<string, Repair[]>();
  for (const fix of fixes) {
    if (fix.action === "drop") {
      const list = drops.get(fix.path);
      if (list === undefined) drops.set(fix.path, [fix]);
      else list.push(fix);
      continue;
    }
    const holder = resolvePointer(root, fix.path);
    if (typeof holder !== "object" || holder === null || Array.isArray(holder)) continue;
    const record = holder as Record<string, unknown>;
    const key = String(fix.key);
    if (!(key in record)) continue;
    if (fix.action === "delete") {
      // The field reads as absent, i.e. as its default.
      Reflect.deleteProperty(record, key);
    } else {
      if (record[key] !== null) continue;
      record[key] = fix.action === "empty-array" ? [] : {};
    }
    applied.push(fix);
  }
  for (const [path, list] of drops) {
    const found = resolvePointer(root, path);
    if (!Array.isArray(found)) continue;
    const array = found as unknown[];
    const dropped = new Set(list.map((f) => f.key));
    let kept = 0;
    for (let i = 0; i < array.length; i++) {
      if (!dropped.has(i)) array[kept++] = array[i];
    }
    if (kept === array.length) continue;
    array.length = kept;
    applied.push(...list);
  }
  return applied;
}

/**
 * Validates `value`; when it is invalid only in parts the schema allows to repair, repairs
 * them in place (as the protocol's reference decoder does) and returns the repaired value.
 * Anything else invalid fails as with {@link runValidator}.
 * @internal
 */
export function salvage<T>(validator: RawValidator, value: unknown): SalvageResult<T> {
  const first = runValidator<T>(validator, value);
  if (first.ok) return { ok: true, value: first.value, repaired: [] };
  const repaired: ValidationIssue[] = [];
  let repairCount = 0;
  for (let round = 0; round < MAX_SALVAGE_ROUNDS; round++) {
    validatorState.repairs = [];
    validatorState.issues = [];
    validator(value, "");
    const issues = validatorState.issues;
    const recorded = validatorState.repairs;
    validatorState.repairs = [];
    validatorState.issues = [];
    // Too many invalid parts: not worth repairing (and bounded work on hostile input).
    if (recorded.length > MAX_REPAIRS || repairCount + recorded.length > MAX_REPAIRS) break;
    const applied = applyRepairs(value, leafRepairs(recorded));
    if (applied.length === 0) break;
    repairCount += applied.length;
    for (const fix of applied) {
      if (repaired.length >= MAX_ISSUES) break;
      const at = keyPath(fix);
      const cause = issues.find((i) => i.path === at || i.path.startsWith(at + "/"));
      const what =
        fix.action === "drop" ? "dropped" : fix.action === "delete" ? "removed" : "reset to empty";
      repaired.push({
        path: at,
        message: cause === undefined ? what : `${what} (${cause.message})`,
      });
    }
    if (validator(value, undefined)) {
      if (repairCount > repaired.length) {
        repaired.push({ path: "", message: `and ${repairCount - repaired.length} more repairs` });
      }
      return { ok: true, value: value as T, repaired };
    }
  }
  return { ok: false, issues: first.issues };
}
