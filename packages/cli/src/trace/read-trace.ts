/**
 * {@link readTrace}: reads a trace file written by `acp-kit trace` (see `trace-format.ts`),
 * tolerantly: a last line cut short (the proxy was killed mid-write, or the file is still
 * being written) is reported, not fatal, and so are lines that are not trace records.
 *
 * @module
 */
import { createReadStream } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { shortJson } from "./message-summary.js";
import {
  TRACE_FORMAT,
  type TraceExitRecord,
  type TraceHeaderRecord,
  type TraceRecord,
} from "./trace-format.js";

/** A line of a trace file that is not a record. */
export interface TraceProblem {
  /** Its line number (1-based). */
  readonly line: number;
  /** Why it was skipped. */
  readonly reason: string;
  /** Its first characters. */
  readonly excerpt: string;
}

/** A parsed trace. */
export interface Trace {
  /** The header, when the file has one. */
  readonly header: TraceHeaderRecord | undefined;
  /** Every record, in file order (header and exit included). */
  readonly records: readonly TraceRecord[];
  /** The exit record, when the trace is complete. */
  readonly exit: TraceExitRecord | undefined;
  /** Lines that were skipped. */
  readonly problems: readonly TraceProblem[];
  /** True when the last line was cut short (not valid JSON and without a newline). */
  readonly truncatedTail: boolean;
}

const LINE_DIRECTIONS = new Set(["client→agent", "agent→client"]);
const EXCERPT_CHARS = 80;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isString = (v: unknown): boolean => typeof v === "string";
const isOptional =
  (test: (v: unknown) => boolean) =>
  (v: unknown): boolean =>
    v === undefined || test(v);
const isNullable =
  (test: (v: unknown) => boolean) =>
  (v: unknown): boolean =>
    v === null || test(v);
const isNumber = (v: unknown): boolean => typeof v === "number";

/**
 * The fields of header, event and exit records that the views print, and their types:
 * the proxy writes them so, and a file written otherwise gets a problem, not a view that
 * prints (or joins, recursively) an object where it expects text.
 */
const FIELD_TYPES: Readonly<Record<string, Readonly<Record<string, (v: unknown) => boolean>>>> = {
  header: {
    at: isString,
    command: isString,
    args: (v) => Array.isArray(v) && v.every(isString),
    cwd: isString,
    pid: isOptional(isNullable(isNumber)),
  },
  event: { event: isString, detail: isOptional(isString), count: isOptional(isNumber) },
  exit: {
    code: isNullable(isNumber),
    signal: isNullable(isString),
    error: isOptional(isString),
    stats: (v) => isObject(v) && isOptional(isNumber)(v.dropped),
  },
};

/** The record a parsed line is, or the reason it is not one. */
function toRecord(value: unknown): TraceRecord | string {
  if (!isObject(value)) return "not a JSON object";
  if (typeof value.t !== "number") return "no time (t)";
  const fields = typeof value.type === "string" ? FIELD_TYPES[value.type] : undefined;
  const wrong = Object.entries(fields ?? {}).find(([key, test]) => !test(value[key]));
  if (wrong !== undefined) {
    const type = String(value.type);
    return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type} record whose ${wrong[0]} is not valid`;
  }
  switch (value.type) {
    case "header":
      return value.format === TRACE_FORMAT
        ? (value as unknown as TraceHeaderRecord)
        : `not an ${TRACE_FORMAT} header`;
    case "exit":
    case "event":
      return value as unknown as TraceRecord;
    case undefined:
      break;
    default:
      return `unknown record type ${shortJson(value.type)}`;
  }
  if (value.dir === "agent-stderr") {
    return typeof value.text === "string"
      ? (value as unknown as TraceRecord)
      : "stderr without text";
  }
  if (typeof value.dir !== "string" || !LINE_DIRECTIONS.has(value.dir)) return "unknown direction";
  if (!("msg" in value) && typeof value.raw !== "string") return "neither msg nor raw";
  return value as unknown as TraceRecord;
}

/** Builds a {@link Trace} from lines fed in order. */
class TraceBuilder {
  header: TraceHeaderRecord | undefined;
  exit: TraceExitRecord | undefined;
  readonly records: TraceRecord[] = [];
  readonly problems: TraceProblem[] = [];
  truncatedTail = false;
  private lineNumber = 0;

  line(text: string, last: boolean): void {
    this.lineNumber++;
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (last) this.truncatedTail = true;
      this.problem(last ? "cut short (the trace was still being written?)" : "not JSON", text);
      return;
    }
    const record = toRecord(value);
    if (typeof record === "string") {
      this.problem(record, text);
      return;
    }
    if (record.type === "header") this.header ??= record;
    if (record.type === "exit") this.exit = record;
    this.records.push(record);
  }

  finish(file: string): Trace {
    if (this.records.length === 0 && this.problems.length > 0 && !this.truncatedTail) {
      const first = this.problems[0];
      throw new Error(
        `${file} is not an acp-kit trace (line ${first?.line ?? 1}: ${first?.reason ?? "?"}). ` +
          "Record one with `acp-kit trace -- <agent command>`.",
      );
    }
    const { header, exit, records, problems, truncatedTail } = this;
    return { header, exit, records, problems, truncatedTail };
  }

  private problem(reason: string, text: string): void {
    const excerpt = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
    this.problems.push({ line: this.lineNumber, reason, excerpt });
  }
}

/**
 * Parses the text of a trace file.
 *
 * @param text - The file's content.
 * @param name - Its name, for error messages.
 * @throws When nothing in it is a trace record.
 */
export function parseTrace(text: string, name = "the trace"): Trace {
  const builder = new TraceBuilder();
  const lines = text.split("\n");
  const last = lines.length - 1;
  lines.forEach((line, i) => {
    if (i < last || line !== "") builder.line(line, i === last);
  });
  return builder.finish(name);
}

/**
 * Reads a trace file, streaming (a trace may be larger than a string can hold).
 *
 * @param file - The trace file.
 * @throws When the file cannot be read, or nothing in it is a trace record.
 */
export async function readTrace(file: string): Promise<Trace> {
  const builder = new TraceBuilder();
  const decoder = new StringDecoder("utf8");
  // Pieces of the current line: a long line costs one join, not one copy per chunk.
  let pieces: string[] = [];
  for await (const chunk of createReadStream(file)) {
    const text = decoder.write(chunk as Buffer);
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      pieces.push(text.slice(start, nl));
      builder.line(pieces.join(""), false);
      pieces = [];
      start = nl + 1;
    }
    if (start < text.length) pieces.push(text.slice(start));
  }
  pieces.push(decoder.end());
  const last = pieces.join("");
  if (last !== "") builder.line(last, true);
  return builder.finish(file);
}
