/**
 * The summary at the top of `acp-kit trace view`: duration, how the agent ended, counts
 * per method and direction (with latencies), errors, unanswered requests, unparsed lines.
 *
 * @module
 */
import { describeEntry } from "./message-summary.js";
import { renderLine, seg, type Segment } from "./styled-line.js";
import { endedByClient } from "./trace-fold.js";
import type { Timeline, TimelineEntry } from "./trace-timeline.js";
import {
  describeExit,
  describeHeader,
  exitFailed,
  formatLatency,
  idText,
  plural,
  timelineWarnings,
  timeText,
} from "./trace-labels.js";

/** How many errors and unanswered requests are listed one by one. */
const LIST_LIMIT = 20;

function field(name: string, ...value: Segment[]): Segment[] {
  return [seg(name.padEnd(12), "bold"), ...value];
}

function listed(
  entries: readonly TimelineEntry[],
  describe: (e: TimelineEntry) => Segment[],
): Segment[][] {
  const rows = entries.slice(0, LIST_LIMIT).map((entry) => [seg("  "), ...describe(entry)]);
  if (entries.length > LIST_LIMIT) rows.push([seg(`  … and ${entries.length - LIST_LIMIT} more`)]);
  return rows;
}

/** The summary's lines. */
export function formatSummary(timeline: Timeline, color: boolean, width: number): string[] {
  const { trace } = timeline;
  const rows: Segment[][] = [[seg("── summary ──", "bold")]];
  const seconds = (timeline.durationMs / 1000).toFixed(2);
  const started = trace.header === undefined ? "" : ` from ${trace.header.at}`;
  rows.push(field("duration", seg(`${seconds} s${started}`)));
  if (trace.header !== undefined) rows.push(field("agent", seg(describeHeader(trace.header))));
  if (trace.exit !== undefined) {
    const byClient = endedByClient(trace);
    const failed = exitFailed(trace.exit, byClient);
    rows.push(field("exit", seg(describeExit(trace.exit, byClient), failed ? "red" : undefined)));
  } else {
    rows.push(field("exit", seg("not recorded (the trace is incomplete)", "yellow")));
  }
  const m = timeline.messages;
  rows.push(
    field(
      "messages",
      seg(`${m["client→agent"]} client→agent, ${m["agent→client"]} agent→client`),
      seg(`, ${plural(timeline.stderrLines, "stderr line")}`, "dim"),
    ),
  );
  if (timeline.methods.length > 0) rows.push([seg("methods", "bold")]);
  const methodWidth = Math.max(...timeline.methods.map((s) => s.method.length), 10);
  for (const stats of timeline.methods) {
    const row = [
      seg(`  ${stats.dir}  `),
      seg(stats.method.padEnd(methodWidth + 2), "bold"),
      seg(stats.kind.padEnd(14)),
      seg(String(stats.count).padStart(5)),
    ];
    if (stats.kind === "request" && stats.answered > 0) {
      const average = formatLatency(stats.totalLatencyMs / stats.answered);
      row.push(seg(`   avg ${average}, max ${formatLatency(stats.maxLatencyMs)}`, "dim"));
    }
    if (stats.errors > 0) row.push(seg(`   ${plural(stats.errors, "error")}`, "red"));
    const open = stats.count - stats.answered;
    if (stats.kind === "request" && open > 0) row.push(seg(`   ${open} unanswered`, "yellow"));
    rows.push(row);
  }
  const errorCount = timeline.errors.length;
  rows.push(field("errors", seg(String(errorCount), errorCount > 0 ? "red" : undefined)));
  rows.push(
    ...listed(timeline.errors, (e) => [
      seg(`${timeText(e.t)} ${e.dir ?? ""} `, "dim"),
      seg(`${e.method ?? "(unknown request)"}${idText(e.id)}: ${describeEntry(e) ?? ""}`, "red"),
    ]),
  );
  const open = timeline.unanswered.length;
  rows.push(field("unanswered", seg(String(open), open > 0 ? "yellow" : undefined)));
  rows.push(
    ...listed(timeline.unanswered, (e) => [
      seg(`${timeText(e.t)} ${e.dir ?? ""} `, "dim"),
      seg(`${e.method ?? "(unknown method)"}${idText(e.id)}`, "yellow"),
    ]),
  );
  const oddities = timelineWarnings(timeline);
  if (oddities.length > 0) rows.push(field("warnings", seg(oddities.join(", "), "yellow")));
  return rows.map((row) => renderLine(row, color, width));
}
