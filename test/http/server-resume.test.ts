/**
 * Resumable streams (opt-in): SSE ids, `Last-Event-ID` replay, 409 past the buffer, and the
 * WebSocket `stream/resume` first frame, over real sockets on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  createAcpNodeServer,
  type AcpHttpHandlerOptions,
  type AcpNodeServer,
  type ConnectionCloseInfo,
} from "../../packages/acp-kit/src/http/server/index.js";
import { RawClient, rawAgent, type SseEvent } from "./server-support.js";
import { until } from "../support/interop-wire.js";

const servers: AcpNodeServer[] = [];

async function serve(options: Partial<AcpHttpHandlerOptions> = {}): Promise<string> {
  const server = createAcpNodeServer({ agent: rawAgent(), resumable: true, ...options });
  servers.push(server);
  const address = await server.listen(0);
  return `http://127.0.0.1:${address.port}/acp`;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const prompt = (n: number): unknown => ({
  sessionId: "s1",
  prompt: [{ type: "text", text: String(n) }],
});

/** The text of an update event, or "end" for the prompt's answer. */
function label(data: Record<string, unknown>): string {
  if ("result" in data) return "end";
  return (data.params as { update: { content: { text: string } } }).update.content.text;
}

describe("resumable SSE streams", () => {
  it("advertises its retention at initialize and numbers events per stream from 1", async () => {
    const url = await serve({ resumable: { retentionMessages: 50, retentionSeconds: 60 } });
    const client = new RawClient(url);
    const answer = await client.initialize();
    expect((answer.result as { _meta: unknown })._meta).toEqual({
      "acp/transport": {
        keepAliveMs: 15000,
        resumable: {
          retentionMessages: 50,
          retentionWindowSeconds: 60,
          retentionBytes: 128 * 1024 * 1024,
          retentionSeconds: 60,
        },
      },
    });
    const main = await client.sse();
    const session = await client.sse("s1");
    await client.request("session/new", {});
    await client.request("session/prompt", prompt(2), "s1");
    expect((await main.take(1)).map((e) => e.id)).toEqual(["1"]);
    expect((await session.take(3)).map((e) => e.id)).toEqual(["1", "2", "3"]);
    await Promise.all([main.cancel(), session.cancel()]);
  });

  it("a stream cut mid-turn resumes with Last-Event-ID: the rest arrives once, in order", async () => {
    const url = await serve();
    const client = new RawClient(url);
    await client.initialize();
    const first = await client.sse("s1");
    await client.request("session/prompt", prompt(200), "s1");
    const before = await first.take(37);
    await first.cancel();
    const lastId = before.at(-1)!.id!;
    expect(lastId).toBe("37");
    // No need to wait for the server to notice the cut: a resume replaces the old receiver.
    const resumed = await client.sse("s1", { "Last-Event-ID": lastId });
    const after = await resumed.take(201 - 37);
    const all = [...before, ...after];
    expect(all.map((e) => Number(e.id))).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
    expect(all.map((e) => label(e.data))).toEqual([
      ...Array.from({ length: 200 }, (_, i) => String(i)),
      "end",
    ]);
    await resumed.cancel();
  });

  it("a resume replaces a receiver the server still thinks is alive", async () => {
    const url = await serve();
    const client = new RawClient(url);
    await client.initialize();
    const stale = await client.sse();
    const shout = (): Promise<Response> => client.post({ jsonrpc: "2.0", method: "_test/shout" });
    await shout();
    const [heard] = await stale.take(1);
    const fresh = await client.sse(undefined, { "Last-Event-ID": heard!.id! });
    // The old response ends.
    expect(await stale.next()).toBeUndefined();
    await shout();
    expect((await fresh.take(1))[0]).toMatchObject({ id: "2", data: { method: "_test/heard" } });
    // Without Last-Event-ID a second receiver is still refused.
    expect((await client.stream()).status).toBe(409);
    await fresh.cancel();
  });

  it("a receiver replaced by a resume no longer counts: the idle timeout reaps the connection", async () => {
    const closed: ConnectionCloseInfo[] = [];
    // Long enough that the steps before the resume fit in it on a loaded machine (each is
    // one loopback round trip): the test is about what happens after.
    const url = await serve({
      idleTimeoutMs: 2000,
      onConnectionClose: (info) => closed.push(info),
    });
    const client = new RawClient(url);
    await client.initialize();
    const stale = await client.sse();
    await client.post({ jsonrpc: "2.0", method: "_test/shout" });
    const [heard] = await stale.take(1);
    // The resume comes while the old response is still open.
    const fresh = await client.sse(undefined, { "Last-Event-ID": heard!.id! });
    expect(await stale.next()).toBeUndefined();
    await fresh.cancel();
    // No receiver left: the connection is idle and closes.
    expect(closed).toEqual([]);
    expect(await until(() => closed.length === 1, 10_000)).toBe(true);
    expect(closed[0]).toMatchObject({ reason: "idle" });
  });

  it("409 when the cursor fell out of the buffer or was never issued; 404 once the connection is gone", async () => {
    // Count only: no time window keeps more.
    const url = await serve({ resumable: { retentionMessages: 5, retentionWindowSeconds: 0 } });
    const client = new RawClient(url);
    await client.initialize();
    const session = await client.sse("s1");
    await client.request("session/prompt", prompt(20), "s1");
    await session.take(21);
    await session.cancel();
    const expired = await client.stream("s1", { "Last-Event-ID": "3" });
    expect(expired.status).toBe(409);
    expect(await expired.text()).toBe("resume failed: cursor-expired");
    const ahead = await client.stream("s1", { "Last-Event-ID": "99" });
    expect(ahead.status).toBe(409);
    expect(await ahead.text()).toBe("resume failed: cursor-ahead");
    expect((await client.stream("s1", { "Last-Event-ID": "abc" })).status).toBe(409);
    // The last 5 are still there.
    const tail = await client.sse("s1", { "Last-Event-ID": "16" });
    expect((await tail.take(5)).map((e) => e.id)).toEqual(["17", "18", "19", "20", "21"]);
    await tail.cancel();
    await fetch(url, { method: "DELETE", headers: { "Acp-Connection-Id": client.connectionId } });
    expect((await client.stream("s1", { "Last-Event-ID": "21" })).status).toBe(404);
  });

  it("10,000 updates cut seven times still arrive whole, in order, without duplicates", async () => {
    // The shipped retention.
    const url = await serve();
    const client = new RawClient(url);
    await client.initialize();
    let reader = await client.sse("s1");
    await client.request("session/prompt", prompt(10_000), "s1");
    const got: SseEvent[] = [];
    const cuts = [1, 700, 2_500, 2_501, 5_000, 8_123, 9_999];
    while (got.length < 10_001) {
      const event = await reader.next();
      if (event === undefined) throw new Error("stream ended early");
      got.push(event);
      if (cuts.includes(got.length)) {
        await reader.cancel();
        reader = await client.sse("s1", { "Last-Event-ID": event.id! });
      }
    }
    await reader.cancel();
    expect(got.map((e) => Number(e.id))).toEqual(Array.from({ length: 10_001 }, (_, i) => i + 1));
    expect(got.map((e) => label(e.data))).toEqual([
      ...Array.from({ length: 10_000 }, (_, i) => String(i)),
      "end",
    ]);
  }, 60_000);
});

/** A raw WebSocket client that records frames. */
class RawSocket {
  readonly frames: Record<string, unknown>[] = [];
  connectionId = "";
  closeCode: number | undefined;
  readonly ws: WebSocket;
  readonly opened: Promise<void>;

  private isCut = false;

  /** `cutAfter`: drop the connection right after that many frames (later ones are not seen). */
  constructor(
    url: string,
    private readonly cutAfter = Number.POSITIVE_INFINITY,
  ) {
    this.ws = new WebSocket(url.replace(/^http/, "ws"));
    this.ws.on("upgrade", (res) => {
      this.connectionId = String(res.headers["acp-connection-id"] ?? "");
    });
    this.ws.on("message", (data: Buffer) => {
      if (this.isCut) return;
      this.frames.push(JSON.parse(data.toString("utf8")) as Record<string, unknown>);
      if (this.frames.length >= this.cutAfter) this.cut();
    });
    this.ws.on("close", (code) => {
      this.closeCode = code;
    });
    this.ws.on("error", () => undefined);
    this.opened = new Promise((resolve) => this.ws.once("open", () => resolve()));
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Drops the TCP connection without a closing handshake. */
  cut(): void {
    this.isCut = true;
    this.ws.terminate();
  }
}

describe("resumable WebSocket connections", () => {
  it("a dropped socket resumes with a stream/resume first frame: no message lost or repeated", async () => {
    const url = await serve();
    const a = new RawSocket(url, 120);
    await a.opened;
    expect(a.connectionId).toMatch(/^[0-9a-f-]{36}$/);
    a.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } });
    a.send({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: prompt(500) });
    expect(await until(() => a.frames.length === 120)).toBe(true);
    const seen = a.frames.length;
    const b = new RawSocket(url);
    await b.opened;
    b.send({
      jsonrpc: "2.0",
      method: "stream/resume",
      params: { connectionId: a.connectionId, cursor: String(seen) },
    });
    expect(await until(() => b.frames.some((f) => f.id === 1))).toBe(true);
    expect(b.frames[0]).toEqual({
      jsonrpc: "2.0",
      method: "stream/resumed",
      params: { connectionId: a.connectionId, cursor: String(seen), received: 2 },
    });
    const all = [...a.frames, ...b.frames.slice(1)];
    expect(all[0]).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    expect(all.slice(1).map(label)).toEqual([
      ...Array.from({ length: 500 }, (_, i) => String(i)),
      "end",
    ]);
  });

  it("a refused resume answers stream/resume_failed and closes with 4409", async () => {
    const url = await serve({ resumable: { retentionMessages: 3, retentionWindowSeconds: 0 } });
    const a = new RawSocket(url);
    await a.opened;
    a.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    a.send({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: prompt(10) });
    expect(await until(() => a.frames.length === 12)).toBe(true);
    a.cut();
    for (const [params, reason] of [
      [{ connectionId: a.connectionId, cursor: "2" }, "cursor-expired"],
      [{ connectionId: a.connectionId, cursor: "50" }, "cursor-ahead"],
      [{ connectionId: "nope", cursor: "1" }, "unknown-connection"],
    ] as const) {
      const b = new RawSocket(url);
      await b.opened;
      b.send({ jsonrpc: "2.0", method: "stream/resume", params });
      expect(await until(() => b.closeCode !== undefined)).toBe(true);
      expect(b.closeCode).toBe(4409);
      expect(b.frames).toEqual([
        { jsonrpc: "2.0", method: "stream/resume_failed", params: { reason } },
      ]);
    }
  });

  it("a dropped socket's connection ends after retentionSeconds without a resume", async () => {
    const closed: ConnectionCloseInfo[] = [];
    const url = await serve({
      resumable: { retentionSeconds: 0.3 },
      onConnectionClose: (info) => closed.push(info),
    });
    const a = new RawSocket(url);
    await a.opened;
    a.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    expect(await until(() => a.frames.length === 1)).toBe(true);
    const cutAt = Date.now();
    a.cut();
    expect(await until(() => closed.length === 1)).toBe(true);
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(250);
    expect(closed[0]).toMatchObject({ connectionId: a.connectionId, reason: "socket-closed" });
  });

  it("a socket the client closes on purpose ends its connection at once, resumable or not", async () => {
    const closed: ConnectionCloseInfo[] = [];
    const url = await serve({
      resumable: { retentionSeconds: 300 },
      onConnectionClose: (info) => closed.push(info),
    });
    for (const code of [1000, undefined]) {
      const a = new RawSocket(url);
      await a.opened;
      a.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
      expect(await until(() => a.frames.length === 1)).toBe(true);
      const count = closed.length;
      a.ws.close(code);
      expect(await until(() => closed.length === count + 1)).toBe(true);
      expect(closed[count]).toMatchObject({
        connectionId: a.connectionId,
        reason: "socket-closed",
      });
    }
  });
});
