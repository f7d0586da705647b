/**
 * The internal interface between a connection and what carries its messages.
 *
 * A {@link Stream} of message objects is the public currency. Streams made by
 * {@link ndJsonStream} also carry a hidden transport factory, which a connection uses to
 * skip the message-level Web Streams entirely (one parse per line, coalesced writes).
 *
 * @module
 */
import type { Logger } from "../jsonrpc/logger.js";
import type { EnvelopeInfo } from "./envelope-scanner.js";
import type { Stream } from "../jsonrpc/messages.js";
import { MessageStreamTransport } from "./message-stream-transport.js";

/** Receives what a transport reads. */
export interface TransportSink {
  /**
   * One parsed JSON value (normally a message object; the connection answers anything
   * else). Returning a promise pauses delivery of later messages until it settles.
   */
  message(message: unknown): void | Promise<void>;
  /** The messages read together (one chunk of input) have all been handed over. */
  endOfChunk?(): void;
  /** A message was too large and was dropped; requests among them were already answered. */
  oversized(info: { bytes: number; envelope: EnvelopeInfo; maxBytes: number }): void;
  /**
   * The input ended (`error` undefined) or failed (`direction` "input"), or a write
   * failed (`direction` "output").
   */
  closed(error: unknown, direction: "input" | "output"): void;
}

/** Options a connection passes to the transport it starts. */
export interface TransportOptions {
  readonly logger: Logger;
}

/** Carries messages for one connection. */
export interface Transport {
  /** Starts reading; called once. */
  start(sink: TransportSink): void;
  /**
   * Serialises and queues a message. Throws synchronously when it cannot be serialised.
   * Returns a promise only when the queue is over its high-water mark (backpressure).
   */
  send(message: object): void | Promise<void>;
  /** Flushes queued messages (bounded), closes the output and releases the input. */
  close(): Promise<void>;
}

/** The hidden property through which {@link ndJsonStream} streams expose their transport. */
export const TRANSPORT_FACTORY: unique symbol = Symbol.for("acp-kit.transport-factory");

/** A stream that may carry a transport factory. */
type MaybeFast = Stream & { [TRANSPORT_FACTORY]?: (options: TransportOptions) => Transport };

/** The transport for a stream: its own fast one if it has one, a generic one otherwise. */
export function transportFor(stream: Stream, options: TransportOptions): Transport {
  const factory = (stream as MaybeFast)[TRANSPORT_FACTORY];
  return factory !== undefined ? factory(options) : new MessageStreamTransport(stream, options);
}
