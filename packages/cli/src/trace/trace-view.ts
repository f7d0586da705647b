/**
 * {@link viewTrace} / {@link formatTrace}: a trace as a readable timeline: the summary
 * first, then one line per record, with consecutive chunks of one message folded into one
 * line.
 *
 * ```
 * +12.3ms     client→agent  session/prompt #3 "Refactor the parser"  ← result in 1234.5 ms (stopReason: end_turn)  {"sessionId":"s1","prompt":[…… (+1.2 KB)
 * +20.1ms     agent→client  session/update agent_message_chunk ×42 in 310.2 ms "Sure, here is the plan…" (1.2 KB)
 * +1246.8ms   agent→client  session/prompt #3 result in 1234.5 ms  stopReason: end_turn  {"stopReason":"end_turn"}
 * ```
 *
 * @module
 */
import { describeEntry, fold, formatBytes, quote } from "./message-summary.js";
import { readTrace, type Trace } from "./read-trace.js";
import type { TraceEventRecord, TraceExitRecord, TraceHeaderRecord } from "./trace-format.js";
import {
  describeEvent,
  describeExit,
  describeHeader,
  exitFailed,
  formatLatency,
  formatTime,
  idText,
} from "./trace-labels.js";
import { endedByClient, foldChunks, stripAnsi, type TimelineRow } from "./trace-fold.js";
import { buildTimeline, type TimelineEntry } from "./trace-timeline.js";
import { formatSummary } from "./trace-view-summary.js";
import { renderLine, seg, type Segment, type Style } from "./styled-line.js";

/** Options of {@link viewTrace} and {@link formatTrace}. */
export interface ViewTraceOptions {
  /** Colour with ANSI codes (default false; pass false when not a TTY or `NO_COLOR` is set). */
  readonly color?: boolean;
  /** Cut lines to this many characters (default 0: no limit). */
  readonly width?: number;
  /**
   * Show the first this many characters of each payload's JSON, then `… (+12.3 KB)`
   * (default 120; `Infinity` shows everything, 0 hides payloads).
   */
  readonly foldBytes?: number;
  /** Show the agent's stderr lines (default true). */
  readonly stderr?: boolean;
  /** Start with a summary (default true). */
  readonly summary?: boolean;
  /** Fold consecutive chunks of one message into one line (default true). */
  readonly foldChunks?: boolean;
}

/** The default of {@link ViewTraceOptions.foldBytes}. */
export const DEFAULT_FOLD_CHARS = 120;

function payloadSegments(value: unknown, foldChars: number): Segment[] {
  if (value === undefined || foldChars <= 0) return [];
  const folded = fold(value, foldChars);
  if (folded.hiddenBytes === 0) return [seg("  "), seg(folded.text, "dim")];
  return [
    seg("  "),
    seg(`${folded.text}…`, "dim"),
    seg(` (+${formatBytes(folded.hiddenBytes)})`, "yellow"),
  ];
}

function label(entry: TimelineEntry): Segment[] {
  const unknown = entry.kind === "response" ? "response" : "(method unknown)";
  const method = seg(entry.method ?? unknown, "bold");
  const id = entry.id === undefined ? [] : [seg(idText(entry.id))];
  const truncated = entry.truncated
    ? [seg(` [truncated, ${formatBytes(recordBytes(entry))}]`, "yellow")]
    : [];
  return [method, ...id, ...truncated];
}

function recordBytes(entry: TimelineEntry): number {
  const record = entry.record as { bytes?: number };
  return record.bytes ?? 0;
}

function answerSegments(entry: TimelineEntry, entries: readonly TimelineEntry[]): Segment[] {
  if (entry.partner === undefined) return [seg("  ← no response", "yellow")];
  const response = entries[entry.partner];
  const latency = formatLatency(entry.latencyMs ?? 0);
  if (response?.error !== undefined) {
    return [
      seg(`  ← error in ${latency}`, "red"),
      seg(` (${describeEntry(response) ?? "?"})`, "red"),
    ];
  }
  const summary = response === undefined ? undefined : describeEntry(response);
  return [
    seg(`  ← result in ${latency}`, "green"),
    ...(summary === undefined ? [] : [seg(` (${summary})`)]),
  ];
}

function entrySegments(
  entry: TimelineEntry,
  entries: readonly TimelineEntry[],
  foldChars: number,
  byClient: boolean,
): Segment[] | undefined {
  const summary = describeEntry(entry);
  const summarySegments =
    summary === undefined
      ? []
      : [seg(` ${summary}`, entry.error === undefined ? undefined : "red")];
  switch (entry.kind) {
    case "request":
      return [
        ...label(entry),
        ...summarySegments,
        ...answerSegments(entry, entries),
        ...payloadSegments(entry.payload, foldChars),
      ];
    case "notification":
      return [
        ...label(entry),
        ...summarySegments,
        ...(summary === undefined ? payloadSegments(entry.payload, foldChars) : []),
      ];
    case "response": {
      const timing =
        entry.partner === undefined
          ? " (answers no recorded request)"
          : ` in ${formatLatency(entry.latencyMs ?? 0)}`;
      if (entry.error !== undefined) {
        return [
          ...label(entry),
          seg(` ERROR${timing}`, "red"),
          seg(` ${summary ?? ""}`, "red"),
          ...payloadSegments(entry.error.data, foldChars),
        ];
      }
      return [
        ...label(entry),
        seg(` result${timing}`, "green"),
        ...(summary === undefined ? [] : [seg(`  ${summary}`)]),
        ...payloadSegments(entry.payload, foldChars),
      ];
    }
    case "raw": {
      const raw = (entry.record as { raw?: string }).raw ?? "";
      const what = entry.truncated
        ? `⚠ truncated line (${formatBytes(recordBytes(entry))}), not JSON:`
        : "⚠ not JSON:";
      return [seg(what, "yellow"), seg(` ${quote(raw, Math.max(foldChars, 40))}`, "yellow")];
    }
    case "invalid":
      return [
        seg("⚠ not JSON-RPC:", "yellow"),
        ...payloadSegments((entry.record as { msg?: unknown }).msg, Math.max(foldChars, 40)),
      ];
    case "stderr":
      // The agent's colours are its terminal's business: shown as plain text.
      return [seg(`│ ${stripAnsi((entry.record as { text: string }).text)}`, "dim")];
    case "event":
      return [seg(describeEvent(entry.record as TraceEventRecord), "dim")];
    case "header":
      return [seg(describeHeader(entry.record as TraceHeaderRecord), "bold")];
    case "exit": {
      const record = entry.record as TraceExitRecord;
      return [seg(describeExit(record, byClient), exitFailed(record, byClient) ? "red" : "bold")];
    }
  }
}

function directionStyle(entry: TimelineEntry): Style | undefined {
  if (entry.dir === "client→agent") return "cyan";
  if (entry.dir === "agent→client") return "magenta";
  return "dim";
}

/** The segments of a folded run of chunks: kind, count, span of time, the whole text. */
function chunkSegments(
  row: Extract<TimelineRow, { kind: "chunks" }>,
  foldChars: number,
): Segment[] {
  const first = row.entries[0];
  const last = row.entries[row.entries.length - 1];
  const span = first === undefined || last === undefined ? 0 : last.t - first.t;
  const bytes = Buffer.byteLength(row.text, "utf8");
  const max = Number.isFinite(foldChars) ? Math.max(foldChars, 40) : row.text.length;
  return [
    seg("session/update", "bold"),
    seg(` ${row.update} ×${row.entries.length} in ${formatLatency(span)} `),
    seg(quote(row.text, max)),
    seg(` (${formatBytes(bytes)})`, "dim"),
  ];
}

function rowDirection(entry: TimelineEntry): string {
  return entry.dir ?? (entry.kind === "header" || entry.kind === "exit" ? "agent" : "proxy");
}

/** Formats a parsed trace; see {@link viewTrace}. */
export function formatTrace(trace: Trace, options: ViewTraceOptions = {}): string {
  const color = options.color ?? false;
  const width = options.width ?? 0;
  const foldChars = options.foldBytes ?? DEFAULT_FOLD_CHARS;
  const timeline = buildTimeline(trace);
  const byClient = endedByClient(trace);
  const lines: string[] = [];
  // The summary first: what happened, before the detail of how.
  if (options.summary !== false) lines.push(...formatSummary(timeline, color, width), "");
  const hidden = (entry: TimelineEntry): boolean =>
    entry.kind === "stderr" && options.stderr === false;
  const rows: TimelineRow[] =
    options.foldChunks === false
      ? timeline.entries.filter((e) => !hidden(e)).map((entry) => ({ kind: "entry", entry }))
      : foldChunks(timeline.entries, hidden);
  for (const row of rows) {
    const entry = row.kind === "entry" ? row.entry : row.entries[0];
    if (entry === undefined) continue;
    const body =
      row.kind === "chunks"
        ? chunkSegments(row, foldChars)
        : (entrySegments(entry, timeline.entries, foldChars, byClient) ?? []);
    const line = [
      seg(formatTime(entry.t), "dim"),
      seg(rowDirection(entry).padEnd(14), directionStyle(entry)),
      ...body,
    ];
    lines.push(renderLine(line, color, width));
  }
  for (const problem of trace.problems) {
    const row = [
      seg(`⚠ line ${problem.line} of the file skipped: ${problem.reason}: `, "yellow"),
      seg(problem.excerpt),
    ];
    lines.push(renderLine(row, color, width));
  }
  return lines.join("\n") + "\n";
}

/**
 * Reads a trace file and formats it as a readable timeline: requests paired with their
 * responses and latencies, notifications on one line each (the chunks of one message on
 * one line together), errors in red with what their data says, long payloads folded,
 * stderr dimmed (without its colour codes), unparsed lines flagged, after a summary
 * (counts per method, errors, unanswered requests, duration, how the agent ended).
 *
 * @param file - A trace written by `acp-kit trace`.
 * @param options - Colours, width, folding.
 */
export async function viewTrace(file: string, options: ViewTraceOptions = {}): Promise<string> {
  return formatTrace(await readTrace(file), options);
}
