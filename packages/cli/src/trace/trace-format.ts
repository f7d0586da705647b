/**
 * The trace file format written by `acp-kit trace` and read by `acp-kit trace view`.
 *
 * A trace is newline-delimited JSON, one record per line, in the order things happened:
 *
 * 1. a header: `{"type":"header","format":"acp-kit-trace","version":1,"t":0,"at":...,
 *    "command":...,"args":[...],"cwd":...,"pid":...,"proxyPid":...,"maxLineBytes":...}`
 * 2. one record per line that crossed the proxy, e.g.
 *    `{"t":12.345,"at":"2026-...Z","dir":"client→agent","msg":{"jsonrpc":"2.0",...}}`:
 *    `t` is milliseconds since the proxy started (3 decimals), `at` the wall-clock time.
 *    A line that is not JSON is kept as `"raw":"<text>"`; a line longer than the limit as
 *    its first bytes in `raw` with `"truncated":true`, its full size in `"bytes"` and, when
 *    it could be recovered, its JSON-RPC envelope (`"envelope":{"id":3,"hasMethod":false,
 *    "hasOutcome":true}`). Agent stderr lines are `{"dir":"agent-stderr","text":...}`.
 * 3. events: `{"type":"event","t":...,"at":...,"event":"stdin-end"}` (see
 *    {@link TraceEventName}).
 * 4. a last record: `{"type":"exit","t":...,"at":...,"code":0,"signal":null,...}`.
 *
 * Blank lines between messages are forwarded but not recorded (their count is in the
 * exit record). The agent's environment is never recorded.
 *
 * @module
 */

/** The `format` field of a trace header. */
export const TRACE_FORMAT = "acp-kit-trace";

/** The version of the trace format described here. */
export const TRACE_FORMAT_VERSION = 1;

/** Which way a protocol line went through the proxy. */
export type TraceDirection = "client→agent" | "agent→client";

/** The `dir` of a line record: a protocol direction, or a line the agent wrote to stderr. */
export type TraceLineDirection = TraceDirection | "agent-stderr";

/** The first record of a trace. */
export interface TraceHeaderRecord {
  readonly type: "header";
  readonly format: typeof TRACE_FORMAT;
  readonly version: number;
  readonly t: 0;
  /** When the proxy started (ISO 8601). */
  readonly at: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The agent's process id, `null` when it could not be started. */
  readonly pid: number | null;
  /** The proxy's own process id. */
  readonly proxyPid: number;
  /** Lines longer than this many bytes were recorded truncated. */
  readonly maxLineBytes: number;
  /** True when agent stderr lines are recorded. */
  readonly recordStderr: boolean;
}

/** What could be recovered of the JSON-RPC envelope of a truncated line. */
export interface TraceEnvelope {
  readonly id?: string | number | null;
  readonly hasMethod: boolean;
  readonly hasOutcome: boolean;
}

/** A protocol line: a parsed message (`msg`) or a line that is not JSON (`raw`). */
export interface TraceLineRecord {
  readonly type?: undefined;
  /** Milliseconds since the proxy started. */
  readonly t: number;
  /** Wall-clock time (ISO 8601). */
  readonly at: string;
  readonly dir: TraceDirection;
  /** The message, when the line was valid JSON. */
  readonly msg?: unknown;
  /** The line's text (without its line ending), when it was not valid JSON or too long. */
  readonly raw?: string;
  /** Set when the line was longer than the limit: `raw` holds its first bytes. */
  readonly truncated?: true;
  /** The full size in bytes of a truncated line. */
  readonly bytes?: number;
  /** The envelope of a truncated line, when found. */
  readonly envelope?: TraceEnvelope;
}

/** A line the agent wrote to stderr. */
export interface TraceStderrRecord {
  readonly type?: undefined;
  readonly t: number;
  readonly at: string;
  readonly dir: "agent-stderr";
  readonly text: string;
  readonly truncated?: true;
  readonly bytes?: number;
}

/**
 * What an event record reports: the client closed the proxy's stdin, the proxy got a
 * signal (`detail` names it), the grace period after stdin ended passed, the proxy ended
 * the agent's process group (`detail`: the signal sent), or records were dropped because
 * the trace file could not keep up (`count`), or, with `detail: "busy"`, because recording
 * could not keep up with the traffic (the lines were forwarded, not recorded).
 */
export type TraceEventName = "stdin-end" | "signal" | "grace-expired" | "terminate" | "dropped";

/** Something that happened to the proxy or the agent process. */
export interface TraceEventRecord {
  readonly type: "event";
  readonly t: number;
  readonly at: string;
  readonly event: TraceEventName;
  readonly detail?: string;
  readonly count?: number;
}

/** Counts kept by the proxy, written in the exit record. */
export interface TraceStats {
  /** JSON lines per direction. */
  readonly messages: Readonly<Record<TraceDirection, number>>;
  /** Non-JSON (or truncated) lines per direction. */
  readonly unparsed: Readonly<Record<TraceDirection, number>>;
  /** Blank lines per direction (forwarded, not recorded). */
  readonly blank: Readonly<Record<TraceDirection, number>>;
  /** Lines recorded truncated (all directions, stderr included). */
  readonly truncated: number;
  /** Stderr lines seen. */
  readonly stderrLines: number;
  /** Records lost because the trace file or the recording could not keep up. */
  readonly dropped: number;
  /** Of those, lines not recorded because recording fell behind the traffic. */
  readonly shed?: number;
}

/** The last record of a trace: how the agent ended. */
export interface TraceExitRecord {
  readonly type: "exit";
  readonly t: number;
  readonly at: string;
  /** The agent's exit code, `null` when a signal ended it or it never started. */
  readonly code: number | null;
  /** The signal that ended the agent, or `null`. */
  readonly signal: string | null;
  /** Why the agent could not be started, when it could not. */
  readonly error?: string;
  readonly stats: TraceStats;
}

/** Any record of a trace file. */
export type TraceRecord =
  TraceHeaderRecord | TraceLineRecord | TraceStderrRecord | TraceEventRecord | TraceExitRecord;

/** The opposite protocol direction. */
export function oppositeDirection(dir: TraceDirection): TraceDirection {
  return dir === "client→agent" ? "agent→client" : "client→agent";
}
