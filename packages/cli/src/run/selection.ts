/**
 * Keyboard selection among a list (a permission question's options, the login methods), as
 * a pure function over the highlighted index, and a hook that keeps that index where a
 * key handler reads it at the moment of the key.
 *
 * Why not React state alone: keys can arrive several to a chunk (`↓` and `Enter` in one
 * read over SSH, from `tmux send-keys Down Enter`, type-ahead, a paste ending in a line
 * break). Ink calls the handler once per key of the chunk before React renders again, so
 * a handler that reads the index of the last render acts on the item highlighted
 * *before* the `↓`: the wrong option. Here the index lives in a ref that each key updates
 * at once; the state only drives the drawing.
 *
 * @module
 */
import { useRef, useState } from "react";
import type { KeyPress } from "./line-editor.js";

/** One key, as the selection views understand it. */
export type SelectionKey =
  | { readonly kind: "up" | "down" | "enter" | "escape" }
  | { readonly kind: "digit"; readonly digit: number }
  | { readonly kind: "text"; readonly text: string };

/**
 * The keys of one event from Ink. Ink splits escape sequences apart, but hands a run of
 * plain characters over as one event (`"\t\r"`, `"2\r"`, `"\r\r"`): those are taken apart
 * here, one key per character.
 */
export function selectionKeys(input: string, key: KeyPress & { shift?: boolean }): SelectionKey[] {
  if (key.upArrow || (key.tab && key.shift === true)) return [{ kind: "up" }];
  if (key.downArrow || key.tab) return [{ kind: "down" }];
  if (key.return) return [{ kind: "enter" }];
  if (key.escape) return [{ kind: "escape" }];
  if (key.ctrl || key.meta) return [];
  const keys: SelectionKey[] = [];
  for (const ch of input) {
    if (ch === "\r") keys.push({ kind: "enter" });
    else if (ch === "\t") keys.push({ kind: "down" });
    else if (ch === "\u001b") keys.push({ kind: "escape" });
    else if (/^[1-9]$/.test(ch)) keys.push({ kind: "digit", digit: Number(ch) });
    else if ((ch.codePointAt(0) ?? 0) >= 0x20) keys.push({ kind: "text", text: ch });
  }
  return keys;
}

/** What a key does to a selection among `count` items. */
export type SelectionStep =
  | { readonly type: "move"; readonly index: number }
  | { readonly type: "choose"; readonly index: number }
  | { readonly type: "escape" }
  | { readonly type: "none" };

/**
 * Applies one key to the highlighted `index` among `count` items: arrows (and Tab) move,
 * around the ends when `wrap`; Enter chooses the highlighted item; a digit chooses that
 * item, if it exists.
 */
export function selectionStep(
  index: number,
  count: number,
  key: SelectionKey,
  wrap = true,
): SelectionStep {
  switch (key.kind) {
    case "up":
      if (count === 0) return { type: "none" };
      return { type: "move", index: wrap ? (index + count - 1) % count : Math.max(0, index - 1) };
    case "down":
      if (count === 0) return { type: "none" };
      return { type: "move", index: wrap ? (index + 1) % count : Math.min(count - 1, index + 1) };
    case "enter":
      return count === 0 ? { type: "none" } : { type: "choose", index };
    case "escape":
      return { type: "escape" };
    case "digit":
      return key.digit <= count ? { type: "choose", index: key.digit - 1 } : { type: "none" };
    default:
      return { type: "none" };
  }
}

/** What {@link useSelection} calls back with. */
export interface SelectionHandlers {
  /**
   * An item was chosen (Enter on it, or its number). When it returns a promise, keys count
   * again once that settles (a login that failed leaves the chooser up); otherwise the
   * selection is final.
   */
  readonly onChoose: (index: number) => void | Promise<unknown>;
  /** Esc. */
  readonly onEscape?: () => void;
  /** Other text typed while the selection is shown. */
  readonly onText?: (text: string) => void;
}

/**
 * The highlighted index of a selection among `count` items and the key handler that moves
 * and chooses. The handler reads and updates a ref, so every key of a chunk sees what the
 * key before it did; after a pick (or Esc), further keys are ignored (until the promise
 * `onChoose` returned settles, if any), so a second Enter in the same chunk cannot answer
 * again. The highlight starts at `initial` (the current value of a picker).
 */
export function useSelection(
  count: number,
  handlers: SelectionHandlers,
  wrap = true,
  initial = 0,
): { index: number; onKey: (input: string, key: KeyPress & { shift?: boolean }) => void } {
  const current = useRef(initial);
  const done = useRef(false);
  const [index, setIndex] = useState(initial);
  const onKey = (input: string, key: KeyPress & { shift?: boolean }): void => {
    for (const k of selectionKeys(input, key)) {
      if (done.current) return;
      if (k.kind === "text") {
        handlers.onText?.(k.text);
        continue;
      }
      const step = selectionStep(current.current, count, k, wrap);
      if (step.type === "move") {
        current.current = step.index;
        setIndex(step.index);
      } else if (step.type === "choose") {
        done.current = true;
        current.current = step.index;
        setIndex(step.index);
        const settled = handlers.onChoose(step.index);
        if (settled instanceof Promise) {
          const rearm = (): void => {
            done.current = false;
          };
          settled.then(rearm, rearm);
        }
      } else if (step.type === "escape" && handlers.onEscape !== undefined) {
        done.current = true;
        handlers.onEscape();
      }
    }
  };
  return { index, onKey };
}
