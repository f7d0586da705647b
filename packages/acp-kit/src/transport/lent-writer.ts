/**
 * The writer of a caller's output stream, kept between writes without taking the stream
 * from its owner.
 *
 * A classic connection writes to a `WritableStream` its caller owns, and the caller may
 * close or abort that stream between writes. Taking a writer for each write and releasing
 * it afterwards honours that, but costs about a microsecond per write in Node (releasing
 * rejects two promises with fresh errors), which is a quarter of a request's round trip
 * in process. So the writer is kept between writes, and the stream's own `getWriter`,
 * `close`, `abort` and `locked` are shadowed on the instance: each first gives the writer
 * back when no write is in flight, so that to its owner the stream behaves as if it were
 * locked only during writes. The shadows are removed when the writer is disposed.
 *
 * Where the instance cannot take properties (it was made non-extensible), the writer is taken and
 * released per write instead. What the shadows cannot see is a pipe into the stream
 * (`readable.pipeTo(output)`), which checks the lock internally; such a pipe would mix
 * its chunks with ours anyway.
 *
 * @module
 */

/** The members of a `WritableStream` that are shadowed on the instance. */
const SHADOWED = ["getWriter", "close", "abort", "locked"] as const;

/** See the module comment. */
export class LentWriter {
  private writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  private busy = false;
  /** Removes the shadows; undefined when none could be installed. */
  private unshadow: (() => void) | undefined;
  /** Set when the owner closed or aborted the stream through its shadowed members. */
  private ended: { readonly reason: unknown } | undefined;

  /** @param output - The caller's stream. */
  constructor(private readonly output: WritableStream<Uint8Array>) {
    this.unshadow = shadow(output, this);
  }

  /**
   * Takes the writer for a write. Throws when the stream is locked by someone else, and
   * when its owner closed it (an error saying so) or aborted it (the abort's reason).
   */
  acquire(): WritableStreamDefaultWriter<Uint8Array> {
    if (this.ended !== undefined) throw this.ended.reason;
    const writer = (this.writer ??= this.output.getWriter());
    this.busy = true;
    return writer;
  }

  /** A write settled: keeps the writer when the stream is shadowed, else gives it back. */
  settled(): void {
    this.busy = false;
    if (this.unshadow === undefined) this.release();
  }

  /** True while the writer is kept with no write in flight (the owner sees no lock). */
  get idle(): boolean {
    return this.writer !== undefined && !this.busy;
  }

  /** Gives the writer back when no write is in flight; true when it is not held any more. */
  releaseIfIdle(): boolean {
    if (!this.busy) this.release();
    return this.writer === undefined;
  }

  /** The owner is closing (`reason` undefined) or aborting the stream. */
  ownerEnds(reason: unknown): void {
    this.ended ??= {
      reason: reason ?? new Error("The output stream was closed by its owner"),
    };
  }

  /**
   * Aborts the stream (a write in flight may never end: the peer stopped reading), through
   * the writer when one is held, then gives the writer back and removes the shadows.
   */
  abort(reason: unknown): void {
    const writer = this.writer;
    this.writer = undefined;
    this.busy = false;
    if (writer !== undefined) {
      writer.abort(reason).catch(() => undefined);
      writer.releaseLock();
    } else if (!this.output.locked) {
      this.output.abort(reason).catch(() => undefined);
    }
    this.dispose();
  }

  /**
   * Gives the writer back even with a write in flight (a peer that stopped reading may
   * never take it), and removes the shadows: the stream is its owner's again, unlocked,
   * with that write still queued in it. Nothing is closed or aborted.
   */
  abandon(): void {
    this.busy = false;
    this.release();
    this.dispose();
  }

  /** Gives the writer back (if no write is in flight) and removes the shadows. */
  dispose(): void {
    this.releaseIfIdle();
    const unshadow = this.unshadow;
    this.unshadow = undefined;
    unshadow?.();
  }

  private release(): void {
    const writer = this.writer;
    this.writer = undefined;
    writer?.releaseLock();
  }
}

/**
 * Shadows the stream's members on the instance (see the module comment). Returns what
 * removes them, or undefined when the instance cannot take them.
 */
function shadow(output: WritableStream<Uint8Array>, lent: LentWriter): (() => void) | undefined {
  const previous = new Map<string, PropertyDescriptor | undefined>();
  const target = output as unknown as Record<string, unknown>;
  const call =
    (name: string, original: unknown) =>
    (...args: unknown[]): unknown => {
      // Mid-write the stream stays locked, and closing or aborting it fails as it would.
      const free = lent.releaseIfIdle();
      const result: unknown = Reflect.apply(original as (...a: unknown[]) => unknown, output, args);
      if (free && name === "close") lent.ownerEnds(undefined);
      if (free && name === "abort") {
        lent.ownerEnds(args[0] ?? new Error("The output stream was aborted by its owner"));
      }
      return result;
    };
  try {
    for (const name of SHADOWED) {
      previous.set(name, Object.getOwnPropertyDescriptor(output, name));
      if (name === "locked") {
        const getter = lookupGetter(output, "locked");
        if (getter === undefined) throw new TypeError("no locked getter");
        Object.defineProperty(output, name, {
          configurable: true,
          enumerable: false,
          get: () => !lent.idle && (getter.call(output) as boolean),
        });
      } else {
        const original = target[name];
        if (typeof original !== "function") throw new TypeError(`no ${name} method`);
        Object.defineProperty(output, name, {
          configurable: true,
          enumerable: false,
          writable: true,
          value: call(name, original),
        });
      }
    }
  } catch {
    restore(output, previous);
    return undefined;
  }
  return () => restore(output, previous);
}

function restore(
  output: WritableStream<Uint8Array>,
  previous: ReadonlyMap<string, PropertyDescriptor | undefined>,
): void {
  for (const [name, descriptor] of previous) {
    try {
      if (descriptor === undefined) Reflect.deleteProperty(output, name);
      else Object.defineProperty(output, name, descriptor);
    } catch {
      // Nothing more can be done for a stream that refuses.
    }
  }
}

function lookupGetter(object: object, name: string): ((this: unknown) => unknown) | undefined {
  for (let o: object | null = object; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(o, name);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its stream
    if (descriptor !== undefined) return descriptor.get as ((this: unknown) => unknown) | undefined;
  }
  return undefined;
}
