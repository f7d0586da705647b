/**
 * M3, the differential bridge test: the same raw HTTP requests to the official SDK 2.4.0's
 * `McpOverAcpHttpBridge` and to acp-kit's `McpHttpBridge` (each in an agent calling, over
 * a real ACP byte pipe, a client that serves the same MCP server) must get the same
 * status, content type, relevant headers and JSON body, ports, tokens and generated ids
 * aside. Every check of the SDK bridge is covered in its order, then the body rules, then
 * forwarding: JSON answers and their statuses, the switch to an event stream, the
 * subscription id rewrite, cancel on close, the limits and the buffer overflow.
 */
import { afterEach, describe, expect, it } from "vitest";
import { deferred, until } from "../support/interop-wire.js";
import {
  mcpBody,
  mcpHeaders,
  ourBridge,
  sdkBridge,
  send,
  sseEvents,
  type BridgeUnderTest,
  type Limits,
  type RawAnswer,
  type RawRequest,
} from "./bridge-support.js";

const open: BridgeUnderTest[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((bridge) => bridge.close()));
});

async function both(limits: Limits = {}, gate?: Promise<void>) {
  const pair = [await sdkBridge(limits, gate), await ourBridge(limits, gate)] as const;
  open.push(...pair);
  return pair;
}

/** What must be the same: status, content type, a few headers, the body with ids masked. */
function normalize(answer: RawAnswer, bridge: BridgeUnderTest) {
  let body = answer.body
    .replaceAll(String(bridge.http.port), "<port>")
    .replaceAll(bridge.http.token, "<token>")
    .replace(/mcp-http:[0-9a-f-]{36}/g, "<request-id>");
  const type = answer.headers["content-type"];
  if (type === "text/event-stream") body = JSON.stringify(sseEvents(body));
  return {
    status: answer.status,
    type,
    wwwAuthenticate: answer.headers["www-authenticate"],
    allow: answer.headers.allow,
    cacheControl: answer.headers["cache-control"],
    accelBuffering: answer.headers["x-accel-buffering"],
    body: body === "" ? "" : (JSON.parse(body) as unknown),
  };
}

type Case = (bridge: BridgeUnderTest) => { url?: string; request: RawRequest };

const post =
  (
    method: string,
    params: Record<string, unknown> = {},
    extra: Record<string, string | string[]> = {},
  ): Case =>
  (b) => ({
    request: { headers: mcpHeaders(b.http.token, method, extra), body: mcpBody(method, params) },
  });

const withHeaders =
  (
    headers: (b: BridgeUnderTest) => Record<string, string | string[]>,
    body = mcpBody("tools/list"),
  ): Case =>
  (b) => ({ request: { headers: headers(b), body } });

const CASES: Record<string, Case> = {
  // 1. duplicate routing and authentication headers
  "duplicate Origin": post("tools/list", {}, { origin: ["http://a", "http://b"] }),
  "duplicate Authorization": withHeaders((b) => ({
    ...mcpHeaders(b.http.token, "tools/list"),
    authorization: [`Bearer ${b.http.token}`, `Bearer ${b.http.token}`],
  })),
  "duplicate MCP-Protocol-Version": post(
    "tools/list",
    {},
    { "mcp-protocol-version": ["2026-07-28", "2026-07-28"] },
  ),
  "duplicate Mcp-Method": post("tools/list", {}, { "mcp-method": ["tools/list", "tools/list"] }),
  "duplicate Mcp-Name": post("tools/list", {}, { "mcp-name": ["a", "a"] }),
  // 2. Origin
  "a foreign Origin": post("tools/list", {}, { origin: "http://evil.example" }),
  "a localhost Origin": post("tools/list", {}, { origin: "http://localhost" }),
  "the listener's own Origin": (b) =>
    post("tools/list", {}, { origin: `http://127.0.0.1:${b.http.port}` })(b),
  // 3. route
  "an unknown route": (b) => ({ request: { ...post("tools/list")(b).request, path: "/other" } }),
  "a non-canonical route": (b) => ({
    request: { ...post("tools/list")(b).request, path: `${new URL(b.http.url).pathname}=` },
  }),
  "the root": (b) => ({ request: { ...post("tools/list")(b).request, path: "/" } }),
  // 4. authorization
  "no Authorization": withHeaders((b) => {
    const { authorization: _auth, ...rest } = mcpHeaders(b.http.token, "tools/list");
    return rest;
  }),
  "a wrong token": post("tools/list", {}, { authorization: "Bearer AAAA" }),
  "another server's token": (b) =>
    post("tools/list", {}, { authorization: `Bearer ${b.unknownServer.token}` })(b),
  "Basic scheme": (b) => post("tools/list", {}, { authorization: `Basic ${b.http.token}` })(b),
  "a token with a trailing part": (b) =>
    post("tools/list", {}, { authorization: `Bearer ${b.http.token} x` })(b),
  // 5. method
  GET: (b) => ({
    request: { method: "GET", headers: { authorization: `Bearer ${b.http.token}` } },
  }),
  DELETE: (b) => ({
    request: { method: "DELETE", headers: { authorization: `Bearer ${b.http.token}` } },
  }),
  // 6. Accept
  "Accept without event-stream": post("tools/list", {}, { accept: "application/json" }),
  "Accept with q=0": post("tools/list", {}, { accept: "application/json, text/event-stream;q=0" }),
  "Accept with a bad q": post(
    "tools/list",
    {},
    { accept: "application/json;q=2, text/event-stream" },
  ),
  "Accept */*": post("tools/list", {}, { accept: "*/*" }),
  "Accept with q=0.5": post(
    "tools/list",
    {},
    { accept: "application/json;q=0.5, text/event-stream;q=1.000" },
  ),
  // 7. Content-Type
  "text/plain": post("tools/list", {}, { "content-type": "text/plain" }),
  "application/json with a charset": post(
    "tools/list",
    {},
    { "content-type": "application/json; charset=utf-8" },
  ),
  // body rules
  "invalid JSON": withHeaders((b) => mcpHeaders(b.http.token, "tools/list"), "{not json"),
  "a batch": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    `[${mcpBody("tools/list")}]`,
  ),
  "a notification": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({ jsonrpc: "2.0", method: "tools/list", params: {} }),
  ),
  "a response": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }),
  ),
  "id null": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({ jsonrpc: "2.0", id: null, method: "tools/list" }),
  ),
  "a fractional id": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "tools/list" }),
  ),
  "no jsonrpc": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({ id: 1, method: "tools/list" }),
  ),
  "no method": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({ jsonrpc: "2.0", id: 7 }),
  ),
  "array params": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({ jsonrpc: "2.0", id: "a", method: "tools/list", params: [] }),
  ),
  "no _meta (a 2025 request)": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
  ),
  "the version header missing": withHeaders((b) => {
    const { "mcp-protocol-version": _version, ...rest } = mcpHeaders(b.http.token, "tools/list");
    return rest;
  }),
  "the version header differing": post("tools/list", {}, { "mcp-protocol-version": "2025-06-18" }),
  "an unsupported version": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list", { "mcp-protocol-version": "2025-06-18" }),
    mcpBody("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2025-06-18" } }),
  ),
  "no client capabilities": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/list"),
    JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    }),
  ),
  "Mcp-Method differing": withHeaders(
    (b) => mcpHeaders(b.http.token, "tools/call"),
    mcpBody("tools/list"),
  ),
  "tools/call without a name": post("tools/call", {}, { "mcp-name": "echo" }),
  "tools/call without Mcp-Name": post("tools/call", { name: "echo", arguments: { message: "hi" } }),
  "tools/call with another Mcp-Name": post(
    "tools/call",
    { name: "echo", arguments: { message: "hi" } },
    { "mcp-name": "other" },
  ),
  "tools/call with a Base64 Mcp-Name": post(
    "tools/call",
    { name: "echo", arguments: { message: "hi" } },
    { "mcp-name": `=?base64?${Buffer.from("echo").toString("base64")}?=` },
  ),
  "tools/call with a bad Base64 Mcp-Name": post(
    "tools/call",
    { name: "echo", arguments: { message: "hi" } },
    { "mcp-name": "=?base64?ZWNobw?=" },
  ),
  "resources/read with a wrong Mcp-Name": post(
    "resources/read",
    { uri: "file:///a" },
    { "mcp-name": "file:///b" },
  ),
  "prompts/get without a name": post("prompts/get", {}, { "mcp-name": "x" }),
  "an Mcp-Param header": post("tools/list", {}, { "mcp-param-region": "eu" }),
  "initialize (2026 shaped)": post("initialize", { protocolVersion: "2026-07-28" }),
  "notifications/initialized with an id": post("notifications/initialized"),
  // forwarding: JSON answers
  "server/discover": post("server/discover"),
  "tools/list (annotations stripped)": post("tools/list"),
  "tools/call echo": post(
    "tools/call",
    { name: "echo", arguments: { message: "hi" } },
    { "mcp-name": "echo" },
  ),
  "an MCP -32601 (404)": post("prompts/list"),
  "an MCP -32602 (400)": post("tools/call", { name: "bad-args" }, { "mcp-name": "bad-args" }),
  "a handler failure (-33002)": post("tools/call", { name: "nope" }, { "mcp-name": "nope" }),
  "an unknown server (-33001)": (b) => ({
    url: b.unknownServer.url,
    request: {
      headers: mcpHeaders(b.unknownServer.token, "tools/list"),
      body: mcpBody("tools/list"),
    },
  }),
  "a string id": withHeaders(
    (b) => mcpHeaders(b.http.token, "server/discover"),
    mcpBody("server/discover", {}, "req-1"),
  ),
  // forwarding: event streams
  "progress (event stream)": post(
    "tools/call",
    { name: "progress", _meta: { progressToken: "p" } },
    { "mcp-name": "progress" },
  ),
  "a subscription (id rewritten)": post("subscriptions/listen", { uri: "file:///x" }),
};

describe("the SDK bridge and acp-kit's answer raw requests alike", () => {
  it("for every check and body rule, and plain forwarding", async () => {
    const [sdk, ours] = await both();
    for (const [name, make] of Object.entries(CASES)) {
      const answers = [];
      for (const bridge of [sdk, ours]) {
        const { url, request } = make(bridge);
        answers.push(normalize(await send(url ?? bridge.http.url, request), bridge));
      }
      expect(answers[1], name).toEqual(answers[0]);
    }
    // Both servers saw the same requests.
    expect(ours.seen.map((s) => s.context.method)).toEqual(sdk.seen.map((s) => s.context.method));
  });

  it("a body over the limit: 413 -33000, by declared length and by streaming", async () => {
    const [sdk, ours] = await both({ maxRequestBodyBytes: 256 });
    const big = mcpBody("tools/list", { pad: "x".repeat(1000) });
    for (const bridge of [sdk, ours]) {
      const declared = await send(bridge.http.url, {
        headers: mcpHeaders(bridge.http.token, "tools/list"),
        body: big,
      });
      const chunked = await send(bridge.http.url, {
        headers: { ...mcpHeaders(bridge.http.token, "tools/list"), "transfer-encoding": "chunked" },
        body: big,
      });
      const small = await send(bridge.http.url, {
        headers: mcpHeaders(bridge.http.token, "tools/list"),
        body: mcpBody("tools/list"),
      });
      expect([normalize(declared, bridge), normalize(chunked, bridge), small.status]).toEqual([
        {
          status: 413,
          type: "application/json",
          body: { jsonrpc: "2.0", error: { code: -33000, message: "Request body too large" } },
        },
        {
          status: 413,
          type: "application/json",
          body: { jsonrpc: "2.0", error: { code: -33000, message: "Request body too large" } },
        },
        200,
      ]);
    }
  });

  it("the active request limit: 429 -33000, and closing a response cancels its request", async () => {
    const gate = deferred();
    const [sdk, ours] = await both({ maxActiveRequests: 1 }, gate.promise);
    for (const bridge of [sdk, ours]) {
      const abort = new AbortController();
      const held = send(bridge.http.url, {
        headers: mcpHeaders(bridge.http.token, "tools/call", { "mcp-name": "wait" }),
        body: mcpBody("tools/call", { name: "wait" }),
        signal: abort.signal,
      }).catch((error: unknown) => error);
      expect(await until(() => bridge.seen.some((s) => s.context.params?.name === "wait"))).toBe(
        true,
      );
      const refused = await send(bridge.http.url, {
        headers: mcpHeaders(bridge.http.token, "tools/list"),
        body: mcpBody("tools/list"),
      });
      expect(normalize(refused, bridge)).toEqual({
        status: 429,
        type: "application/json",
        body: {
          jsonrpc: "2.0",
          error: { code: -33000, message: "Too many outstanding MCP responses" },
        },
      });
      const waiting = bridge.seen.find((s) => s.context.params?.name === "wait");
      abort.abort();
      await held;
      // The handler's request was cancelled over ACP ($/cancel_request on the wire).
      expect(await until(() => waiting?.context.signal.aborted === true), bridge.label).toBe(true);
      expect(bridge.wire.agentToClientTap.withMethod("$/cancel_request")).toHaveLength(1);
    }
    gate.resolve();
  });

  it("a notification buffer overflow ends the stream with -33000 and cancels", async () => {
    const [sdk, ours] = await both({ maxBufferedResponseBytes: 1024 });
    const answers = [];
    for (const bridge of [sdk, ours]) {
      const answer = await send(bridge.http.url, {
        headers: mcpHeaders(bridge.http.token, "tools/call", { "mcp-name": "flood" }),
        body: mcpBody("tools/call", { name: "flood" }),
      });
      const flood = bridge.seen.find((s) => s.context.params?.name === "flood");
      expect(await until(() => flood?.context.signal.aborted === true), bridge.label).toBe(true);
      answers.push(normalize(answer, bridge));
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0]?.type).toBe("text/event-stream");
    expect((answers[0]?.body as unknown[]).at(-1)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -33000, message: "MCP notification buffer overflow" },
    });
  });

  it("a 2025 initialize: refused by the SDK bridge, answered by acp-kit's front end", async () => {
    const [sdk, ours] = await both();
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "legacy", version: "1" },
      },
    });
    const headers = (b: BridgeUnderTest) => ({
      authorization: `Bearer ${b.http.token}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    });
    const refused = await send(sdk.http.url, { headers: headers(sdk), body: initialize });
    expect(normalize(refused, sdk)).toMatchObject({
      status: 400,
      body: {
        error: {
          code: -32602,
          message: "params._meta must contain io.modelcontextprotocol/protocolVersion as a string",
        },
      },
    });
    const answered = await send(ours.http.url, { headers: headers(ours), body: initialize });
    expect(answered.status).toBe(200);
    expect(answered.headers["mcp-session-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(answered.body)).toEqual({
      jsonrpc: "2.0",
      id: 0,
      result: {
        protocolVersion: "2025-06-18",
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "test-tools", version: "1.2.3" },
      },
    });
    // With the front end off, acp-kit answers as the SDK does.
    const strict = await ourBridge({}, undefined, false);
    open.push(strict);
    const strictAnswer = await send(strict.http.url, {
      headers: headers(strict),
      body: initialize,
    });
    expect(normalize(strictAnswer, strict)).toEqual(normalize(refused, sdk));
  });
});
