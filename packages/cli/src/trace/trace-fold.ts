/**
 * Folding a timeline for people: consecutive chunks of one message (`agent_message_chunk`,
 * `agent_thought_chunk`, `user_message_chunk` of the same session, direction and message)
 * become one row with the whole text, instead of one row per chunk (a short demo turn
 * streams hundreds). Also: ANSI colour sequences in the agent's stderr, and whether the
 * agent's end was the client's own doing.
 *
 * @module
 */
import type { Trace } from "./read-trace.js";
import type { TimelineEntry } from "./trace-timeline.js";

/** A row of the folded timeline: one entry, or a run of chunks of one message. */
export type TimelineRow =
  | { readonly kind: "entry"; readonly entry: TimelineEntry }
  | {
      readonly kind: "chunks";
      /** The notifications folded, in order (two or more). */
      readonly entries: readonly TimelineEntry[];
      /** `agent_message_chunk`, `agent_thought_chunk` or `user_message_chunk`. */
      readonly update: string;
      /** The message's text, the chunks joined (non-text blocks as `[type]`). */
      readonly text: string;
    };

const CHUNK_KINDS = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The message a chunk belongs to, its kind and its text; undefined for other entries. */
function chunkOf(entry: TimelineEntry): { key: string; update: string; text: string } | undefined {
  if (entry.kind !== "notification" || entry.method !== "session/update") return undefined;
  if (!isObject(entry.payload)) return undefined;
  const update = entry.payload.update;
  if (!isObject(update) || typeof update.sessionUpdate !== "string") return undefined;
  if (!CHUNK_KINDS.has(update.sessionUpdate)) return undefined;
  const content = update.content;
  const text = !isObject(content)
    ? ""
    : typeof content.text === "string"
      ? content.text
      : `[${typeof content.type === "string" ? content.type : "?"}]`;
  const sessionId = typeof entry.payload.sessionId === "string" ? entry.payload.sessionId : "";
  const messageId = typeof update.messageId === "string" ? update.messageId : "";
  return {
    key: [entry.dir, sessionId, update.sessionUpdate, messageId].join("\u0000"),
    update: update.sessionUpdate,
    text,
  };
}

/**
 * Folds runs of consecutive chunks of one message into one row. `hidden` entries are left
 * out first (they do not break a run).
 */
export function foldChunks(
  entries: readonly TimelineEntry[],
  hidden: (entry: TimelineEntry) => boolean = () => false,
): TimelineRow[] {
  const rows: TimelineRow[] = [];
  let run: { key: string; update: string; entries: TimelineEntry[]; texts: string[] } | undefined;
  const flush = (): void => {
    if (run === undefined) return;
    const [first] = run.entries;
    if (run.entries.length === 1 && first !== undefined) rows.push({ kind: "entry", entry: first });
    else
      rows.push({
        kind: "chunks",
        entries: run.entries,
        update: run.update,
        text: run.texts.join(""),
      });
    run = undefined;
  };
  for (const entry of entries) {
    if (hidden(entry)) continue;
    const chunk = chunkOf(entry);
    if (chunk !== undefined && run?.key === chunk.key) {
      run.entries.push(entry);
      run.texts.push(chunk.text);
      continue;
    }
    flush();
    if (chunk === undefined) rows.push({ kind: "entry", entry });
    else run = { key: chunk.key, update: chunk.update, entries: [entry], texts: [chunk.text] };
  }
  flush();
  return rows;
}

// ESC [ params final (CSI: colours, cursor moves), ESC ] ... BEL/ST (OSC: titles, links),
// and other two-character escapes.
const ANSI =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/** Text without ANSI escape sequences (colours, cursor moves, titles). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** A run of text and the SGR styles in force for it. */
export interface AnsiSpan {
  readonly text: string;
  /** CSS class names: `fg-1`…`fg-15` (the 16 colours), `bold`, `dim`, `italic`, `underline`. */
  readonly classes: readonly string[];
}

/**
 * Splits text with SGR colour sequences into styled runs (the 16 colours and bold, dim,
 * italic, underline; 256-colour and RGB colours are mapped to none); other escapes are
 * dropped.
 */
export function ansiSpans(text: string): AnsiSpan[] {
  const spans: AnsiSpan[] = [];
  let fg: number | undefined;
  const flags = new Set<string>();
  let last = 0;
  const push = (piece: string): void => {
    if (piece === "") return;
    const classes = [...(fg === undefined ? [] : [`fg-${fg}`]), ...[...flags].sort()];
    spans.push({ text: piece, classes });
  };
  for (const match of text.matchAll(ANSI)) {
    push(text.slice(last, match.index));
    last = match.index + match[0].length;
    // eslint-disable-next-line no-control-regex
    const sgr = /^\u001b\[([0-9;]*)m$/.exec(match[0]);
    if (sgr === null) continue;
    const codes = (sgr[1] ?? "").split(";").map((c) => (c === "" ? 0 : Number(c)));
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i] ?? 0;
      if (code === 0) {
        fg = undefined;
        flags.clear();
      } else if (code === 1) flags.add("bold");
      else if (code === 2) flags.add("dim");
      else if (code === 3) flags.add("italic");
      else if (code === 4) flags.add("underline");
      else if (code === 22) {
        flags.delete("bold");
        flags.delete("dim");
      } else if (code === 23) flags.delete("italic");
      else if (code === 24) flags.delete("underline");
      else if (code >= 30 && code <= 37) fg = code - 30;
      else if (code >= 90 && code <= 97) fg = code - 90 + 8;
      else if (code === 39) fg = undefined;
      else if (code === 38 || code === 48) {
        // 38;5;n or 38;2;r;g;b: skip the arguments.
        i += codes[i + 1] === 5 ? 2 : codes[i + 1] === 2 ? 4 : 0;
      }
    }
  }
  push(text.slice(last));
  return spans;
}

const END_SIGNALS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/**
 * True when the agent ended because the client asked it to: the proxy got a signal
 * (SIGTERM, SIGINT or SIGHUP, from the editor ending its agent) and passed it on, and the
 * agent ended by that signal (or exited 0, or with 128 + its number). Such an end is
 * normal, not an error.
 */
export function endedByClient(trace: Trace): boolean {
  const exit = trace.exit;
  if (exit === undefined || exit.error !== undefined) return false;
  const asked = trace.records.flatMap((r) =>
    r.type === "event" && r.event === "signal" && r.detail !== undefined ? [r.detail] : [],
  );
  if (asked.length === 0) return false;
  if (exit.signal !== null) return asked.includes(exit.signal) && exit.signal in END_SIGNALS;
  return (
    exit.code === 0 ||
    asked.some((s) => END_SIGNALS[s] !== undefined && exit.code === 128 + (END_SIGNALS[s] ?? 0))
  );
}
