/**
 * {@link StderrRing}: the last lines a child process wrote to stderr, kept in a bounded
 * ring so that errors can quote them without memory growing with the agent's chattiness.
 *
 * @module
 */
import { StringDecoder } from "node:string_decoder";

/** Longest line kept, in characters; longer lines are cut and marked with an ellipsis. */
const MAX_LINE_CHARS = 2000;

/** Options of a {@link StderrRing}. */
export interface StderrRingOptions {
  /** How many lines are kept (older ones are dropped). */
  readonly capacity: number;
  /** Called with every complete line, in order. A throwing callback is reported to `onError`. */
  readonly onLine?: ((line: string) => void) | undefined;
  /** Receives what `onLine` throws. */
  readonly onError?: ((error: unknown) => void) | undefined;
}

/**
 * Splits UTF-8 chunks into lines (`\n` or `\r\n`) and keeps the last `capacity` of them.
 * @internal
 */
export class StderrRing {
  private readonly lines: string[] = [];
  private start = 0;
  private partial = "";
  private readonly decoder = new StringDecoder("utf8");
  private readonly capacity: number;

  constructor(private readonly options: StderrRingOptions) {
    this.capacity = Math.max(0, Math.floor(options.capacity));
  }

  /** Adds a chunk of bytes (or text). */
  push(chunk: Buffer | string): void {
    const text = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    let from = 0;
    for (;;) {
      const newline = text.indexOf("\n", from);
      if (newline === -1) break;
      this.complete(this.partial + text.slice(from, newline));
      this.partial = "";
      from = newline + 1;
    }
    if (from < text.length && this.partial.length <= MAX_LINE_CHARS) {
      // Keep only what can still be shown: a line without end must not grow without bound.
      this.partial += text.slice(from, from + MAX_LINE_CHARS + 1);
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = "";
    if (rest !== "") this.complete(rest);
  }

  /**
   * Counts an unfinished last line as a line now (the stream may go on: a process that
   * outlives the one whose stderr this was can hold it open).
   */
  flushPartial(): void {
    const rest = this.partial;
    this.partial = "";
    if (rest !== "") this.complete(rest);
  }

  /** The kept lines, oldest first; `count` limits them to the last few. */
  tail(count = this.capacity): string[] {
    const size = this.lines.length;
    const ordered =
      this.start === 0
        ? this.lines
        : [...this.lines.slice(this.start), ...this.lines.slice(0, this.start)];
    return ordered.slice(Math.max(0, size - count));
  }

  private complete(raw: string): void {
    let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.length > MAX_LINE_CHARS) line = line.slice(0, MAX_LINE_CHARS) + "…";
    if (this.options.onLine !== undefined) {
      try {
        this.options.onLine(line);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
    if (this.capacity === 0) return;
    if (this.lines.length < this.capacity) {
      this.lines.push(line);
      return;
    }
    this.lines[this.start] = line;
    this.start = (this.start + 1) % this.capacity;
  }
}
