/**
 * {@link toolContent}: builders for the content of a tool call (text, any content block,
 * diffs, embedded terminals).
 *
 * @module
 */
import type * as schema from "../schema/types.gen.js";
import { isAbsolutePath } from "./ids.js";

/** Regular content of a tool call: `{ type: "content", content }`. */
export type ToolCallContentBlock = schema.Content & { type: "content" };
/** A file change shown by a tool call: `{ type: "diff", path, oldText?, newText }`. */
export type ToolCallDiff = schema.Diff & { type: "diff" };
/** A live terminal shown by a tool call: `{ type: "terminal", terminalId }`. */
export type ToolCallTerminal = schema.Terminal & { type: "terminal" };

/**
 * Builders for {@link ToolCallContent} items, to put in a tool call's `content` list.
 *
 * ```ts
 * await call.complete({
 *   content: [
 *     toolContent.diff("/repo/a.ts", before, after),
 *     toolContent.text("Renamed 3 symbols"),
 *   ],
 * });
 * ```
 */
export const toolContent = {
  /**
   * Markdown text.
   *
   * @param text - The text.
   */
  text(text: string): ToolCallContentBlock {
    return { type: "content", content: { type: "text", text } };
  },

  /**
   * Any content block (image, resource link, embedded resource, ...).
   *
   * @param block - The block.
   */
  block(block: schema.ContentBlock): ToolCallContentBlock {
    return { type: "content", content: block };
  },

  /**
   * A change to a file, shown as a diff. Pass `null` (or `undefined`) as `oldText` for a
   * file the change creates: the field is then left out, which the protocol reads as "new
   * file".
   *
   * @param path - The file's absolute path.
   * @param oldText - The text before the change, or `null` for a new file.
   * @param newText - The text after the change.
   * @throws TypeError when `path` is not absolute (the protocol requires absolute paths).
   */
  diff(path: string, oldText: string | null | undefined, newText: string): ToolCallDiff {
    if (!isAbsolutePath(path)) {
      throw new TypeError(`A diff needs an absolute path, got ${JSON.stringify(path)}`);
    }
    return oldText === null || oldText === undefined
      ? { type: "diff", path, newText }
      : { type: "diff", path, oldText, newText };
  },

  /**
   * A terminal created with `terminal/create`, shown live by the client. Embed it before
   * releasing the terminal.
   *
   * @param terminal - The terminal handle (anything with an `id`) or its id.
   */
  terminal(terminal: string | { readonly id: string }): ToolCallTerminal {
    return { type: "terminal", terminalId: typeof terminal === "string" ? terminal : terminal.id };
  },
} as const;

/**
 * Structural equality of JSON-like values (objects compared key by key, ignoring keys
 * whose value is `undefined`; arrays item by item).
 * @internal
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) {
    if (!jsonEqual(left[key], right[key])) return false;
  }
  return true;
}
