/**
 * A transport over any {@link Stream} of message objects (a custom transport, a wrapped
 * or tapped stream, an in-memory pair).
 *
 * @module
 */
import type { AnyMessage, Stream } from "../jsonrpc/messages.js";
import {
  isTransport,
  type Transport,
  type TransportContext,
  type TransportSink,
} from "./transport.js";

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
    await Promise.allSettled([this.writer?.close(), this.reader?.cancel()]);
  }

  private async readLoop(
    reader: ReadableStreamDefaultReader<AnyMessage>,
    sink: TransportSink,
  ): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const pause = sink.message(value);
        sink.endOfChunk();
        if (pause !== undefined) await pause;
      }
      if (!this.closing) sink.closed(undefined, "input");
    } catch (error) {
      if (!this.closing) sink.closed(error, "input");
    }
  }
}

/** The transport for what a connection was given: itself, or a generic one over a stream. */
export function transportFor(carrier: Stream | Transport, context: TransportContext): Transport {
  return isTransport(carrier) ? carrier : new MessageStreamTransport(carrier, context);
}
