/**
 * Shared plumbing for the benchmark: the in-process pipe, the scenario
 * interface every implementation fills in, and small statistics helpers.
 */

/** `chars` characters of English text (ASCII), the text of each `agent_message_chunk`. */
export function chunkText(chars: number): string {
  const sentence = "The quick brown fox jumps over the lazy dog. ";
  return sentence.repeat(Math.ceil(chars / sentence.length)).slice(0, chars);
}

/** Characters of text per `agent_message_chunk` (env `BENCH_CHUNK_CHARS`, default 41). */
export const CHUNK_CHARS = Number(process.env.BENCH_CHUNK_CHARS ?? 41);

/** The text of every `agent_message_chunk` in this process, the same for every implementation. */
export const CHUNK_TEXT = chunkText(CHUNK_CHARS);

/** Session id used by the raw loop (the SDK-based agents hand out their own). */
export const SESSION_ID = "bench-session";

/** Path sent in every `fs/read_text_file` request. */
export const READ_PATH = "/bench/file.txt";

/** Small file content returned by the client in S2/S2c. */
export const SMALL_CONTENT = "export const answer = 42;\n";

/** Result of one S1/S4 prompt turn. */
export interface StreamResult {
  ms: number;
  /** How many `session/update`s the client had handled when `prompt` resolved. */
  receivedAtResolve: number;
}

/** Result of one S2/S2c/S3 measurement. */
export interface TimedResult {
  ms: number;
}

/**
 * One implementation of the in-process scenarios. Every method sets up a fresh
 * connection pair over {@link makePipes}, runs the handshake (untimed), times
 * only the operation itself, then tears the pipes down.
 */
export interface Impl {
  /** S1: one prompt turn streaming `n` `session/update` notifications agent -> client. */
  streaming(n: number): Promise<StreamResult>;
  /** S2: `n` sequential `fs/read_text_file` round trips agent -> client. */
  sequentialReads(n: number): Promise<TimedResult>;
  /** S2c: `n` `fs/read_text_file` round trips with `inFlight` outstanding at a time. */
  concurrentReads(n: number, inFlight: number): Promise<TimedResult>;
  /** S3: one `fs/read_text_file` whose response carries `content`. Checks the length arrived intact. */
  bigRead(content: string): Promise<TimedResult>;
}

/** One direction of the in-process pipe: an identity `TransformStream` whose controller we keep to end it. */
export interface Pipe {
  writable: WritableStream<Uint8Array>;
  readable: ReadableStream<Uint8Array>;
  /** Closes the readable end (peers see EOF) and errors the writable end. */
  end(): void;
}

function pipe(): Pipe {
  let controller: TransformStreamDefaultController<Uint8Array> | undefined;
  // No `transform` function: the default identity transform, with the default
  // queuing strategies (writable HWM 1, readable HWM 0), for every implementation.
  const ts = new TransformStream<Uint8Array, Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  return {
    writable: ts.writable,
    readable: ts.readable,
    end() {
      try {
        controller?.terminate();
      } catch {
        // already terminated
      }
    },
  };
}

/** The two identity pipes connecting an in-process agent and client. */
export interface Pipes {
  agentToClient: Pipe;
  clientToAgent: Pipe;
  end(): void;
}

export function makePipes(): Pipes {
  const agentToClient = pipe();
  const clientToAgent = pipe();
  return {
    agentToClient,
    clientToAgent,
    end() {
      agentToClient.end();
      clientToAgent.end();
    },
  };
}

/** Resolves after `promise` or after `ms`, whichever comes first (teardown must not hang a run). */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** Runs `fn` `n` times with at most `inFlight` calls outstanding. */
export async function pool(n: number, inFlight: number, fn: () => Promise<unknown>): Promise<void> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < n) {
      started++;
      await fn();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, inFlight) }, worker));
}

/** Full, synchronous garbage collection when `--expose-gc` is on (twice, to catch finalizer-freed objects). */
export function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`bench assertion failed: ${message}`);
}
