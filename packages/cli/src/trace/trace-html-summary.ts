/**
 * The summary section of the HTML trace page: duration, exit, counts per method and
 * direction with latencies, errors and unanswered requests (linked to their rows), and
 * what was odd about the file.
 *
 * @module
 */
import { endedByClient } from "./trace-fold.js";
import { describeEntry } from "./message-summary.js";
import { escapeHtml } from "./trace-html-assets.js";
import {
  describeExit,
  exitFailed,
  formatLatency,
  idText,
  plural,
  timelineWarnings,
  timeText,
} from "./trace-labels.js";
import type { Timeline, TimelineEntry } from "./trace-timeline.js";

function link(entry: TimelineEntry, text: string, cls: string): string {
  return `<a class="${cls}" href="#e${entry.index}">${escapeHtml(text)}</a>`;
}

function entryList(entries: readonly TimelineEntry[], cls: string, withOutcome: boolean): string {
  if (entries.length === 0) return "";
  const items = entries.map((e) => {
    const what = `${timeText(e.t)} ${e.dir ?? ""} ${e.method ?? "(unknown method)"}${idText(e.id)}`;
    const outcome = withOutcome ? `: ${describeEntry(e) ?? ""}` : "";
    return `<li>${link(e, what + outcome, cls)}</li>`;
  });
  return `<ul>${items.join("")}</ul>`;
}

/** The `<section id="summary">` of the page. */
export function renderSummaryHtml(timeline: Timeline): string {
  const { trace } = timeline;
  const exit = trace.exit;
  const exitText =
    exit === undefined
      ? `<span class="warn">not recorded (the trace is incomplete)</span>`
      : `<span class="${exitFailed(exit, endedByClient(trace)) ? "err" : "ok"}">${escapeHtml(describeExit(exit, endedByClient(trace)))}</span>`;
  const m = timeline.messages;
  const methodRows = timeline.methods.map((s) => {
    const latency =
      s.kind === "request" && s.answered > 0
        ? `avg ${formatLatency(s.totalLatencyMs / s.answered)}, max ${formatLatency(s.maxLatencyMs)}`
        : "";
    const open = s.kind === "request" ? s.count - s.answered : 0;
    return (
      `<tr><td>${escapeHtml(s.dir)}</td><td class="method">${escapeHtml(s.method)}</td>` +
      `<td>${s.kind}</td><td class="n">${s.count}</td><td>${escapeHtml(latency)}</td>` +
      `<td class="${s.errors > 0 ? "err" : ""}">${s.errors > 0 ? plural(s.errors, "error") : ""}</td>` +
      `<td class="${open > 0 ? "warn" : ""}">${open > 0 ? `${open} unanswered` : ""}</td></tr>`
    );
  });
  const warnings = timelineWarnings(timeline);
  const problems = trace.problems.map(
    (p) =>
      `<li>line ${p.line}: ${escapeHtml(p.reason)}: <code>${escapeHtml(p.excerpt)}</code></li>`,
  );
  return `<section id="summary">
<h2>Summary</h2>
<table>
<tr><th>duration</th><td>${(timeline.durationMs / 1000).toFixed(2)} s</td></tr>
<tr><th>exit</th><td>${exitText}</td></tr>
<tr><th>messages</th><td>${m["client→agent"]} client→agent, ${m["agent→client"]} agent→client, ${plural(timeline.stderrLines, "stderr line")}</td></tr>
<tr><th>errors</th><td class="${timeline.errors.length > 0 ? "err" : ""}">${timeline.errors.length}${entryList(timeline.errors, "err", true)}</td></tr>
<tr><th>unanswered</th><td class="${timeline.unanswered.length > 0 ? "warn" : ""}">${timeline.unanswered.length}${entryList(timeline.unanswered, "warn", false)}</td></tr>
${warnings.length > 0 ? `<tr><th>warnings</th><td class="warn">${escapeHtml(warnings.join(", "))}</td></tr>` : ""}
</table>
<h2>Methods</h2>
<table>
<tr><th>direction</th><th>method</th><th>kind</th><th>count</th><th>latency</th><th></th><th></th></tr>
${methodRows.join("\n")}
</table>
${problems.length > 0 ? `<h2>Skipped lines of the file</h2><ul>${problems.join("")}</ul>` : ""}
</section>`;
}
