/**
 * {@link jsonText}: `JSON.stringify` without recursion. V8's own `JSON.stringify` recurses
 * once per level of nesting and throws "Maximum call stack size exceeded" on a value nested
 * a few thousand levels deep, which `JSON.parse` reads without trouble: a peer can send
 * one. This walk keeps its own stack, so any depth is written, and can stop early: at a
 * depth (deeper containers are written as `[… (nested too deep)]`, for display) or after a
 * number of characters (for a preview).
 *
 * @module
 */

/** Options of {@link jsonText}. */
export interface JsonTextOptions {
  /** Spaces to indent each level by, as `JSON.stringify`'s third argument (default 0). */
  readonly indent?: number;
  /**
   * Containers nested deeper than this are written as `[… (nested too deep)]` or
   * `{… (nested too deep)}` (the text is then no longer JSON). Default: no limit.
   */
  readonly maxDepth?: number;
  /** Stop once the text is longer than this (it is then cut). Default: no limit. */
  readonly maxChars?: number;
}

/** What stands for the content of a container nested deeper than the limit. */
export const NESTED_TOO_DEEP = "… (nested too deep)";

/** A value as `JSON.stringify` sees it: `toJSON` applied, boxed primitives unboxed. */
function prepare(value: unknown, key: string | number): unknown {
  let current = value;
  if (typeof current === "bigint") {
    const toJSON = (BigInt.prototype as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") current = (toJSON as ToJson).call(current, String(key));
  } else if (typeof current === "object" && current !== null) {
    const toJSON = (current as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") current = (toJSON as ToJson).call(current, String(key));
  }
  if (typeof current !== "object" || current === null) return current;
  if (current instanceof Number) return Number(current);
  if (current instanceof String) return String(current);
  if (current instanceof Boolean) return current.valueOf();
  return current;
}

type ToJson = (key: string) => unknown;

/** The text of a value that is not a container, or undefined when JSON has none for it. */
function primitiveText(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      throw new TypeError("Do not know how to serialize a BigInt");
    case "object":
      return value === null ? "null" : undefined;
    default:
      return undefined;
  }
}

/**
 * A value's JSON text, as `JSON.stringify(value, null, indent)` writes it (the same text,
 * `toJSON` and all), at any depth; `undefined` when the value has no JSON text (a function,
 * `undefined`, a symbol). Throws as `JSON.stringify` does on a cycle or a BigInt.
 *
 * @param value - The value.
 * @param options - Indentation, a depth limit, a length limit.
 */
export function jsonText(value: unknown, options: JsonTextOptions = {}): string | undefined {
  const maxDepth = options.maxDepth ?? Infinity;
  const maxChars = options.maxChars ?? Infinity;
  // V8's own is ten times as fast: used when it can do the job (the whole text, and no
  // container deeper than the limit) and does not run out of stack.
  if (maxChars === Infinity && (maxDepth === Infinity || depthWithin(value, maxDepth))) {
    try {
      return JSON.stringify(value, null, options.indent);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
  }
  return walk(value, options.indent ?? 0, maxDepth, maxChars);
}

/**
 * True when no container in the value is nested deeper than `maxDepth` (and none has a
 * `toJSON` that could make it deeper). Walks containers only, with a stack of its own.
 */
function depthWithin(value: unknown, maxDepth: number): boolean {
  const stack: unknown[] = [value];
  const depths: number[] = [0];
  while (stack.length > 0) {
    const current = stack.pop();
    const depth = depths.pop() ?? 0;
    if (typeof current !== "object" || current === null) continue;
    if (depth >= maxDepth) return false;
    if (typeof (current as { toJSON?: unknown }).toJSON === "function") return false;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return true;
}

/** {@link jsonText} by a walk with a stack of its own. */
function walk(
  value: unknown,
  indent: number,
  maxDepth: number,
  maxChars: number,
): string | undefined {
  const step = " ".repeat(Math.min(10, Math.max(0, Math.floor(indent))));
  const colon = step === "" ? ":" : ": ";
  // The containers being written, innermost last, as parallel arrays (no object per level:
  // a deep value has hundreds of thousands): the container, its keys (objects), how far
  // along it is, and whether anything was written inside yet.
  const containers: object[] = [];
  const keyLists: (readonly string[] | undefined)[] = [];
  const positions: number[] = [];
  const wrote: boolean[] = [];
  // Indentation per depth, made once each.
  const indents: string[] = [""];
  const indentOf = (depth: number): string => {
    for (let d = indents.length; d <= depth; d++) indents.push(`${indents[d - 1] ?? ""}${step}`);
    return indents[depth] ?? "";
  };
  const open = new Set<object>();
  // The text so far: the last pieces, joined into a chunk every so often (millions of
  // pieces kept to the end, or a string built by `+=`, make the garbage collector copy
  // them all out of the young generation).
  const chunks: string[] = [];
  let pieces: string[] = [];
  let length = 0;
  const write = (text: string): void => {
    pieces.push(text);
    length += text.length;
    if (pieces.length >= 4096) {
      chunks.push(pieces.join(""));
      pieces = [];
    }
  };

  /** Writes a value that has a text (see {@link hasText}), or opens it. */
  const put = (value: unknown): void => {
    const text = primitiveText(value);
    if (text !== undefined) {
      write(text);
      return;
    }
    const container = value as object;
    const isArray = Array.isArray(container);
    if (containers.length >= maxDepth) {
      write(isArray ? `[${NESTED_TOO_DEEP}]` : `{${NESTED_TOO_DEEP}}`);
      return;
    }
    if (open.has(container)) throw new TypeError("Converting circular structure to JSON");
    open.add(container);
    write(isArray ? "[" : "{");
    containers.push(container);
    keyLists.push(isArray ? undefined : Object.keys(container));
    positions.push(0);
    wrote.push(false);
  };

  const first = prepare(value, "");
  if (!hasText(first)) return undefined;
  put(first);
  while (containers.length > 0 && length <= maxChars) {
    const top = containers.length - 1;
    const container = containers[top] ?? [];
    const keys = keyLists[top];
    const i = positions[top] ?? 0;
    const count = keys === undefined ? (container as unknown[]).length : keys.length;
    if (i >= count) {
      containers.pop();
      keyLists.pop();
      positions.pop();
      open.delete(container);
      if (wrote.pop() === true && step !== "") write(`\n${indentOf(top)}`);
      write(keys === undefined ? "]" : "}");
      continue;
    }
    positions[top] = i + 1;
    if (keys === undefined) {
      const item = prepare((container as unknown[])[i], i);
      if (wrote[top] === true) write(",");
      if (step !== "") write(`\n${indentOf(top + 1)}`);
      wrote[top] = true;
      if (hasText(item)) put(item);
      else write("null");
    } else {
      const key = keys[i] ?? "";
      const item = prepare((container as Record<string, unknown>)[key], key);
      // No text for this entry (undefined, a function): it is left out.
      if (!hasText(item)) continue;
      if (wrote[top] === true) write(",");
      if (step !== "") write(`\n${indentOf(top + 1)}`);
      wrote[top] = true;
      write(JSON.stringify(key));
      write(colon);
      put(item);
    }
  }
  chunks.push(pieces.join(""));
  const out = chunks.join("");
  return out.length > maxChars ? out.slice(0, maxChars) : out;
}

/** True when a prepared value has a JSON text (not `undefined`, a function or a symbol). */
function hasText(value: unknown): boolean {
  const type = typeof value;
  return type !== "undefined" && type !== "function" && type !== "symbol";
}
