/**
 * One ordered stream of agent → client messages (the connection stream, a session stream,
 * or a WebSocket's single stream): a queue of unsent messages, at most one receiver, and
 * (when resumable) a bounded buffer of sent messages kept for replay.
 *
 * @module
 */

/** One message on a stream with its cursor. */
export interface StreamEntry {
  readonly cursor: number;
  readonly text: string;
}

/**
 * Retention of the replay buffer: a sent message is kept while it is among the last
 * `messages` or was sent less than `windowMs` ago, and while the buffer holds no more than
 * `bytes` (UTF-16 length) in all.
 */
export interface RetentionLimits {
  readonly messages: number;
  readonly windowMs: number;
  readonly bytes: number;
}

/** A sent message kept for replay, with when it was sent (`Date.now()`). */
interface RetainedEntry extends StreamEntry {
  readonly sentAt: number;
}

/** Why a resume was refused. */
export type ResumeFailure = "cursor-ahead" | "cursor-expired" | "invalid-cursor";

/** A receiver's handle on a stream. */
export class StreamLease {
  /** @internal */ active = true;
  private wakeUp: (() => void) | undefined;

  constructor(private readonly stream: OutboundStream) {}

  /** The next message, or `undefined` once the stream ended or this lease was replaced/released. */
  async next(): Promise<StreamEntry | undefined> {
    for (;;) {
      if (!this.active) return undefined;
      const entry = this.stream.take();
      if (entry !== undefined) return entry;
      if (this.stream.finished) return undefined;
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
      });
    }
  }

  /** The next message if one is queued right now. */
  poll(): StreamEntry | undefined {
    return this.active ? this.stream.take() : undefined;
  }

  /** Detaches this receiver; queued messages wait for the next one. */
  release(): void {
    this.stream.detach(this);
  }

  /** @internal */
  wake(): void {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    wake?.();
  }
}

/** See the module comment. */
export class OutboundStream {
  private pending: StreamEntry[] = [];
  private pendingHead = 0;
  private retained: RetainedEntry[] = [];
  private retainedHead = 0;
  private retainedBytes = 0;
  private nextCursor = 1;
  private lease: StreamLease | undefined;
  private drainWaiters: (() => void)[] = [];
  /** UTF-16 length of the unsent messages. */
  pendingBytes = 0;
  /** No more messages will come. */
  finished = false;

  constructor(
    private readonly retention: RetentionLimits | undefined,
    private readonly onReceiverChange?: (attached: boolean) => void,
  ) {}

  /** Whether a receiver is attached. */
  get hasReceiver(): boolean {
    return this.lease !== undefined;
  }

  /** Whether messages wait for a receiver. */
  get hasPending(): boolean {
    return this.pendingHead < this.pending.length;
  }

  /** The cursor of the last message queued (0 before any). */
  get lastCursor(): number {
    return this.nextCursor - 1;
  }

  /** Queues a message's JSON text; returns its cursor. */
  push(text: string): number {
    const cursor = this.nextCursor++;
    if (this.finished) return cursor;
    this.pending.push({ cursor, text });
    this.pendingBytes += text.length;
    this.lease?.wake();
    return cursor;
  }

  /** Attaches a receiver; `undefined` when one is attached and `replace` is false. */
  attach(replace = false): StreamLease | undefined {
    if (this.lease !== undefined) {
      if (!replace) return undefined;
      // The old receiver leaves before the new one comes: its later release() finds its lease
      // gone and does nothing, so the count has to drop here.
      this.detach(this.lease);
    }
    const lease = new StreamLease(this);
    this.lease = lease;
    this.onReceiverChange?.(true);
    return lease;
  }

  /**
   * Rewinds so that the next receiver gets every message after `cursor` again. Returns a
   * failure when those messages are no longer all available.
   */
  rewind(cursor: number): ResumeFailure | undefined {
    if (!Number.isSafeInteger(cursor) || cursor < 0) return "invalid-cursor";
    if (cursor > this.lastCursor) return "cursor-ahead";
    const firstAvailable =
      this.retained[this.retainedHead]?.cursor ??
      this.pending[this.pendingHead]?.cursor ??
      this.nextCursor;
    if (cursor + 1 < firstAvailable) return "cursor-expired";
    const keep: RetainedEntry[] = [];
    const replay: StreamEntry[] = [];
    for (const entry of this.retained.slice(this.retainedHead)) {
      (entry.cursor <= cursor ? keep : replay).push(entry);
    }
    this.retained = keep;
    this.retainedHead = 0;
    this.retainedBytes = keep.reduce((sum, entry) => sum + entry.text.length, 0);
    const stillPending = this.pending.slice(this.pendingHead).filter((e) => e.cursor > cursor);
    this.pending = [...replay, ...stillPending];
    this.pendingHead = 0;
    this.pendingBytes = this.pending.reduce((sum, entry) => sum + entry.text.length, 0);
    return undefined;
  }

  /** Ends the stream: receivers get what is queued, then the end. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.lease?.wake();
    this.notifyDrain();
  }

  /** Ends the stream at once, dropping what is queued. */
  abort(): void {
    this.finish();
    this.pending = [];
    this.pendingHead = 0;
    this.pendingBytes = 0;
    this.retained = [];
    this.retainedHead = 0;
    this.retainedBytes = 0;
    const lease = this.lease;
    if (lease !== undefined) {
      lease.active = false;
      lease.wake();
    }
  }

  /** Resolves once fewer than `limit` unsent bytes are queued (or the stream ended). */
  waitForRoom(limit: number): Promise<void> | undefined {
    if (this.pendingBytes < limit || this.finished) return undefined;
    return new Promise((resolve) => {
      this.drainWaiters.push(resolve);
    });
  }

  /** @internal */
  take(): StreamEntry | undefined {
    const entry = this.pending[this.pendingHead];
    if (entry === undefined) return undefined;
    this.pending[this.pendingHead] = undefined as unknown as StreamEntry;
    this.pendingHead++;
    if (this.pendingHead === this.pending.length) {
      this.pending = [];
      this.pendingHead = 0;
    } else if (this.pendingHead >= 1024 && this.pendingHead * 2 >= this.pending.length) {
      this.pending = this.pending.slice(this.pendingHead);
      this.pendingHead = 0;
    }
    this.pendingBytes -= entry.text.length;
    if (this.retention !== undefined) this.retain(entry, this.retention);
    this.notifyDrain();
    return entry;
  }

  /** @internal */
  detach(lease: StreamLease): void {
    if (this.lease !== lease) return;
    lease.active = false;
    this.lease = undefined;
    lease.wake();
    this.onReceiverChange?.(false);
  }

  private retain(entry: StreamEntry, limits: RetentionLimits): void {
    const now = Date.now();
    this.retained.push({ cursor: entry.cursor, text: entry.text, sentAt: now });
    this.retainedBytes += entry.text.length;
    for (;;) {
      const dropped = this.retained[this.retainedHead];
      if (dropped === undefined) break;
      if (this.retainedBytes <= limits.bytes) {
        // Within the byte limit, the last `messages` are kept, and any younger than the window.
        const count = this.retained.length - this.retainedHead;
        if (count <= limits.messages || now - dropped.sentAt < limits.windowMs) break;
      }
      this.retained[this.retainedHead] = undefined as unknown as RetainedEntry;
      this.retainedHead++;
      this.retainedBytes -= dropped.text.length;
    }
    if (this.retainedHead >= 1024 && this.retainedHead * 2 >= this.retained.length) {
      this.retained = this.retained.slice(this.retainedHead);
      this.retainedHead = 0;
    }
  }

  private notifyDrain(): void {
    if (this.drainWaiters.length === 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
