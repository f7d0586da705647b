// The "raw" baseline: a naive but reasonable JSON-RPC-over-ndjson loop.
//
// Writing: JSON.stringify + "\n", TextEncoder, one `writer.write` per message,
// awaited by the caller. Reading: TextDecoder in stream mode, split on "\n"
// with the partial last line carried over, JSON.parse per line. Linear time:
// each chunk is scanned once with indexOf from the last newline. No schema
// validation, no batching, no cancellation, no error handling beyond the basics.
//
// BENCH_RAW_SPLIT=bytes switches the reader to a stricter variant: split on the
// 0x0A byte and decode each complete line with a non-streaming TextDecoder.
// (In Node 20, `decode(chunk, { stream: true })` takes a much slower path than
// a one-shot decode, which dominates the 20 MiB read of S3.)
//
// BENCH_RAW_WRITE=coalesce (or `write: "coalesce"`) switches the writer to the
// coalescing loop: a message is written at once when no write is in flight, and
// what is sent meanwhile is joined into the next single chunk; `send` resolves at
// once unless more than 64 KiB wait (then when they have been handed to the writer).
// The threshold is the one an independent harness gave this loop (BENCH_RAW_HIGH_WATER
// or `highWater` changes it; it was 1 MiB, kinder to acp-kit: see bench/README.md).
//
// Plain JavaScript (with raw-peer.d.ts) so the S4 child agent can run it
// without tsx; the in-process scenarios import the very same file.

export class RawPeer {
  #writer;
  #encoder = new TextEncoder();
  #pending = new Map();
  #nextId = 0;
  #onRequest;
  #onNotification;
  #coalesce;
  #writing = false;
  #queue = [];
  #queued = 0;
  #drained = [];
  #highWater;
  /** Resolves when the input reaches EOF or errors. */
  closed;

  constructor(output, input, handlers = {}) {
    this.#writer = output.getWriter();
    this.#onRequest = handlers.onRequest;
    this.#onNotification = handlers.onNotification;
    this.#coalesce = (handlers.write ?? process.env.BENCH_RAW_WRITE) === "coalesce";
    this.#highWater = handlers.highWater ?? Number(process.env.BENCH_RAW_HIGH_WATER ?? 64 * 1024);
    const splitBytes = (handlers.split ?? process.env.BENCH_RAW_SPLIT) === "bytes";
    this.closed = (splitBytes ? this.#readLoopBytes(input) : this.#readLoop(input)).catch(
      () => undefined,
    );
  }

  send(message) {
    if (!this.#coalesce) {
      return this.#writer.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
    }
    const line = JSON.stringify(message) + "\n";
    if (!this.#writing) {
      this.#writing = true;
      this.#writeChunk(line);
      return Promise.resolve();
    }
    this.#queue.push(line);
    this.#queued += line.length; // characters: bytes for the ASCII the benchmark sends
    if (this.#queued > this.#highWater)
      return new Promise((resolve) => this.#drained.push(resolve));
    return Promise.resolve();
  }

  #writeChunk(text) {
    this.#writer.write(this.#encoder.encode(text)).then(
      () => {
        if (this.#queue.length === 0) {
          this.#writing = false;
          return;
        }
        const next = this.#queue.join("");
        this.#queue = [];
        this.#queued = 0;
        const drained = this.#drained;
        this.#drained = [];
        for (const resolve of drained) resolve();
        this.#writeChunk(next);
      },
      () => {
        this.#writing = false;
      },
    );
  }

  async request(method, params) {
    const id = ++this.#nextId;
    const response = new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
    });
    await this.send({ jsonrpc: "2.0", id, method, params });
    return response;
  }

  notify(method, params) {
    return this.send({ jsonrpc: "2.0", method, params });
  }

  close() {
    this.#writer.releaseLock();
  }

  async #readLoop(input) {
    const reader = input.getReader();
    const decoder = new TextDecoder();
    let carry = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        let start = 0;
        let nl = text.indexOf("\n");
        while (nl !== -1) {
          const line = carry.length > 0 ? carry + text.slice(start, nl) : text.slice(start, nl);
          carry = "";
          if (line.length > 0) this.#dispatch(JSON.parse(line));
          start = nl + 1;
          nl = text.indexOf("\n", start);
        }
        carry += start === 0 ? text : text.slice(start);
      }
    } finally {
      for (const { reject } of this.#pending.values()) reject(new Error("connection closed"));
      this.#pending.clear();
      reader.releaseLock();
    }
  }

  async #readLoopBytes(input) {
    const reader = input.getReader();
    const decoder = new TextDecoder();
    let carry = []; // byte chunks of the incomplete line
    let carryLength = 0;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        let start = 0;
        let nl = value.indexOf(10);
        while (nl !== -1) {
          let line;
          if (carryLength === 0) line = value.subarray(start, nl);
          else {
            line = new Uint8Array(carryLength + nl - start);
            let offset = 0;
            for (const c of carry) {
              line.set(c, offset);
              offset += c.length;
            }
            line.set(value.subarray(start, nl), offset);
            carry = [];
            carryLength = 0;
          }
          if (line.length > 0) this.#dispatch(JSON.parse(decoder.decode(line)));
          start = nl + 1;
          nl = value.indexOf(10, start);
        }
        if (start < value.length) {
          // copy: the producer may reuse its buffer
          carry.push(value.slice(start));
          carryLength += value.length - start;
        }
      }
    } finally {
      for (const { reject } of this.#pending.values()) reject(new Error("connection closed"));
      this.#pending.clear();
      reader.releaseLock();
    }
  }

  #dispatch(message) {
    if (typeof message.method === "string") {
      if (message.id === undefined || message.id === null) {
        this.#onNotification?.(message.method, message.params);
        return;
      }
      const id = message.id;
      const ignore = () => undefined; // the pipe may already be gone at teardown
      const reply = (result) =>
        this.send({ jsonrpc: "2.0", id, result: result ?? null }).catch(ignore);
      const fail = (error) =>
        this.send({ jsonrpc: "2.0", id, error: { code: -32603, message: String(error) } }).catch(
          ignore,
        );
      try {
        if (!this.#onRequest) throw new Error(`method not found: ${message.method}`);
        const result = this.#onRequest(message.method, message.params);
        if (result instanceof Promise) result.then(reply, fail);
        else void reply(result);
      } catch (error) {
        void fail(error);
      }
      return;
    }
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) pending.reject(new Error(message.error.message));
    else pending.resolve(message.result);
  }
}
