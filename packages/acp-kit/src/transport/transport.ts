/**
 * The {@link Transport} interface: what carries a connection's messages. Implement it to
 * run ACP over anything (a socket, HTTP, a worker port); {@link ndJsonStream} and
 * {@link memoryTransportPair} are its implementations here.
 *
 * A transport moves whole JSON-RPC messages. The connection above it does everything
 * else: ids, answers, validation, ordering, cancellation, closing.
 *
 * @module
 */
import type { Logger } from "../base/logger.js";
import type { EnvelopeInfo } from "./envelope-scanner.js";

export type { EnvelopeInfo } from "./envelope-scanner.js";

/** A message a transport dropped because it was too large: see {@link TransportSink.oversized}. */
export interface OversizedMessage {
  /** Its size in bytes. */
  readonly bytes: number;
  /** What could be recovered of it without parsing it whole (id, whether it had a method). */
  readonly envelope: EnvelopeInfo;
  /** The transport's limit. */
  readonly maxBytes: number;
}

/**
 * Where a transport delivers what it reads. The connection implements it and passes it
 * to {@link Transport.start}; a transport calls it, never the other way round.
 */
export interface TransportSink {
  /**
   * One message read from the peer: a parsed JSON value (normally a message object; the
   * connection answers anything else). When it returns a promise, the transport stops
   * reading until the promise settles (the connection has a backlog, or yields to the
   * event loop). Call it once per message, in order, never re-entrantly.
   */
  message(message: unknown): void | Promise<void>;
  /**
   * Optional to call: the messages read together (one chunk of input) have all been
   * handed over. Lets the connection run the code awaiting a response before it handles
   * a request that came in the same chunk, as if they had come in two reads.
   */
  endOfChunk(): void;
  /**
   * Optional to call: a message was larger than the transport's limit and was dropped.
   * The connection fails the request a dropped response answered. (A transport answers a
   * dropped request itself, or lets it go unanswered.)
   */
  oversized(info: OversizedMessage): void;
  /**
   * The input ended (`error` undefined) or failed (`direction` `"input"`), or sending
   * failed (`direction` `"output"`). The connection then closes and calls
   * {@link Transport.close}. Call it at most once per direction, and not after `close()`.
   */
  closed(error: unknown, direction: "input" | "output"): void;
}

/** What a connection passes to the transport it starts. */
export interface TransportContext {
  /** Where the transport may report what it cannot tell the connection (bad input, drops). */
  readonly logger: Logger;
}

/**
 * Carries one connection's messages in both directions. A connection calls `start` once,
 * then `send` for every message it writes, and `close` once when it closes.
 *
 * ```ts
 * class PortTransport implements Transport {
 *   constructor(private readonly port: MessagePort) {}
 *   start(sink: TransportSink): void {
 *     this.port.onmessage = (event) => void sink.message(event.data);
 *     this.port.onmessageerror = (event) => sink.closed(event, "input");
 *   }
 *   send(message: object): void {
 *     this.port.postMessage(message);
 *   }
 *   close(): Promise<void> {
 *     this.port.close();
 *     return Promise.resolve();
 *   }
 * }
 * const connection = new ClientSideConnection(toClient, new PortTransport(port));
 * ```
 */
export interface Transport {
  /** Starts reading: from now on, deliver what is read to `sink`. Called once. */
  start(sink: TransportSink, context?: TransportContext): void;
  /**
   * Queues a message for the peer, in order. Throw synchronously when it cannot be
   * serialised; report a failure to write through {@link TransportSink.closed}. Return a
   * promise only when the queue is over the transport's high-water mark: it resolves
   * when the queue drained, and meanwhile the connection holds back what adds output
   * (its own requests and notifications, and handling the peer's requests) while it
   * keeps reading.
   */
  send(message: object): void | Promise<void>;
  /**
   * Writes what is queued (give up after a bounded time), ends the output if it is the
   * transport's to end (`ndJsonStream` leaves a stream its caller passed in open unless
   * asked with `closeOutput`) and stops reading. Called once, when the connection closes;
   * `sink` gets no more calls after.
   */
  close(): Promise<void>;
}

/** True for an object that implements {@link Transport}. */
export function isTransport(value: unknown): value is Transport {
  if (typeof value !== "object" || value === null) return false;
  const t = value as Partial<Record<keyof Transport, unknown>>;
  return (
    typeof t.start === "function" && typeof t.send === "function" && typeof t.close === "function"
  );
}
