/** Type declarations for raw-peer.js (the raw ndjson baseline). */
export interface RawHandlers {
  onRequest?: (method: string, params: unknown) => unknown;
  onNotification?: (method: string, params: unknown) => void;
  /** Reader variant; default from env BENCH_RAW_SPLIT, else "text" (TextDecoder stream mode). */
  split?: "text" | "bytes";
  /** Writer variant; default from env BENCH_RAW_WRITE, else "each" (one awaited write per message). */
  write?: "each" | "coalesce";
  /** Coalescing writer: characters queued beyond which `send` waits; default env BENCH_RAW_HIGH_WATER, else 64 KiB. */
  highWater?: number;
}

export declare class RawPeer {
  constructor(
    output: WritableStream<Uint8Array>,
    input: ReadableStream<Uint8Array>,
    handlers?: RawHandlers,
  );
  /** Resolves when the input reaches EOF or errors. */
  readonly closed: Promise<void>;
  send(message: unknown): Promise<void>;
  request(method: string, params: unknown): Promise<unknown>;
  notify(method: string, params: unknown): Promise<void>;
  close(): void;
}
