/**
 * Newline-delimited JSON framing over a pair of byte streams: `ndJsonStream(output, input)`.
 *
 * Reading: lines are split in linear time ({@link LineSplitter}); CRLF and blank lines are
 * tolerated; a final line without a newline is accepted; malformed JSON is answered with
 * `-32700` (id `null`) and skipped, as the official SDK does, unless `onNonJsonLine` takes
 * such lines (a client reading an agent's stdout); a line over `maxMessageBytes` is dropped, answered
 * `-32600` when it was a request whose id could be recovered, and the connection lives on.
 *
 * Writing: a message is written at once when no write is in flight, and messages queued
 * meanwhile are joined into the next chunk, up to {@link CHUNK_CHARS} a chunk (no added
 * latency, bounded by a high-water mark that pushes back on senders). To its owner the
 * output is locked only while a write is in flight ({@link LentWriter}): it may close or
 * abort it, which ends the connection.
 *
 * Both byte streams stay their caller's, as in the classic releases: when the connection
 * ends the output is left open (unless `closeOutput` asks for it to be closed) and the
 * input's reader is released, so the caller may close its streams afterwards.
 *
 * Reading never waits for the output: the connection holds back what would add output
 * (see `inbox.ts`). Parse-error answers are dropped, and counted in the log, while the
 * output is backed up, so that a peer printing junk cannot fill our memory with them.
 *
 * @module
 */
import type { EnvelopeInfo } from "./envelope-scanner.js";
import { ErrorCodes } from "../base/error-codes.js";
import { LentWriter } from "./lent-writer.js";
import { LineSplitter, type OversizedLine } from "./line-splitter.js";
import { jsonText } from "../base/json-text.js";
import { silentLogger, type Logger } from "../base/logger.js";
import type { AnyMessage, Stream } from "../base/messages.js";
import type { Transport, TransportContext, TransportSink } from "./transport.js";

/**
 * The default limit on one inbound message: 64 MiB. Generous enough for large file
 * reads, small enough that a runaway peer cannot exhaust memory.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Size of the slabs small outgoing chunks are encoded into. */
const SLAB_BYTES = 64 * 1024;

/** The byte that ends every message. */
const NEWLINE = 0x0a;

/**
 * The longest text (in characters) encoded together with its newline into one chunk; a
 * longer one is written as two chunks, so that no buffer three times its size is needed.
 */
const MAX_ONE_CHUNK_CHARS = 1024 * 1024;

/**
 * Characters of queued messages joined into one chunk, at most (a longer message is a
 * chunk of its own). Joining everything queued made megabyte chunks under a burst of
 * large messages, which cost both sides more per byte than chunks of this size (V8
 * allocates larger strings apart, in its large-object space): a first S1 run with
 * 4,000-character updates went from 0.86x to 1.03x the coalescing raw loop (CPU time).
 * 64 Ki split the bursts of S2c (1,000 small requests in flight) and cost it about 10 %.
 */
const CHUNK_CHARS = 128 * 1024;

/** Characters queued for writing beyond which senders are asked to wait. */
const HIGH_WATER_CHARS = 1024 * 1024;

/**
 * How long closing waits for queued output to be written before it gives up on the
 * output (a peer that stopped reading must not keep us from closing).
 */
const CLOSE_FLUSH_MS = 2000;

/** Options of {@link ndJsonStream}. */
export interface NdJsonStreamOptions {
  /**
   * The largest inbound message kept, in bytes (without its newline). Larger ones are
   * dropped as described in the module comment. Default {@link DEFAULT_MAX_MESSAGE_BYTES}.
   */
  readonly maxMessageBytes?: number;
  /**
   * Where framing problems are reported when the stream is consumed through its
   * `readable`/`writable` directly. A connection passes its own logger instead.
   */
  readonly logger?: Logger;
  /**
   * Close the output once the connection closes (after queued output is written), and
   * abort it if that output is not taken within 2 s. Default `false`: the output belongs
   * to the caller and is left open, as the classic releases leave it; a caller that closes
   * its stream after the connection ended keeps working. Pass `true` when the stream is
   * yours to end, e.g. a child process's stdin, so that the peer sees the end of its input.
   */
  readonly closeOutput?: boolean;
  /**
   * Takes the inbound lines that are not JSON, instead of answering each with `-32700`.
   * Given, such a line is handed to it (without its line ending) and nothing is sent
   * back. For a client reading an agent's stdout: agents print login URLs, prompts and
   * logs there, and an agent that asked for an authorization code reads whatever comes
   * next on its stdin as that code (Gemini CLI does), so answering its line breaks its
   * login. `spawnAgent` passes one. Default: answered `-32700` (id `null`), as the official
   * SDK does, which is what an agent reading its client should do.
   */
  readonly onNonJsonLine?: (line: string) => void;
}

function resolveMaxBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isFinite(value) || value < 1) {
    throw new RangeError(`maxMessageBytes must be a positive number, got ${value}`);
  }
  return Math.floor(value);
}

const NOOP = (): void => undefined;

/** The fast transport behind {@link ndJsonStream}. */
class NdJsonTransport implements Transport {
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly encoder = new TextEncoder();
  private slab = new Uint8Array(0);
  private slabUsed = 0;
  /** Messages waiting to be written, from `queueHead` on. */
  private queue: string[] = [];
  private queueHead = 0;
  private queuedChars = 0;
  private writing = false;
  private drainWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private closing = false;
  private failed = false;
  private sink: TransportSink | undefined;
  /** Error answers dropped because the output was backed up (reported in the log). */
  private droppedAnswers = 0;
  private readonly lent: LentWriter;

  constructor(
    private readonly output: WritableStream<Uint8Array>,
    private readonly input: ReadableStream<Uint8Array>,
    private readonly maxBytes: number,
    private logger: Logger,
    private readonly closeOutput: boolean,
    private readonly onNonJsonLine: ((line: string) => void) | undefined,
  ) {
    this.lent = new LentWriter(output);
    // Set at close (or on a write failure), read for every message: made mutable for V8
    // from the start (see `Lifecycle`'s constructor in jsonrpc/).
    this.closing = false;
    this.failed = false;
  }

  /** Read through a method: `closing` changes while the read loop awaits. */
  private isClosing(): boolean {
    return this.closing;
  }

  setLogger(logger: Logger): void {
    this.logger = logger;
  }

  start(sink: TransportSink): void {
    this.sink = sink;
    void this.readLoop(sink);
  }

  send(message: object): void | Promise<void> {
    if (this.closing || this.failed) return;
    let line: string | undefined;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      // Nested deeper than V8's own can go (it runs out of stack): written without recursion.
      if (!(error instanceof RangeError)) throw error;
      line = jsonText(message);
    }
    if (line === undefined) throw new TypeError("A message must be a JSON-serialisable object");
    if (!this.writing) {
      this.writing = true;
      this.write(line, false);
      return;
    }
    this.queue.push(line);
    this.queuedChars += line.length + 1;
    if (this.queuedChars > HIGH_WATER_CHARS) {
      return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    }
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const reader = this.reader;
    if (reader !== undefined) reader.cancel().catch(NOOP);
    else this.input.cancel().catch(NOOP);
    if (this.writing && !this.failed) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const flushed = await Promise.race([
        new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true))),
        new Promise<boolean>(
          (resolve) => (timer = setTimeout(() => resolve(false), CLOSE_FLUSH_MS)),
        ),
      ]);
      clearTimeout(timer);
      if (!flushed) {
        this.logger.warn?.(
          this.closeOutput
            ? "Queued output was not written in time; the output is aborted"
            : "Queued output was not written in time; it is dropped and the output given back",
          { queuedChars: this.queuedChars },
        );
        this.failed = true;
        this.queue = [];
        this.queuedChars = 0;
        this.releaseWaiters();
        if (this.closeOutput) {
          this.lent.abort(new Error("closed before queued output could be written"));
        } else {
          // The caller's stream: unlocked with the stuck write still in it, never aborted.
          this.lent.abandon();
        }
        return;
      }
    }
    this.releaseWaiters();
    this.lent.dispose();
    // Closed or locked by its owner meanwhile: nothing to close.
    if (this.closeOutput && !this.failed && !this.output.locked) {
      await this.output.close().catch(NOOP);
    }
  }

  /**
   * Writes one chunk. To the stream's owner the output is locked only while the write is
   * in flight: it may close or abort it between writes (see {@link LentWriter}).
   */
  private write(text: string, terminated: boolean): void {
    let writer: WritableStreamDefaultWriter<Uint8Array>;
    try {
      writer = this.lent.acquire();
    } catch (error) {
      this.onWriteError(error);
      return;
    }
    let written: Promise<void>;
    try {
      const line = this.encodeLine(text, terminated);
      if (line !== undefined) written = writer.write(line);
      else {
        // The newline goes in a chunk of its own: appending it to the text or to its bytes
        // would cost a copy of the whole (possibly many megabytes) message.
        writer.write(this.encoder.encode(text)).catch(NOOP); // a failure fails the next too
        written = writer.write(new Uint8Array([NEWLINE]));
      }
    } catch (error) {
      // Node throws here, instead of rejecting, when the stream was closed meanwhile.
      this.lent.settled();
      this.onWriteError(error);
      return;
    }
    written.then(this.afterWrite, (error: unknown) => {
      this.lent.settled();
      this.onWriteError(error);
    });
  }

  /**
   * UTF-8 bytes of `text` followed by a newline, appended as a byte (joining it to the
   * string first would cost a copy of the whole text); a `terminated` text (a batch, joined
   * with a final newline) is encoded as it is, a large one by `encode`, which sizes its
   * buffer exactly instead of for the worst case. Small texts are encoded into views
   * of a shared slab, which is several times cheaper than a fresh buffer each; a slab is
   * never written twice, so a chunk stays intact however long the consumer keeps it.
   * Texts up to {@link MAX_ONE_CHUNK_CHARS} get a buffer of their own, of their size.
   * Undefined for a larger unterminated text (see {@link write}).
   */
  private encodeLine(text: string, terminated: boolean): Uint8Array | undefined {
    const worst = text.length * 3 + 1;
    if (worst > SLAB_BYTES / 4) {
      // A batch: it ends with its newline, and is encoded to a buffer of its exact size.
      if (terminated) return this.encoder.encode(text);
      if (text.length > MAX_ONE_CHUNK_CHARS) return undefined;
      const bytes = new Uint8Array(worst);
      const { written } = this.encoder.encodeInto(text, bytes);
      bytes[written] = NEWLINE;
      // The buffer is sized for the worst case (3 bytes a character); mostly ASCII JSON
      // fills a third of it. A view would keep all of it alive for as long as the
      // consumer holds the chunk, and backpressure would count only the view: copied out.
      return written + 1 <= worst / 2
        ? bytes.slice(0, written + 1)
        : bytes.subarray(0, written + 1);
    }
    if (this.slab.length - this.slabUsed < worst) {
      this.slab = new Uint8Array(SLAB_BYTES);
      this.slabUsed = 0;
    }
    const start = this.slabUsed;
    const { written } = this.encoder.encodeInto(text, this.slab.subarray(start));
    let end = start + written;
    if (!terminated) this.slab[end++] = NEWLINE;
    this.slabUsed = end;
    return this.slab.subarray(start, end);
  }

  private readonly afterWrite = (): void => {
    this.lent.settled();
    const queue = this.queue;
    const head = this.queueHead;
    if (head === queue.length || this.failed) {
      this.writing = false;
      const idle = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of idle) resolve();
      return;
    }
    // The next chunk: the queued messages that fit in CHUNK_CHARS (at least one).
    let end = head;
    let chars = 0;
    do chars += (queue[end++] ?? "").length + 1;
    while (end < queue.length && chars + (queue[end] ?? "").length < CHUNK_CHARS);
    const waiting = queue.length - end;
    let text: string;
    let terminated = true;
    if (end === head + 1) {
      // One message: written as it is (joining would copy it; it may be megabytes).
      text = queue[head] ?? "";
      terminated = false;
    } else if (head === 0 && waiting === 0) {
      // An empty last element gives the text its final newline without a copy.
      queue.push("");
      text = queue.join("\n");
    } else {
      const part = queue.slice(head, end);
      part.push("");
      text = part.join("\n");
    }
    if (waiting === 0) {
      this.queue = [];
      this.queueHead = 0;
    } else if (end > waiting) {
      // More was written than waits: what waits moves to a fresh array and the written
      // ones are let go (at most one move per message written, on average).
      this.queue = queue.slice(end);
      this.queueHead = 0;
    } else this.queueHead = end;
    this.queuedChars -= chars;
    if (this.queuedChars <= HIGH_WATER_CHARS) {
      const drained = this.drainWaiters;
      this.drainWaiters = [];
      for (const resolve of drained) resolve();
    }
    this.write(text, terminated);
  };

  private readonly onWriteError = (error: unknown): void => {
    if (this.failed) return;
    this.failed = true;
    this.writing = false;
    this.lent.dispose();
    this.queue = [];
    this.queueHead = 0;
    this.queuedChars = 0;
    this.releaseWaiters();
    if (!this.closing) this.sink?.closed(error, "output");
  };

  private releaseWaiters(): void {
    for (const resolve of this.drainWaiters) resolve();
    for (const resolve of this.idleWaiters) resolve();
    this.drainWaiters = [];
    this.idleWaiters = [];
  }

  private async readLoop(sink: TransportSink): Promise<void> {
    let reader: ReadableStreamDefaultReader<Uint8Array>;
    try {
      reader = this.input.getReader();
    } catch (error) {
      sink.closed(error, "input");
      return;
    }
    this.reader = reader;
    const end = await this.readLines(reader, sink);
    // The input is the caller's: its lock is given back, as the classic releases do, and
    // before the connection hears of the end (its `closed` finds the input unlocked).
    this.reader = undefined;
    reader.releaseLock();
    if (end !== undefined && !this.closing) sink.closed(end.error, "input");
  }

  /**
   * Delivers what is read until the input ends or fails (returns how, for the sink) or the
   * transport closes (returns undefined).
   */
  private async readLines(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    sink: TransportSink,
  ): Promise<{ readonly error: unknown } | undefined> {
    const splitter = new LineSplitter(this.maxBytes);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const items = splitter.push(value);
        if (typeof items === "string") {
          const pause = this.deliverLine(items, sink);
          if (pause !== undefined) await pause;
        } else {
          for (const item of items) {
            const pause =
              typeof item === "string"
                ? this.deliverLine(item, sink)
                : this.deliverOversized(item, sink);
            if (pause !== undefined) await pause;
          }
        }
        sink.endOfChunk();
        if (this.isClosing()) return undefined;
      }
      if (this.isClosing()) return undefined;
      const last = splitter.end();
      if (last !== undefined) {
        const pause =
          typeof last === "string"
            ? this.deliverLine(last, sink)
            : this.deliverOversized(last, sink);
        if (pause !== undefined) await pause;
        sink.endOfChunk();
      }
      return { error: undefined };
    } catch (error) {
      return { error };
    }
  }

  private deliverLine(line: string, sink: TransportSink): void | Promise<void> {
    if (line.length === 0) return;
    let text = line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
    // A byte order mark before a message is tolerated (JSON parsers may ignore one).
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      if (text.trim() === "") return; // a blank line
      if (this.onNonJsonLine !== undefined) {
        try {
          this.onNonJsonLine(text);
        } catch (error) {
          this.logger.error?.("onNonJsonLine threw", { error });
        }
        return;
      }
      this.logger.warn?.("Received a line that is not valid JSON; answered -32700", {
        chars: text.length,
      });
      this.answerError(null, ErrorCodes.PARSE_ERROR, "Parse error");
      return;
    }
    return sink.message(message);
  }

  private deliverOversized(item: OversizedLine, sink: TransportSink): void {
    const { envelope, bytes } = item;
    this.logger.warn?.("Dropped an inbound message larger than maxMessageBytes", {
      bytes,
      maxMessageBytes: this.maxBytes,
      id: envelope.id,
      request: envelope.hasMethod,
    });
    if (envelope.hasMethod && envelope.id !== undefined) {
      this.answerError(
        envelope.id,
        ErrorCodes.INVALID_REQUEST,
        "Invalid request: message too large",
        {
          maxMessageBytes: this.maxBytes,
          bytes,
        },
      );
    }
    sink.oversized({ bytes, envelope, maxBytes: this.maxBytes });
  }

  /**
   * Answers a line the connection never sees. While the output is backed up the answer is
   * dropped instead (a peer that writes junk without reading must not fill our memory,
   * nor make us stop reading); the first drop, and every 1,000th, is logged.
   */
  private answerError(
    id: string | number | null,
    code: number,
    message: string,
    data?: unknown,
  ): void {
    if (this.queuedChars > HIGH_WATER_CHARS) {
      if (this.droppedAnswers++ % 1000 === 0) {
        this.logger.warn?.("Dropped error answers to bad input: the output is backed up", {
          dropped: this.droppedAnswers,
        });
      }
      return;
    }
    const error = data === undefined ? { code, message } : { code, message, data };
    void this.send({ jsonrpc: "2.0", id, error });
  }
}

/** Builds the message-level readable over a transport (used when a stream is consumed directly). */
function readableFacade(transport: NdJsonTransport, maxBytes: number): ReadableStream<AnyMessage> {
  let pullWaiter: (() => void) | undefined;
  // The transport may report its end twice (the input ended, then a write failed): the
  // readable ends once.
  let ended = false;
  return new ReadableStream<AnyMessage>({
    start(controller) {
      transport.start({
        message(message) {
          if (ended) return;
          controller.enqueue(message as AnyMessage);
          if ((controller.desiredSize ?? 1) <= 0) {
            return new Promise<void>((resolve) => (pullWaiter = resolve));
          }
        },
        endOfChunk: NOOP,
        oversized({ envelope }: { envelope: EnvelopeInfo }) {
          // A dropped response still settles its request: answer it with a local error.
          if (!ended && envelope.hasOutcome && !envelope.hasMethod && envelope.id !== undefined) {
            controller.enqueue({
              jsonrpc: "2.0",
              id: envelope.id,
              error: {
                code: ErrorCodes.INTERNAL_ERROR,
                message: "Response dropped: it exceeded the maximum message size",
                data: { reason: "message_too_large", maxMessageBytes: maxBytes },
              },
            });
          }
        },
        closed(error) {
          if (ended) return;
          ended = true;
          if (error === undefined) controller.close();
          else controller.error(error);
        },
      });
    },
    pull() {
      const waiter = pullWaiter;
      pullWaiter = undefined;
      waiter?.();
    },
    cancel() {
      ended = true;
      // A delivery waiting for the consumer to pull would wait for ever.
      const waiter = pullWaiter;
      pullWaiter = undefined;
      waiter?.();
      return transport.close();
    },
  });
}

function writableFacade(transport: NdJsonTransport): WritableStream<AnyMessage> {
  return new WritableStream<AnyMessage>({
    write(message) {
      return transport.send(message);
    },
    close() {
      return transport.close();
    },
    abort() {
      return transport.close();
    },
  });
}

/**
 * What {@link ndJsonStream} returns: a classic {@link Stream} of messages (its `readable`
 * and `writable`) that is also a {@link Transport}. A connection uses the transport side,
 * which skips the message-level Web Streams (one parse per line, coalesced writes); other
 * code may use the stream side. One consumer only: whichever side is used first.
 */
export type NdJsonStream = Stream & Transport;

/**
 * Frames JSON-RPC messages as newline-delimited JSON over a pair of byte streams.
 *
 * @param output - Where messages are written (for an agent: its stdout; for a client: the
 *   agent's stdin). It is locked only while a write is in flight: its owner may close or
 *   abort it, which closes the connection. It stays open when the connection closes,
 *   unless `options.closeOutput` is set.
 * @param input - Where messages are read from (for an agent: its stdin; for a client: the
 *   agent's stdout).
 * @param options - Size limit, logger and `closeOutput`; see {@link NdJsonStreamOptions}.
 * @returns A {@link Stream} to hand to a connection, which is also a {@link Transport}.
 *   It can be used by one consumer only.
 */
export function ndJsonStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  options?: NdJsonStreamOptions,
): NdJsonStream {
  return new NdJsonStreamImpl(output, input, options);
}

/**
 * What {@link ndJsonStream} returns. A class, so that the connection's call into `send`
 * is one target for every stream (see `JsonRpcConnection`); `readable` and `writable` are
 * own enumerable properties, as on the plain object the classic releases return.
 */
class NdJsonStreamImpl implements Transport {
  declare readonly readable: ReadableStream<AnyMessage>;
  declare readonly writable: WritableStream<AnyMessage>;
  private readonly transport: NdJsonTransport;
  private claimed: "facade" | "transport" | undefined;
  private started = false;
  // ES private: not among the stream's own keys, which stay what they were.
  readonly #maxBytes: number;
  #readable: ReadableStream<AnyMessage> | undefined;
  #writable: WritableStream<AnyMessage> | undefined;

  constructor(
    output: WritableStream<Uint8Array>,
    input: ReadableStream<Uint8Array>,
    private readonly options: NdJsonStreamOptions | undefined,
  ) {
    const maxBytes = resolveMaxBytes(options?.maxMessageBytes);
    this.transport = new NdJsonTransport(
      output,
      input,
      maxBytes,
      options?.logger ?? silentLogger,
      options?.closeOutput === true,
      options?.onNonJsonLine,
    );
    this.#maxBytes = maxBytes;
    // Own enumerable accessors, with the same two getters on every stream. An accessor's
    // functions are part of its object's hidden class in V8: getters made per stream put
    // every stream after the first in a slow dictionary of properties, which the
    // connection reads `claimed` and `transport` from on every send.
    Object.defineProperties(this, FACADE_PROPERTIES);
  }

  /** The `readable` getter. */
  static getReadable(this: unknown): ReadableStream<AnyMessage> {
    const stream = NdJsonStreamImpl.from(this);
    stream.claim("facade");
    return (stream.#readable ??= readableFacade(stream.transport, stream.#maxBytes));
  }

  /** The `writable` getter. */
  static getWritable(this: unknown): WritableStream<AnyMessage> {
    const stream = NdJsonStreamImpl.from(this);
    stream.claim("facade");
    return (stream.#writable ??= writableFacade(stream.transport));
  }

  /** The stream a getter was called on: `self`, or the stream `self` inherits from. */
  private static from(self: unknown): NdJsonStreamImpl {
    for (let o = self; typeof o === "object" && o !== null; o = Object.getPrototypeOf(o)) {
      if (#maxBytes in o) return o;
    }
    throw new TypeError("readable and writable are read from an ndJsonStream");
  }

  private claim(by: "facade" | "transport"): void {
    if (this.claimed !== undefined && this.claimed !== by) {
      throw new Error("This ndJsonStream is already in use by a connection");
    }
    this.claimed = by;
  }

  start(sink: TransportSink, context?: TransportContext): void {
    this.claim("transport");
    if (this.started) throw new Error("This ndJsonStream is already in use by another connection");
    this.started = true;
    if (this.options?.logger === undefined && context !== undefined) {
      this.transport.setLogger(context.logger);
    }
    this.transport.start(sink);
  }

  send(message: object): void | Promise<void> {
    if (this.claimed !== "transport") this.claim("transport");
    return this.transport.send(message);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** The `readable` and `writable` of every {@link NdJsonStreamImpl}. */
const FACADE_PROPERTIES: PropertyDescriptorMap = {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a getter, called with its stream
  readable: { enumerable: true, get: NdJsonStreamImpl.getReadable },
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a getter, called with its stream
  writable: { enumerable: true, get: NdJsonStreamImpl.getWritable },
};
