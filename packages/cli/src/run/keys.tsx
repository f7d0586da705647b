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
 * several keys of a chunk read their own state from refs, see `choice.ts`.)
 *
 * @module
 */
import { useInput, type Key } from "ink";
import { createContext, useContext, useLayoutEffect, useRef, type ReactNode } from "react";

/** What a view does with a key: Ink's `useInput` handler. */
export type KeyHandler = (input: string, key: Key) => void;

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
  useInput((input, key) => {
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
