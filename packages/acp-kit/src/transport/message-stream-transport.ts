/**
 * A transport over any {@link Stream} of message objects (a custom transport, a wrapped
 * or tapped stream, an in-memory pair).
 *
 * @module
 */
import type { AnyMessage, Stream } from "../base/messages.js";
import {
  isTransport,
  type Transport,
  type TransportContext,
  type TransportSink,
} from "./transport.js";

/**
 * Set (to `true`) on a {@link Stream} whose `writable` the connection is to close when it
 * closes: acp-kit's own streams whose owner learns of the end that way (the HTTP server's
 * agent stream). A symbol from the registry, the same in every entry's bundle. Any other
 * stream is its caller's, as in the classic releases: when the connection closes, its
 * reader is cancelled and both locks are given back; the writable is never closed.
 *
 * @internal
 */
export const CLOSE_WITH_CONNECTION: unique symbol = Symbol.for("acp-kit.closeWithConnection");

/** @internal */
export class MessageStreamTransport implements Transport {
  private writer: WritableStreamDefaultWriter<AnyMessage> | undefined;
  private reader: ReadableStreamDefaultReader<AnyMessage> | undefined;
  private sink: TransportSink | undefined;
  private closing = false;
  private outputFailed = false;

  constructor(
    private readonly stream: Stream,
    _context: TransportContext,
  ) {}

  start(sink: TransportSink): void {
    this.sink = sink;
    this.writer = this.stream.writable.getWriter();
    this.reader = this.stream.readable.getReader();
    void this.readLoop(this.reader, sink);
  }

  send(message: object): void | Promise<void> {
    const writer = this.writer;
    if (writer === undefined) throw new Error("transport not started");
    if (this.closing) return;
    writer.write(message as AnyMessage).catch((error: unknown) => {
      // Every write after a failure fails too: the sink hears of the first only.
      if (this.closing || this.outputFailed) return;
      this.outputFailed = true;
      this.sink?.closed(error, "output");
    });
    const desired = writer.desiredSize;
    if (desired !== null && desired <= 0) return writer.ready.catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const owned = (this.stream as { [CLOSE_WITH_CONNECTION]?: unknown })[CLOSE_WITH_CONNECTION];
    if (owned === true || this.writer === undefined) {
      await Promise.allSettled([this.writer?.close(), this.reader?.cancel()]);
      return;
    }
    // The caller's stream: what was written stays queued in it, the lock is given back.
    this.writer.releaseLock();
    await this.reader?.cancel().catch(() => undefined);
  }

  private async readLoop(
    reader: ReadableStreamDefaultReader<AnyMessage>,
    sink: TransportSink,
  ): Promise<void> {
    let end: { readonly error: unknown };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const pause = sink.message(value);
        sink.endOfChunk();
        if (pause !== undefined) await pause;
      }
      end = { error: undefined };
    } catch (error) {
      end = { error };
    }
    // The readable is the caller's: its lock is given back before the connection hears
    // of the end, as the classic releases give it back.
    reader.releaseLock();
    if (!this.closing) sink.closed(end.error, "input");
  }
}

/** The transport for what a connection was given: itself, or a generic one over a stream. */
export function transportFor(carrier: Stream | Transport, context: TransportContext): Transport {
  return isTransport(carrier) ? carrier : new MessageStreamTransport(carrier, context);
}
