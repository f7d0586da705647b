/**
 * Splits a byte stream into newline-delimited text lines, in linear time, with a limit on
 * the size of one line.
 *
 * Complete lines of a chunk are decoded with one `TextDecoder` call and split as text
 * (a JSON message never contains a raw newline, and `\n` never occurs inside a multi-byte
 * UTF-8 sequence). A partial line is kept as decoded pieces, joined once when its newline
 * arrives, so a 20 MB message in 64 KiB chunks costs one pass, not one per chunk. Pieces
 * are cut at UTF-8 character boundaries and decoded in one-shot mode (much faster than
 * the decoder's streaming mode); at most three bytes of an unfinished character are
 * carried over. A line longer than the limit is dropped while it streams past; only its
 * envelope (id, whether it is a request) is kept, by {@link EnvelopeScanner}.
 *
 * @module
 */
import { EnvelopeScanner, type EnvelopeInfo } from "./envelope-scanner.js";

const NEWLINE = 0x0a;

/** A line that was longer than the limit and was dropped. */
export interface OversizedLine {
  /** Its size in bytes. */
  readonly bytes: number;
  /** What could be recovered of its envelope. */
  readonly envelope: EnvelopeInfo;
}

/** What {@link LineSplitter.push} yields: complete lines (without `\n`) and dropped lines. */
export type SplitItem = string | OversizedLine;

/**
 * Where the last complete UTF-8 character of `bytes[from, to)` ends: `to`, or the start of
 * an unfinished multi-byte sequence at the very end.
 */
function completeEnd(bytes: Uint8Array, from: number, to: number): number {
  let i = to - 1;
  const floor = Math.max(from, to - 4);
  while (i >= floor && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
  if (i < floor) return to;
  const lead = bytes[i] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return to - i < need ? i : to;
}

/** The line splitter; see the module comment. */
export class LineSplitter {
  /** `ignoreBOM`: a U+FEFF is kept wherever it is, so every line is decoded alike. */
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** Decoded pieces of the current partial line. */
  private pending: string[] = [];
  /** Byte length of the current partial line. */
  private pendingBytes = 0;
  /** The bytes of an unfinished character at the end of the partial line (0 to 3). */
  private carry: Uint8Array | undefined;
  /** Set while dropping an oversized line until its newline. */
  private discarding: { scanner: EnvelopeScanner; bytes: number } | undefined;

  /** @param maxLineBytes - The largest line kept, in bytes (excluding the newline). */
  constructor(private readonly maxLineBytes: number) {}

  /**
   * Feeds one chunk; returns the items it completed, in order: a single line as a plain
   * string (the common case of one message per chunk, without allocating an array),
   * otherwise an array.
   */
  push(chunk: Uint8Array): string | SplitItem[] {
    if (this.discarding === undefined && this.carry === undefined && this.pending.length === 0) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === chunk.length - 1 && nl <= this.maxLineBytes) {
        return this.decoder.decode(chunk.subarray(0, nl));
      }
    }
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
      this.appendPartial(chunk, start, chunk.length);
      return out;
    }
    if (this.pendingBytes + (last - start) <= this.maxLineBytes) {
      // Fast path: every line of this segment is within the limit.
      const lines = this.takeLine(chunk, start, last).split("\n");
      this.appendPartial(chunk, last + 1, chunk.length);
      if (out.length === 0) return lines;
      for (const line of lines) out.push(line);
      return out;
    } else {
      this.splitSlowly(chunk, start, last, out);
    }
    this.appendPartial(chunk, last + 1, chunk.length);
    return out;
  }

  /** Ends the input: yields the last line when it had no newline. */
  end(): SplitItem | undefined {
    if (this.discarding !== undefined) {
      const d = this.discarding;
      this.discarding = undefined;
      return { bytes: d.bytes, envelope: d.scanner.result() };
    }
    if (this.pending.length === 0 && this.carry === undefined) return undefined;
    return this.takeLine(new Uint8Array(0), 0, 0);
  }

  /** The pending partial line followed by `bytes[from, to)`, decoded; resets the pending state. */
  private takeLine(bytes: Uint8Array, from: number, to: number): string {
    let text: string;
    if (this.carry === undefined) {
      text = this.decoder.decode(bytes.subarray(from, to));
    } else {
      const head = this.decodeCarry(bytes, from, to, true);
      text = head.text + this.decoder.decode(bytes.subarray(head.next, to));
    }
    this.pendingBytes = 0;
    if (this.pending.length === 0) return text;
    const line = this.pending.join("") + text;
    this.pending = [];
    return line;
  }

  /**
   * Completes a carried-over unfinished character with the first bytes of
   * `bytes[from, to)`; returns its text and where the rest starts.
   */
  private decodeCarry(
    bytes: Uint8Array,
    from: number,
    to: number,
    final: boolean,
  ): { text: string; next: number } {
    const carry = this.carry;
    if (carry === undefined) return { text: "", next: from };
    this.carry = undefined;
    const lead = carry[0] ?? 0;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    let next = from;
    const joined = [...carry];
    while (joined.length < need && next < to && ((bytes[next] ?? 0) & 0xc0) === 0x80) {
      joined.push(bytes[next++] ?? 0);
    }
    if (joined.length < need && next === to && !final) {
      // Still unfinished: the rest of the character is in a later chunk.
      this.carry = new Uint8Array(joined);
      return { text: "", next };
    }
    return { text: this.decoder.decode(new Uint8Array(joined)), next };
  }

  /** Lines of `chunk[start, last)` one by one, for segments that may hold an oversized line. */
  private splitSlowly(chunk: Uint8Array, start: number, last: number, out: SplitItem[]): void {
    let lineStart = start;
    while (lineStart <= last) {
      const nl = chunk.indexOf(NEWLINE, lineStart);
      const size = this.pendingBytes + (nl - lineStart);
      if (size <= this.maxLineBytes) {
        out.push(this.takeLine(chunk, lineStart, nl));
      } else {
        const scanner = new EnvelopeScanner();
        for (const piece of this.pending) scanner.feedText(piece);
        scanner.feedBytes(chunk.subarray(lineStart, nl));
        this.pending = [];
        this.pendingBytes = 0;
        this.carry = undefined;
        out.push({ bytes: size, envelope: scanner.result() });
      }
      lineStart = nl + 1;
    }
  }

  /** Keeps `bytes[from, to)`, the start of a line whose newline has not arrived yet. */
  private appendPartial(bytes: Uint8Array, from: number, to: number): void {
    if (to <= from) return;
    if (this.pendingBytes + (to - from) > this.maxLineBytes) {
      const scanner = new EnvelopeScanner();
      for (const piece of this.pending) scanner.feedText(piece);
      scanner.feedBytes(bytes.subarray(from, to));
      this.discarding = { scanner, bytes: this.pendingBytes + (to - from) };
      this.pending = [];
      this.pendingBytes = 0;
      this.carry = undefined;
      return;
    }
    this.pendingBytes += to - from;
    const head = this.decodeCarry(bytes, from, to, false);
    if (head.text !== "") this.pending.push(head.text);
    const end = completeEnd(bytes, head.next, to);
    if (end > head.next) this.pending.push(this.decoder.decode(bytes.subarray(head.next, end)));
    // Copy: the producer may reuse its buffer once the chunk is consumed.
    if (end < to) this.carry = bytes.slice(end, to);
  }
}
