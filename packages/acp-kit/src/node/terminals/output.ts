/**
 * {@link TerminalOutputBuffer}: a terminal's retained output, bounded by a byte limit that
 * keeps the newest bytes.
 *
 * @module
 */
import { StringDecoder } from "node:string_decoder";

/** Where a piece of output came from. */
export type TerminalStream = "stdout" | "stderr";

/** What {@link TerminalOutputBuffer.read} returns. */
export interface TerminalOutputSnapshot {
  /** The retained output: valid text, at most the limit's bytes when UTF-8 encoded. */
  output: string;
  /** `true` once older output has been dropped to stay within the limit. */
  truncated: boolean;
}

const MIN_GROWTH = 4096;

/** True for a UTF-8 continuation byte (`0b10xxxxxx`): never the start of a character. */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * The output of one terminal: stdout and stderr interleaved in arrival order, keeping at
 * most `limit` bytes (the newest ones).
 *
 * Each stream is decoded on its own (a character split across two reads of one stream is
 * joined before it is stored, even when the other stream wrote in between), so the stored
 * bytes are always valid UTF-8; invalid input bytes become U+FFFD and count as its three
 * bytes. When old bytes are dropped the cut may land inside a character: reading skips
 * that character's remaining bytes, so the text may be slightly shorter than the limit.
 *
 * Storage grows on demand up to `limit`, then works as a ring: writing costs the bytes
 * written, never a copy of what is retained.
 */
export class TerminalOutputBuffer {
  private buffer = Buffer.alloc(0);
  private start = 0;
  private length = 0;
  private dropped = 0;
  private readonly decoders = {
    stdout: new StringDecoder("utf8"),
    stderr: new StringDecoder("utf8"),
  };

  /**
   * Creates an empty buffer.
   *
   * @param limit - The most bytes to keep (a non-negative integer; `0` keeps nothing).
   */
  constructor(readonly limit: number) {}

  /**
   * Decodes and stores bytes that one stream produced.
   *
   * @param stream - The stream they came from.
   * @param chunk - The bytes, as read.
   * @returns The text they completed (may be empty when a character is still incomplete).
   */
  write(stream: TerminalStream, chunk: Buffer): string {
    const text = this.decoders[stream].write(chunk);
    this.append(text);
    return text;
  }

  /**
   * Flushes a stream that has ended: an incomplete character left at its end is stored
   * as U+FFFD.
   *
   * @param stream - The stream that ended.
   * @returns The text flushed (usually empty).
   */
  end(stream: TerminalStream): string {
    const text = this.decoders[stream].end();
    this.append(text);
    return text;
  }

  /** The retained output and whether anything was dropped. */
  read(): TerminalOutputSnapshot {
    const bytes = this.linear();
    let from = 0;
    // After a cut, skip the tail of a character whose first bytes were dropped.
    if (this.dropped > 0) {
      while (from < bytes.length && from < 3 && isContinuation(bytes[from] ?? 0)) from++;
    }
    return { output: bytes.toString("utf8", from), truncated: this.dropped > 0 };
  }

  /** How many bytes are retained. */
  get size(): number {
    return this.length;
  }

  private append(text: string): void {
    if (text === "") return;
    const chunk = Buffer.from(text, "utf8");
    if (chunk.length >= this.limit) {
      this.dropped += this.length + chunk.length - this.limit;
      this.reserve(this.limit);
      chunk.copy(this.buffer, 0, chunk.length - this.limit);
      this.start = 0;
      this.length = this.limit;
      return;
    }
    const needed = this.length + chunk.length;
    if (needed > this.buffer.length) {
      this.reserve(Math.min(this.limit, Math.max(needed, this.buffer.length * 2, MIN_GROWTH)));
    }
    if (needed > this.limit) {
      // Full: the buffer is exactly `limit` long here, so the ring arithmetic below holds.
      const drop = needed - this.limit;
      this.start = (this.start + drop) % this.buffer.length;
      this.length -= drop;
      this.dropped += drop;
    }
    const end = (this.start + this.length) % this.buffer.length;
    const first = Math.min(chunk.length, this.buffer.length - end);
    chunk.copy(this.buffer, end, 0, first);
    if (first < chunk.length) chunk.copy(this.buffer, 0, first);
    this.length += chunk.length;
  }

  /** Makes the storage `capacity` bytes long (never shrinks), keeping the contents. */
  private reserve(capacity: number): void {
    if (capacity <= this.buffer.length) return;
    const next = Buffer.alloc(capacity);
    this.linear().copy(next);
    this.buffer = next;
    this.start = 0;
  }

  /** The retained bytes in order, as one buffer. */
  private linear(): Buffer {
    const end = this.start + this.length;
    if (end <= this.buffer.length) return this.buffer.subarray(this.start, end);
    return Buffer.concat([
      this.buffer.subarray(this.start),
      this.buffer.subarray(0, end - this.buffer.length),
    ]);
  }
}
