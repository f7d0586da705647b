/**
 * A test peer that speaks raw bytes: it writes lines into a connection's input and reads
 * the lines the connection writes, so tests see exactly what crosses the wire.
 */
import {
  ndJsonStream,
  type NdJsonStreamOptions,
  type Stream,
} from "../../packages/acp-kit/src/index.js";

export interface RawPeer {
  /** The stream to give the connection under test. */
  readonly stream: Stream;
  /** Writes a message (serialised) or a raw string (sent as is, add your own newline). */
  write(message: object | string | Uint8Array): Promise<void>;
  /** The next line the connection wrote, parsed. Rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Lines written so far and not yet taken by next(). */
  readonly buffered: Record<string, unknown>[];
  /** Every chunk the connection wrote, raw. */
  readonly chunks: Uint8Array[];
  /** Ends the connection's input. */
  end(): Promise<void>;
  /** Resolves when the connection closed its output (only with `closeOutput: true`). */
  readonly outputClosed: Promise<void>;
}

/** Creates a raw peer around a fresh ndJsonStream. */
export function rawPeer(options?: NdJsonStreamOptions): RawPeer {
  const toConnection = new TransformStream<Uint8Array, Uint8Array>();
  const chunks: Uint8Array[] = [];
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let carry = "";
  const decoder = new TextDecoder();
  let resolveClosed!: () => void;
  const outputClosed = new Promise<void>((r) => (resolveClosed = r));
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      chunks.push(chunk);
      carry += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = carry.indexOf("\n")) !== -1) {
        const line = carry.slice(0, nl);
        carry = carry.slice(nl + 1);
        if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      for (const w of waiters.splice(0)) w();
    },
    close() {
      resolveClosed();
    },
  });
  const stream = ndJsonStream(output, toConnection.readable, options);
  const writer = toConnection.writable.getWriter();
  const encoder = new TextEncoder();
  return {
    stream,
    chunks,
    buffered: lines,
    outputClosed,
    async write(message) {
      const bytes =
        message instanceof Uint8Array
          ? message
          : encoder.encode(typeof message === "string" ? message : JSON.stringify(message) + "\n");
      await writer.write(bytes);
    },
    async next(timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      while (lines.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error("no message from the connection in time");
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return lines.shift()!;
    },
    async end() {
      await writer.close();
    },
  };
}

/** Resolves after pending microtasks and one macrotask have run. */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
