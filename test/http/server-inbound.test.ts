/**
 * Hostile clients against the server's memory (issue 16, item 10): client messages the
 * agent does not read are held up to `maxInboundBytesPerConnection`, then a POST gets 503
 * with Retry-After and a WebSocket is no longer read; a WebSocket that never sends
 * `initialize` is closed after `firstMessageTimeoutMs` and counts against
 * `maxConnectionsPerPrincipal` while open. Before, every message was queued (150 POSTs of
 * 1 MiB grew the server by 150 MiB of heap, see test/load/server-inbound-flood.test.ts),
 * frames sent while `initialize` was pending too, and an idle socket stayed forever outside
 * the limit.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  createAcpHttpHandler,
  createAcpNodeServer,
  type AcpAgentFactory,
  type AcpHttpHandlerOptions,
  type AcpNodeServer,
  type AcpServerEvent,
  type AcpSocket,
  type AcpSocketEvents,
  type ConnectionCloseInfo,
} from "../../packages/acp-kit/src/http/server/index.js";
import type { AnyMessage } from "../../packages/acp-kit/src/index.js";
import { connectHttp } from "../../packages/acp-kit/src/http/client/index.js";
import { RawClient } from "./server-support.js";
import { until } from "../support/interop-wire.js";

type Msg = Record<string, unknown> & { id?: string | number; method?: string };

/**
 * An agent that answers `initialize` when `answerInitialize()` is called (at once with
 * `initialized: true`), and reads nothing more until `startReading()`.
 */
function stalledAgent(initialized: boolean): {
  factory: AcpAgentFactory;
  received: Msg[];
  answerInitialize(): void;
  startReading(): void;
} {
  let answer!: () => void;
  const initGate = new Promise<void>((resolve) => (answer = resolve));
  if (initialized) answer();
  let read!: () => void;
  const readGate = new Promise<void>((resolve) => (read = resolve));
  const received: Msg[] = [];
  const factory: AcpAgentFactory = (stream) => {
    const reader = stream.readable.getReader();
    const writer = stream.writable.getWriter();
    void (async () => {
      const first = await reader.read();
      if (first.done) return;
      const init = first.value as unknown as Msg;
      await initGate;
      await writer.write({ jsonrpc: "2.0", id: init.id, result: { protocolVersion: 1 } } as never);
      await readGate;
      for (;;) {
        const next = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (next.done) return;
        received.push(next.value as unknown as Msg);
      }
    })();
  };
  return { factory, received, answerInitialize: answer, startReading: read };
}

const BUDGET = 64 * 1024;
const PAD = "x".repeat(16 * 1024);
/** A notification of about 16 KiB: four of them pass the 64 KiB budget. */
const padded = (i: number): Msg => ({
  jsonrpc: "2.0",
  method: "_test/pad",
  params: { i, pad: PAD },
});
const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });

const servers: AcpNodeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(options: AcpHttpHandlerOptions): Promise<string> {
  const server = createAcpNodeServer(options);
  servers.push(server);
  const { port } = await server.listen(0);
  return `http://127.0.0.1:${port}/acp`;
}

/** A socket for the Fetch core that records what the core does with it. */
class FakeSocket implements AcpSocket {
  sent: string[] = [];
  closed: { code: number | undefined; reason: string | undefined } | undefined;
  paused = false;
  pauses = 0;
  resumes = 0;
  send(text: string): void {
    this.sent.push(text);
  }
  close(code?: number, reason?: string): void {
    this.closed ??= { code, reason };
  }
}

class PausableSocket extends FakeSocket {
  pause(): void {
    this.paused = true;
    this.pauses++;
  }
  resume(): void {
    this.paused = false;
    this.resumes++;
  }
}

async function acceptFake(
  handler: ReturnType<typeof createAcpHttpHandler>,
  socket: AcpSocket,
): Promise<AcpSocketEvents> {
  const upgrade = await handler.prepareWebSocket(new Request("http://acp.test/acp"));
  if (!upgrade.ok) throw new Error(`upgrade refused: ${upgrade.response.status}`);
  return upgrade.accept(socket);
}

describe("client messages the agent does not read", () => {
  it("POSTs past maxInboundBytesPerConnection get 503 with Retry-After; what was taken reaches the agent, in order", async () => {
    const agent = stalledAgent(true);
    const events: AcpServerEvent[] = [];
    const url = await serve({
      agent: agent.factory,
      maxInboundBytesPerConnection: BUDGET,
      logger: (e) => events.push(e),
    });
    const client = new RawClient(url);
    await client.initialize();
    const answers: [number, string | null][] = [];
    for (let i = 0; i < 10; i++) {
      const response = await client.post(padded(i));
      answers.push([response.status, response.headers.get("Retry-After")]);
      await response.text();
    }
    // 3 × 16 KiB wait for the agent; the fourth would pass 64 KiB.
    expect(answers).toEqual([
      ...Array.from({ length: 3 }, () => [202, null]),
      ...Array.from({ length: 7 }, () => [503, "1"]),
    ]);
    expect(events.filter((e) => e.status === 503)).toHaveLength(7);
    expect(events.find((e) => e.status === 503)).toMatchObject({ reason: "Agent is not reading" });

    agent.startReading();
    expect(await until(() => agent.received.length === 3)).toBe(true);
    expect(agent.received.map((m) => (m.params as { i: number }).i)).toEqual([0, 1, 2]);
    // Read: the connection takes messages again (a refused one sent again, and more).
    for (const i of [3, 4, 5, 6, 7]) expect((await client.post(padded(i))).status).toBe(202);
    expect(await until(() => agent.received.length === 8)).toBe(true);
    expect(agent.received.map((m) => (m.params as { i: number }).i)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7,
    ]);
  });

  it("one message larger than the budget is taken when nothing waits", async () => {
    const agent = stalledAgent(true);
    const url = await serve({ agent: agent.factory, maxInboundBytesPerConnection: 1024 });
    const client = new RawClient(url);
    await client.initialize();
    expect((await client.post(padded(0))).status).toBe(202);
    expect((await client.post(padded(1))).status).toBe(503);
    agent.startReading();
    expect(await until(() => agent.received.length === 1)).toBe(true);
    expect((await client.post(padded(1))).status).toBe(202);
  });

  it("a WebSocket is paused while frames (sent before initialize is answered) and unread messages pass the budget, resumed once read", async () => {
    const agent = stalledAgent(false);
    const handler = createAcpHttpHandler({
      agent: agent.factory,
      maxInboundBytesPerConnection: BUDGET,
      keepAliveMs: 0,
    });
    const socket = new PausableSocket();
    const events = await acceptFake(handler, socket);
    events.message(INITIALIZE);
    let pausedAt = -1;
    for (let i = 0; i < 10; i++) {
      events.message(JSON.stringify(padded(i)));
      if (socket.paused && pausedAt < 0) pausedAt = i;
    }
    // initialize + 4 × 16 KiB pass 64 KiB: the socket is paused at the fourth frame.
    expect(pausedAt).toBe(3);
    expect(socket.pauses).toBe(1);
    agent.answerInitialize();
    expect(await until(() => socket.sent.length === 1)).toBe(true);
    expect(JSON.parse(socket.sent[0]!)).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    expect(socket.resumes).toBe(0);
    agent.startReading();
    expect(await until(() => agent.received.length === 10)).toBe(true);
    expect(agent.received.map((m) => (m.params as { i: number }).i)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(socket.paused).toBe(false);
    expect(socket.resumes).toBe(1);
    expect(socket.closed).toBeUndefined();
    await handler.close();
  });

  it("a paused WebSocket is not taken for dead for the pongs it cannot read", async () => {
    const agent = stalledAgent(true);
    const handler = createAcpHttpHandler({
      agent: agent.factory,
      maxInboundBytesPerConnection: BUDGET,
      keepAliveMs: 10,
    });
    // Neither socket answers pings; only the one paused for the agent may stay.
    class PingedSocket extends PausableSocket {
      pings = 0;
      terminated = false;
      ping(): void {
        this.pings++;
      }
      terminate(): void {
        this.terminated = true;
      }
    }
    const paused = new PingedSocket();
    const events = await acceptFake(handler, paused);
    events.message(INITIALIZE);
    for (let i = 0; i < 5; i++) events.message(JSON.stringify(padded(i)));
    expect(paused.paused).toBe(true);
    const silent = new PingedSocket();
    (await acceptFake(handler, silent)).message(INITIALIZE);
    expect(await until(() => silent.terminated)).toBe(true);
    expect(await until(() => paused.pings >= 6)).toBe(true);
    expect(paused.terminated).toBe(false);
    agent.startReading();
    expect(await until(() => agent.received.length === 5)).toBe(true);
    await handler.close();
  });

  it("a WebSocket that cannot pause is closed (1008, reason limit) past budget + maxBodyBytes", async () => {
    const agent = stalledAgent(true);
    const closed: ConnectionCloseInfo[] = [];
    const handler = createAcpHttpHandler({
      agent: agent.factory,
      maxInboundBytesPerConnection: BUDGET,
      maxBodyBytes: 32 * 1024,
      keepAliveMs: 0,
      onConnectionClose: (info) => closed.push(info),
    });
    const socket = new FakeSocket();
    const events = await acceptFake(handler, socket);
    events.message(INITIALIZE);
    expect(await until(() => socket.sent.length === 1)).toBe(true);
    let closedAt = -1;
    for (let i = 0; i < 10 && closedAt < 0; i++) {
      events.message(JSON.stringify(padded(i)));
      if (socket.closed !== undefined) closedAt = i;
    }
    // 6 × 16 KiB pass 64 + 32 KiB.
    expect(closedAt).toBe(5);
    expect(socket.closed).toEqual({ code: 1008, reason: "Agent is not reading" });
    expect(closed).toMatchObject([{ reason: "limit", transport: "websocket" }]);
  });
});

describe("WebSockets that never initialize", () => {
  it("count against maxConnectionsPerPrincipal while open and are closed after firstMessageTimeoutMs", async () => {
    const closed: ConnectionCloseInfo[] = [];
    const url = await serve({
      agent: stalledAgent(true).factory,
      maxConnectionsPerPrincipal: 1,
      firstMessageTimeoutMs: 300,
      keepAliveMs: 0,
      onConnectionClose: (info) => closed.push(info),
    });
    const wsUrl = url.replace(/^http/, "ws");
    const idle = new WebSocket(wsUrl);
    const idleClosed = new Promise<[number, string]>((resolve) =>
      idle.once("close", (code, reason) => resolve([code, reason.toString()])),
    );
    await new Promise((resolve) => idle.once("open", resolve));
    // The server accepted the socket before the client saw it open: its slot is taken.
    await expect(new RawClient(url).initialize()).rejects.toThrow("429");
    const second = new WebSocket(wsUrl);
    const refused = new Promise<number>((resolve) =>
      second.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)),
    );
    second.on("error", () => undefined);
    expect(await refused).toBe(429);
    expect(await idleClosed).toEqual([1008, "No initialize in time"]);
    // No connection was opened, and the slot is free again.
    expect(closed).toEqual([]);
    const client = new RawClient(url);
    await client.initialize();
  });

  it("a socket that initialized stays open past the timeout", async () => {
    const handler = createAcpHttpHandler({
      agent: stalledAgent(true).factory,
      firstMessageTimeoutMs: 100,
      keepAliveMs: 0,
    });
    const initialized = new PausableSocket();
    (await acceptFake(handler, initialized)).message(INITIALIZE);
    const idle = new FakeSocket();
    await acceptFake(handler, idle);
    // Both timers ran (the idle one was set last); only the idle socket is closed.
    expect(await until(() => idle.closed !== undefined)).toBe(true);
    expect(idle.closed).toEqual({ code: 1008, reason: "No initialize in time" });
    expect(initialized.closed).toBeUndefined();
    expect(handler.connectionCount).toBe(1);
    await handler.close();
    expect(initialized.closed).toEqual({ code: 1001, reason: "Server shutting down" });
  });

  it("the Fetch core's close() closes them too (and frees their slots)", async () => {
    const handler = createAcpHttpHandler({
      agent: stalledAgent(true).factory,
      maxConnectionsPerPrincipal: 1,
      keepAliveMs: 0,
    });
    const unbound = new FakeSocket();
    await acceptFake(handler, unbound);
    expect((await handler.prepareWebSocket(new Request("http://acp.test/acp"))).ok).toBe(false);
    await handler.close();
    expect(unbound.closed).toEqual({ code: 1001, reason: "Server shutting down" });
    expect((await handler.prepareWebSocket(new Request("http://acp.test/acp"))).ok).toBe(true);
  });
});

describe("acp-kit's client against a server whose agent falls behind", () => {
  it("a message refused with 503 is sent again and arrives, in order; nothing is lost", async () => {
    const agent = stalledAgent(true);
    const url = await serve({ agent: agent.factory, maxInboundBytesPerConnection: BUDGET });
    const refusals: string[] = [];
    const stream = connectHttp(url, {
      reconnect: { initialDelayMs: 20, maxDelayMs: 100, maxAttempts: 100 },
      onEvent: (event) => {
        if (event.type === "reconnecting") refusals.push(event.reason);
      },
    });
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    await writer.write(JSON.parse(INITIALIZE) as AnyMessage);
    expect((await reader.read()).value).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    const sent = Promise.all(
      Array.from({ length: 8 }, (_, i) => writer.write(padded(i) as unknown as AnyMessage)),
    );
    // The agent reads only once the server has refused a message.
    expect(await until(() => refusals.length > 0)).toBe(true);
    expect(refusals[0]).toContain("503");
    agent.startReading();
    await sent;
    expect(await until(() => agent.received.length === 8)).toBe(true);
    // The client sends one message at a time, so a refused one is not overtaken.
    expect(agent.received.map((m) => (m.params as { i: number }).i)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7,
    ]);
    await writer.close();
  });
});
