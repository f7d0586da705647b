import { describe, expect, it, vi } from "vitest";
import { rawPeer, tick } from "../../../../test/support/raw-peer.js";
import { JsonRpcConnection } from "../jsonrpc/connection.js";
import type { Router } from "../jsonrpc/dispatch.js";
import type { LogFields, Logger } from "../base/logger.js";
import { ndJsonStream } from "./ndjson.js";

const echoRouter: Router = {
  request: (method) => (method === "echo" ? { handle: (params) => params } : undefined),
  notification: () => undefined,
};

function recordingLogger(): Logger & {
  records: { level: string; message: string; fields?: LogFields }[];
} {
  const records: { level: string; message: string; fields?: LogFields }[] = [];
  const add = (level: string) => (message: string, fields?: LogFields) => {
    records.push(fields === undefined ? { level, message } : { level, message, fields });
  };
  return { records, debug: add("debug"), warn: add("warn"), error: add("error") };
}

describe("ndJsonStream framing", () => {
  it("answers malformed JSON with -32700 and id null, logs it, and keeps going", async () => {
    const peer = rawPeer();
    const logger = recordingLogger();
    new JsonRpcConnection(peer.stream, echoRouter, { logger });
    await peer.write('{"jsonrpc":"2.0","id":1,"method":"echo",\n');
    expect(await peer.next()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    });
    await peer.write({ jsonrpc: "2.0", id: 2, method: "echo", params: { a: 1 } });
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 2, result: { a: 1 } });
    expect(logger.records.some((r) => r.level === "warn" && r.message.includes("-32700"))).toBe(
      true,
    );
  });

  it("hands a non-JSON line to onNonJsonLine instead of answering it", async () => {
    const lines: string[] = [];
    const peer = rawPeer({ onNonJsonLine: (line) => void lines.push(line) });
    new JsonRpcConnection(peer.stream, echoRouter);
    await peer.write("Please visit https://example.test/login?code=1\r\n\nEnter the code: \n");
    await peer.write({ jsonrpc: "2.0", id: 2, method: "echo", params: { a: 1 } });
    // Nothing was written before the answer to the request that followed the lines.
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 2, result: { a: 1 } });
    expect(lines).toEqual(["Please visit https://example.test/login?code=1", "Enter the code: "]);
  });

  it("logs an onNonJsonLine that throws, and reads on", async () => {
    const logger = recordingLogger();
    const peer = rawPeer({
      logger,
      onNonJsonLine: () => {
        throw new Error("boom");
      },
    });
    new JsonRpcConnection(peer.stream, echoRouter);
    await peer.write("not json\n");
    await peer.write({ jsonrpc: "2.0", id: 3, method: "echo", params: 3 });
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 3, result: 3 });
    expect(logger.records.some((r) => r.level === "error")).toBe(true);
  });

  it("answers a batch with -32600 and id null", async () => {
    const peer = rawPeer();
    new JsonRpcConnection(peer.stream, echoRouter);
    await peer.write('[{"jsonrpc":"2.0","id":1,"method":"echo"}]\n');
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("tolerates CRLF, blank lines and a last line without newline", async () => {
    const peer = rawPeer();
    new JsonRpcConnection(peer.stream, echoRouter);
    await peer.write('\r\n  \n{"jsonrpc":"2.0","id":1,"method":"echo","params":1}\r\n\n');
    expect(await peer.next()).toMatchObject({ id: 1, result: 1 });
    await peer.write('{"jsonrpc":"2.0","id":2,"method":"echo","params":2}');
    await peer.end();
    expect(await peer.next()).toMatchObject({ id: 2, result: 2 });
  });

  it("drops an oversized request, answers -32600 with its id, and lives on", async () => {
    const peer = rawPeer({ maxMessageBytes: 1024 });
    const logger = recordingLogger();
    new JsonRpcConnection(peer.stream, echoRouter, { logger });
    await peer.write({ jsonrpc: "2.0", id: 9, method: "echo", params: { big: "x".repeat(5000) } });
    expect(await peer.next()).toMatchObject({
      id: 9,
      error: { code: -32600, data: { maxMessageBytes: 1024 } },
    });
    await peer.write({ jsonrpc: "2.0", id: 10, method: "echo", params: "small" });
    expect(await peer.next()).toMatchObject({ id: 10, result: "small" });
    expect(logger.records.some((r) => r.message.includes("larger than maxMessageBytes"))).toBe(
      true,
    );
  });

  it("rejects the pending request whose response was too large", async () => {
    const peer = rawPeer({ maxMessageBytes: 256 });
    const connection = new JsonRpcConnection(peer.stream, echoRouter);
    const pending = connection.request("fetch", {});
    const sent = await peer.next();
    await peer.write({ jsonrpc: "2.0", id: sent.id, result: "r".repeat(1000) });
    await expect(pending).rejects.toMatchObject({
      name: "ConnectionError",
      code: "message_too_large",
    });
  });

  it("coalesces messages queued during a write into one chunk", async () => {
    let release!: () => void;
    const chunks: string[] = [];
    const dec = new TextDecoder();
    let first = true;
    const output = new WritableStream<Uint8Array>({
      async write(chunk) {
        chunks.push(dec.decode(chunk));
        if (first) {
          first = false;
          await new Promise<void>((r) => (release = r));
        }
      },
    });
    const input = new ReadableStream<Uint8Array>();
    const connection = new JsonRpcConnection(ndJsonStream(output, input), echoRouter);
    for (let i = 0; i < 100; i++) void connection.notify("n", { i });
    await tick();
    expect(chunks).toHaveLength(1); // the first write is in flight, 99 are queued
    release();
    await tick();
    expect(chunks).toHaveLength(2);
    const lines = chunks[1]!.trimEnd().split("\n");
    expect(lines).toHaveLength(99);
    expect(JSON.parse(lines[98]!)).toMatchObject({ method: "n", params: { i: 99 } });
  });

  it("writes a long backlog in chunks of at most 128 Ki characters, in order, none lost", async () => {
    // Everything queued used to be joined into one chunk: megabytes under a burst of large
    // messages, which cost both sides more per byte than a few 100-KiB chunks.
    let release!: () => void;
    const chunks: string[] = [];
    const dec = new TextDecoder();
    let lines = 0;
    let allWritten!: () => void;
    const written = new Promise<void>((r) => (allWritten = r));
    const output = new WritableStream<Uint8Array>({
      async write(chunk) {
        const text = dec.decode(chunk);
        chunks.push(text);
        lines += text.split("\n").length - 1;
        if (lines === 401) allWritten();
        if (chunks.length === 1) await new Promise<void>((r) => (release = r));
      },
    });
    const connection = new JsonRpcConnection(
      ndJsonStream(output, new ReadableStream()),
      echoRouter,
    );
    // About 1,000 characters each, some of them multi-byte: 400 queued are ~410 Ki characters.
    const text = "é€😀".repeat(10) + "x".repeat(950);
    for (let i = 0; i <= 400; i++) void connection.notify("n", { i, text });
    await tick();
    expect(chunks).toHaveLength(1); // the first is in flight, 400 are queued
    release();
    await written;
    const batches = chunks.slice(1);
    expect(batches.length).toBe(4);
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(128 * 1024);
      expect(batch.endsWith("}\n")).toBe(true);
    }
    const received = batches
      .join("")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { params: { i: number; text: string } });
    expect(received.map((m) => m.params.i)).toEqual(Array.from({ length: 400 }, (_, k) => k + 1));
    expect(received.every((m) => m.params.text === text)).toBe(true);
  });

  it("lets a sender held by a full queue go once a written chunk brings it under the high-water mark", async () => {
    const gates: (() => void)[] = [];
    const chunks: string[] = [];
    const dec = new TextDecoder();
    const output = new WritableStream<Uint8Array>({
      write(chunk) {
        chunks.push(dec.decode(chunk));
        return new Promise<void>((r) => gates.push(r));
      },
    });
    const connection = new JsonRpcConnection(
      ndJsonStream(output, new ReadableStream()),
      echoRouter,
    );
    const text = "y".repeat(10_000);
    let sent = 0;
    let held: Promise<void> | undefined;
    // Over 1 Mi characters are queued after about 105 of them.
    while (held === undefined && sent < 200) {
      const p = connection.notify("n", { i: sent++, text });
      if (!(await Promise.race([p.then(() => true), tick().then(() => false)]))) held = p;
    }
    expect(held).toBeDefined();
    let free = false;
    void held!.then(() => (free = true));
    expect(chunks).toHaveLength(1);
    gates.shift()!(); // the first write completes: one chunk of the queue is taken
    await tick();
    expect(chunks).toHaveLength(2);
    expect(free).toBe(true);
    while (chunks.join("").split("\n").length - 1 < sent) {
      gates.shift()!();
      await tick();
    }
    const ids = chunks
      .join("")
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { params: { i: number } }).params.i);
    expect(ids).toEqual(Array.from({ length: sent }, (_, k) => k));
  });

  it("writes a large message in a buffer of its size, not one sized for the worst case", async () => {
    const chunks: Uint8Array[] = [];
    const output = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk) });
    const connection = new JsonRpcConnection(
      ndJsonStream(output, new ReadableStream<Uint8Array>()),
      echoRouter,
    );
    // ASCII: a byte per character, where the encoder must allow for three.
    await connection.notify("n", { text: "x".repeat(100_000) });
    await tick();
    expect(chunks).toHaveLength(1);
    const chunk = chunks[0]!;
    expect(chunk.byteLength).toBeGreaterThan(100_000);
    expect(chunk.buffer.byteLength).toBe(chunk.byteLength);
  });

  it("pushes back on senders when the output does not drain", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const output = new WritableStream<Uint8Array>({ write: () => gate });
    const connection = new JsonRpcConnection(
      ndJsonStream(output, new ReadableStream()),
      echoRouter,
    );
    const big = "b".repeat(64 * 1024);
    const waiting: Promise<void>[] = [];
    for (let i = 0; i < 40 && waiting.length === 0; i++) {
      const p = connection.notify("n", big);
      const settled = await Promise.race([p.then(() => true), tick().then(() => false)]);
      if (!settled) waiting.push(p);
    }
    expect(waiting).toHaveLength(1);
    let done = false;
    void waiting[0]!.then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    release();
    await tick(5);
    expect(done).toBe(true);
  });

  it("stops reading while its answers are not read: a request flood cannot fill memory", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let written = 0;
    const output = new WritableStream<Uint8Array>({
      write: async (chunk) => {
        written += chunk.length;
        await gate;
      },
    });
    // Each pull hands over 1000 requests for an unknown method (answered -32601).
    let pulls = 0;
    const batch = new TextEncoder().encode(
      Array.from(
        { length: 1000 },
        (_, i) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "no/such/method" }) + "\n",
      ).join(""),
    );
    const input = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        if (pulls > 100) controller.close();
        else controller.enqueue(batch);
      },
    });
    new JsonRpcConnection(ndJsonStream(output, input), echoRouter);
    // About 1 MiB of answers is queued (some 12,000) and at most 10,000 requests are held
    // back; then reading waits for the output. Wait until it has stopped (the machine may
    // be slow to get there), then check where.
    let paused = -1;
    for (let i = 0; i < 100 && pulls !== paused; i++) {
      paused = pulls;
      await tick(100);
    }
    expect(pulls).toBe(paused);
    expect(paused).toBeLessThan(30);
    release();
    await vi.waitFor(() => expect(pulls).toBeGreaterThan(100), { timeout: 10_000 });
    expect(written).toBeGreaterThan(0);
  });

  /** A connection with one write stuck in `output` and one queued behind it, closed. */
  async function closeWithStuckWrite(output: WritableStream<Uint8Array>, closeOutput: boolean) {
    const logger = recordingLogger();
    const connection = new JsonRpcConnection(
      ndJsonStream(output, new ReadableStream(), { closeOutput }),
      echoRouter,
      { logger },
    );
    void connection.notify("n", "stuck in the pipe");
    void connection.notify("n", "queued behind it");
    connection.close();
    await connection.closed;
    await vi.waitFor(
      () =>
        expect(logger.records.some((r) => r.message.includes("not written in time"))).toBe(true),
      { timeout: 5000 },
    );
  }

  it("gives up on output the peer does not read when closing, and gives the output back", async () => {
    let aborted: unknown = "not aborted";
    const output = new WritableStream<Uint8Array>({
      write: () => new Promise<void>(() => undefined),
      abort: (reason) => void (aborted = reason),
    });
    await closeWithStuckWrite(output, false);
    // The write in flight never ends, yet the output is unlocked, and not aborted: it is
    // the caller's again, stuck write included (the owner may take a writer, or abort it).
    expect(output.locked).toBe(false);
    expect(Object.getOwnPropertyNames(output)).toEqual([]);
    const writer = output.getWriter();
    // Still writable, the stuck chunk queued in it (an aborted stream's size is null).
    expect(writer.desiredSize).toBe(0);
    writer.releaseLock();
    expect(aborted).toBe("not aborted");
  });

  it("with closeOutput, aborts output the peer does not read when closing", async () => {
    const output = new WritableStream<Uint8Array>({
      write: () => new Promise<void>(() => undefined),
    });
    await closeWithStuckWrite(output, true);
    // Aborted through the writer held for the stuck write, and left unlocked; its owner's
    // writes fail with the reason.
    expect(output.locked).toBe(false);
    await expect(output.getWriter().write(new Uint8Array(1))).rejects.toThrow(
      "closed before queued output",
    );
  });

  it("can be used through its readable/writable by anyone, once", async () => {
    const toIt = new TransformStream<Uint8Array, Uint8Array>();
    const fromIt = new TransformStream<Uint8Array, Uint8Array>();
    const stream = ndJsonStream(fromIt.writable, toIt.readable);
    const reader = stream.readable.getReader();
    const w = toIt.writable.getWriter();
    await w.write(new TextEncoder().encode('{"jsonrpc":"2.0","method":"hi"}\nnot json\n'));
    expect((await reader.read()).value).toEqual({ jsonrpc: "2.0", method: "hi" });
    const writer = stream.writable.getWriter();
    await writer.write({ jsonrpc: "2.0", method: "out" });
    const out = fromIt.readable.getReader();
    const text = new TextDecoder().decode((await out.read()).value);
    // The parse error answer and the written message, in order.
    expect(text).toContain('"code":-32700');
    expect(() => new JsonRpcConnection(stream, echoRouter)).toThrow(/already in use/);
  });
});

describe("ndJsonStream read as a message stream", () => {
  it("ends its readable once when the input ended and a write then fails (no throw)", async () => {
    const input = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.close();
      },
    });
    // A pipe whose writes fail without a reason, as a child's stdin can once it is killed.
    const output = new WritableStream<Uint8Array>({
      write() {
        return Promise.reject(undefined);
      },
    });
    const stream = ndJsonStream(output, input);
    const reader = stream.readable.getReader();
    expect((await reader.read()).done).toBe(true);
    const writer = stream.writable.getWriter();
    await writer.write({ jsonrpc: "2.0", method: "late" }).catch(() => undefined);
    // The failed write reports the end again; before the fix that threw out of a callback
    // ("Controller is already closed") as an uncaught exception, which fails the run.
    await tick();
    await tick();
    expect((await reader.read()).done).toBe(true);
  });
});
