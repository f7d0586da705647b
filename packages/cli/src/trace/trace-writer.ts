/**
 * {@link TraceWriter}: appends records to the trace file without ever holding up the
 * proxy.
 *
 * Records are queued in memory and written by one asynchronous loop, in batches of about
 * 1 MiB (never on the caller's turn). The queue is bounded: when the file cannot keep up, records are dropped
 * (and counted; a `dropped` event says how many once there is room again). When the file
 * cannot be opened or written, the writer warns once and discards everything after:
 * proxying goes on regardless.
 *
 * @module
 */
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { settlesWithin } from "acp-kit/internal";

/** Options of {@link TraceWriter}. */
export interface TraceWriterOptions {
  /** The most characters queued before records are dropped. */
  readonly maxQueueChars: number;
  /** Reports a problem with the file, once. */
  readonly warn: (message: string) => void;
  /** Makes the record that reports `count` dropped records. */
  readonly droppedRecord: (count: number) => string;
}

/** About how many characters go to the file in one write. */
const BATCH_CHARS = 1024 * 1024;

/** See the module comment. */
export class TraceWriter {
  /** Queued records, in batches of about {@link BATCH_CHARS}. */
  private queue: string[][] = [];
  private queued = 0;
  private lastBatchChars = 0;
  private queuedChars = 0;
  private handle: FileHandle | undefined;
  private readonly opening: Promise<void>;
  private flushing: Promise<void> | undefined;
  private failed = false;
  private closed = false;
  private pendingDropped = 0;
  private droppedTotal = 0;

  /**
   * Starts opening `path` (creating its directory; the file is readable by its owner only:
   * traces hold file contents and prompts).
   */
  constructor(
    readonly path: string,
    private readonly options: TraceWriterOptions,
  ) {
    this.opening = this.open();
  }

  /** Records dropped so far because the queue was full. */
  get dropped(): number {
    return this.droppedTotal;
  }

  /** True once the file failed (nothing more is written). */
  get broken(): boolean {
    return this.failed;
  }

  /** Queues one record (a JSON text without its newline). Never blocks, never throws. */
  write(record: string): void {
    if (this.failed || this.closed) return;
    if (this.queuedChars + record.length > this.options.maxQueueChars && this.queued > 0) {
      this.pendingDropped++;
      this.droppedTotal++;
      return;
    }
    if (this.pendingDropped > 0) {
      const notice = this.options.droppedRecord(this.pendingDropped);
      this.pendingDropped = 0;
      this.enqueue(notice);
    }
    this.enqueue(record);
  }

  /**
   * Writes what is queued and closes the file. Gives up after `timeoutMs` (a stuck file
   * system must not keep the proxy from exiting), warning that records were lost.
   */
  async close(timeoutMs: number): Promise<void> {
    this.closed = true;
    const done = (async () => {
      await this.opening;
      while (this.flushing !== undefined) await this.flushing;
      await this.handle?.close().catch(() => undefined);
    })();
    if (!(await settlesWithin(done, timeoutMs)) && !this.failed) {
      this.failed = true;
      this.options.warn(
        `writing the trace file ${this.path} did not finish within ${timeoutMs} ms; ` +
          "its last records may be missing",
      );
    }
  }

  private enqueue(record: string): void {
    let last = this.queue[this.queue.length - 1];
    if (last === undefined || this.lastBatchChars >= BATCH_CHARS) {
      last = [];
      this.queue.push(last);
      this.lastBatchChars = 0;
    }
    last.push(record);
    this.queued++;
    this.lastBatchChars += record.length + 1;
    this.queuedChars += record.length + 1;
    if (this.handle !== undefined) this.flushing ??= this.flush();
  }

  private async open(): Promise<void> {
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      this.handle = await open(this.path, "w", 0o600);
    } catch (error) {
      this.fail(error);
      return;
    }
    if (this.queued > 0) this.flushing ??= this.flush();
  }

  private async flush(): Promise<void> {
    const handle = this.handle;
    // Start on a later turn: the caller (a tap) must not pay for joining and writing.
    await Promise.resolve();
    try {
      while (handle !== undefined && this.queued > 0 && !this.failed) {
        // One batch (about BATCH_CHARS) per write, so that no one turn does much work.
        const batch = this.queue.shift() ?? [];
        if (this.queue.length === 0) this.lastBatchChars = 0;
        this.queued -= batch.length;
        let chars = 0;
        for (const record of batch) chars += record.length + 1;
        this.queuedChars = Math.max(0, this.queuedChars - chars);
        await handle.appendFile(batch.join("\n") + "\n");
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.flushing = undefined;
    }
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.queue = [];
    this.queued = 0;
    this.lastBatchChars = 0;
    this.queuedChars = 0;
    const reason = error instanceof Error ? error.message : String(error);
    this.options.warn(
      `cannot write the trace file ${this.path} (${reason}); ` +
        "proxying goes on without recording",
    );
  }
}
