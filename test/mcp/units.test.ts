/**
 * acp-kit/mcp's own API, in process: registration rules, `serve()` for bridges and
 * proxies, the shared helpers, and `fromFetchHandler`'s HTTP exchange.
 */
import { describe, expect, it } from "vitest";
import { RequestError } from "../../packages/acp-kit/src/index.js";
import {
  McpCaller,
  McpProtocolError,
  McpProvider,
  acpMcpServers,
  fromFetchHandler,
  isAcpMcpServer,
  withMcpRequestMeta,
  type McpRequestContext,
} from "../../packages/acp-kit/src/mcp/index.js";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function envelope(serverId: string, requestId = "r", method = "tools/list", params: object = {}) {
  return { serverId, requestId, method, params: { ...params, _meta: META } };
}

describe("McpProvider", () => {
  it("names a server <name>:<uuid> by default, and never registers an id twice", async () => {
    const provider = new McpProvider();
    const tools = provider.register({ name: "tools", handler: () => ({ result: {} }) });
    expect(tools.serverId).toMatch(/^tools:[0-9a-f-]{36}$/);
    expect(tools.declaration).toEqual({ type: "acp", name: "tools", serverId: tools.serverId });
    expect(provider.has(tools.serverId)).toBe(true);
    await tools.dispose();
    expect(provider.has(tools.serverId)).toBe(false);
    expect(provider.serverIds).toEqual([]);
    expect(() =>
      provider.register({ name: "t", serverId: tools.serverId, handler: () => ({ result: 1 }) }),
    ).toThrow(/already registered/);
    for (const maxActiveRequests of [0, 1.5, -1])
      expect(() =>
        provider.register({ name: "t", handler: () => ({ result: 1 }), maxActiveRequests }),
      ).toThrow(RangeError);
  });

  it("serve() answers in process, its notifications going to the given callback", async () => {
    const provider = new McpProvider();
    const { serverId } = provider.register({
      name: "tools",
      serverId: "srv",
      handler: async (context) => {
        await context.notify("notifications/progress", { progress: 1 });
        return { result: { method: context.method, info: context.clientInfo } };
      },
    });
    const notifications: unknown[] = [];
    const outcome = await provider.serve(envelope(serverId), {
      notify: (n) => {
        notifications.push(n);
      },
    });
    expect(outcome).toEqual({ result: { method: "tools/list" } });
    expect(notifications).toEqual([
      {
        serverId: "srv",
        requestId: "r",
        method: "notifications/progress",
        params: { progress: 1 },
      },
    ]);
    const unknown = await provider.serve(envelope("other")).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(RequestError);
    expect(unknown).toMatchObject({ code: -33001, data: { serverId: "other" } });
  });

  it("serve() with an aborted signal: the handler never runs, and the answer is -32800", async () => {
    const provider = new McpProvider();
    let ran = false;
    provider.register({
      name: "tools",
      serverId: "srv",
      handler: () => {
        ran = true;
        return { result: {} };
      },
    });
    const controller = new AbortController();
    controller.abort();
    await expect(
      provider.serve(envelope("srv"), { signal: controller.signal }),
    ).rejects.toMatchObject({ code: -32800, message: "Request cancelled" });
    expect(ran).toBe(false);
  });
});

describe("the helpers", () => {
  it("McpProtocolError is an inner error, recognised across copies by its brand", () => {
    const error = new McpProtocolError(-32602, "bad", { field: "x" });
    expect(error.toMcpError()).toEqual({ code: -32602, message: "bad", data: { field: "x" } });
    expect(new McpProtocolError(1, "m").toMcpError()).toEqual({ code: 1, message: "m" });
    const copy = Object.create(Object.getPrototypeOf(error) as object) as unknown;
    expect(copy instanceof McpProtocolError).toBe(true);
    expect(new Error("x") instanceof McpProtocolError).toBe(false);
  });

  it("withMcpRequestMeta adds what is missing and keeps what is there", () => {
    expect(withMcpRequestMeta(undefined)).toEqual({ _meta: META });
    expect(
      withMcpRequestMeta(
        {
          name: "t",
          _meta: { progressToken: 1, "io.modelcontextprotocol/clientCapabilities": { x: {} } },
        },
        { clientInfo: { name: "a", version: "1" }, clientCapabilities: { y: {} } },
      ),
    ).toEqual({
      name: "t",
      _meta: {
        progressToken: 1,
        "io.modelcontextprotocol/clientCapabilities": { x: {} },
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "a", version: "1" },
      },
    });
  });

  it("acpMcpServers finds the acp declarations among mcpServers", () => {
    const acp = { type: "acp", name: "tools", serverId: "s" };
    const servers = [
      { name: "fs", command: "mcp-fs", args: [], env: [] },
      acp,
      { type: "http", name: "web", url: "http://x", headers: [] },
      { type: "acp", name: "no-id" },
    ];
    expect(acpMcpServers({ mcpServers: servers })).toEqual([acp]);
    expect(acpMcpServers({})).toEqual([]);
    expect(isAcpMcpServer(null)).toBe(false);
  });

  it("McpCaller refuses to send before it is attached", async () => {
    await expect(new McpCaller().request("s", "tools/list")).rejects.toThrow(/no connection/);
  });
});

describe("fromFetchHandler", () => {
  const context = (method: string, params?: Record<string, unknown>): McpRequestContext => ({
    serverId: "srv",
    requestId: "r-1",
    method,
    params,
    protocolVersion: "2026-07-28",
    clientCapabilities: {},
    clientInfo: undefined,
    envelopeMeta: undefined,
    signal: new AbortController().signal,
    notify: () => Promise.resolve(),
  });

  it("sends the HTTP request an MCP 2026-07-28 client would", async () => {
    const seen: Request[] = [];
    const handler = fromFetchHandler((request) => {
      seen.push(request);
      return Promise.resolve(Response.json({ jsonrpc: "2.0", id: "r-1", result: { ok: true } }));
    });
    expect(await handler(context("tools/call", { name: "grüß", arguments: {} }))).toEqual({
      result: { ok: true },
    });
    await handler(context("resources/read", { uri: "file:///a" }));
    const [call, read] = seen;
    expect(call?.method).toBe("POST");
    expect(call?.headers.get("mcp-method")).toBe("tools/call");
    expect(call?.headers.get("mcp-protocol-version")).toBe("2026-07-28");
    expect(call?.headers.get("mcp-name")).toBe(`=?base64?${btoa("gr\xc3\xbc\xc3\x9f")}?=`);
    expect(await call?.json()).toEqual({
      jsonrpc: "2.0",
      id: "r-1",
      method: "tools/call",
      params: { name: "grüß", arguments: {} },
    });
    expect(read?.headers.get("mcp-name")).toBe("file:///a");
  });

  it("reads an event stream (CRLF framing too): notifications, then the answer", async () => {
    const notified: unknown[] = [];
    const body =
      'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\r\n\r\n' +
      ": keepalive\n\n" +
      'event: message\ndata: {"jsonrpc":"2.0","id":"r-1","result":{"done":true}}\n\n';
    const handler = fromFetchHandler({
      fetch: () =>
        Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } })),
    });
    const outcome = await handler({
      ...context("tools/call", { name: "t" }),
      notify: (method, params) => {
        notified.push({ method, params });
        return Promise.resolve();
      },
    });
    expect(outcome).toEqual({ result: { done: true } });
    expect(notified).toEqual([{ method: "notifications/progress", params: { progress: 1 } }]);
  });

  it("fails with -33002 on an answer that is no JSON-RPC response for the request", async () => {
    const answer = (response: Response) => fromFetchHandler(() => Promise.resolve(response));
    for (const response of [
      new Response("oops", { status: 500 }),
      Response.json({ jsonrpc: "2.0", id: "other", result: {} }),
      new Response("", { headers: { "content-type": "text/event-stream" } }),
    ])
      await expect(answer(response)(context("tools/list"))).rejects.toMatchObject({
        code: -33002,
      });
    expect(
      await fromFetchHandler(() => Promise.reject(new Error("unused")))(context("bad method")),
    ).toEqual({
      error: { code: -32601, message: "Method not found: bad method" },
    });
  });
});
