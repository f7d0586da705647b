/**
 * acp-kit's HTTP server on the wire: status codes, stream routing, security and limits,
 * over real sockets on 127.0.0.1.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { memoryStreamPair, type AgentSideConnection } from "../../packages/acp-kit/src/index.js";
import {
  bearerTokenAuth,
  createAcpHttpHandler,
  createAcpNodeServer,
  pipeAgentStream,
  type AcpHttpHandlerOptions,
  type AcpNodeServer,
  type AcpNodeServerOptions,
  type AcpServerEvent,
  type ConnectionCloseInfo,
} from "../../packages/acp-kit/src/http/server/index.js";
import { RawClient, rawAgent, SseReader, type RawAgentLog } from "./server-support.js";
import { until } from "../support/interop-wire.js";
import { connectOurAgent } from "../support/interop-ours.js";
import { NEW_SESSION } from "../support/interop-scenarios.js";

const servers: AcpNodeServer[] = [];

async function serve(
  options: Partial<AcpHttpHandlerOptions> = {},
): Promise<{ server: AcpNodeServer; url: string; log: RawAgentLog }> {
  const log: RawAgentLog = { received: [] };
  const server = createAcpNodeServer({ agent: rawAgent(log), ...options });
  servers.push(server);
  const address = await server.listen(0);
  return { server, url: `http://127.0.0.1:${address.port}/acp`, log };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("status codes (as the official SDK 2.4.0 answers them)", () => {
  it("POST: 415, 400, 501 (batch), 400 without or 404 with an unknown connection id", async () => {
    const { url } = await serve();
    const client = new RawClient(url);
    const wrongType = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "{}",
    });
    expect(wrongType.status).toBe(415);
    expect((await client.post("{nope")).status).toBe(400);
    const batch = await client.post([{ jsonrpc: "2.0", id: 1, method: "initialize" }]);
    expect(batch.status).toBe(501);
    expect(await batch.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "JSON-RPC batches are not supported" },
    });
    expect((await client.post("42")).status).toBe(400);
    expect((await client.request("session/new", {})).status).toBe(400);
    const unknown = await client.post(
      { jsonrpc: "2.0", id: 1, method: "session/new", params: {} },
      { "Acp-Connection-Id": "nope" },
    );
    expect(unknown.status).toBe(404);
    expect((await fetch(url, { method: "PUT" })).status).toBe(405);
  });

  it("other methods: 405 with Allow, TRACE too (no Request can carry it), bodies unread", async () => {
    const { url } = await serve({ maxBodyBytes: 1024 });
    const raw = (method: string, body?: string): Promise<IncomingMessage> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(url, { method }, resolve);
        req.on("error", reject);
        req.end(body);
      });
    for (const method of ["TRACE", "PUT", "PATCH", "OPTIONS", "HEAD"]) {
      // A PUT over maxBodyBytes is 405, not 413: the body of a refused method is not read.
      const response = await raw(method, method === "PUT" ? "x".repeat(4096) : undefined);
      response.resume();
      expect([method, response.statusCode, response.headers.allow]).toEqual([
        method,
        405,
        "GET, POST, DELETE",
      ]);
    }
  });

  it("initialize: 200 with Acp-Connection-Id and the transport advertisement; a second one is 400", async () => {
    const { url } = await serve();
    const client = new RawClient(url);
    const answer = await client.initialize();
    expect(client.connectionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: 0,
      result: {
        protocolVersion: 1,
        agentCapabilities: { loadSession: true },
        _meta: { "acp/transport": { keepAliveMs: 15000 } },
      },
    });
    const again = await client.post({ jsonrpc: "2.0", id: 9, method: "initialize", params: {} });
    expect(again.status).toBe(400);
  });

  it("GET: 406 without Accept, 400 without / 404 with unknown id, 409 for a second receiver", async () => {
    const { url } = await serve();
    const client = new RawClient(url);
    await client.initialize();
    const noAccept = await fetch(url, { headers: { "Acp-Connection-Id": client.connectionId } });
    expect(noAccept.status).toBe(406);
    const noId = await fetch(url, { headers: { Accept: "text/event-stream" } });
    expect(noId.status).toBe(400);
    const unknown = await fetch(url, {
      headers: { Accept: "text/event-stream", "Acp-Connection-Id": "x" },
    });
    expect(unknown.status).toBe(404);
    const first = await client.sse();
    const second = await client.stream();
    expect(second.status).toBe(409);
    // A session stream is separate: one receiver each.
    const session = await client.sse("s1");
    expect((await client.stream("s1")).status).toBe(409);
    await Promise.all([first.cancel(), session.cancel()]);
  });

  it("session header rules: required for session methods, must match params; DELETE 400/404/202", async () => {
    const { url } = await serve();
    const client = new RawClient(url);
    await client.initialize();
    const prompt = { sessionId: "s1", prompt: [{ type: "text", text: "1" }] };
    expect((await client.request("session/prompt", prompt)).status).toBe(400);
    expect((await client.request("session/prompt", prompt, "s2")).status).toBe(400);
    expect((await client.request("session/cancel", {}, undefined)).status).toBe(400);
    expect((await client.request("session/prompt", prompt, "s1")).status).toBe(202);
    expect((await fetch(url, { method: "DELETE" })).status).toBe(400);
    const del = (id: string): Promise<Response> =>
      fetch(url, { method: "DELETE", headers: { "Acp-Connection-Id": id } });
    expect((await del("nope")).status).toBe(404);
    expect((await del(client.connectionId)).status).toBe(202);
    expect((await client.request("session/new", {})).status).toBe(404);
  });
});

describe("routing (which stream carries what)", () => {
  it("session/new and session/load answers on the connection stream; prompt updates and answer on the session stream", async () => {
    const { url } = await serve();
    const client = new RawClient(url);
    await client.initialize();
    const main = await client.sse();
    expect((await client.request("session/new", { cwd: "/", mcpServers: [] })).status).toBe(202);
    const [created] = await main.take(1);
    expect(created?.data).toEqual({ jsonrpc: "2.0", id: 1, result: { sessionId: "s1" } });
    const session = await client.sse("s1");
    const prompt = { sessionId: "s1", prompt: [{ type: "text", text: "3" }] };
    expect((await client.request("session/prompt", prompt, "s1")).status).toBe(202);
    const events = await session.take(4);
    expect(events.map((e) => e.data.method ?? e.data.result)).toEqual([
      "session/update",
      "session/update",
      "session/update",
      { stopReason: "end_turn" },
    ]);
    expect(events.every((e) => e.id === undefined)).toBe(true);
    // session/load: the update on the session stream, the answer on the connection stream.
    const load = { sessionId: "s1", cwd: "/", mcpServers: [] };
    expect((await client.request("session/load", load, "s1")).status).toBe(202);
    const [loaded] = await main.take(1);
    expect(loaded?.data).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    const [update] = await session.take(1);
    expect(update?.data.method).toBe("session/update");
    await Promise.all([main.cancel(), session.cancel()]);
  });

  it("an agent request on a session stream is answered with both headers (400 without)", async () => {
    const { url, log } = await serve();
    const client = new RawClient(url);
    await client.initialize();
    const session = await client.sse("s1");
    expect((await client.request("_test/ask", { sessionId: "s1" }, "s1")).status).toBe(202);
    const [ask] = await session.take(1);
    expect(ask?.data).toMatchObject({ id: "ask-1", method: "session/request_permission" });
    const answer = { jsonrpc: "2.0", id: "ask-1", result: { outcome: { outcome: "cancelled" } } };
    expect((await client.post(answer)).status).toBe(400);
    expect((await client.post(answer, { "Acp-Session-Id": "s2" })).status).toBe(400);
    expect((await client.post(answer, { "Acp-Session-Id": "s1" })).status).toBe(202);
    const [done] = await session.take(1);
    expect(done?.data).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { answer: { outcome: { outcome: "cancelled" } } },
    });
    expect(log.received.some((m) => m.id === "ask-1")).toBe(true);
    await session.cancel();
  });

  it("messages wait for a stream's receiver; a receiver that left is replaced by the next", async () => {
    const { url } = await serve();
    const client = new RawClient(url);
    await client.initialize();
    const prompt = { sessionId: "s1", prompt: [{ type: "text", text: "5" }] };
    expect((await client.request("session/prompt", prompt, "s1")).status).toBe(202);
    const first = await client.sse("s1");
    // Everything queued before the receiver came arrives, in order.
    const queued = await first.take(6);
    expect(
      queued.map(
        (e) =>
          e.data.result ??
          (e.data.params as { update: { content: { text: string } } }).update.content.text,
      ),
    ).toEqual(["0", "1", "2", "3", "4", { stopReason: "end_turn" }]);
    await first.cancel();
    // Once the server has seen the receiver go (a moment), the stream takes a new one.
    let reopened = await client.stream("s1");
    for (let i = 0; i < 100 && reopened.status === 409; i++) {
      await reopened.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
      reopened = await client.stream("s1");
    }
    expect(reopened.status).toBe(200);
    const second = new SseReader(reopened);
    const again = { sessionId: "s1", prompt: [{ type: "text", text: "1" }] };
    expect((await client.request("session/prompt", again, "s1")).status).toBe(202);
    expect((await second.take(2)).map((e) => e.data.id ?? e.data.method)).toEqual([
      "session/update",
      2,
    ]);
    await second.cancel();
  });
});

describe("security", () => {
  it("Origin: loopback and absent are allowed by default, others 403", async () => {
    const { url } = await serve();
    const init = (origin?: string): Promise<Response> =>
      fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(origin === undefined ? {} : { Origin: origin }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }),
      });
    expect((await init("https://evil.example")).status).toBe(403);
    expect((await init("null")).status).toBe(403);
    expect((await init("http://localhost:3000")).status).toBe(200);
    expect((await init("http://127.0.0.1:9")).status).toBe(200);
    expect((await init("http://127.8.9.10:9")).status).toBe(200);
    expect((await init("http://[::1]:8080")).status).toBe(200);
    expect((await init("http://127.0.0.1.evil.example")).status).toBe(403);
    expect((await init()).status).toBe(200);
    const custom = await serve({ allowedOrigins: ["https://app.example"] });
    const ok = await fetch(custom.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "https://app.example" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }),
    });
    expect(ok.status).toBe(200);
  });

  it("listen beyond loopback needs authenticate or allowUnauthenticated; loopback does not", async () => {
    const open = async (options: Partial<AcpNodeServerOptions>, host: string) => {
      const server = createAcpNodeServer({ agent: rawAgent({ received: [] }), ...options });
      servers.push(server);
      return server.listen(0, host);
    };
    await expect(open({}, "0.0.0.0")).rejects.toThrow(
      /Refusing to listen on 0\.0\.0\.0 without authenticate.*allowUnauthenticated: true/,
    );
    await expect(open({}, "::")).rejects.toThrow(/Refusing to listen on ::/);
    for (const host of ["127.0.0.1", "127.0.0.2", "localhost"]) {
      expect((await open({}, host)).port).toBeGreaterThan(0);
    }
    const authenticated = await open({ authenticate: bearerTokenAuth("t0ken") }, "0.0.0.0");
    expect(authenticated.port).toBeGreaterThan(0);
    const allowed = await open({ allowUnauthenticated: true }, "0.0.0.0");
    expect(allowed.port).toBeGreaterThan(0);
  });

  it("a failed initialize tells the client a fixed reason only; the log says which", async () => {
    const events: AcpServerEvent[] = [];
    const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: {} };
    const post = (url: string) =>
      fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(initialize),
      });
    // An agent that never answers: the initialize timeout.
    const silent = await serve({
      agent: () => undefined,
      initializeTimeoutMs: 100,
      logger: (e) => events.push(e),
    });
    const timedOut = await post(silent.url);
    expect(timedOut.status).toBe(500);
    expect(await timedOut.json()).toEqual({
      jsonrpc: "2.0",
      id: 0,
      error: { code: -32603, message: "Initialize failed", data: { reason: "timeout" } },
    });
    const ws = new WebSocket(silent.url.replace(/^http/, "ws"));
    const frame = new Promise<unknown>((resolve) =>
      ws.once("message", (data: Buffer) => resolve(JSON.parse(data.toString("utf8")))),
    );
    ws.once("open", () => ws.send(JSON.stringify(initialize)));
    expect(await frame).toMatchObject({
      error: { message: "Initialize failed", data: { reason: "timeout" } },
    });
    ws.close();
    expect(
      events.filter((e) => e.type === "agent-error").map((e) => [e.transport, e.reason]),
    ).toEqual([
      [undefined, "initialize failed: timeout"],
      ["websocket", "initialize failed: timeout"],
    ]);
    // An agent that fails: what it threw stays on the server.
    const failing = await serve({
      agent: () => {
        throw new Error("secret detail /home/me/.config");
      },
    });
    const failed = await post(failing.url);
    const text = await failed.text();
    expect(failed.status).toBe(500);
    expect(text).not.toContain("secret");
    expect(JSON.parse(text)).toMatchObject({ error: { data: { reason: "connection-closed" } } });
  });

  it("bearer tokens: 401 with WWW-Authenticate before initialize; a connection is bound to its principal", async () => {
    const { url } = await serve({ authenticate: bearerTokenAuth(["alpha", "beta"]) });
    const anonymous = new RawClient(url);
    await expect(anonymous.initialize()).rejects.toThrow("401");
    const missing = await anonymous.post({ jsonrpc: "2.0", id: 0, method: "initialize" });
    expect(missing.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    const wrong = new RawClient(url, { Authorization: "Bearer gamma" });
    await expect(wrong.initialize()).rejects.toThrow("401");
    const alpha = new RawClient(url, { Authorization: "Bearer alpha" });
    await alpha.initialize();
    // Another valid principal cannot use alpha's connection.
    const beta = new RawClient(url, { Authorization: "Bearer beta" });
    beta.connectionId = alpha.connectionId;
    expect((await beta.request("session/new", {})).status).toBe(404);
    expect((await beta.stream()).status).toBe(404);
    expect((await alpha.request("session/new", {})).status).toBe(202);
  });

  it("an unauthenticated POST is refused before its body is read: 401 while the body is still open, even one declared over the limit", async () => {
    const { url } = await serve({ authenticate: bearerTokenAuth("alpha"), maxBodyBytes: 1024 });
    const open = (headers: Record<string, string>) =>
      new Promise<{ status: number; headers: IncomingMessage["headers"] }>((resolve, reject) => {
        const req = httpRequest(
          url,
          { method: "POST", headers: { "Content-Type": "application/json", ...headers } },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, headers: res.headers });
            req.destroy();
          },
        );
        req.on("error", reject);
        // One chunk of a body that never ends: the answer cannot wait for its end.
        req.write('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{');
      });
    const chunked = await open({});
    expect(chunked.status).toBe(401);
    expect(chunked.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(chunked.headers.connection).toBe("close");
    // Declared far over the limit: still 401 first, not 413 (nothing about the body is
    // answered to someone unauthenticated).
    expect((await open({ "Content-Length": String(1 << 30) })).status).toBe(401);
    // Authenticated: the same limit answers 413.
    expect(
      (await open({ "Content-Length": String(1 << 30), Authorization: "Bearer alpha" })).status,
    ).toBe(413);
  });

  it("WebSocket upgrades are checked too: 401 without a token, 403 for a foreign Origin", async () => {
    const { url } = await serve({ authenticate: bearerTokenAuth("alpha") });
    const status = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve) => {
        const ws = new WebSocket(url.replace(/^http/, "ws"), { headers });
        ws.on("unexpected-response", (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on("open", () => {
          resolve(101);
          ws.close();
        });
        ws.on("error", () => undefined);
      });
    expect(await status({})).toBe(401);
    expect(await status({ Authorization: "Bearer alpha", Origin: "https://evil.example" })).toBe(
      403,
    );
    expect(await status({ Authorization: "Bearer alpha" })).toBe(101);
  });

  it("diagnostics carry no message bodies and no header values", async () => {
    const events: AcpServerEvent[] = [];
    const { url } = await serve({
      authenticate: bearerTokenAuth("s3cret-token"),
      logger: (event) => events.push(event),
    });
    const client = new RawClient(url, { Authorization: "Bearer s3cret-token" });
    await client.initialize();
    const session = await client.sse("s1");
    const prompt = { sessionId: "s1", prompt: [{ type: "text", text: "2" }] };
    await client.request("session/prompt", prompt, "s1");
    await session.take(3);
    await new RawClient(url, { Authorization: "Bearer wrong-token" }).post({ x: "BODY-MARKER" });
    await client.post({ jsonrpc: "2.0", id: 5, method: "x", params: { p: "BODY-MARKER" } });
    await session.cancel();
    const text = JSON.stringify(events);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["connection-open", "stream-open", "request-rejected"]),
    );
    for (const secret of ["s3cret-token", "wrong-token", "BODY-MARKER", "agent_message_chunk"]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe("limits", () => {
  it("body size 413, connections per principal 429, streams per connection 429", async () => {
    const { url } = await serve({
      maxBodyBytes: 1024,
      maxConnectionsPerPrincipal: 1,
      maxStreamsPerConnection: 1,
    });
    const client = new RawClient(url);
    await client.initialize();
    const big = await client.request("session/new", { pad: "x".repeat(2000) });
    expect(big.status).toBe(413);
    await expect(new RawClient(url).initialize()).rejects.toThrow("429");
    const first = await client.sse("s1");
    expect((await client.stream("s2")).status).toBe(429);
    const prompt = { sessionId: "s2", prompt: [{ type: "text", text: "1" }] };
    expect((await client.request("session/prompt", prompt, "s2")).status).toBe(429);
    await first.cancel();
    // Closing the connection frees the principal's slot.
    await fetch(url, { method: "DELETE", headers: { "Acp-Connection-Id": client.connectionId } });
    await new RawClient(url).initialize();
  });

  it("idle timeout ends a connection nobody uses and calls the close hook; an open stream keeps it", async () => {
    const closed: ConnectionCloseInfo[] = [];
    // Long enough that `busy` opens its stream inside it on a loaded machine (one loopback
    // round trip after its initialize); what is tested is what happens after.
    const { url } = await serve({ idleTimeoutMs: 1500, onConnectionClose: (i) => closed.push(i) });
    const idle = new RawClient(url);
    await idle.initialize();
    const busy = new RawClient(url);
    await busy.initialize();
    const stream = await busy.sse();
    expect(await until(() => closed.length === 1, 10_000)).toBe(true);
    expect(closed[0]).toMatchObject({ connectionId: idle.connectionId, reason: "idle" });
    expect((await idle.request("session/new", {})).status).toBe(404);
    // Two more idle periods pass; the open stream keeps `busy`.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await busy.request("session/new", {})).status).toBe(202);
    expect(closed).toHaveLength(1);
    await stream.cancel();
    expect(await until(() => closed.length === 2, 10_000)).toBe(true);
    expect(closed[1]).toMatchObject({ connectionId: busy.connectionId, reason: "idle" });
  });

  it("keep-alive comments flow on an idle SSE stream", async () => {
    const { url } = await serve({ keepAliveMs: 40 });
    const client = new RawClient(url);
    await client.initialize();
    const stream = await client.sse();
    const next = stream.next();
    // One opening comment, then keep-alives while nothing else flows (waited for, not timed).
    expect(await until(() => stream.comments >= 3, 10_000)).toBe(true);
    await client.request("_test/shout", {});
    expect((await next)?.data.method).toBe("_test/heard");
    await stream.cancel();
  });
});

describe("the Fetch core alone, and pipeAgentStream", () => {
  it("serves Request → Response without an HTTP server, bridging to an agent over NDJSON bytes", async () => {
    const agents: { connection: AgentSideConnection }[] = [];
    const ended: Promise<void>[] = [];
    const handler = createAcpHttpHandler({
      agent: (stream) => {
        const pair = memoryStreamPair();
        agents.push(connectOurAgent(pair.agent));
        const closed = pipeAgentStream(stream, pair.client);
        ended.push(closed);
        return { closed };
      },
    });
    const base = "http://acp.test/acp";
    const post = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
      handler.handle(
        new Request(base, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...headers },
          body: JSON.stringify(body),
        }),
      );
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    expect(init.status).toBe(200);
    expect(await init.json()).toMatchObject({ id: 1, result: { protocolVersion: 1 } });
    const connectionId = init.headers.get("Acp-Connection-Id")!;
    const upgrade = await handler.handle(
      new Request(base, { headers: { Upgrade: "websocket", "Acp-Connection-Id": connectionId } }),
    );
    expect(upgrade.status).toBe(426);
    const sse = new SseReader(
      await handler.handle(
        new Request(base, {
          headers: { Accept: "text/event-stream", "Acp-Connection-Id": connectionId },
        }),
      ),
    );
    const created = await post(
      { jsonrpc: "2.0", id: 2, method: "session/new", params: NEW_SESSION },
      { "Acp-Connection-Id": connectionId },
    );
    expect(created.status).toBe(202);
    const [answer] = await sse.take(1);
    expect(answer?.data).toMatchObject({ id: 2, result: { sessionId: "sess-1" } });
    const deleted = await handler.handle(
      new Request(base, { method: "DELETE", headers: { "Acp-Connection-Id": connectionId } }),
    );
    expect(deleted.status).toBe(202);
    // Ending the HTTP connection ends the pipe and the agent's connection.
    await ended[0];
    await agents[0]!.connection.closed;
    expect(await sse.next()).toBeUndefined();
    expect(handler.connectionCount).toBe(0);
  });
});

describe("WebSocket liveness and framing", () => {
  it("a peer that stops answering pings is dropped and its connection ends", async () => {
    const closed: ConnectionCloseInfo[] = [];
    const { url } = await serve({ keepAliveMs: 50, onConnectionClose: (i) => closed.push(i) });
    const ws = new WebSocket(url.replace(/^http/, "ws"), { autoPong: false });
    let pings = 0;
    ws.on("ping", () => pings++);
    ws.on("error", () => undefined);
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }));
    expect(await until(() => closed.length === 1, 5000)).toBe(true);
    expect(pings).toBeGreaterThanOrEqual(2);
    expect(closed[0]).toMatchObject({ transport: "websocket", reason: "socket-closed" });
    ws.terminate();
  });

  it("parse errors and batches are answered with id null; a first frame other than initialize closes 1002", async () => {
    const { url } = await serve();
    const frames: unknown[] = [];
    const ws = new WebSocket(url.replace(/^http/, "ws"));
    ws.on("message", (data: Buffer) => frames.push(JSON.parse(data.toString("utf8"))));
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send("{not json");
    ws.send("[]");
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }));
    expect(await until(() => frames.length === 4)).toBe(true);
    expect(frames).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "JSON-RPC batches are not supported" },
      },
      {
        jsonrpc: "2.0",
        id: 0,
        result: {
          protocolVersion: 1,
          agentCapabilities: { loadSession: true },
          _meta: { "acp/transport": { keepAliveMs: 15000 } },
        },
      },
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32600, message: "Initialize not allowed on existing connection" },
      },
    ]);
    ws.close();
    const other = new WebSocket(url.replace(/^http/, "ws"));
    const code = new Promise<number>((resolve) => other.once("close", resolve));
    await new Promise((resolve) => other.once("open", resolve));
    other.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: {} }));
    expect(await code).toBe(1002);
  });
});

describe("output backpressure", () => {
  it("a small per-stream buffer still carries a long turn to a reader; nobody reading ends the connection", async () => {
    const closed: ConnectionCloseInfo[] = [];
    const { url, log } = await serve({
      maxBufferedBytesPerStream: 2_000,
      maxOutputStallMs: 300,
      onConnectionClose: (i) => closed.push(i),
    });
    const reading = new RawClient(url);
    await reading.initialize();
    const stream = await reading.sse("s1");
    const prompt = { sessionId: "s1", prompt: [{ type: "text", text: "1000" }] };
    await reading.request("session/prompt", prompt, "s1");
    const events = await stream.take(1001);
    expect(events.at(-1)?.data).toMatchObject({ result: { stopReason: "end_turn" } });
    await stream.cancel();

    const stalled = new RawClient(url);
    await stalled.initialize();
    await stalled.request("session/prompt", prompt, "s1");
    expect(await until(() => closed.some((c) => c.connectionId === stalled.connectionId))).toBe(
      true,
    );
    expect(closed.find((c) => c.connectionId === stalled.connectionId)?.reason).toBe("limit");
    expect((await stalled.request("session/new", {})).status).toBe(404);
    expect(log.received.length).toBeGreaterThan(0);
  });
});
