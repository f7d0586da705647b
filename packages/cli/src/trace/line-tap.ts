/**
 * {@link LineTap}: cuts a copy of a byte stream into lines for the trace, while the bytes
 * themselves are forwarded untouched elsewhere.
 *
 * Lines end at `\n`; a `\r` before it is dropped (CRLF framing). Multi-byte characters
 * split across chunks are decoded whole. A line longer than the limit keeps only its
 * first bytes (cut at a character boundary) while the rest streams past; its JSON-RPC
 * envelope (the id, whether it has a method or an outcome) is recovered in constant
 * memory by the transport's {@link EnvelopeScanner}.
 *
 * @module
 */
import { EnvelopeScanner } from "acp-kit/internal";
import type { TraceEnvelope } from "./trace-format.js";

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** One line cut by a {@link LineTap}. */
export interface TappedLine {
  /** Its text, without the line ending; only the first bytes when `truncated`. */
  readonly text: string;
  /** Its size in bytes, without the line ending. */
  readonly bytes: number;
  /** True when the line was longer than the limit. */
  readonly truncated: boolean;
  /** The envelope of a truncated line (undefined when nothing was found). */
  readonly envelope?: TraceEnvelope;
}

/** Where the last complete UTF-8 character of `bytes` ends. */
function characterBoundary(bytes: Uint8Array): number {
  let i = bytes.length - 1;
  const floor = Math.max(0, bytes.length - 4);
  while (i >= floor && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
  if (i < floor) return bytes.length;
  const lead = bytes[i] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return bytes.length - i < need ? i : bytes.length;
}

function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** See the module comment. */
export class LineTap {
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** Kept bytes of the current line (copies: the chunks belong to the stream). */
  private parts: Uint8Array[] = [];
  private keptBytes = 0;
  private totalBytes = 0;
  /** Set once the current line went over the limit. */
  private scanner: EnvelopeScanner | undefined;
  /** Set while the rest of a line whose start was skipped is being discarded. */
  private discarding = false;
  /** Lines dropped (by {@link skip}) and not yet collected by {@link takeDropped}. */
  private droppedLines = 0;

  /**
   * @param maxLineBytes - The largest line kept whole, in bytes.
   * @param onLine - Called with every line, in order.
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: TappedLine) => void,
  ) {}

  /**
   * Feeds one chunk of the stream. `mayRecord`, when given, is asked before each line:
   * once it says no, the rest of the chunk is {@link skip}ped.
   */
  push(chunk: Uint8Array, mayRecord?: () => boolean): void {
    let start = 0;
    if (this.discarding) {
      // The start of this line was skipped: drop it up to its end.
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) return;
      this.discarding = false;
      this.droppedLines++;
      start = nl + 1;
    }
    for (;;) {
      if (mayRecord !== undefined && !mayRecord()) {
        this.skip(chunk.subarray(start));
        return;
      }
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      if (this.totalBytes === 0 && nl - start <= this.maxLineBytes) {
        // The common case: a whole line inside this chunk.
        this.emitWhole(chunk.subarray(start, nl));
      } else {
        this.append(chunk.subarray(start, nl), false);
        this.finish();
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start), true);
  }

  /**
   * Passes over one chunk without recording it (cheaply: it only looks for line ends).
   * The line under way and every line this chunk ends are dropped, and so is the rest of
   * a line it starts; {@link takeDropped} counts them.
   */
  skip(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    let nl = chunk.indexOf(NEWLINE);
    if (nl === -1) {
      this.dropPartial();
      return;
    }
    while (nl !== -1) {
      this.droppedLines++;
      const last = nl;
      nl = chunk.indexOf(NEWLINE, nl + 1);
      if (nl === -1) {
        this.clearPartial();
        this.discarding = last + 1 < chunk.length;
      }
    }
  }

  /** The lines dropped since the last call. */
  takeDropped(): number {
    const count = this.droppedLines;
    this.droppedLines = 0;
    return count;
  }

  /** Ends the stream: a last line without a newline is reported too. */
  end(): void {
    if (this.discarding) {
      this.discarding = false;
      this.droppedLines++;
    }
    if (this.totalBytes > 0) this.finish();
  }

  private dropPartial(): void {
    this.clearPartial();
    this.discarding = true;
  }

  private clearPartial(): void {
    this.parts = [];
    this.keptBytes = 0;
    this.totalBytes = 0;
    this.scanner = undefined;
  }

  private emitWhole(bytes: Uint8Array): void {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? -1 : undefined;
    const text = this.decoder.decode(end === undefined ? bytes : bytes.subarray(0, end));
    this.onLine({ text, bytes: bytes.length, truncated: false });
  }

  private append(segment: Uint8Array, copy: boolean): void {
    this.totalBytes += segment.length;
    if (this.scanner !== undefined) {
      this.scanner.feedBytes(segment);
      return;
    }
    const room = this.maxLineBytes - this.keptBytes;
    if (segment.length <= room) {
      this.parts.push(copy ? segment.slice() : segment);
      this.keptBytes += segment.length;
      return;
    }
    // Over the limit: keep the first bytes, scan the whole line for its envelope.
    const scanner = new EnvelopeScanner();
    for (const part of this.parts) scanner.feedBytes(part);
    scanner.feedBytes(segment);
    this.scanner = scanner;
    this.parts.push(segment.slice(0, room));
    this.keptBytes += room;
  }

  private finish(): void {
    const kept = concat(this.parts, this.keptBytes);
    const scanner = this.scanner;
    const bytes = this.totalBytes;
    this.parts = [];
    this.keptBytes = 0;
    this.totalBytes = 0;
    this.scanner = undefined;
    if (scanner === undefined) {
      this.emitWhole(kept);
      return;
    }
    const text = this.decoder.decode(kept.subarray(0, characterBoundary(kept)));
    const found = scanner.result();
    const envelope: TraceEnvelope | undefined =
      found.id !== undefined || found.hasMethod || found.hasOutcome
        ? {
            ...(found.id === undefined ? {} : { id: found.id }),
            hasMethod: found.hasMethod,
            hasOutcome: found.hasOutcome,
          }
        : undefined;
    this.onLine({ text, bytes, truncated: true, ...(envelope === undefined ? {} : { envelope }) });
  }
}
