/**
 * {@link writeTraceHtml} / {@link renderTraceHtml}: a trace as one self-contained HTML page
 * for sharing: the timeline with collapsible payloads, requests linked to their responses
 * with latencies, errors highlighted, a filter box (method, direction, text), the
 * summary first, consecutive chunks of one message folded into one row (open it for the
 * raw messages), and the agent's stderr with its colours. No external resources (a Content-Security-Policy forbids loading any), and
 * everything from the trace is HTML-escaped: a message cannot inject markup or script.
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import { jsonText } from "acp-kit/internal";
import { describeEntry, formatBytes } from "./message-summary.js";
import { readTrace, type Trace } from "./read-trace.js";
import type {
  TraceEventRecord,
  TraceExitRecord,
  TraceHeaderRecord,
  TraceLineDirection,
} from "./trace-format.js";
import { TRACE_CSS, TRACE_JS, escapeHtml } from "./trace-html-assets.js";
import { renderSummaryHtml } from "./trace-html-summary.js";
import {
  describeEvent,
  describeExit,
  describeHeader,
  exitFailed,
  formatLatency,
  formatTime,
  idText,
} from "./trace-labels.js";
import { ansiSpans, endedByClient, foldChunks, stripAnsi, type TimelineRow } from "./trace-fold.js";
import { buildTimeline, type TimelineEntry } from "./trace-timeline.js";

/** Options of {@link renderTraceHtml} and {@link writeTraceHtml}. */
export interface TraceHtmlOptions {
  /** The most characters of one payload shown (default 200 000; the rest is cut). */
  readonly maxPayloadChars?: number;
  /** The page title (default: from the trace's command). */
  readonly title?: string;
}

const DIR_CLASSES: Record<TraceLineDirection, string> = {
  "client→agent": "d-c2a",
  "agent→client": "d-a2c",
  "agent-stderr": "d-stderr",
};

/**
 * Payloads are shown this many levels deep; deeper containers as `[… (nested too deep)]`
 * (indented, a message nested 100,000 levels would be billions of spaces).
 */
const MAX_SHOWN_DEPTH = 100;

function pretty(value: unknown, maxChars: number): string {
  const json = jsonText(value, { indent: 2, maxDepth: MAX_SHOWN_DEPTH }) ?? "undefined";
  if (json.length <= maxChars) return escapeHtml(json);
  const rest = Buffer.byteLength(json.slice(maxChars), "utf8");
  return `${escapeHtml(json.slice(0, maxChars))}\n<span class="warn">… (+${formatBytes(rest)} not shown)</span>`;
}

function span(cls: string, text: string): string {
  return `<span class="${cls}">${escapeHtml(text)}</span>`;
}

/** The agent's stderr with its colours rendered (escaped; other escapes dropped). */
function ansiHtml(text: string): string {
  return ansiSpans(text)
    .map((s) => (s.classes.length === 0 ? escapeHtml(s.text) : span(s.classes.join(" "), s.text)))
    .join("");
}

/** The inside of a row's `<summary>` (or of the row, when it has no payload). */
function headline(
  entry: TimelineEntry,
  entries: readonly TimelineEntry[],
  byClient: boolean,
): string {
  const record = entry.record;
  const summary = describeEntry(entry);
  const sum =
    summary === undefined ? "" : ` ${span(entry.error === undefined ? "sum" : "err", summary)}`;
  const unknown = entry.kind === "response" ? "response" : "(method unknown)";
  const label = `${span("method", entry.method ?? unknown)}${escapeHtml(idText(entry.id))}`;
  const cut = entry.truncated
    ? ` ${span("warn", `[truncated, ${formatBytes((record as { bytes?: number }).bytes ?? 0)}]`)}`
    : "";
  switch (entry.kind) {
    case "request": {
      const response = entry.partner === undefined ? undefined : entries[entry.partner];
      let answer = ` ${span("warn", "← no response")}`;
      if (response !== undefined) {
        const latency = formatLatency(entry.latencyMs ?? 0);
        const failed = response.error !== undefined;
        const text = failed ? `← error in ${latency}` : `← result in ${latency}`;
        answer = ` <a class="${failed ? "err" : "ok"}" href="#e${response.index}">${escapeHtml(text)}</a>`;
        const outcome = describeEntry(response);
        if (outcome !== undefined) answer += ` ${span(failed ? "err" : "sum", `(${outcome})`)}`;
      }
      return `${label}${cut}${sum}${answer}`;
    }
    case "notification":
      return `${label}${cut}${sum}`;
    case "response": {
      const failed = entry.error !== undefined;
      const word = failed ? "ERROR" : "result";
      const timing =
        entry.partner === undefined
          ? ` ${span("warn", `${word} (answers no recorded request)`)}`
          : ` <a class="${failed ? "err" : "ok"}" href="#e${entry.partner}">${escapeHtml(`${word} in ${formatLatency(entry.latencyMs ?? 0)}`)}</a>`;
      return `${label}${cut}${timing}${sum}`;
    }
    case "raw":
      return `${span("warn", entry.truncated ? "⚠ truncated line, not JSON" : "⚠ not JSON")}${cut}`;
    case "invalid":
      return span("warn", "⚠ not JSON-RPC");
    case "stderr":
      return `<span class="text">${ansiHtml((record as { text: string }).text)}</span>`;
    case "event":
      return escapeHtml(describeEvent(record as TraceEventRecord));
    case "header":
      return span("method", describeHeader(record as TraceHeaderRecord));
    case "exit": {
      const exit = record as TraceExitRecord;
      return span(exitFailed(exit, byClient) ? "err" : "method", describeExit(exit, byClient));
    }
  }
}

/** The payload shown when a row is opened, if any. */
function body(entry: TimelineEntry, maxChars: number): string | undefined {
  const record = entry.record as { msg?: unknown; raw?: string };
  if (record.raw !== undefined) {
    return `<pre class="raw">${escapeHtml(record.raw.slice(0, maxChars))}</pre>`;
  }
  if ("msg" in record && entry.kind !== "stderr")
    return `<pre>${pretty(record.msg, maxChars)}</pre>`;
  return undefined;
}

function row(
  entry: TimelineEntry,
  entries: readonly TimelineEntry[],
  maxChars: number,
  byClient: boolean,
): string {
  const dir = entry.dir ?? (entry.kind === "event" ? "proxy" : "agent");
  const isError =
    entry.error !== undefined ||
    (entry.kind === "exit" && exitFailed(entry.record as TraceExitRecord, byClient));
  const classes = [
    "row",
    `k-${entry.kind}`,
    entry.dir === undefined ? "d-meta" : DIR_CLASSES[entry.dir],
    ...(isError ? ["is-error"] : []),
  ].join(" ");
  const search = [dir, entry.method ?? "", idText(entry.id), describeEntry(entry) ?? ""];
  if (entry.kind === "stderr") search.push(stripAnsi((entry.record as { text: string }).text));
  const head = headline(entry, entries, byClient);
  const payload = body(entry, maxChars);
  const content =
    payload === undefined
      ? `<div>${head}</div>`
      : `<details><summary>${head}</summary>${payload}</details>`;
  return (
    `<div class="${classes}" id="e${entry.index}" data-dir="${escapeHtml(dir)}" ` +
    `data-search="${escapeHtml(search.join(" ").toLowerCase())}">` +
    `<span class="t">${escapeHtml(formatTime(entry.t).trim())}</span>` +
    `<span class="dir">${escapeHtml(dir)}</span>${content}</div>`
  );
}

/**
 * A run of chunks of one message as one row: the whole text, and the raw messages inside
 * when it is opened.
 */
function chunkRow(run: Extract<TimelineRow, { kind: "chunks" }>, maxChars: number): string {
  const first = run.entries[0];
  const last = run.entries[run.entries.length - 1];
  if (first === undefined || last === undefined) return "";
  const dir = first.dir ?? "agent";
  const classes = [
    "row",
    "k-notification",
    "k-chunks",
    first.dir === undefined ? "d-meta" : DIR_CLASSES[first.dir],
  ];
  const search = [dir, "session/update", run.update, run.text.slice(0, 2000)];
  const head =
    `${span("method", "session/update")} ${span("sum", `${run.update} ×${run.entries.length} in ${formatLatency(last.t - first.t)}, ${formatBytes(Buffer.byteLength(run.text, "utf8"))}`)}` +
    `<div class="chunk-text">${escapeHtml(run.text.slice(0, maxChars))}</div>`;
  const raw = run.entries
    .map(
      (e) =>
        `<div id="e${e.index}"><span class="t">${escapeHtml(formatTime(e.t).trim())}</span><pre>${pretty((e.record as { msg?: unknown }).msg, maxChars)}</pre></div>`,
    )
    .join("");
  return (
    `<div class="${classes.join(" ")}" id="e${first.index}-run" data-dir="${escapeHtml(dir)}" ` +
    `data-search="${escapeHtml(search.join(" ").toLowerCase())}">` +
    `<span class="t">${escapeHtml(formatTime(first.t).trim())}</span>` +
    `<span class="dir">${escapeHtml(dir)}</span>` +
    `<details><summary>${head}</summary>${span("sum", `${run.entries.length} raw messages:`)}${raw}</details></div>`
  );
}

/** Renders a parsed trace as a self-contained HTML page. */
export function renderTraceHtml(trace: Trace, options: TraceHtmlOptions = {}): string {
  const maxChars = options.maxPayloadChars ?? 200_000;
  const timeline = buildTimeline(trace);
  const header = trace.header;
  const title =
    options.title ??
    (header === undefined
      ? "ACP trace"
      : `ACP trace: ${[header.command, ...header.args].join(" ")}`);
  const dirs = ["client→agent", "agent→client", "agent-stderr", "proxy", "agent"];
  const boxes = dirs
    .map(
      (d) =>
        `<label><input type="checkbox" data-dir="${escapeHtml(d)}" checked> ${escapeHtml(d)}</label>`,
    )
    .join(" ");
  const byClient = endedByClient(trace);
  const rows = foldChunks(timeline.entries)
    .map((r) =>
      r.kind === "entry"
        ? row(r.entry, timeline.entries, maxChars, byClient)
        : chunkRow(r, maxChars),
    )
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="acp-kit trace view">
<title>${escapeHtml(title)}</title>
<style>${TRACE_CSS}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1><div class="meta">${escapeHtml(header === undefined ? "(no header)" : describeHeader(header))}</div></header>
${renderSummaryHtml(timeline)}
<div class="controls"><input id="filter" type="search" placeholder="filter: method, direction, text…" aria-label="filter"> ${boxes} <label><input type="checkbox" id="errors-only"> errors only</label> <button type="button" id="expand">expand all</button> <button type="button" id="collapse">collapse all</button> <span id="count" class="meta"></span></div>
<main id="timeline">
${rows}
</main>
<script>${TRACE_JS}</script>
</body>
</html>
`;
}

/**
 * Reads a trace file and writes it as a self-contained HTML page.
 *
 * @param file - A trace written by `acp-kit trace`.
 * @param outFile - The HTML file to write.
 * @param options - Payload size limit, title.
 */
export async function writeTraceHtml(
  file: string,
  outFile: string,
  options: TraceHtmlOptions = {},
): Promise<void> {
  await writeFile(outFile, renderTraceHtml(await readTrace(file), options), "utf8");
}
