/**
 * The wire log of a conformance run: every line sent to and received from the agent,
 * numbered in one sequence across all connections, classified as a JSON-RPC message or
 * flagged with what is wrong with it. Checks read it to decide, and quote it to explain.
 *
 * @module
 */
import { isPlainObject, type JsonRpcId } from "../../base/messages.js";
import type { ExchangeEntry } from "./report.js";

/** The error member of a JSON-RPC error response, as received (not validated further). */
export interface WireError {
  /** The error code. */
  readonly code: number;
  /** The message. */
  readonly message: string;
  /** Optional details. */
  readonly data?: unknown;
}

/** A line that is a valid JSON-RPC 2.0 message, classified. */
export type WireMessage =
  | {
      readonly type: "request";
      readonly id: JsonRpcId;
      readonly method: string;
      readonly params: unknown;
    }
  | { readonly type: "notification"; readonly method: string; readonly params: unknown }
  | { readonly type: "result"; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly type: "error"; readonly id: JsonRpcId; readonly error: WireError };

/** One line that crossed the wire. */
export interface WireRecord {
  /** Position in the whole run, from 1. */
  readonly seq: number;
  /** The connection (agent process) that carried it. */
  readonly connection: string;
  /** `out`: the checker sent it; `in`: the agent wrote it on stdout. */
  readonly direction: "out" | "in";
  /** The line, without its newline. */
  readonly line: string;
  /** The message, when the line is one. */
  readonly message?: WireMessage;
  /** What is wrong with the line, when it is not a valid message. */
  readonly problem?: string;
  /** True for an empty (or whitespace-only) line: tolerated, but not a message. */
  readonly blank?: boolean;
}

/** What a record is made from; the log adds the sequence number. */
export type WireRecordInit = Omit<WireRecord, "seq">;

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || Number.isInteger(value);
}

/** Classifies a parsed line: a message, or why it is not one. */
export function classifyMessage(value: unknown): { message: WireMessage } | { problem: string } {
  if (Array.isArray(value)) return { problem: "a JSON array (batches are not used in ACP v1)" };
  if (!isPlainObject(value)) return { problem: "JSON, but not an object" };
  if (value.jsonrpc !== "2.0") return { problem: 'no "jsonrpc": "2.0"' };
  const hasId = "id" in value;
  if (typeof value.method === "string") {
    if ("result" in value || "error" in value)
      return { problem: "both a method and a result/error" };
    if (!hasId)
      return { message: { type: "notification", method: value.method, params: value.params } };
    if (!isId(value.id)) return { problem: "an id that is not a string, an integer or null" };
    return {
      message: { type: "request", id: value.id, method: value.method, params: value.params },
    };
  }
  if ("method" in value) return { problem: "a method that is not a string" };
  if (!hasId || !isId(value.id)) return { problem: "neither a method nor a valid response id" };
  const hasResult = "result" in value;
  const error = value.error;
  if (hasResult === (error !== undefined))
    return { problem: "a response needs exactly one of result or error" };
  if (hasResult) return { message: { type: "result", id: value.id, result: value.result } };
  if (!isPlainObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string") {
    return { problem: "an error without an integer code and a string message" };
  }
  const wireError: WireError = { code: error.code as number, message: error.message };
  return {
    message: {
      type: "error",
      id: value.id,
      error: "data" in error ? { ...wireError, data: error.data } : wireError,
    },
  };
}

/** Longest text of one message quoted in an exchange. */
const MAX_TEXT = 400;
/** Most messages quoted in an exchange; longer ones keep their first and last messages. */
const MAX_ENTRIES = 14;

/** Every line of a run, in order. */
export class WireLog {
  private readonly list: WireRecord[] = [];
  private readonly listeners = new Set<(record: WireRecord) => void>();

  /** The records so far, oldest first. */
  get records(): readonly WireRecord[] {
    return this.list;
  }

  /** The sequence number the next record will get. */
  get nextSeq(): number {
    return this.list.length + 1;
  }

  /** Appends a record and tells the listeners. */
  add(init: WireRecordInit): WireRecord {
    const record: WireRecord = { seq: this.list.length + 1, ...init };
    this.list.push(record);
    for (const listener of [...this.listeners]) listener(record);
    return record;
  }

  /** Calls `listener` with each new record; returns the function that stops it. */
  subscribe(listener: (record: WireRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The records of `connection` with `from <= seq <= to` that pass `keep`. */
  between(
    connection: string,
    from: number,
    to: number = Number.MAX_SAFE_INTEGER,
    keep: (record: WireRecord) => boolean = () => true,
  ): WireRecord[] {
    return this.list.filter(
      (record) =>
        record.connection === connection && record.seq >= from && record.seq <= to && keep(record),
    );
  }

  /** The records as an exchange: texts trimmed, long lists cut in the middle. */
  excerpt(records: readonly WireRecord[]): ExchangeEntry[] {
    const entries = records.map((record): ExchangeEntry => ({
      kind: "message",
      seq: record.seq,
      connection: record.connection,
      direction: record.direction === "out" ? "client->agent" : "agent->client",
      text: trimText(record.line),
      ...(record.problem === undefined ? {} : { problem: record.problem }),
    }));
    if (entries.length <= MAX_ENTRIES) return entries;
    const head = Math.ceil(MAX_ENTRIES / 2) - 1;
    const tail = MAX_ENTRIES - head - 1;
    return [
      ...entries.slice(0, head),
      { kind: "gap", omitted: entries.length - head - tail },
      ...entries.slice(entries.length - tail),
    ];
  }
}

/** Cuts a line to {@link MAX_TEXT} characters, marking the cut. */
export function trimText(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}… (${text.length} chars)`;
}

/** The `sessionId` of a message's params, if it has one. */
export function sessionOf(message: WireMessage | undefined): string | undefined {
  if (message === undefined || message.type === "result" || message.type === "error")
    return undefined;
  const params = message.params;
  return isPlainObject(params) && typeof params.sessionId === "string"
    ? params.sessionId
    : undefined;
}

/** The `update.sessionUpdate` kind of a `session/update` record, if it is one. */
export function updateKindOf(record: WireRecord): string | undefined {
  const message = record.message;
  if (message?.type !== "notification" || message.method !== "session/update") return undefined;
  const params = message.params;
  if (!isPlainObject(params) || !isPlainObject(params.update)) return undefined;
  const kind = params.update.sessionUpdate;
  return typeof kind === "string" ? kind : undefined;
}

/**
 * Update kinds that belong to a prompt turn's content (or its replay): after a turn has
 * been answered, none of these may arrive for it. Metadata kinds (commands, mode, config,
 * session info, usage) may legitimately arrive between turns and are not counted.
 */
export const TURN_UPDATE_KINDS: ReadonlySet<string> = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
]);

/** True for a `session/update` of `sessionId` whose kind is a turn kind. */
export function isTurnUpdate(record: WireRecord, sessionId: string): boolean {
  const kind = updateKindOf(record);
  return (
    kind !== undefined && TURN_UPDATE_KINDS.has(kind) && sessionOf(record.message) === sessionId
  );
}
