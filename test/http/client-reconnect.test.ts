/**
 * Reconnecting through an outage: a TCP proxy between client and server resets every new
 * connection for a while (`refuse(n)`), and the tests count the tries it saw. One drop is
 * one reconnect loop: its tries are numbered 1, 2, 3, ... and stop at `maxAttempts`; an
 * upgrade the server refuses says its HTTP status, and a refusal that trying again cannot
 * change (401) ends the connection at once.
 */
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import {
  ClientSideConnection,
  PROTOCOL_VERSION,
  RequestError,
  type Client,
  type SessionNotification,
} from "../../packages/acp-kit/src/index.js";
import {
  connectHttp,
  connectWebSocket,
  HttpStatusError,
  type RemoteClientOptions,
  type RemoteEvent,
  type RemoteStream,
} from "../../packages/acp-kit/src/http/client/index.js";
import {
  createAcpNodeServer,
  type AcpHttpHandlerOptions,
  type AcpNodeServer,
} from "../../packages/acp-kit/src/http/server/index.js";
import {
  MAX_RETRY_AFTER_MS,
  retryAfterMs,
} from "../../packages/acp-kit/src/http/client/options.js";
import { startTcpProxy, type TcpProxy } from "./client-proxy.js";
import { startAgent } from "./client-resumable-server.js";

let server: AcpNodeServer | undefined;
let proxy: TcpProxy | undefined;
let stream: RemoteStream | undefined;

afterEach(async () => {
  await stream?.close();
  await proxy?.close();
  await server?.close();
  stream = undefined;
  proxy = undefined;
  server = undefined;
});

/** acp-kit's server, resumable, behind a proxy; returns the proxy's URL. */
async function serve(options: Partial<AcpHttpHandlerOptions> = {}): Promise<string> {
  server = createAcpNodeServer({ agent: (s) => startAgent(s), resumable: true, ...options });
  const { port } = await server.listen(0, "127.0.0.1");
  proxy = await startTcpProxy(port);
  return `http://127.0.0.1:${proxy.port}/acp`;
}

/** Short delays: the counts, not the times, are what the tests look at. */
const RECONNECT = { initialDelayMs: 5, maxDelayMs: 40, maxAttempts: 5 };

function client(updates: string[]): Client {
  return {
    sessionUpdate: (n: SessionNotification) => {
      const u = n.update;
      if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
        updates.push(u.content.text);
    },
    requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
  };
}

async function open(
  connect: (url: string, options: RemoteClientOptions) => RemoteStream,
  url: string,
  options: RemoteClientOptions = {},
): Promise<{
  connection: ClientSideConnection;
  events: RemoteEvent[];
  updates: string[];
  sessionId: string;
}> {
  const events: RemoteEvent[] = [];
  const updates: string[] = [];
  stream = connect(url, { reconnect: RECONNECT, onEvent: (e) => events.push(e), ...options });
  const connection = new ClientSideConnection(() => client(updates), stream);
  await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
  return { connection, events, updates, sessionId };
}

const attempts = (events: RemoteEvent[], stream = "connection"): number[] =>
  events.flatMap((e) => (e.type === "reconnecting" && e.stream === stream ? [e.attempt] : []));

describe("WebSocket client: one reconnect loop per drop", () => {
  it("an outage that does not end: maxAttempts tries, numbered once each, then a clear end", async () => {
    const url = await serve();
    const { events } = await open(connectWebSocket, url);
    const p = proxy!;
    p.refuse(Infinity);
    expect(p.cut()).toBeGreaterThan(0);
    await stream!.closed;
    // Before the fix every failed try started a loop of its own: thousands of tries.
    expect(p.refused).toBe(RECONNECT.maxAttempts);
    expect(attempts(events)).toEqual([1, 2, 3, 4, 5]);
    const closed = events.at(-1);
    expect(closed?.type).toBe("closed");
    expect((closed as { error?: Error }).error?.message).toMatch(
      /no reconnect after 5 tries \(last: The WebSocket closed \(code 1006: .+\)\)/,
    );
  });

  it("an outage that ends after 3 tries: the 4th resumes, no other socket is opened, the turn arrives whole", async () => {
    const url = await serve();
    const { connection, events, updates, sessionId } = await open(connectWebSocket, url);
    const p = proxy!;
    const before = p.accepted;
    p.refuse(3);
    expect(p.cut()).toBeGreaterThan(0);
    const turn = connection.prompt({ sessionId, prompt: [{ type: "text", text: "500" }] });
    await expect(turn).resolves.toEqual({ stopReason: "end_turn" });
    expect(updates).toEqual(Array.from({ length: 500 }, (_, i) => String(i)));
    expect(p.refused).toBe(3);
    expect(p.accepted - before).toBe(1);
    expect(attempts(events)).toEqual([1, 2, 3, 4]);
    expect(events.filter((e) => e.type === "reconnected")).toEqual([
      { type: "reconnected", stream: "connection", resumed: true },
    ]);
    // A second drop starts a new loop, numbered from 1 again.
    p.refuse(1);
    p.cut();
    await expect(
      connection.prompt({ sessionId, prompt: [{ type: "text", text: "5" }] }),
    ).resolves.toEqual({ stopReason: "end_turn" });
    expect(attempts(events)).toEqual([1, 2, 3, 4, 1, 2]);
    expect(p.accepted - before).toBe(2);
  });

  it("an upgrade refused with 401 says so (status and body), not 'closed (code 1006)'", async () => {
    const url = await serve({ authenticate: () => undefined });
    const events: RemoteEvent[] = [];
    stream = connectWebSocket(url, { reconnect: RECONNECT, onEvent: (e) => events.push(e) });
    const connection = new ClientSideConnection(() => client([]), stream);
    const failed = await connection
      .initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    await stream.closed;
    const error = (events.at(-1) as { error?: Error }).error;
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(401);
    expect(error?.message).toMatch(/^The WebSocket upgrade: HTTP 401/);
    expect(attempts(events)).toEqual([]);
  });

  it("a resume refused with 401 (the token was revoked) ends the connection after that one try", async () => {
    let allowed = true;
    const url = await serve({ authenticate: () => (allowed ? { id: "me" } : undefined) });
    const { events } = await open(connectWebSocket, url);
    allowed = false;
    const before = proxy!.accepted;
    proxy!.cut();
    await stream!.closed;
    expect(proxy!.accepted - before).toBe(1);
    expect(attempts(events)).toEqual([1]);
    const error = (events.at(-1) as { error?: Error }).error;
    expect((error as HttpStatusError).status).toBe(401);
  });

  it("a resume answered 503 (a proxy whose backend is away) is tried again", async () => {
    let unavailable = 2;
    const url = await serve({
      authenticate: () => {
        if (unavailable === 0) return { id: "me" };
        unavailable--;
        return new Response("backend away", { status: 503 });
      },
    });
    unavailable = 0;
    const { connection, events, sessionId } = await open(connectWebSocket, url);
    unavailable = 2;
    proxy!.cut();
    await expect(
      connection.prompt({ sessionId, prompt: [{ type: "text", text: "5" }] }),
    ).resolves.toEqual({ stopReason: "end_turn" });
    expect(attempts(events)).toEqual([1, 2, 3]);
    expect(
      events.filter((e) => e.type === "reconnecting").map((e) => (e as { reason: string }).reason),
    ).toEqual([
      expect.stringMatching(/code 1006/),
      "The WebSocket upgrade: HTTP 503 (backend away)",
      "The WebSocket upgrade: HTTP 503 (backend away)",
    ]);
  });
});

describe("HTTP client: Retry-After", () => {
  it("a POST answered 503 with Retry-After is sent again after the time asked, not the (shorter) backoff", async () => {
    let unavailable = 0;
    const url = await serve({
      authenticate: (request) => {
        if (request.method === "POST" && unavailable > 0) {
          unavailable--;
          return new Response("busy", { status: 503, headers: { "Retry-After": "1" } });
        }
        return { id: "me" };
      },
    });
    const { connection, events, sessionId } = await open(connectHttp, url);
    unavailable = 1;
    await expect(
      connection.prompt({ sessionId, prompt: [{ type: "text", text: "2" }] }),
    ).resolves.toEqual({ stopReason: "end_turn" });
    const waits = events.flatMap((e) => (e.type === "reconnecting" ? [e.delayMs] : []));
    // RECONNECT's backoff is at most 40 ms; the server asked for a second.
    expect(waits).toEqual([1000]);
  });

  it("reads delta-seconds and HTTP dates, and waits a minute at most", () => {
    const now = Date.parse("2026-11-28T12:00:00Z");
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(" 3 ", now)).toBe(3000);
    expect(retryAfterMs("Sat, 28 Nov 2026 12:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Sat, 28 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("86400", now)).toBe(MAX_RETRY_AFTER_MS);
  });
});

describe("WebSocket client: a resume that is never answered", () => {
  let fake: WebSocketServer | undefined;

  afterEach(async () => {
    for (const client of fake?.clients ?? []) client.terminate();
    await new Promise((resolve) => (fake ? fake.close(resolve) : resolve(undefined)));
    fake = undefined;
  });

  it("fails that try after requestTimeoutMs: the loop goes on, and ends after maxAttempts", async () => {
    // A server that answers initialize as a resumable one, then takes every resume in silence.
    fake = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    fake.on("headers", (headers) => headers.push("Acp-Connection-Id: c1"));
    const sockets: WebSocket[] = [];
    fake.on("connection", (socket) => {
      sockets.push(socket);
      socket.on("message", (data: Buffer) => {
        const message = JSON.parse(data.toString("utf8")) as { id?: number; method: string };
        if (message.method !== "initialize") return;
        socket.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: PROTOCOL_VERSION,
              agentCapabilities: {},
              _meta: { "acp/transport": { keepAliveMs: 15_000, resumable: {} } },
            },
          }),
        );
      });
    });
    await new Promise((resolve) => fake!.once("listening", resolve));
    const { port } = fake.address() as AddressInfo;
    const events: RemoteEvent[] = [];
    stream = connectWebSocket(`ws://127.0.0.1:${port}/acp`, {
      reconnect: { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 },
      requestTimeoutMs: 200,
      onEvent: (e) => events.push(e),
    });
    const connection = new ClientSideConnection(() => client([]), stream);
    await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    sockets[0]!.terminate();
    await stream.closed;
    expect(sockets).toHaveLength(4);
    expect(attempts(events)).toEqual([1, 2, 3]);
    expect((events.at(-1) as { error?: Error }).error?.message).toMatch(
      /no reconnect after 3 tries \(last: The WebSocket closed \(code 1006: No answer to stream\/resume in 200 ms\)\)/,
    );
  });
});

describe("HTTP client through an outage", () => {
  it("an outage that does not end: each stream tries maxAttempts times, then the transport ends", async () => {
    const url = await serve();
    const { events, sessionId } = await open(connectHttp, url);
    const p = proxy!;
    p.refuse(Infinity);
    p.cut();
    await stream!.closed;
    expect(attempts(events)).toEqual([1, 2, 3, 4, 5]);
    expect(attempts(events, sessionId).length).toBeLessThanOrEqual(5);
    // The connection stream's tries, and at most as many of the session's.
    expect(p.refused).toBeGreaterThanOrEqual(5);
    expect(p.refused).toBeLessThanOrEqual(10);
  });

  it("a stream the server opens and ends at once is a failed try: maxAttempts, then the end", async () => {
    const url = await serve();
    // After the first open, every event stream is answered 200 with its opening comment
    // and ends at once (a broken proxy). Each such try used to start the count again: the
    // client retried for ever at the first backoff step.
    let opened = 0;
    let firstOpen!: () => void;
    const streamOpen = new Promise<void>((resolve) => (firstOpen = resolve));
    const brief: typeof fetch = async (input, init) => {
      if (init?.method !== "GET") return fetch(input, init);
      if (opened++ > 0) {
        return new Response(": open\n\n", {
          status: 200,
          headers: { "content-type": "text/event-stream" },
        });
      }
      const response = await fetch(input, init);
      firstOpen();
      return response;
    };
    const events: RemoteEvent[] = [];
    stream = connectHttp(url, {
      reconnect: RECONNECT,
      fetch: brief,
      onEvent: (e) => events.push(e),
    });
    const connection = new ClientSideConnection(() => client([]), stream);
    await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    await streamOpen;
    proxy!.cut();
    await stream.closed;
    expect(attempts(events)).toEqual([1, 2, 3, 4, 5]);
  });

  it("a request whose POST is lost to the network fails alone; the connection goes on", async () => {
    const url = await serve();
    let cutOnce = true;
    const flaky: typeof fetch = async (input, init) => {
      if (cutOnce && typeof init?.body === "string" && init.body.includes('"session/new"')) {
        cutOnce = false;
        // As undici reports a socket closed under a request (not refused: it may have run).
        throw new TypeError("fetch failed", {
          cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
        });
      }
      return fetch(input, init);
    };
    const events: RemoteEvent[] = [];
    stream = connectHttp(url, {
      reconnect: RECONNECT,
      fetch: flaky,
      onEvent: (e) => events.push(e),
    });
    const connection = new ClientSideConnection(() => client([]), stream);
    await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const lost = await connection
      .newSession({ cwd: "/", mcpServers: [] })
      .catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(RequestError);
    expect((lost as RequestError).code).toBe(-32603);
    expect((lost as RequestError).message).toMatch(/fetch failed/);
    const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
    await expect(
      connection.prompt({ sessionId, prompt: [{ type: "text", text: "3" }] }),
    ).resolves.toEqual({ stopReason: "end_turn" });
    expect(events.some((e) => e.type === "closed")).toBe(false);
  });
});
