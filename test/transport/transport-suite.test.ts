/**
 * One test suite for every {@link Transport} implementation: the newline-delimited JSON
 * transport (`ndJsonStream`, over in-memory byte pipes), the in-memory pair
 * (`memoryTransportPair`), and the generic transport a connection makes from a plain
 * `Stream` of messages. A remote transport written against the interface can be added to
 * the list the same way.
 */
import { describe, expect, it } from "vitest";
import {
  JsonRpcConnection,
  isTransport,
  memoryTransportPair,
  ndJsonStream,
  type Router,
  type Stream,
  type Transport,
  type TransportSink,
} from "../../packages/acp-kit/src/index.js";

interface Pair {
  readonly a: Transport | Stream;
  readonly b: Transport | Stream;
}

function ndjsonPair(): { a: ReturnType<typeof ndJsonStream>; b: ReturnType<typeof ndJsonStream> } {
  const ab = new TransformStream<Uint8Array, Uint8Array>();
  const ba = new TransformStream<Uint8Array, Uint8Array>();
  // The pipes are the test's own: each side is asked to end its output when it closes.
  const own = { closeOutput: true };
  return {
    a: ndJsonStream(ab.writable, ba.readable, own),
    b: ndJsonStream(ba.writable, ab.readable, own),
  };
}

const implementations: [string, () => Pair, boolean][] = [
  ["ndJsonStream", ndjsonPair, true],
  [
    "memoryTransportPair",
    () => {
      const { agent, client } = memoryTransportPair();
      return { a: agent, b: client };
    },
    true,
  ],
  [
    "a plain Stream of messages",
    () => {
      const { a, b } = ndjsonPair();
      // Only the Stream side: the connection wraps it in its generic transport.
      return {
        a: { readable: a.readable, writable: a.writable },
        b: { readable: b.readable, writable: b.writable },
      };
    },
    false,
  ],
];

/** A sink that records what it is given. */
function recorder(): TransportSink & {
  messages: unknown[];
  chunks: number;
  ends: { error: unknown; direction: string }[];
} {
  const sink = {
    messages: [] as unknown[],
    chunks: 0,
    ends: [] as { error: unknown; direction: string }[],
    message(message: unknown) {
      sink.messages.push(message);
    },
    endOfChunk() {
      sink.chunks++;
    },
    oversized() {
      throw new Error("unexpected");
    },
    closed(error: unknown, direction: "input" | "output") {
      sink.ends.push({ error, direction });
    },
  };
  return sink;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

const echo: Router = {
  request: (method) =>
    method === "echo"
      ? { handle: (params) => params }
      : method === "slow"
        ? { handle: (params) => new Promise((r) => setTimeout(() => r(params), 5)) }
        : undefined,
  notification: () => undefined,
};

describe.each(implementations)("Transport: %s", (_name, makePair, raw) => {
  it.runIf(raw)("is a Transport, and delivers messages in order both ways", async () => {
    const { a, b } = makePair();
    if (!isTransport(a) || !isTransport(b)) throw new Error("not a transport");
    const sa = recorder();
    const sb = recorder();
    a.start(sa);
    b.start(sb);
    for (let i = 0; i < 1000; i++) {
      void a.send({ jsonrpc: "2.0", method: "n", params: { i } });
      void b.send({ jsonrpc: "2.0", method: "m", params: { i } });
    }
    await until(() => sa.messages.length === 1000 && sb.messages.length === 1000, "messages");
    expect(sb.messages.map((m) => (m as { params: { i: number } }).params.i)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i),
    );
    expect(sa.messages[999]).toEqual({ jsonrpc: "2.0", method: "m", params: { i: 999 } });
    expect(sb.chunks).toBeGreaterThan(0);
  });

  it.runIf(raw)("close() delivers what was sent, then ends the other side's input", async () => {
    const { a, b } = makePair();
    if (!isTransport(a) || !isTransport(b)) throw new Error("not a transport");
    const sa = recorder();
    const sb = recorder();
    a.start(sa);
    b.start(sb);
    void a.send({ jsonrpc: "2.0", method: "last" });
    await a.close();
    await until(() => sb.ends.length === 1, "the end of input");
    expect(sb.messages).toEqual([{ jsonrpc: "2.0", method: "last" }]);
    expect(sb.ends).toEqual([{ error: undefined, direction: "input" }]);
    expect(sa.ends).toEqual([]);
  });

  it.runIf(raw)("send() throws at once for what JSON cannot carry", () => {
    const { a } = makePair();
    if (!isTransport(a)) throw new Error("not a transport");
    a.start(recorder());
    expect(() => a.send({ n: 1n })).toThrow(TypeError);
  });

  it("carries two connections: requests, answers, concurrency, close", async () => {
    const { a, b } = makePair();
    const left = new JsonRpcConnection(a, echo);
    const right = new JsonRpcConnection(b, echo);
    expect(await left.request("echo", { x: 1 })).toEqual({ x: 1 });
    expect(await right.request("echo", [2])).toEqual([2]);
    const many = await Promise.all(
      Array.from({ length: 500 }, (_, i) => left.request(i % 2 ? "slow" : "echo", { i })),
    );
    expect(many).toEqual(Array.from({ length: 500 }, (_, i) => ({ i })));
    await expect(left.request("missing")).rejects.toMatchObject({ code: -32601 });
    left.close();
    await right.closed;
    await expect(right.request("echo", {})).rejects.toMatchObject({ code: "connection_closed" });
  });

  it("observe() sees every message in and out, in order, until unsubscribed", async () => {
    const { a, b } = makePair();
    const left = new JsonRpcConnection(a, echo);
    new JsonRpcConnection(b, echo);
    const seen: [string, unknown][] = [];
    const stop = left.observe((direction, message) => seen.push([direction, message]));
    await left.request("echo", { hello: true });
    void left.notify("note", { n: 1 });
    await until(() => seen.length === 3, "the observer");
    expect(seen).toEqual([
      ["out", { jsonrpc: "2.0", id: 0, method: "echo", params: { hello: true } }],
      ["in", { jsonrpc: "2.0", id: 0, result: { hello: true } }],
      ["out", { jsonrpc: "2.0", method: "note", params: { n: 1 } }],
    ]);
    stop();
    await left.request("echo", {});
    expect(seen).toHaveLength(3);
  });
});
