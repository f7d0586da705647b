/**
 * The picker of `run --resume`: recent sessions of this agent in this directory (title,
 * age, directory) as a keyboard selection, with a new session as the first row. It lives in
 * a {@link SessionPickerSlot} outside React, so that the controller's start can wait for
 * the pick while the view draws it.
 *
 * @module
 */
import { Box, Text, useStdout } from "ink";
import { useKeys } from "./keys.js";
import { useSyncExternalStore, type ReactNode } from "react";
import { age, type SessionEntry } from "../session-memory.js";
import { useSelection } from "./selection.js";
import { ViewState } from "../view-state.js";

/** What the person chose: a session id, a new session, or to leave (Esc). */
export type SessionPick =
  | { readonly type: "session"; readonly sessionId: string }
  | { readonly type: "new" }
  | { readonly type: "leave" };

/** The open picker, if any, for the view to draw. */
export class SessionPickerSlot extends ViewState {
  /** The open picker's rows and how to answer it. */
  current: { entries: readonly SessionEntry[]; answer: (pick: SessionPick) => void } | undefined;
  /** Shows the picker; resolves with the entry. */
  pick(entries: readonly SessionEntry[]): Promise<SessionPick> {
    return new Promise((resolve) => {
      this.current = {
        entries,
        answer: (pick) => {
          this.current = undefined;
          this.changed();
          resolve(pick);
        },
      };
      this.changed();
    });
  }
}

/** One row's text: title (or name, or id), age, and the directory when it is another. */
function rowText(entry: SessionEntry, cwd: string, now: Date): string {
  const label = entry.title ?? entry.name ?? entry.sessionId;
  const parts = [label];
  if (entry.name !== undefined && entry.title !== undefined) parts.push(`"${entry.name}"`);
  const when = age(entry.time, now);
  if (when !== "") parts.push(when);
  if (entry.cwd !== cwd) parts.push(entry.cwd);
  return parts.join(" · ");
}

/** The most session rows shown at once (the list scrolls with the highlight). */
const MAX_ROWS = 12;

/** The picker itself. */
export function SessionPicker({
  entries,
  cwd,
  onPick,
}: {
  entries: readonly SessionEntry[];
  cwd: string;
  onPick: (pick: SessionPick) => void;
}): ReactNode {
  const columns = useStdout().stdout.columns || 80;
  // Row 0 is a new session; the most recent session (row 1) is highlighted first. The
  // highlight is read when a key comes (see `selection.ts`).
  const { index, onKey } = useSelection(
    entries.length + 1,
    {
      onChoose: (i) => {
        const chosen = entries[i - 1];
        onPick(
          chosen === undefined ? { type: "new" } : { type: "session", sessionId: chosen.sessionId },
        );
      },
      onEscape: () => onPick({ type: "leave" }),
    },
    false,
    entries.length > 0 ? 1 : 0,
  );
  useKeys(onKey);
  const now = new Date();
  const first = Math.max(
    0,
    Math.min(index - 1 - Math.floor(MAX_ROWS / 2), entries.length - MAX_ROWS),
  );
  const shown = entries.slice(first, first + MAX_ROWS);
  const room = Math.max(20, columns - 10);
  const cut = (text: string): string => (text.length > room ? `${text.slice(0, room - 1)}…` : text);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} marginTop={1}>
      <Text bold>Resume a session ({entries.length} here)</Text>
      <Text color={index === 0 ? "cyan" : undefined}>{index === 0 ? "❯ " : "  "}+ New session</Text>
      {first > 0 ? <Text dimColor> ↑ {first} more</Text> : null}
      {shown.map((entry, i) => {
        const row = first + i + 1;
        return (
          <Text key={entry.sessionId} color={row === index ? "cyan" : undefined}>
            {row === index ? "❯ " : "  "}
            {cut(rowText(entry, cwd, now))}
          </Text>
        );
      })}
      {first + MAX_ROWS < entries.length ? (
        <Text dimColor> ↓ {entries.length - first - MAX_ROWS} more</Text>
      ) : null}
      <Text dimColor>↑↓ choose · Enter open · Esc leave</Text>
    </Box>
  );
}

/** The slot's picker, when one is open. */
export function OpenSessionPicker({
  slot,
  cwd,
}: {
  slot: SessionPickerSlot | undefined;
  cwd: string;
}): ReactNode {
  const subscribe = slot?.subscribe ?? noSubscribe;
  useSyncExternalStore(subscribe, slot?.snapshot ?? zero);
  const open = slot?.current;
  if (open === undefined) return null;
  return <SessionPicker entries={open.entries} cwd={cwd} onPick={open.answer} />;
}

const noSubscribe = (): (() => void) => () => undefined;
const zero = (): number => 0;
