/**
 * Words and numbers shared by the trace views: times, latencies, ids, and descriptions of
 * the header, event and exit records.
 *
 * @module
 */
import { shortJson } from "./message-summary.js";
import type { TraceEventRecord, TraceExitRecord, TraceHeaderRecord } from "./trace-format.js";
import type { Timeline } from "./trace-timeline.js";

/** `+12.3ms`: the time of a record since the trace began. */
export function timeText(t: number): string {
  return `+${t.toFixed(1)}ms`;
}

/** {@link timeText}, padded for the time column. */
export function formatTime(t: number): string {
  return timeText(t).padEnd(12);
}

/** `1 error`, `3 errors`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What was odd about a trace file (unparsed or cut lines, orphans, ...), in words. */
export function timelineWarnings(timeline: Timeline): string[] {
  const { trace } = timeline;
  const dropped = trace.exit?.stats.dropped ?? 0;
  return [
    timeline.unparsed > 0 ? plural(timeline.unparsed, "unparsed line") : undefined,
    timeline.truncated > 0 ? plural(timeline.truncated, "truncated line") : undefined,
    timeline.orphans.length > 0
      ? plural(timeline.orphans.length, "response without a request", "responses without a request")
      : undefined,
    trace.problems.length > 0 ? plural(trace.problems.length, "skipped file line") : undefined,
    trace.truncatedTail ? "the file's last line was cut short" : undefined,
    dropped > 0 ? `${dropped} records dropped` : undefined,
  ].filter((warning): warning is string => warning !== undefined);
}

/** `1234.5 ms`. */
export function formatLatency(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}

/** ` #3`, ` #"abc"`, or nothing for a message without an id. */
export function idText(id: string | number | null | undefined): string {
  if (id === undefined) return "";
  return ` #${typeof id === "string" ? JSON.stringify(id) : String(id)}`;
}

/** What an event record reports, in words. */
export function describeEvent(record: TraceEventRecord): string {
  switch (record.event) {
    case "stdin-end":
      return "the client closed the agent's stdin";
    case "signal":
      return `the proxy got ${record.detail ?? "a signal"}; passing it on to the agent`;
    case "grace-expired":
      return "the agent did not exit after its stdin ended; ending it";
    case "terminate":
      return `sent ${record.detail ?? "a signal"} to the agent's process group`;
    case "dropped":
      return record.detail === "busy"
        ? `${record.count ?? 0} lines not recorded (recording could not keep up)`
        : `${record.count ?? 0} records dropped (the trace file could not keep up)`;
    default:
      return `event ${shortJson(record.event)}`;
  }
}

/** "the agent exited with code 0", "... was killed by SIGTERM", "... cannot start ...". */
export function describeExit(record: TraceExitRecord, byClient = false): string {
  if (record.error !== undefined) return `the proxy ${record.error}`;
  if (byClient) {
    const how = record.signal !== null ? `by ${record.signal}` : `with code ${record.code ?? "?"}`;
    return `the agent ended ${how}, as the client asked (a normal end)`;
  }
  if (record.signal !== null) return `the agent was killed by ${record.signal}`;
  return `the agent exited with code ${record.code ?? "?"}`;
}

/**
 * True when an exit record reports a failure; not when the client itself ended the agent
 * (`byClient`, see `endedByClient`).
 */
export function exitFailed(record: TraceExitRecord, byClient = false): boolean {
  if (byClient && record.error === undefined) return false;
  return record.error !== undefined || record.signal !== null || record.code !== 0;
}

/** "trace of node agent.js --flag (pid 42) in /work, started 2026-...". */
export function describeHeader(record: TraceHeaderRecord): string {
  const command = [record.command, ...record.args].join(" ");
  const pid = record.pid === null ? "" : ` (pid ${record.pid})`;
  return `trace of ${command}${pid} in ${record.cwd}, started ${record.at}`;
}
