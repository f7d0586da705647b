/**
 * Raw NDJSON peers for the MCP-over-ACP tests: a side under test reads `input` and writes
 * `output` (byte streams, framed by its own `ndJsonStream`); the test writes lines into
 * it and reads the exact lines it wrote back.
 */

/** One side under test, seen from the wire. */
export interface RawSide {
  /** The bytes the side reads. */
  readonly input: ReadableStream<Uint8Array>;
  /** Where the side writes its bytes. */
  readonly output: WritableStream<Uint8Array>;
  /** Writes one message (serialised) or a raw line (newline added). */
  readonly write: (message: object | string) => Promise<void>;
  /** The next line the side wrote, as its raw text. */
  readonly nextLine: (timeoutMs?: number) => Promise<string>;
  /** The next line the side wrote, parsed. */
  readonly next: (timeoutMs?: number) => Promise<Record<string, unknown>>;
  /** Lines written by the side and not yet taken. */
  readonly pending: string[];
  /** Ends the side's input. */
  readonly end: () => Promise<void>;
}

/** A fresh raw side. */
export function rawSide(): RawSide {
  const toSide = new TransformStream<Uint8Array, Uint8Array>();
  const writer = toSide.writable.getWriter();
  const pending: string[] = [];
  const waiters: (() => void)[] = [];
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let carry = "";
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      carry += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = carry.indexOf("\n")) >= 0) {
        const line = carry.slice(0, nl);
        carry = carry.slice(nl + 1);
        if (line.trim() !== "") pending.push(line);
      }
      for (const wake of waiters.splice(0)) wake();
    },
  });
  const nextLine = async (timeoutMs = 5_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    while (pending.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no line from the side under test");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return pending.shift() ?? "";
  };
  return {
    input: toSide.readable,
    output,
    pending,
    write: (message) =>
      writer.write(
        encoder.encode(`${typeof message === "string" ? message : JSON.stringify(message)}\n`),
      ),
    nextLine,
    next: async (timeoutMs) => JSON.parse(await nextLine(timeoutMs)) as Record<string, unknown>,
    end: () => writer.close(),
  };
}
