/**
 * A deliberately minimal JSON-RPC peer for conformance checks. It does not use the
 * library's connection engine: the checker must see exactly what the agent wrote (the
 * engine validates, repairs and drops), and must be able to send what a correct client
 * never would (wrong params, unknown methods). Every line goes through the
 * {@link WireLog}.
 *
 * @module
 */
import type { JsonRpcId } from "../../base/messages.js";
import { classifyMessage, type WireError, type WireLog, type WireRecord } from "./log.js";

/** How a request the checker sent ended. Never an exception: checks decide what it means. */
export type WireOutcome =
  | {
      readonly kind: "result";
      readonly result: unknown;
      readonly request: WireRecord;
      readonly response: WireRecord;
    }
  | {
      readonly kind: "error";
      readonly error: WireError;
      readonly request: WireRecord;
      readonly response: WireRecord;
    }
  | { readonly kind: "timeout"; readonly timeoutMs: number; readonly request: WireRecord }
  | { readonly kind: "closed"; readonly reason: string; readonly request: WireRecord };

/** A request the agent sent to the checker. */
export interface InboundRequest {
  /** Its record in the log. */
  readonly record: WireRecord;
  /** The method. */
  readonly method: string;
  /** The params, unvalidated. */
  readonly params: unknown;
}

/** The checker's answer to an {@link InboundRequest}. */
export type InboundAnswer = { readonly result: unknown } | { readonly error: WireError };

/** Answers the agent's requests. */
export type InboundHandler = (request: InboundRequest) => Promise<InboundAnswer>;

interface Pending {
  readonly settle: (outcome: WireOutcome) => void;
  readonly request: WireRecord;
  settled: boolean;
  answered: boolean;
}

function idKey(id: JsonRpcId): string {
  return `${typeof id}:${String(id)}`;
}

/** One JSON-RPC connection to an agent process, line by line. */
export class WireConnection {
  private readonly pending = new Map<string, Pending>();
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  private partial: Uint8Array[] = [];
  private nextId = 1;
  private closedReason: string | undefined;
  private writes: Promise<void> = Promise.resolve();

  /**
   * Creates the connection; the owner feeds it the agent's stdout.
   *
   * @param name - The connection's name in the log.
   * @param log - Where every line is recorded.
   * @param writeLine - Writes one line (newline included) to the agent's stdin.
   * @param handler - Answers the agent's requests.
   */
  constructor(
    readonly name: string,
    private readonly log: WireLog,
    private readonly writeLine: (line: string) => Promise<void>,
    private readonly handler: InboundHandler,
  ) {}

  /** Why the connection is closed, or `undefined` while it is open. */
  get closed(): string | undefined {
    return this.closedReason;
  }

  /** Feeds bytes the agent wrote to stdout. */
  feed(chunk: Uint8Array): void {
    let start = 0;
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, start)) {
      this.partial.push(chunk.subarray(start, index));
      this.line(this.partial);
      this.partial = [];
      start = index + 1;
    }
    if (start < chunk.length) this.partial.push(chunk.slice(start));
  }

  /** The agent's stdout ended (or the process exited): pending requests end `closed`. */
  end(reason: string): void {
    if (this.partial.length > 0) {
      const rest = this.partial;
      this.partial = [];
      this.line(rest, "the last line has no newline at its end");
    }
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const entry of this.pending.values()) {
      if (!entry.settled) {
        entry.settled = true;
        entry.settle({ kind: "closed", reason, request: entry.request });
      }
    }
  }

  /** Sends a request and waits (at most `timeoutMs`) for its answer. */
  request(method: string, params: unknown, timeoutMs: number): Promise<WireOutcome> {
    const id = this.nextId++;
    const message =
      params === undefined
        ? { jsonrpc: "2.0", id, method }
        : { jsonrpc: "2.0", id, method, params };
    const request = this.send(message);
    return new Promise<WireOutcome>((resolve) => {
      const timer = setTimeout(() => {
        if (entry.settled) return;
        entry.settled = true;
        resolve({ kind: "timeout", timeoutMs, request });
      }, timeoutMs);
      const entry: Pending = {
        request,
        settled: false,
        answered: false,
        settle: (outcome) => {
          clearTimeout(timer);
          resolve(outcome);
        },
      };
      this.pending.set(idKey(id), entry);
      if (this.closedReason !== undefined) {
        entry.settled = true;
        entry.settle({ kind: "closed", reason: this.closedReason, request });
      }
    });
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): WireRecord {
    return this.send({ jsonrpc: "2.0", method, params });
  }

  /** Sends any JSON value as one line (recorded like any other message). */
  send(value: unknown): WireRecord {
    const line = JSON.stringify(value);
    const classified = classifyMessage(value);
    const record = this.log.add({
      connection: this.name,
      direction: "out",
      line,
      ...("message" in classified ? { message: classified.message } : {}),
    });
    if (this.closedReason === undefined) {
      this.writes = this.writes.then(() => this.writeLine(`${line}\n`)).catch(() => undefined);
    }
    return record;
  }

  /** Records one line the agent wrote and, when it is a message, acts on it. */
  private line(parts: readonly Uint8Array[], tailProblem?: string): void {
    const bytes = parts.length === 1 && parts[0] !== undefined ? parts[0] : concat(parts);
    let text: string;
    try {
      text = this.decoder.decode(bytes);
    } catch {
      const lossy = new TextDecoder().decode(bytes);
      this.log.add({
        connection: this.name,
        direction: "in",
        line: lossy,
        problem: "not valid UTF-8",
      });
      return;
    }
    if (text.trim() === "") {
      if (text !== "" || tailProblem === undefined) {
        this.log.add({ connection: this.name, direction: "in", line: text, blank: true });
      }
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.log.add({ connection: this.name, direction: "in", line: text, problem: "not JSON" });
      return;
    }
    const classified = classifyMessage(value);
    if ("problem" in classified) {
      this.log.add({
        connection: this.name,
        direction: "in",
        line: text,
        problem: classified.problem,
      });
      return;
    }
    const record = this.log.add({
      connection: this.name,
      direction: "in",
      line: text,
      message: classified.message,
      ...(tailProblem === undefined ? {} : { problem: tailProblem }),
    });
    this.dispatch(record);
  }

  private dispatch(record: WireRecord): void {
    const message = record.message;
    if (message === undefined) return;
    if (message.type === "request") {
      const id = message.id;
      void this.handler({ record, method: message.method, params: message.params })
        .catch((error: unknown) => ({
          error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
        }))
        .then((answer) => {
          if (this.closedReason !== undefined) return;
          this.send({ jsonrpc: "2.0", id, ...answer });
        });
      return;
    }
    if (message.type === "notification") return;
    const entry = this.pending.get(idKey(message.id));
    if (entry === undefined || entry.answered) return;
    entry.answered = true;
    if (entry.settled) return;
    entry.settled = true;
    entry.settle(
      message.type === "result"
        ? { kind: "result", result: message.result, request: entry.request, response: record }
        : { kind: "error", error: message.error, request: entry.request, response: record },
    );
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
