import { describe, expect, it, vi } from "vitest";
import { rawPeer, tick } from "../../../../test/support/raw-peer.js";
import { JsonRpcConnection } from "./connection.js";
import type { NotificationRoute, RequestRoute, Router } from "./dispatch.js";
import { ConnectionError, RequestError } from "./errors.js";
import type { LogFields } from "../base/logger.js";
import type { Transport, TransportSink } from "../transport/transport.js";

function router(
  requests: Record<string, RequestRoute>,
  notifications: Record<string, NotificationRoute> = {},
): Router {
  return { request: (m) => requests[m], notification: (m) => notifications[m] };
}

const isString = (v: unknown, p: string | undefined): boolean => {
  if (typeof v === "string") return true;
  if (p !== undefined) {
    // Mimic a generated validator's recording pass.
    return false;
  }
  return false;
};

describe("JsonRpcConnection: inbound requests get exactly one answer", () => {
  it("answers results, -32601, -32602 with paths, -32603 without stack, RequestError as is", async () => {
    const peer = rawPeer();
    new JsonRpcConnection(
      peer.stream,
      router({
        ok: { handle: (p) => ({ got: p }) },
        async: { handle: () => Promise.resolve({ later: true }) },
        nothing: { handle: () => undefined },
        typed: { validate: isString, handle: (p) => p },
        boom: {
          handle: () => {
            throw new Error("secret path /home/x");
          },
        },
        custom: {
          handle: () => {
            throw new RequestError(-32042, "Custom failure", { why: "because" });
          },
        },
      }),
    );
    const send = (id: number, method: string, params?: unknown) =>
      peer.write({ jsonrpc: "2.0", id, method, params });
    await send(1, "ok", { a: 1 });
    await send(2, "async");
    await send(3, "missing");
    await send(4, "typed", 5);
    await send(5, "boom");
    await send(6, "custom");
    await send(7, "nothing");
    const answers = new Map<unknown, Record<string, unknown>>();
    for (let i = 0; i < 7; i++) {
      const m = await peer.next();
      expect(answers.has(m.id)).toBe(false);
      answers.set(m.id, m);
    }
    expect(answers.get(1)).toEqual({ jsonrpc: "2.0", id: 1, result: { got: { a: 1 } } });
    expect(answers.get(2)).toEqual({ jsonrpc: "2.0", id: 2, result: { later: true } });
    expect(answers.get(3)).toMatchObject({ error: { code: -32601, data: { method: "missing" } } });
    expect(answers.get(4)).toMatchObject({ error: { code: -32602 } });
    const internal = answers.get(5)!.error as { code: number; message: string; data: unknown };
    expect(internal.code).toBe(-32603);
    expect(JSON.stringify(internal)).not.toContain("at "); // no stack trace
    expect(answers.get(6)).toEqual({
      jsonrpc: "2.0",
      id: 6,
      error: { code: -32042, message: "Custom failure", data: { why: "because" } },
    });
    expect(answers.get(7)).toEqual({ jsonrpc: "2.0", id: 7, result: null });
    await tick(10);
    expect(peer.buffered).toHaveLength(0);
  });

  it("answers invalid envelopes with -32600 and never answers notifications or responses", async () => {
    const peer = rawPeer();
    new JsonRpcConnection(peer.stream, router({ ok: { handle: () => 1 } }));
    await peer.write({ jsonrpc: "2.0", id: { bad: true }, method: "ok" });
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await peer.write({ jsonrpc: "1.0", id: 3, method: "ok" });
    expect(await peer.next()).toMatchObject({ id: 3, error: { code: -32600 } });
    await peer.write({ jsonrpc: "2.0", id: 4, method: 12 });
    expect(await peer.next()).toMatchObject({ id: 4, error: { code: -32600 } });
    await peer.write("42\n");
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await peer.write({ jsonrpc: "2.0", method: "unknown/notification" });
    await peer.write({ jsonrpc: "2.0", id: 77, result: "for nobody" });
    await peer.write({ jsonrpc: "2.0", method: "$/anything", params: {} });
    await tick(10);
    expect(peer.buffered).toHaveLength(0);
  });
});

describe("JsonRpcConnection: outbound requests always settle", () => {
  it("resolves results and rejects with the peer's RequestError", async () => {
    const peer = rawPeer();
    const c = new JsonRpcConnection(peer.stream, router({}));
    const a = c.request("one", { x: 1 });
    const b = c.request("two");
    const ra = await peer.next();
    const rb = await peer.next();
    expect(ra).toEqual({ jsonrpc: "2.0", id: 0, method: "one", params: { x: 1 } });
    expect(rb).toEqual({ jsonrpc: "2.0", id: 1, method: "two" });
    await peer.write({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32000, message: "Authentication required", data: { m: 1 } },
    });
    await peer.write({ jsonrpc: "2.0", id: 0, result: { ok: true } });
    await expect(a).resolves.toEqual({ ok: true });
    const error = await b.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({
      code: -32000,
      message: "Authentication required",
      data: { m: 1 },
    });
  });

  it("validates results and normalises null empty results", async () => {
    const peer = rawPeer();
    const c = new JsonRpcConnection(peer.stream, router({}));
    const a = c.request("a", undefined, undefined, { validate: isString });
    const b = c.request("b", undefined, undefined, { emptyResult: true });
    await peer.next();
    await peer.next();
    await peer.write({ jsonrpc: "2.0", id: 0, result: 12 });
    await peer.write({ jsonrpc: "2.0", id: 1, result: null });
    await expect(a).rejects.toMatchObject({ code: "invalid_response" });
    await expect(b).resolves.toEqual({});
  });

  it("aborting sends $/cancel_request and rejects at once; a late answer is ignored", async () => {
    const peer = rawPeer();
    const c = new JsonRpcConnection(peer.stream, router({}));
    const controller = new AbortController();
    const p = c.request("slow", {}, { signal: controller.signal });
    const req = await peer.next();
    controller.abort(new Error("user gave up"));
    await expect(p).rejects.toMatchObject({ name: "ConnectionError", code: "cancelled" });
    expect(await peer.next()).toEqual({
      jsonrpc: "2.0",
      method: "$/cancel_request",
      params: { requestId: req.id },
    });
    await peer.write({ jsonrpc: "2.0", id: req.id, result: "late" });
    await tick(5);
    // Already aborted signals reject without sending anything.
    await expect(
      c.request("x", {}, { cancellationSignal: controller.signal }),
    ).rejects.toMatchObject({ code: "cancelled" });
    await tick(5);
    expect(peer.buffered).toHaveLength(0);
  });

  it("takes Infinity, 0 or a huge timeout as none, even over a default", async () => {
    const peer = rawPeer();
    const c = new JsonRpcConnection(peer.stream, router({}), { requestTimeoutMs: 5 });
    const settled: string[] = [];
    for (const timeoutMs of [Infinity, 0, 2 ** 40]) {
      c.request("wait", undefined, { timeoutMs }).then(
        () => settled.push(`${timeoutMs} resolved`),
        (e: unknown) => settled.push(`${timeoutMs} ${(e as ConnectionError).code}`),
      );
    }
    await tick(30);
    expect(settled).toEqual([]);
    c.close();
  });

  it("rejects a request whose sending closed the connection (an output already locked)", async () => {
    const output = new WritableStream<Uint8Array>();
    output.getWriter(); // someone else holds it
    const { ndJsonStream } = await import("../transport/ndjson.js");
    const c = new JsonRpcConnection(ndJsonStream(output, new ReadableStream()), router({}));
    await expect(c.request("x")).rejects.toMatchObject({ code: "connection_closed" });
    await c.closed;
  });

  it("times out with a ConnectionError and tells the peer", async () => {
    const peer = rawPeer();
    const c = new JsonRpcConnection(peer.stream, router({}));
    const p = c.request("slow", {}, { timeoutMs: 20 });
    const req = await peer.next();
    await expect(p).rejects.toMatchObject({ code: "timeout" });
    expect(await peer.next()).toMatchObject({
      method: "$/cancel_request",
      params: { requestId: req.id },
    });
  });

  it("rejects unserialisable params synchronously-as-rejection without sending", async () => {
    const peer = rawPeer();
    const c = new JsonRpcConnection(peer.stream, router({}));
    await expect(c.request("x", { n: 1n })).rejects.toBeInstanceOf(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(c.notify("y", cyclic)).rejects.toBeInstanceOf(TypeError);
    await tick(5);
    expect(peer.buffered).toHaveLength(0);
  });
});

describe("JsonRpcConnection: cancellation of inbound requests", () => {
  it("aborts the handler's signal on $/cancel_request and answers -32800 when it ends with the abort", async () => {
    const peer = rawPeer();
    let sawAbort = false;
    new JsonRpcConnection(
      peer.stream,
      router({
        wait: {
          handle: (_p, ctx) =>
            new Promise((_resolve, reject) => {
              ctx.signal.addEventListener("abort", () => {
                sawAbort = true;
                reject(ctx.signal.reason as Error);
              });
            }),
        },
        finish: {
          handle: async (_p, ctx) => {
            await tick(20);
            return { aborted: ctx.signal.aborted };
          },
        },
      }),
    );
    await peer.write({ jsonrpc: "2.0", id: "w", method: "wait" });
    await peer.write({ jsonrpc: "2.0", id: "f", method: "finish" });
    await tick(5);
    await peer.write({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "w" } });
    await peer.write({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "f" } });
    await peer.write({
      jsonrpc: "2.0",
      method: "$/cancel_request",
      params: { requestId: "unknown" },
    });
    const first = await peer.next();
    expect(first).toMatchObject({ id: "w", error: { code: -32800 } });
    expect(sawAbort).toBe(true);
    // A handler may still finish normally after a cancel: its result is sent.
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: "f", result: { aborted: true } });
  });
});

describe("JsonRpcConnection: ordering", () => {
  it("delivers a response only after the notifications that arrived before it were handled", async () => {
    const peer = rawPeer();
    const events: string[] = [];
    const c = new JsonRpcConnection(
      peer.stream,
      router(
        {},
        {
          update: {
            handle: async (p) => {
              await tick(5); // slow async handler
              events.push(`update ${String(p)}`);
            },
          },
        },
      ),
    );
    const p = c.request("prompt").then(() => events.push("response"));
    const req = await peer.next();
    await peer.write(
      [1, 2, 3]
        .map((i) => JSON.stringify({ jsonrpc: "2.0", method: "update", params: i }))
        .join("\n") +
        "\n" +
        JSON.stringify({ jsonrpc: "2.0", id: req.id, result: {} }) +
        "\n",
    );
    await p;
    expect(events).toEqual(["update 1", "update 2", "update 3", "response"]);
  });

  const line = (message: object): string => JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n";

  it("runs the code awaiting a response before a notification read in the same chunk", async () => {
    const peer = rawPeer();
    const events: string[] = [];
    const c = new JsonRpcConnection(
      peer.stream,
      router({}, { update: { handle: (p) => void events.push(`update ${String(p)}`) } }),
    );
    const created = c.request("session/new").then(async (r) => {
      await Promise.resolve(); // a few hops, as layers of awaits add
      events.push("response");
      return r;
    });
    const req = await peer.next();
    await peer.write(
      line({ id: req.id, result: {} }) +
        line({ method: "update", params: 1 }) +
        line({ method: "update", params: 2 }),
    );
    await created;
    await tick(5);
    expect(events).toEqual(["response", "update 1", "update 2"]);
  });

  it("settles many responses of one chunk together, then runs the notification after them", async () => {
    const peer = rawPeer();
    const events: string[] = [];
    const c = new JsonRpcConnection(
      peer.stream,
      router({}, { update: { handle: () => void events.push("update") } }),
    );
    const calls = [0, 1, 2].map((i) =>
      c.request("read").then(async () => {
        await Promise.resolve();
        events.push(`response ${i}`);
      }),
    );
    const ids = [(await peer.next()).id, (await peer.next()).id, (await peer.next()).id];
    await peer.write(
      ids.map((id) => line({ id, result: {} })).join("") + line({ method: "update" }),
    );
    await Promise.all(calls);
    await tick(5);
    expect(events).toEqual(["response 0", "response 1", "response 2", "update"]);
  });

  it("lets a notification handler wait for its own request: that answer passes the held messages", async () => {
    const peer = rawPeer();
    const events: string[] = [];
    const c: JsonRpcConnection = new JsonRpcConnection(
      peer.stream,
      router(
        {},
        {
          update: {
            handle: async (p) => {
              if (p === 1) events.push(`asked: ${JSON.stringify(await c.request("ask"))}`);
              events.push(`update ${String(p)}`);
            },
          },
        },
      ),
    );
    await peer.write(line({ method: "update", params: 1 }));
    const ask = await peer.next();
    expect(ask).toMatchObject({ method: "ask" });
    // Another update arrives before the answer; it waits for update 1, which waits for
    // the answer: the answer must not wait behind it.
    await peer.write(
      line({ method: "update", params: 2 }) + line({ id: ask.id, result: { ok: 1 } }),
    );
    await vi.waitFor(() => expect(events).toHaveLength(3));
    expect(events).toEqual(['asked: {"ok":1}', "update 1", "update 2"]);
  });

  it("sees the input end while a handler holds up delivery: what arrived is delivered, then it closes", async () => {
    const peer = rawPeer();
    const seen: unknown[] = [];
    const c = new JsonRpcConnection(
      peer.stream,
      router(
        {},
        {
          stuck: { handle: () => new Promise<void>(() => undefined) },
          update: { handle: (p) => void seen.push(p) },
        },
      ),
    );
    const pending = c.request("never");
    await peer.next();
    await peer.write(line({ method: "stuck" }) + line({ method: "update", params: "after" }));
    await tick(5);
    expect(seen).toEqual([]); // held behind the stuck handler
    await peer.end();
    await c.closed;
    expect(seen).toEqual(["after"]);
    await expect(pending).rejects.toMatchObject({ code: "connection_closed" });
  });

  it("delivers nothing after close(), even what was read in the same chunk", async () => {
    const peer = rawPeer();
    const seen: unknown[] = [];
    let started = false;
    const c: JsonRpcConnection = new JsonRpcConnection(
      peer.stream,
      router(
        {
          work: {
            handle: () => {
              started = true;
              return {};
            },
          },
        },
        {
          update: {
            handle: (p) => {
              seen.push(p);
              if (p === "last") c.close();
            },
          },
        },
      ),
    );
    await peer.write(
      line({ method: "update", params: "last" }) +
        line({ method: "update", params: "too late" }) +
        line({ id: 1, method: "work" }),
    );
    await c.closed;
    await tick(5);
    expect(seen).toEqual(["last"]);
    expect(started).toBe(false);
  });

  it("answers both requests that share an id, and cancels and aborts both", async () => {
    const peer = rawPeer();
    const finish: (() => void)[] = [];
    const signals: AbortSignal[] = [];
    const c = new JsonRpcConnection(
      peer.stream,
      router({
        slow: {
          handle: (p, ctx) => {
            signals.push(ctx.signal);
            return new Promise<object>((r) => finish.push(() => r({ done: p })));
          },
        },
      }),
    );
    await peer.write(
      line({ id: 7, method: "slow", params: 1 }) + line({ id: 7, method: "slow", params: 2 }),
    );
    await vi.waitFor(() => expect(finish).toHaveLength(2));
    finish[1]!();
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 7, result: { done: 2 } });
    // The first one is still known: a cancel reaches it.
    await peer.write(line({ method: "$/cancel_request", params: { requestId: 7 } }));
    await vi.waitFor(() => expect(signals[0]!.aborted).toBe(true));
    finish[0]!();
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 7, result: { done: 1 } });
    await peer.write(line({ id: 8, method: "slow" }) + line({ id: 8, method: "slow" }));
    await vi.waitFor(() => expect(signals).toHaveLength(4));
    c.close();
    expect(signals.slice(2).map((s) => s.aborted)).toEqual([true, true]);
  });
});

describe("JsonRpcConnection: closing", () => {
  it("input end rejects pending requests, aborts running handlers, aborts signal, resolves closed", async () => {
    const peer = rawPeer({ closeOutput: true });
    let handlerSignal: AbortSignal | undefined;
    const c = new JsonRpcConnection(
      peer.stream,
      router({
        hang: {
          handle: (_p, ctx) => {
            handlerSignal = ctx.signal;
            return new Promise(() => undefined);
          },
        },
      }),
    );
    const pending = c.request("never");
    await peer.next();
    await peer.write({ jsonrpc: "2.0", id: 1, method: "hang" });
    await tick(5);
    await peer.end();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: "connection_closed" });
    await c.closed;
    expect(c.signal.aborted).toBe(true);
    expect(handlerSignal?.aborted).toBe(true);
    await expect(c.request("after")).rejects.toMatchObject({ code: "connection_closed" });
    await expect(c.notify("after")).resolves.toBeUndefined();
    await peer.outputClosed; // our output was closed too, as asked
  });

  it("close(reason) names the reason in the error pending requests reject with", async () => {
    const peer = rawPeer();
    const c = new JsonRpcConnection(peer.stream, router({}));
    const pending = c.request("x");
    const why = new Error("the agent exited with code 3");
    c.close(why);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "connection_closed",
      message: "Connection closed: the agent exited with code 3",
    });
    expect((error as Error).cause).toBe(why);
  });

  it("close() flushes queued output, then closes it (closeOutput)", async () => {
    const peer = rawPeer({ closeOutput: true });
    const c = new JsonRpcConnection(peer.stream, router({}));
    for (let i = 0; i < 5; i++) void c.notify("n", i);
    c.close();
    await peer.outputClosed;
    expect(peer.buffered.map((m) => m.params)).toEqual([0, 1, 2, 3, 4]);
  });

  it("a failing write closes the connection and rejects pending requests", async () => {
    const output = new WritableStream<Uint8Array>({
      write() {
        throw new Error("EPIPE");
      },
    });
    const { ndJsonStream } = await import("../transport/ndjson.js");
    const c = new JsonRpcConnection(ndJsonStream(output, new ReadableStream()), router({}));
    await expect(c.request("x")).rejects.toMatchObject({ code: "connection_closed" });
    await c.closed;
    expect((c.signal.reason as Error).message).toMatch(/writing to the peer failed/);
  });
});

describe("JsonRpcConnection: logging", () => {
  it("never logs message payloads such as MCP env values or headers", async () => {
    const peer = rawPeer({ maxMessageBytes: 2048 });
    const lines: string[] = [];
    const record = (message: string, fields?: LogFields) =>
      lines.push(message + JSON.stringify(fields ?? {}));
    new JsonRpcConnection(
      peer.stream,
      router({
        "session/new": {
          validate: (v: unknown) => typeof v === "string",
          handle: () => ({}),
        },
        boom: {
          handle: () => {
            throw new Error("handler failed");
          },
        },
      }),
      { logger: { debug: record, warn: record, error: record } },
    );
    const secret = "sk-SECRET-TOKEN-123";
    const params = {
      cwd: "/",
      mcpServers: [
        { name: "x", command: "/bin/x", args: [], env: [{ name: "API_KEY", value: secret }] },
      ],
      headers: [{ name: "Authorization", value: secret }],
    };
    await peer.write({ jsonrpc: "2.0", id: 1, method: "session/new", params });
    await peer.write({ jsonrpc: "2.0", id: 2, method: "nope", params });
    await peer.write({ jsonrpc: "2.0", method: "note", params });
    await peer.write(
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params }).slice(0, -3) + "\n",
    );
    await peer.write({
      jsonrpc: "2.0",
      id: 4,
      method: "session/new",
      params: { ...params, pad: "p".repeat(4000) },
    });
    for (let i = 0; i < 4; i++) await peer.next();
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join("\n")).not.toContain(secret);
  });
});

/** A transport whose output backs up on demand: `send` then returns a wait until `drain()`. */
function backedUpTransport() {
  const sent: Record<string, unknown>[] = [];
  let sink: TransportSink | undefined;
  let backedUp = false;
  let release: (() => void) | undefined;
  const transport: Transport = {
    start: (s) => void (sink = s),
    send(message) {
      sent.push(message as Record<string, unknown>);
      if (!backedUp) return;
      return new Promise<void>((resolve) => (release = resolve));
    },
    close: () => Promise.resolve(),
  };
  return {
    transport,
    sent,
    backUp: () => void (backedUp = true),
    drain: () => {
      backedUp = false;
      release?.();
    },
    deliver: (message: object) => sink?.message(message),
  };
}

describe("JsonRpcConnection: our output backed up", () => {
  it("an answer waits behind the notifications its handler sent before it", async () => {
    const wire = backedUpTransport();
    const connection: JsonRpcConnection = new JsonRpcConnection(
      wire.transport,
      router({
        turn: {
          handle: () => {
            wire.backUp();
            for (let i = 0; i < 3; i++) void connection.notify("update", { i });
            return { done: true };
          },
        },
      }),
    );
    void wire.deliver({ jsonrpc: "2.0", id: 1, method: "turn" });
    await tick(5);
    wire.drain();
    await tick(5);
    expect(wire.sent.map((m) => m.method ?? `answer ${String(m.id)}`)).toEqual([
      "update",
      "update",
      "update",
      "answer 1",
    ]);
  });

  it("close() hands what was held to the transport; an awaited notify is not lost", async () => {
    const wire = backedUpTransport();
    const connection = new JsonRpcConnection(wire.transport, router({}));
    wire.backUp();
    void connection.notify("first");
    const second = connection.notify("second");
    const request = connection.request("never-sent").catch((e: unknown) => e);
    expect(wire.sent.map((m) => m.method)).toEqual(["first"]);
    connection.close();
    await second;
    expect(await request).toBeInstanceOf(ConnectionError);
    expect(wire.sent.map((m) => m.method)).toEqual(["first", "second"]);
  });

  it("a held request that times out is not cancelled on the wire (the peer never saw it)", async () => {
    const wire = backedUpTransport();
    const connection = new JsonRpcConnection(wire.transport, router({}));
    wire.backUp();
    void connection.notify("first");
    const error = await connection.request("slow", {}, { timeoutMs: 10 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "timeout" });
    wire.drain();
    await tick(5);
    expect(wire.sent.map((m) => m.method)).toEqual(["first"]);
    connection.close();
  });
});
