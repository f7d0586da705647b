/**
 * Small immutable helpers over threads and content lists, shared by the reducers.
 *
 * @module
 */
import type { ContentBlock } from "../schema/types.gen.js";
import {
  itemKey,
  threadData,
  withState,
  type SessionState,
  type ThreadItem,
  type ThreadMessage,
} from "./state.js";

/** A text block that may be joined with its neighbours: nothing but the text itself. */
function isPlainText(block: ContentBlock): block is ContentBlock & { type: "text"; text: string } {
  if (block.type !== "text") return false;
  const b = block as { annotations?: unknown; _meta?: unknown; text?: unknown };
  return b.annotations == null && b._meta == null && typeof b.text === "string";
}

/**
 * `blocks` with `block` added at the end. Adjacent plain text blocks (no `annotations`, no
 * `_meta`) are joined into one, so a streamed message is one text block, not hundreds.
 */
export function appendBlock(
  blocks: readonly ContentBlock[],
  block: ContentBlock,
): readonly ContentBlock[] {
  const last = blocks[blocks.length - 1];
  if (last !== undefined && isPlainText(last) && isPlainText(block)) {
    const joined: ContentBlock = { type: "text", text: last.text + block.text };
    return [...blocks.slice(0, -1), joined];
  }
  return [...blocks, block];
}

/**
 * The text of a message (or any content list): its text blocks joined, other blocks
 * skipped.
 */
export function messageText(message: ThreadMessage | readonly ContentBlock[]): string {
  const blocks = "content" in message ? message.content : message;
  let text = "";
  for (const block of blocks) {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
  }
  return text;
}

/** Index of the last thread item of `state` matching `test`, or -1 (a walk from the end). */
function findLastItem(state: SessionState, test: (item: ThreadItem) => boolean): number {
  const { list } = threadData(state);
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list.get(i);
    if (item !== undefined && test(item)) return i;
  }
  return -1;
}

/**
 * Index of the last thread item of `state` with the id `key` (see `itemKey`) that passes
 * `test`, or -1. Looked up in the index of ids, without a walk, unless the index points
 * elsewhere (a state folded twice, as a branch): then it walks.
 */
export function findKeyed(
  state: SessionState,
  key: string,
  test: (item: ThreadItem) => boolean,
): number {
  const { list, keys } = threadData(state);
  const at = keys.get(key);
  if (at === undefined) return -1;
  const item = list.get(at);
  if (item !== undefined && test(item) && itemKey(item) === key) return at;
  return findLastItem(state, test);
}

/** A copy of `list` with the element at `index` replaced by `value`. */
export function replaceAt<T>(list: readonly T[], index: number, value: T): readonly T[] {
  const copy = list.slice();
  copy[index] = value;
  return copy;
}

/** True for a value that is neither `undefined` nor `null` (v1: `null` ≡ left out). */
export function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** `state` with `item` added at the end of its thread. */
export function appendItem(state: SessionState, item: ThreadItem): SessionState {
  const { list, keys } = threadData(state);
  const key = itemKey(item);
  if (key !== undefined) keys.set(key, list.length);
  return withState(state, {}, list.push(item));
}

/** `state` with the thread entry at `index` replaced by `item`. */
export function replaceItem(state: SessionState, index: number, item: ThreadItem): SessionState {
  const { list, keys } = threadData(state);
  const key = itemKey(item);
  if (key !== undefined) keys.set(key, index);
  return withState(state, {}, list.set(index, item));
}
