/**
 * Splits a byte stream into newline-delimited text lines, in linear time, with a limit on
 * the size of one line.
 *
 * Complete lines of a chunk are decoded with one `TextDecoder` call and split as text
 * (a JSON message never contains a raw newline, and `\n` never occurs inside a multi-byte
 * UTF-8 sequence). A partial line is kept as decoded pieces, joined once when its newline
 * arrives, so a 20 MB message in 64 KiB chunks costs one pass, not one per chunk. A line
 * longer than the limit is dropped while it streams past; only its envelope (id, whether
 * it is a request) is kept, by {@link EnvelopeScanner}.
 *
 * @module
 */
import { EnvelopeScanner, type EnvelopeInfo } from "./envelope-scanner.js";

const NEWLINE = 0x0a;

/** A line that was longer than the limit and was dropped. */
export interface OversizedLine {
  /** Its size in bytes (at least; counting stops being exact only past 2^53). */
  readonly bytes: number;
  /** What could be recovered of its envelope. */
  readonly envelope: EnvelopeInfo;
}

/** What {@link LineSplitter.push} yields: complete lines (without `\n`) and dropped lines. */
export type SplitItem = string | OversizedLine;

/** The line splitter; see the module comment. */
export class LineSplitter {
  private decoder = new TextDecoder("utf-8");
  /** Decoded pieces of the current partial line. */
  private pending: string[] = [];
  /** Byte length of the current partial line. */
  private pendingBytes = 0;
  /** Set while dropping an oversized line until its newline. */
  private discarding: { scanner: EnvelopeScanner; bytes: number } | undefined;

  /** @param maxLineBytes - The largest line kept, in bytes (excluding the newline). */
  constructor(private readonly maxLineBytes: number) {}

  /** Feeds one chunk; returns the items it completed, in order. */
  push(chunk: Uint8Array): SplitItem[] {
    const out: SplitItem[] = [];
    let start = 0;
    if (this.discarding !== undefined) {
      const nl = chunk.indexOf(NEWLINE);
      const d = this.discarding;
      if (nl === -1) {
        d.scanner.feedBytes(chunk);
        d.bytes += chunk.length;
        return out;
      }
      d.scanner.feedBytes(chunk.subarray(0, nl));
      out.push({ bytes: d.bytes + nl, envelope: d.scanner.result() });
      this.discarding = undefined;
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last < start) {
      this.appendPartial(chunk.subarray(start));
      return out;
    }
    if (this.pendingBytes + (last - start) <= this.maxLineBytes) {
      // Fast path: every line of this segment is within the limit.
      const text = this.decoder.decode(chunk.subarray(start, last));
      const joined = this.pending.length > 0 ? this.pending.join("") + text : text;
      this.pending = [];
      this.pendingBytes = 0;
      const lines = joined.split("\n");
      for (const line of lines) out.push(line);
    } else {
      this.splitSlowly(chunk, start, last, out);
    }
    this.appendPartial(chunk.subarray(last + 1));
    return out;
  }

  /** Ends the input: yields the last line when it had no newline. */
  end(): SplitItem | undefined {
    if (this.discarding !== undefined) {
      const d = this.discarding;
      this.discarding = undefined;
      return { bytes: d.bytes, envelope: d.scanner.result() };
    }
    if (this.pending.length === 0) return undefined;
    const tail = this.decoder.decode();
    const line = this.pending.join("") + tail;
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }

  /** Lines of `chunk[start, last)` one by one, for segments that may hold an oversized line. */
  private splitSlowly(chunk: Uint8Array, start: number, last: number, out: SplitItem[]): void {
    let lineStart = start;
    while (lineStart <= last) {
      const nl = chunk.indexOf(NEWLINE, lineStart);
      const size = this.pendingBytes + (nl - lineStart);
      if (size <= this.maxLineBytes) {
        const text = this.decoder.decode(chunk.subarray(lineStart, nl));
        out.push(this.pending.length > 0 ? this.pending.join("") + text : text);
      } else {
        const scanner = new EnvelopeScanner();
        for (const piece of this.pending) scanner.feedText(piece);
        scanner.feedBytes(chunk.subarray(lineStart, nl));
        this.decoder.decode(); // reset: the dropped bytes may end mid-character
        out.push({ bytes: size, envelope: scanner.result() });
      }
      this.pending = [];
      this.pendingBytes = 0;
      lineStart = nl + 1;
    }
  }

  /** Keeps the start of a line whose newline has not arrived yet. */
  private appendPartial(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.pendingBytes + bytes.length > this.maxLineBytes) {
      const scanner = new EnvelopeScanner();
      for (const piece of this.pending) scanner.feedText(piece);
      scanner.feedBytes(bytes);
      this.discarding = { scanner, bytes: this.pendingBytes + bytes.length };
      this.pending = [];
      this.pendingBytes = 0;
      this.decoder = new TextDecoder("utf-8");
      return;
    }
    this.pending.push(this.decoder.decode(bytes, { stream: true }));
    this.pendingBytes += bytes.length;
  }
}
