/**
 * {@link TraceRecorder}: turns what crosses the proxy into trace records (see
 * `trace-format.ts`) and hands them to a {@link TraceWriter}.
 *
 * A line that parses as JSON is embedded in its record as the agent or client wrote it
 * (so large integer ids and key order survive exactly), unless it contains a carriage
 * return, which some line readers take for a line break: then each CR (only ever
 * whitespace between tokens in valid JSON) becomes a space. Nothing is re-serialised, so
 * no depth or size of a line can make recording fail; except a message giving MCP servers
 * (`params.mcpServers`), whose `env` and `headers` values are secrets: it is recorded
 * with them as `***`, and so is a line recorded raw (cut short, too deep, not JSON) that
 * names `mcpServers`.
 *
 * @module
 */
import { withoutMcpSecrets, withoutRawMcpSecrets } from "../mcp-config.js";
import type { TappedLine } from "./line-tap.js";
import {
  TRACE_FORMAT,
  TRACE_FORMAT_VERSION,
  type TraceDirection,
  type TraceEventName,
  type TraceHeaderRecord,
  type TraceStats,
} from "./trace-format.js";
import type { TraceWriter } from "./trace-writer.js";

/** What the header says besides the format and the start time. */
export interface TraceHeaderFields {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly pid: number | null;
  readonly maxLineBytes: number;
  readonly recordStderr: boolean;
}

/** A monotonic clock started with the proxy. */
export class TraceClock {
  private readonly origin = performance.now();
  private readonly epoch = Date.now();

  /** Milliseconds since the start, rounded to microseconds. */
  now(): number {
    return Math.round((performance.now() - this.origin) * 1000) / 1000;
  }

  /** The wall-clock time `t` ms after the start (ISO 8601). */
  at(t: number): string {
    return new Date(this.epoch + t).toISOString();
  }
}

/** Strips JSON whitespace (not every Unicode space, unlike `trim`) from both ends. */
function trimJsonWhitespace(text: string): string {
  const space = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
  let start = 0;
  let end = text.length;
  while (start < end && space(text.charCodeAt(start))) start++;
  while (end > start && space(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function perDirection(): Record<TraceDirection, number> {
  return { "client→agent": 0, "agent→client": 0 };
}

/** See the module comment. */
export class TraceRecorder {
  private readonly messages = perDirection();
  private readonly unparsed = perDirection();
  private readonly blank = perDirection();
  private truncated = 0;
  private stderrLines = 0;
  private shedTotal = 0;
  private shedPending = 0;

  /**
   * @param writer - Where records go.
   * @param clock - The proxy's clock.
   */
  constructor(
    private readonly writer: TraceWriter,
    readonly clock: TraceClock,
  ) {}

  /** Writes the header record (time 0). */
  header(fields: TraceHeaderFields): void {
    const record: TraceHeaderRecord = {
      type: "header",
      format: TRACE_FORMAT,
      version: TRACE_FORMAT_VERSION,
      t: 0,
      at: this.clock.at(0),
      command: fields.command,
      args: fields.args,
      cwd: fields.cwd,
      pid: fields.pid,
      proxyPid: process.pid,
      maxLineBytes: fields.maxLineBytes,
      recordStderr: fields.recordStderr,
    };
    this.writer.write(JSON.stringify(record));
  }

  /**
   * Records a protocol line that went `dir`. Never throws: a line that cannot be recorded
   * structured (however deep or odd) is recorded raw.
   */
  line(dir: TraceDirection, line: TappedLine): void {
    try {
      this.recordLine(dir, line);
    } catch {
      this.recordRaw(dir, line);
    }
  }

  private recordLine(dir: TraceDirection, line: TappedLine): void {
    this.flushShed();
    const t = this.clock.now();
    const prefix = `{"t":${t},"at":"${this.clock.at(t)}","dir":"${dir}"`;
    if (!line.truncated) {
      const text = trimJsonWhitespace(line.text);
      if (text === "") {
        this.blank[dir]++;
        return;
      }
      let parsed = true;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        parsed = false;
      }
      if (parsed) {
        this.messages[dir]++;
        // The values of MCP servers' env and headers (secrets) are never recorded.
        const hidden = withoutMcpSecrets(value);
        if (hidden !== undefined) {
          this.writer.write(`${prefix},"msg":${JSON.stringify(hidden)}}`);
          return;
        }
        // In valid JSON a raw CR can only be whitespace between tokens (inside strings it
        // must be escaped), so it is swapped for a space: the text stays the same JSON
        // value and is never re-serialised (which fails on deep nesting).
        const embedded = text.includes("\r") ? text.replace(/\r/g, " ") : text;
        this.writer.write(`${prefix},"msg":${embedded}}`);
        return;
      }
    }
    this.recordRaw(dir, line);
  }

  /** Records a line as its text, unparsed. */
  private recordRaw(dir: TraceDirection, line: TappedLine): void {
    const t = this.clock.now();
    const prefix = `{"t":${t},"at":"${this.clock.at(t)}","dir":"${dir}"`;
    this.unparsed[dir]++;
    const text = withoutRawMcpSecrets(line.text);
    this.writer.write(`${prefix},"raw":${JSON.stringify(text)}${this.truncation(line)}}`);
  }

  /**
   * Counts `count` lines that crossed the proxy but were not recorded because recording
   * fell behind (the proxy sheds recording rather than delay forwarding and its timers).
   * One `dropped` event (`detail: "busy"`) says how many, before the next record.
   */
  shed(count: number): void {
    this.shedTotal += count;
    this.shedPending += count;
  }

  /** Writes the pending `dropped` event for shed lines, if any. */
  flushShed(): void {
    if (this.shedPending === 0) return;
    const count = this.shedPending;
    this.shedPending = 0;
    this.writer.write(this.eventRecord("dropped", { detail: "busy", count }));
  }

  /** Records a line the agent wrote to stderr. */
  stderr(line: TappedLine): void {
    this.flushShed();
    this.stderrLines++;
    const t = this.clock.now();
    const prefix = `{"t":${t},"at":"${this.clock.at(t)}","dir":"agent-stderr"`;
    this.writer.write(`${prefix},"text":${JSON.stringify(line.text)}${this.truncation(line)}}`);
  }

  /** Records an event. */
  event(event: TraceEventName, detail?: string): void {
    this.writer.write(this.eventRecord(event, detail === undefined ? {} : { detail }));
  }

  /** The record that reports dropped records (used by the writer). */
  droppedRecord(count: number): string {
    return this.eventRecord("dropped", { count });
  }

  /** Records how the agent ended (the last record). */
  exit(code: number | null, signal: string | null, error?: string): void {
    this.flushShed();
    const t = this.clock.now();
    this.writer.write(
      JSON.stringify({
        type: "exit",
        t,
        at: this.clock.at(t),
        code,
        signal,
        ...(error === undefined ? {} : { error }),
        stats: this.stats(),
      }),
    );
  }

  /** The counts so far. */
  stats(): TraceStats {
    return {
      messages: { ...this.messages },
      unparsed: { ...this.unparsed },
      blank: { ...this.blank },
      truncated: this.truncated,
      stderrLines: this.stderrLines,
      dropped: this.writer.dropped + this.shedTotal,
      ...(this.shedTotal > 0 ? { shed: this.shedTotal } : {}),
    };
  }

  private eventRecord(event: TraceEventName, fields: object): string {
    const t = this.clock.now();
    return JSON.stringify({ type: "event", t, at: this.clock.at(t), event, ...fields });
  }

  private truncation(line: TappedLine): string {
    if (!line.truncated) return "";
    this.truncated++;
    const envelope =
      line.envelope === undefined ? "" : `,"envelope":${JSON.stringify(line.envelope)}`;
    return `,"truncated":true,"bytes":${line.bytes}${envelope}`;
  }
}
