/**
 * {@link buildTimeline}: what a trace means, shared by the text view and the HTML page:
 * every record classified (request, notification, response, unparsed line, stderr, event),
 * requests paired with their responses, and a summary.
 *
 * Pairing follows JSON-RPC: a response travelling one way answers the oldest unanswered
 * request with the same `id` that travelled the other way (each side numbers its own
 * requests, so `#1` from the client and `#1` from the agent are different requests).
 *
 * @module
 */
import { shortJson } from "./message-summary.js";
import type { Trace } from "./read-trace.js";
import {
  oppositeDirection,
  type TraceDirection,
  type TraceLineDirection,
  type TraceLineRecord,
  type TraceRecord,
} from "./trace-format.js";

/** What a timeline entry is. */
export type TimelineKind =
  | "request"
  | "notification"
  | "response"
  | "invalid"
  | "raw"
  | "stderr"
  | "event"
  | "header"
  | "exit";

/** A JSON-RPC error object, as far as it could be read. */
export interface TimelineError {
  readonly code: number | undefined;
  readonly message: string;
  readonly data?: unknown;
}

/** One record of the trace, with what it means. */
export interface TimelineEntry {
  /** Its position in {@link Timeline.entries}. */
  readonly index: number;
  readonly record: TraceRecord;
  readonly kind: TimelineKind;
  /** Milliseconds since the proxy started. */
  readonly t: number;
  /** The line's direction (undefined for header, events and exit). */
  readonly dir: TraceLineDirection | undefined;
  /** The method (for a response: its request's, once paired by {@link buildTimeline}). */
  method: string | undefined;
  /** The request id (requests and responses). */
  readonly id: string | number | null | undefined;
  /** The params of a request or notification, the result of a response. */
  readonly payload: unknown;
  /** The error of an error response. */
  readonly error: TimelineError | undefined;
  /** True when the line was recorded truncated. */
  readonly truncated: boolean;
  /** The index of the paired request or response (set by {@link buildTimeline}). */
  partner: number | undefined;
  /** For a paired request or response: milliseconds from request to response. */
  latencyMs: number | undefined;
}

/** Counts for one method in one direction. */
export interface MethodStats {
  readonly method: string;
  readonly dir: TraceDirection;
  readonly kind: "request" | "notification";
  count: number;
  answered: number;
  errors: number;
  totalLatencyMs: number;
  maxLatencyMs: number;
}

/** A trace's timeline and summary. */
export interface Timeline {
  readonly trace: Trace;
  readonly entries: readonly TimelineEntry[];
  /** Per method and direction, in order of first appearance. */
  readonly methods: readonly MethodStats[];
  /** Error responses. */
  readonly errors: readonly TimelineEntry[];
  /** Requests that never got a response. */
  readonly unanswered: readonly TimelineEntry[];
  /** Responses that answer no recorded request. */
  readonly orphans: readonly TimelineEntry[];
  /** JSON-RPC messages per direction (unparsed lines not included). */
  readonly messages: Readonly<Record<TraceDirection, number>>;
  /** Lines that are not JSON, or JSON but not JSON-RPC. */
  readonly unparsed: number;
  /** Lines recorded truncated. */
  readonly truncated: number;
  /** Stderr lines recorded. */
  readonly stderrLines: number;
  /** The latest time recorded. */
  readonly durationMs: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string | number | null {
  return value === null || typeof value === "string" || typeof value === "number";
}

function readError(value: unknown): TimelineError {
  // Not an error object: its JSON stands for the message (shortened: it may be deep or huge).
  if (!isObject(value)) return { code: undefined, message: shortJson(value, 200) };
  return {
    code: typeof value.code === "number" ? value.code : undefined,
    message: typeof value.message === "string" ? value.message : "",
    ...("data" in value ? { data: value.data } : {}),
  };
}

/** A method name found in the first bytes of a truncated line. */
function peekMethod(raw: string): string | undefined {
  return /"method"\s*:\s*"([^"\\]{1,200})"/.exec(raw.slice(0, 4096))?.[1];
}

/** Classifies a protocol line. */
function classifyLine(record: TraceLineRecord): Omit<TimelineEntry, "index" | "record" | "t"> {
  const base = {
    dir: record.dir,
    method: undefined,
    id: undefined,
    payload: undefined,
    error: undefined,
    truncated: record.truncated === true,
    partner: undefined,
    latencyMs: undefined,
  };
  if (!("msg" in record)) {
    const envelope = record.envelope;
    if (envelope === undefined || (!envelope.hasMethod && !envelope.hasOutcome)) {
      return { ...base, kind: "raw" };
    }
    const method = envelope.hasMethod ? peekMethod(record.raw ?? "") : undefined;
    const kind = envelope.hasMethod
      ? envelope.id === undefined
        ? "notification"
        : "request"
      : "response";
    return { ...base, kind, method, id: envelope.id };
  }
  const msg = record.msg;
  if (!isObject(msg)) return { ...base, kind: "invalid" };
  if (typeof msg.method === "string") {
    const id = "id" in msg && isId(msg.id) ? msg.id : undefined;
    const kind = id === undefined ? "notification" : "request";
    return { ...base, kind, method: msg.method, id, payload: msg.params };
  }
  if ("id" in msg && isId(msg.id) && ("result" in msg || "error" in msg)) {
    const error = "error" in msg ? readError(msg.error) : undefined;
    return { ...base, kind: "response", id: msg.id, payload: msg.result, error };
  }
  return { ...base, kind: "invalid" };
}

function classify(record: TraceRecord, index: number): TimelineEntry {
  const t = record.t;
  const none = {
    dir: undefined,
    method: undefined,
    id: undefined,
    payload: undefined,
    error: undefined,
    truncated: false,
    partner: undefined,
    latencyMs: undefined,
  };
  if (record.type !== undefined) return { ...none, index, record, t, kind: record.type };
  if (record.dir === "agent-stderr") {
    return {
      ...none,
      index,
      record,
      t,
      kind: "stderr",
      dir: record.dir,
      truncated: record.truncated === true,
    };
  }
  return { index, record, t, ...classifyLine(record) };
}

/** See the module comment. */
export function buildTimeline(trace: Trace): Timeline {
  const entries = trace.records.map(classify);
  const pending = new Map<string, TimelineEntry[]>();
  const methods = new Map<string, MethodStats>();
  const errors: TimelineEntry[] = [];
  const orphans: TimelineEntry[] = [];
  const messages: Record<TraceDirection, number> = { "client→agent": 0, "agent→client": 0 };
  let unparsed = 0;
  let truncated = 0;
  let stderrLines = 0;

  const stats = (entry: TimelineEntry, kind: "request" | "notification"): MethodStats => {
    const dir = entry.dir as TraceDirection;
    const method = entry.method ?? "(unknown method)";
    const key = `${dir} ${method} ${kind}`;
    let found = methods.get(key);
    if (found === undefined) {
      found = {
        method,
        dir,
        kind,
        count: 0,
        answered: 0,
        errors: 0,
        totalLatencyMs: 0,
        maxLatencyMs: 0,
      };
      methods.set(key, found);
    }
    return found;
  };

  for (const entry of entries) {
    if (entry.truncated) truncated++;
    if (entry.kind === "stderr") stderrLines++;
    if (entry.kind === "raw" || entry.kind === "invalid") unparsed++;
    const dir = entry.dir;
    if (dir === undefined || dir === "agent-stderr") continue;
    if (entry.kind !== "raw" && entry.kind !== "invalid") messages[dir]++;
    if (entry.kind === "request") {
      stats(entry, "request").count++;
      const key = `${dir}\u0000${JSON.stringify(entry.id)}`;
      const queue = pending.get(key);
      if (queue === undefined) pending.set(key, [entry]);
      else queue.push(entry);
    } else if (entry.kind === "notification") {
      stats(entry, "notification").count++;
    } else if (entry.kind === "response") {
      if (entry.error !== undefined) errors.push(entry);
      const key = `${oppositeDirection(dir)}\u0000${JSON.stringify(entry.id)}`;
      const request = pending.get(key)?.shift();
      if (request === undefined) {
        orphans.push(entry);
        continue;
      }
      const latency = Math.round((entry.t - request.t) * 1000) / 1000;
      request.partner = entry.index;
      request.latencyMs = latency;
      entry.partner = request.index;
      entry.latencyMs = latency;
      entry.method = request.method;
      const methodStats = stats(request, "request");
      methodStats.answered++;
      if (entry.error !== undefined) methodStats.errors++;
      methodStats.totalLatencyMs += latency;
      methodStats.maxLatencyMs = Math.max(methodStats.maxLatencyMs, latency);
    }
  }
  const unanswered = entries.filter((e) => e.kind === "request" && e.partner === undefined);
  const durationMs = entries.reduce((max, e) => (e.t > max ? e.t : max), 0);
  return {
    trace,
    entries,
    methods: [...methods.values()],
    errors,
    unanswered,
    orphans,
    messages,
    unparsed,
    truncated,
    stderrLines,
    durationMs,
  };
}
