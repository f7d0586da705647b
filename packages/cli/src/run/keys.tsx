/**
 * Keys for the views, routed by what is on the screen.
 *
 * Ink's `useInput` attaches and detaches each listener in a passive effect, which React
 * runs some time after the change was committed and drawn. A key that comes in that gap
 * goes to the views of the screen before: a person who presses `1` as a permission box
 * appears sees the `1` land in the input line under the box, and the box, whose listener
 * is not attached yet, gets nothing.
 *
 * Here one Ink listener ({@link KeyRouter}) hands each key to the views' handlers, and a
 * view's handler and whether it is active are recorded in layout effects, which React runs
 * in the same task as the commit that draws the view. So a key reaches the views that were
 * on the screen when it was read. (Keys read together in one chunk all go to the views of
 * that moment: React draws what the first one changed only after the chunk. Views that take
 * several keys of a chunk read their own state from refs, see `selection.ts`.)
 *
 * @module
 */
import { useInput, type Key } from "ink";
import { createContext, useContext, useLayoutEffect, useRef, type ReactNode } from "react";

/**
 * A key as the views get it: Ink's, with the marks of a bracketed paste (which Ink reports
 * as the text `[200~` and `[201~`) taken out of the text.
 */
export interface RoutedKey extends Key {
  /** This event is the start or the end of a bracketed paste (its input is empty). */
  readonly paste?: "start" | "end";
}

/** What a view does with a key: Ink's `useInput` handler, with {@link RoutedKey}s. */
export type KeyHandler = (input: string, key: RoutedKey) => void;

/**
 * What the views get for what Ink reports: the marks of a bracketed paste as `paste`, and
 * Shift-Enter as xterm sends it with modifyOtherKeys (`CSI 27;2;13~`, which Ink does not
 * know) as Enter with Shift; the rest as it is.
 */
export function routedKey(input: string, key: Key): [string, RoutedKey] {
  if (key.ctrl || key.meta) return [input, key];
  if (input === "[200~") return ["", { ...key, paste: "start" }];
  if (input === "[201~") return ["", { ...key, paste: "end" }];
  if (input === "[27;2;13~") return ["\r", { ...key, return: true, shift: true }];
  return [input, key];
}

interface Entry {
  handler: KeyHandler;
  active: boolean;
}

const Routes = createContext<Set<Entry> | undefined>(undefined);

/**
 * Takes the keys for every {@link useKeys} below it, from one Ink listener that stays
 * attached (and the terminal in raw mode) while it is mounted.
 */
export function KeyRouter({ children }: { children: ReactNode }): ReactNode {
  const entries = useRef<Set<Entry>>(new Set()).current;
  useInput((raw, rawKey) => {
    const [input, key] = routedKey(raw, rawKey);
    // A handler may mount or unmount views; those count from the next chunk (see above).
    for (const entry of [...entries]) {
      if (entry.active) entry.handler(input, key);
    }
  });
  return <Routes.Provider value={entries}>{children}</Routes.Provider>;
}

/**
 * Calls `handler` for each key while this view is mounted and `isActive` is not false, as
 * Ink's `useInput` does, but from the moment the view is drawn (see the module comment).
 * Handlers are called in the order their views were mounted. Needs a {@link KeyRouter}
 * above.
 */
export function useKeys(handler: KeyHandler, options: { isActive?: boolean } = {}): void {
  const entries = useContext(Routes);
  if (entries === undefined) throw new Error("useKeys needs a KeyRouter above it");
  const entry = useRef<Entry>({ handler, active: false }).current;
  const active = options.isActive !== false;
  useLayoutEffect(() => {
    entry.handler = handler;
    entry.active = active;
  });
  useLayoutEffect(() => {
    entries.add(entry);
    return () => {
      entry.active = false;
      entries.delete(entry);
    };
  }, [entries, entry]);
}
