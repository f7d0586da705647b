/**
 * Builds the method table (wire name, who handles it, request or notification, params and
 * result types, stable or unstable) from the schema's `x-method` / `x-side` annotations.
 */
import type { LoadedSchemas, SchemaObject } from "./load.ts";

/** One row of the generated method table. */
export interface MethodRow {
  readonly method: string;
  readonly handledBy: "agent" | "client" | "both";
  readonly kind: "request" | "notification";
  readonly params: string;
  readonly result: string | undefined;
  readonly stable: boolean;
  readonly emptyResult: boolean;
  readonly optionalParams: boolean;
}

function allOptional(def: SchemaObject | undefined): boolean {
  if (def === undefined) return false;
  return (
    (def.required === undefined || def.required.length === 0) &&
    def.anyOf === undefined &&
    def.oneOf === undefined &&
    (def.allOf ?? []).length === 0
  );
}

/**
 * Rows for every agent-, client- and protocol-level method (proxy methods are left out);
 * with `legacy`, rows for the methods marked `x-legacy-method` instead (dropped from the
 * protocol, still spoken by classic releases).
 */
export function methodRows(schemas: LoadedSchemas, legacy = false): MethodRow[] {
  const stableMethods = new Set<string>();
  for (const def of Object.values(schemas.stable)) {
    if (def["x-method"] !== undefined) stableMethods.add(`${def["x-side"]}:${def["x-method"]}`);
  }
  const rows = new Map<
    string,
    { side: string; method: string; params?: string; result?: string; notification?: string }
  >();
  for (const [name, def] of Object.entries(schemas.unstable)) {
    const method = legacy ? def["x-legacy-method"] : def["x-method"];
    const side = def["x-side"];
    if (method === undefined || side === undefined || side === "proxy") continue;
    const key = `${side}:${method}`;
    const row = rows.get(key) ?? { side, method };
    if (name.endsWith("Request")) row.params = name;
    else if (name.endsWith("Response")) row.result = name;
    else if (name.endsWith("Notification")) row.notification = name;
    else throw new Error(`Cannot classify ${name} for ${method}`);
    rows.set(key, row);
  }
  const out: MethodRow[] = [];
  for (const [key, row] of rows) {
    const handledBy = row.side === "protocol" ? "both" : (row.side as "agent" | "client");
    const stable = stableMethods.has(key);
    if (row.notification !== undefined) {
      out.push({
        method: row.method,
        handledBy,
        kind: "notification",
        params: row.notification,
        result: undefined,
        stable,
        emptyResult: false,
        optionalParams: allOptional(schemas.unstable[row.notification]),
      });
    }
    if (row.params !== undefined || row.result !== undefined) {
      if (row.params === undefined || row.result === undefined) {
        throw new Error(`Request ${row.method} lacks a params or result type`);
      }
      out.push({
        method: row.method,
        handledBy,
        kind: "request",
        params: row.params,
        result: row.result,
        stable,
        emptyResult: allOptional(schemas.unstable[row.result]),
        optionalParams: allOptional(schemas.unstable[row.params]),
      });
    }
  }
  return out;
}

/**
 * The classic constant key for a method: `session/set_mode` becomes `session_set_mode`,
 * `document/didOpen` becomes `document_did_open`.
 */
export function constantKey(method: string): string {
  return method
    .replace(/^\$\//, "")
    .replaceAll("/", "_")
    .replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
