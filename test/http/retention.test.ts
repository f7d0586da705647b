/**
 * Replay retention. A stream keeps what it sent for a resume: the last `retentionMessages`,
 * and everything sent in the last `retentionWindowSeconds` however much, within
 * `retentionBytes`. With the shipped defaults a fast agent's turn survives a network
 * outage that swallows thousands of its messages (1,000 messages were kept before, and the
 * resume failed).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  PROTOCOL_VERSION,
  type Stream,
} from "../../packages/acp-kit/src/index.js";
import {
  connectHttp,
  connectWebSocket,
  type RemoteClientOptions,
  type RemoteEvent,
  type RemoteStream,
  type WebSocketClientOptions,
} from "../../packages/acp-kit/src/http/client/index.js";
import {
  createAcpNodeServer,
  type AcpNodeServer,
  type AcpServerEvent,
} from "../../packages/acp-kit/src/http/server/index.js";
import { OutboundStream } from "../../packages/acp-kit/src/http/server/outbound-stream.js";
import { startTcpProxy, type TcpProxy } from "./client-proxy.js";

describe("OutboundStream retention", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Queues `count` messages of `size` characters and sends all that is queued. */
  function send(stream: OutboundStream, count: number, size = 10): void {
    for (let i = 0; i < count; i++) stream.push("x".repeat(size));
    const lease = stream.attach()!;
    while (lease.poll() !== undefined);
    lease.release();
  }

  /** The cursors a receiver gets now (after a rewind: the replay). */
  function replayed(stream: OutboundStream): number[] {
    const lease = stream.attach()!;
    const cursors: number[] = [];
    for (let e = lease.poll(); e !== undefined; e = lease.poll()) cursors.push(e.cursor);
    lease.release();
    return cursors;
  }

  const T0 = 1_000_000;

  it("keeps every message younger than the window, however many", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const stream = new OutboundStream({ messages: 3, windowMs: 1_000, bytes: 1_000_000 });
    send(stream, 50);
    vi.setSystemTime(T0 + 999);
    send(stream, 1);
    expect(stream.rewind(0)).toBeUndefined();
    expect(replayed(stream)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
  });

  it("beyond the window only the last `messages` are kept", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const stream = new OutboundStream({ messages: 3, windowMs: 1_000, bytes: 1_000_000 });
    send(stream, 50);
    vi.setSystemTime(T0 + 1_000);
    send(stream, 1);
    expect(stream.rewind(47)).toBe("cursor-expired");
    expect(stream.rewind(48)).toBeUndefined();
    expect(replayed(stream)).toEqual([49, 50, 51]);
  });

  it("the byte limit holds whatever the window and the count say", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const stream = new OutboundStream({ messages: 100, windowMs: 60_000, bytes: 1_000 });
    send(stream, 30, 100); // 3,000 characters sent, 1,000 kept: the last 10
    expect(stream.rewind(19)).toBe("cursor-expired");
    expect(stream.rewind(20)).toBeUndefined();
    expect(replayed(stream)).toEqual(Array.from({ length: 10 }, (_, i) => i + 21));
  });
});

/**
 * An agent whose prompt "N" streams N updates as fast as the connection takes them; "N xK"
 * pads each with K characters.
 */
function fastAgent(stream: Stream, produced: { count: number }): AgentSideConnection {
  return new AgentSideConnection(
    (conn) => ({
      initialize: () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }),
      newSession: () => ({ sessionId: "s1" }),
      authenticate: () => ({}),
      cancel: () => undefined,
      prompt: async (params) => {
        const first = params.prompt[0];
        const [n = "0", pad = "x0"] = (first?.type === "text" ? first.text : "0").split(" ");
        const padding = " ".repeat(Number(pad.slice(1)));
        for (let i = 0; i < Number(n); i++) {
          await conn.sessionUpdate({
            sessionId: params.sessionId,
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: `${i}${padding}` },
            },
          });
          produced.count++;
        }
        return { stopReason: "end_turn" };
      },
    }),
    stream,
  );
}

async function waitFor(predicate: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const transports: [string, (url: string, options: RemoteClientOptions) => RemoteStream][] = [
  ["HTTP/SSE", connectHttp],
  ["WebSocket", connectWebSocket],
];

describe.each(transports)("%s, acp-kit's server with the shipped retention", (_name, connect) => {
  let server: AcpNodeServer | undefined;
  let proxy: TcpProxy | undefined;
  let stream: RemoteStream | undefined;

  afterEach(async () => {
    await stream?.close();
    await proxy?.close();
    await server?.close();
  });

  it("a fast agent's turn survives an outage that swallowed 15,000 of its messages, then a cut", async () => {
    const produced = { count: 0 };
    const serverEvents: AcpServerEvent[] = [];
    server = createAcpNodeServer({
      agent: (s) => fastAgent(s, produced),
      resumable: true, // the defaults
      logger: (event) => serverEvents.push(event),
    });
    const { port } = await server.listen(0, "127.0.0.1");
    proxy = await startTcpProxy(port);
    const events: RemoteEvent[] = [];
    stream = connect(`http://127.0.0.1:${proxy.port}/acp`, {
      reconnect: { initialDelayMs: 10, maxDelayMs: 100, maxAttempts: 20 },
      onEvent: (e) => events.push(e),
    });
    const texts: string[] = [];
    const connection = new ClientSideConnection(
      () => ({
        sessionUpdate: (n) => {
          if (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text")
            texts.push(n.update.content.text);
        },
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      }),
      stream,
    );
    await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
    const TURN = 40_000;
    const turn = connection.prompt({ sessionId, prompt: [{ type: "text", text: String(TURN) }] });
    await waitFor(() => texts.length >= 2_000);
    // The network goes silent: what the server writes now is swallowed (sent, never
    // received), until the connection is cut.
    proxy.stall(true);
    const atStall = produced.count;
    await waitFor(() => produced.count >= Math.min(atStall + 15_000, TURN));
    proxy.cut();
    proxy.stall(false);
    await expect(turn).resolves.toEqual({ stopReason: "end_turn" });
    expect(texts.length).toBe(TURN);
    expect(texts).toEqual(Array.from({ length: TURN }, (_, i) => String(i)));
    expect(events.some((e) => e.type === "reconnected" && e.resumed)).toBe(true);
    expect(serverEvents.filter((e) => e.type === "resume-failed")).toEqual([]);
    expect(events.some((e) => e.type === "resume-gap")).toBe(false);
  }, 120_000);
});

describe("WebSocket server: what a drop can lose", () => {
  let server: AcpNodeServer | undefined;
  let proxy: TcpProxy | undefined;
  let stream: RemoteStream | undefined;

  afterEach(async () => {
    await stream?.close();
    await proxy?.close();
    await server?.close();
  });

  it("a fast agent ahead of a slow client: the backlog waits in the queue, not in the socket, and a cut loses no more than the socket holds", async () => {
    const produced = { count: 0 };
    server = createAcpNodeServer({
      agent: (s) => fastAgent(s, produced),
      // 16 MiB of replay, by size only (no count nor time keeps more): the socket used to be
      // given up to 64 MiB.
      resumable: {
        retentionMessages: 1_000_000,
        retentionWindowSeconds: 0,
        retentionBytes: 16 << 20,
      },
    });
    const { port } = await server.listen(0, "127.0.0.1");
    proxy = await startTcpProxy(port);
    stream = connectWebSocket(`http://127.0.0.1:${proxy.port}/acp`, {
      reconnect: { initialDelayMs: 10, maxDelayMs: 100, maxAttempts: 20 },
    });
    let received = 0;
    let inOrder = true;
    const connection = new ClientSideConnection(
      () => ({
        sessionUpdate: (n) => {
          if (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text")
            inOrder &&= Number.parseInt(n.update.content.text, 10) === received++;
        },
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      }),
      stream,
    );
    await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
    const TURN = 40_000;
    proxy.delayMs = 2; // the client reads slowly
    const turn = connection.prompt({
      sessionId,
      prompt: [{ type: "text", text: `${TURN} x1000` }],
    });
    // 25,000 messages of 1 kB between the agent and the client: 25 MB.
    await waitFor(() => produced.count - received >= 25_000);
    proxy.cut();
    proxy.delayMs = 0;
    await expect(turn).resolves.toEqual({ stopReason: "end_turn" });
    expect(received).toBe(TURN);
    expect(inOrder).toBe(true);
  }, 120_000);
});

describe("WebSocket client: what it keeps to send again", () => {
  let server: AcpNodeServer | undefined;
  let proxy: TcpProxy | undefined;
  let stream: RemoteStream | undefined;

  afterEach(async () => {
    await stream?.close();
    await proxy?.close();
    await server?.close();
  });

  /** A server hearing `_flood/n` notifications, a client through the proxy. */
  async function start(options: WebSocketClientOptions = {}): Promise<{
    connection: ClientSideConnection;
    heard: number[];
    events: RemoteEvent[];
  }> {
    const heard: number[] = [];
    server = createAcpNodeServer({
      agent: (s) =>
        new AgentSideConnection(
          () => ({
            initialize: () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }),
            newSession: () => ({ sessionId: "s1" }),
            authenticate: () => ({}),
            prompt: () => ({ stopReason: "end_turn" }),
            cancel: () => undefined,
            extNotification: (_method, params) => {
              heard.push(Number(params.i));
            },
          }),
          s,
        ),
      resumable: true,
    });
    const { port } = await server.listen(0, "127.0.0.1");
    proxy = await startTcpProxy(port);
    const events: RemoteEvent[] = [];
    stream = connectWebSocket(`http://127.0.0.1:${proxy.port}/acp`, {
      reconnect: { initialDelayMs: 10, maxDelayMs: 100, maxAttempts: 20 },
      onEvent: (e) => events.push(e),
      ...options,
    });
    const connection = new ClientSideConnection(
      () => ({
        sessionUpdate: () => undefined,
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      }),
      stream,
    );
    await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    return { connection, heard, events };
  }

  /** Sends `count` notifications while the network swallows them, then cuts it. */
  async function swallow(connection: ClientSideConnection, count: number): Promise<void> {
    proxy!.stall(true);
    await Promise.all(
      Array.from({ length: count }, (_, i) => connection.extNotification("_flood/n", { i })),
    );
    proxy!.cut();
    proxy!.stall(false);
  }

  it("20,000 client messages swallowed by an outage are sent again after the resume, in order", async () => {
    const { connection, heard, events } = await start();
    const COUNT = 20_000;
    await swallow(connection, COUNT);
    // A request after them: its answer means the server has read all that came before.
    await connection.newSession({ cwd: "/", mcpServers: [] });
    expect(heard).toEqual(Array.from({ length: COUNT }, (_, i) => i));
    expect(events.some((e) => e.type === "reconnected" && e.resumed)).toBe(true);
  });

  it("beyond resendBufferBytes they are not kept: the resume fails clearly", async () => {
    const { connection, events } = await start({ resendBufferBytes: 10_000 });
    await swallow(connection, 2_000);
    await stream!.closed;
    expect((events.at(-1) as { error?: Error }).error?.message).toBe(
      "Messages sent before the drop are no longer held to be sent again",
    );
  });
});
