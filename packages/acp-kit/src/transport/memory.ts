/**
 * In-memory connections: two linked streams or transports, for tests and for running an
 * agent and a client in one process.
 *
 * @module
 */
import type { Stream } from "../base/messages.js";
import { ndJsonStream, type NdJsonStreamOptions } from "./ndjson.js";
import type { Transport, TransportSink } from "./transport.js";

/** Two linked {@link Stream}s: what one side writes, the other reads. */
export interface StreamPair {
  /** The agent's end. */
  readonly agent: Stream;
  /** The client's end. */
  readonly client: Stream;
}

/**
 * Two streams linked by in-memory byte pipes, framed as newline-delimited JSON exactly
 * as over stdio (so tests exercise the real framing). The pipes are the pair's own: the
 * side whose connection closes ends its pipe, and the other side's connection closes.
 */
export function memoryStreamPair(options?: NdJsonStreamOptions): StreamPair {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const own = { ...options, closeOutput: true };
  return {
    agent: ndJsonStream(toClient.writable, toAgent.readable, own),
    client: ndJsonStream(toAgent.writable, toClient.readable, own),
  };
}

/** Messages waiting for the other side to read them, beyond which senders wait. */
const MEMORY_HIGH_WATER = 1024;

/** One end of a {@link memoryTransportPair}. */
class MemoryTransport implements Transport {
  peer!: MemoryTransport;
  private sink: TransportSink | undefined;
  /** Serialised messages received and not yet delivered. */
  private queue: string[] = [];
  private delivering = false;
  private inputEnded = false;
  private closing = false;
  private endReported = false;
  private drainWaiters: (() => void)[] = [];

  start(sink: TransportSink): void {
    if (this.sink !== undefined) throw new Error("This transport is already started");
    this.sink = sink;
    this.schedule();
  }

  send(message: object): void | Promise<void> {
    // Serialised, as on a wire: the peer gets its own copy, and what JSON cannot carry fails here.
    const text = JSON.stringify(message) as string | undefined;
    if (text === undefined) throw new TypeError("A message must be a JSON-serialisable object");
    if (this.closing || this.peer.inputEnded) return;
    return this.peer.receive(text);
  }

  close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.queue = [];
      this.releaseSenders();
      this.peer.endInput();
    }
    return Promise.resolve();
  }

  private receive(text: string): void | Promise<void> {
    this.queue.push(text);
    this.schedule();
    if (this.queue.length > MEMORY_HIGH_WATER) {
      return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    }
  }

  private endInput(): void {
    this.inputEnded = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.delivering || this.sink === undefined || this.closing) return;
    this.delivering = true;
    queueMicrotask(() => void this.deliver());
  }

  /** Delivers what is queued as one chunk, pausing when the sink asks to. */
  private async deliver(): Promise<void> {
    const sink = this.sink;
    if (sink === undefined) return;
    while (this.queue.length > 0 && !this.closing) {
      const batch = this.queue;
      this.queue = [];
      this.releaseSenders();
      for (const text of batch) {
        if (this.isClosing()) break;
        const pause = sink.message(JSON.parse(text) as unknown);
        if (pause !== undefined) await pause;
      }
      sink.endOfChunk();
    }
    this.delivering = false;
    if (this.inputEnded && !this.closing && !this.endReported) {
      this.endReported = true;
      sink.closed(undefined, "input");
    }
  }

  /** Read through a method: `closing` changes while delivery awaits. */
  private isClosing(): boolean {
    return this.closing;
  }

  private releaseSenders(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** Two linked {@link Transport}s: what one side sends, the other receives. */
export interface TransportPair {
  /** The agent's end. */
  readonly agent: Transport;
  /** The client's end. */
  readonly client: Transport;
}

/**
 * Two transports linked in memory, without framing: each message is serialised to JSON
 * on sending and parsed on arrival (so each side gets its own copy, and what JSON cannot
 * carry fails as it would on a wire), delivered asynchronously and in order. Closing one
 * end ends the other's input. Faster than {@link memoryStreamPair}, which exercises the
 * newline-delimited framing instead.
 */
export function memoryTransportPair(): TransportPair {
  const agent = new MemoryTransport();
  const client = new MemoryTransport();
  agent.peer = client;
  client.peer = agent;
  return { agent, client };
}
