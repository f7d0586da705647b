/**
 * The protocol's leniency: repairing what the schema allows to repair in an otherwise
 * invalid value, as the protocol's reference decoder does (see {@link salvage}). The
 * generated validators record the repairs they would allow (`repair` in
 * `base/validation.ts`); this module applies them. The engine knows nothing of it: the
 * protocol layer hands {@link SALVAGE_CHECK} to lenient connections.
 *
 * @module
 */
import {
  MAX_ISSUES,
  MAX_REPAIRS,
  escapePointer,
  runValidator,
  validatorState,
  type RawValidator,
  type RecheckResult,
  type Repair,
  type ValidationIssue,
  type ValueCheck,
} from "../base/validation.js";

const MAX_SALVAGE_ROUNDS = 4;

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
export function salvage<T>(validator: RawValidator, value: unknown): RecheckResult<T> {
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

/** See {@link SALVAGE_CHECK}. */
class SalvageCheck implements ValueCheck {
  recheck(validate: RawValidator, value: unknown): RecheckResult {
    return salvage(validate, value);
  }
}

/**
 * The {@link ValueCheck} of lenient connections: {@link salvage}.
 * @internal
 */
export const SALVAGE_CHECK: ValueCheck = new SalvageCheck();
