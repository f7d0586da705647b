/**
 * acp-kit's 2025-era front end on the bridge, with raw HTTP: `initialize` answered from
 * `server/discover` with an `Mcp-Session-Id`, notifications accepted with 202, the
 * MCP 2026-07-28 `_meta` injected into forwarded requests, the 2026 result fields
 * stripped, `input_required` mapped to `-32603`, progress as an event stream, `ping`,
 * `notifications/cancelled` cancelling over ACP, DELETE ending the session, sessions
 * bound to their server. And the reading of agents' MCP capabilities (v1 and v2).
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpProtocolError } from "../../packages/acp-kit/src/mcp/index.js";
import {
  agentMcpTransports,
  mcpBridgeMode,
} from "../../packages/acp-kit/src/node/mcp-bridge/index.js";
import { deferred, until } from "../support/interop-wire.js";
import { ourBridge, send, sseEvents, type BridgeUnderTest } from "./bridge-support.js";

const open: BridgeUnderTest[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((bridge) => bridge.close()));
});

const CLIENT = { name: "legacy-client", version: "0.1.0" };

function headers(token: string, session?: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    ...(session === undefined ? {} : { "mcp-session-id": session }),
  };
}

function rpc(method: string, params?: Record<string, unknown>, id?: number): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    ...(id === undefined ? {} : { id }),
    method,
    ...(params === undefined ? {} : { params }),
  });
}

async function initialize(b: BridgeUnderTest, protocolVersion = "2025-06-18", url = b.http.url) {
  const answer = await send(url, {
    headers: headers(b.http.token),
    body: rpc(
      "initialize",
      { protocolVersion, capabilities: { roots: {} }, clientInfo: CLIENT },
      0,
    ),
  });
  return { answer, session: String(answer.headers["mcp-session-id"]) };
}

describe("the 2025-era front end", () => {
  it("initialize, initialized, list, call: the 2026 _meta in, the 2026 fields out", async () => {
    const b = await ourBridge();
    open.push(b);
    const { answer, session } = await initialize(b);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ result: { protocolVersion: "2025-06-18" } });
    const initialized = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("notifications/initialized"),
    });
    expect([initialized.status, initialized.body]).toEqual([202, ""]);
    const list = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("tools/list", {}, 1),
    });
    expect([list.status, JSON.parse(list.body)]).toEqual([
      200,
      {
        jsonrpc: "2.0",
        id: 1,
        result: {
          tools: [
            {
              name: "echo",
              description: "Echoes",
              inputSchema: { type: "object", properties: { message: { type: "string" } } },
            },
          ],
        },
      },
    ]);
    const listed = b.seen.find((s) => s.context.method === "tools/list");
    expect(listed?.context).toMatchObject({
      protocolVersion: "2026-07-28",
      clientCapabilities: {},
      clientInfo: CLIENT,
    });
    const call = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("tools/call", { name: "echo", arguments: { message: "hi" } }, 2),
    });
    expect(JSON.parse(call.body)).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "hi" }] },
    });
    const ask = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("tools/call", { name: "ask" }, 3),
    });
    expect([ask.status, JSON.parse(ask.body)]).toEqual([
      200,
      { jsonrpc: "2.0", id: 3, error: { code: -32603, message: "input required" } },
    ]);
    const ping = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("ping", undefined, 4),
    });
    expect(JSON.parse(ping.body)).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    const progress = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("tools/call", { name: "progress", _meta: { progressToken: "p" } }, 5),
    });
    expect(progress.headers["content-type"]).toBe("text/event-stream");
    expect(sseEvents(progress.body)).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p", progress: 1, total: 2 },
      },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p", progress: 2, total: 2 },
      },
      { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "done" }] } },
    ]);
    const batch = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: `[${rpc("ping", undefined, 6)}]`,
    });
    expect(batch.status).toBe(400);
  });

  it("negotiates a 2025 revision: the requested one, else the newest", async () => {
    const b = await ourBridge();
    open.push(b);
    for (const [requested, answered] of [
      ["2024-11-05", "2024-11-05"],
      ["2025-03-26", "2025-03-26"],
      ["2025-11-25", "2025-11-25"],
      ["2099-01-01", "2025-11-25"],
    ]) {
      const { answer } = await initialize(b, requested);
      expect(JSON.parse(answer.body)).toMatchObject({ result: { protocolVersion: answered } });
    }
  });

  it("sessions: unknown or another server's → 404; DELETE ends one", async () => {
    const b = await ourBridge();
    open.push(b);
    const { session } = await initialize(b);
    const unknown = await send(b.http.url, {
      headers: headers(b.http.token, "no-such-session"),
      body: rpc("tools/list", {}, 1),
    });
    expect([unknown.status, JSON.parse(unknown.body)]).toEqual([
      404,
      { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" } },
    ]);
    const other = await send(b.unknownServer.url, {
      headers: headers(b.unknownServer.token, session),
      body: rpc("tools/list", {}, 1),
    });
    expect(other.status).toBe(404);
    const get = await send(b.http.url, { method: "GET", headers: headers(b.http.token, session) });
    expect([get.status, get.headers.allow]).toEqual([405, "POST"]);
    const deleted = await send(b.http.url, {
      method: "DELETE",
      headers: headers(b.http.token, session),
    });
    expect(deleted.status).toBe(200);
    const after = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("tools/list", {}, 1),
    });
    expect(after.status).toBe(404);
  });

  it("notifications/cancelled cancels the request over ACP and ends its response", async () => {
    const gate = deferred();
    const b = await ourBridge({}, gate.promise);
    open.push(b);
    const { session } = await initialize(b);
    const pending = send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("tools/call", { name: "wait" }, 9),
    });
    expect(await until(() => b.seen.some((s) => s.context.params?.name === "wait"))).toBe(true);
    const cancelled = await send(b.http.url, {
      headers: headers(b.http.token, session),
      body: rpc("notifications/cancelled", { requestId: 9, reason: "user" }),
    });
    expect(cancelled.status).toBe(202);
    const answer = await pending;
    expect([answer.status, answer.body]).toEqual([204, ""]);
    const waiting = b.seen.find((s) => s.context.params?.name === "wait");
    expect(waiting?.context.signal.aborted).toBe(true);
    expect(b.wire.agentToClientTap.withMethod("$/cancel_request")).toHaveLength(1);
    gate.resolve();
  });

  it("a server without server/discover still initializes (tools assumed)", async () => {
    const b = await ourBridge({}, undefined, true, ({ method }) => {
      if (method === "tools/list") return { result: { tools: [] } };
      throw new McpProtocolError(-32601, "Method not found");
    });
    open.push(b);
    const { answer } = await initialize(b);
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: "2.0",
      id: 0,
      result: {
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "acp-kit-mcp-bridge", version: "1.0.0" },
      },
    });
  });
});

describe("agents' MCP transports", () => {
  it("reads v1 mcpCapabilities and v2 capabilities.session.mcp", () => {
    expect(agentMcpTransports({ agentCapabilities: { mcpCapabilities: { http: true } } })).toEqual({
      acp: false,
      http: true,
    });
    expect(
      agentMcpTransports({ capabilities: { session: { mcp: { acp: {}, http: {} } } } }),
    ).toEqual({ acp: true, http: true });
    expect(agentMcpTransports({ protocolVersion: 1 })).toEqual({ acp: false, http: false });
    const shim = { command: "acp-kit", args: ["mcp-shim"] };
    expect(mcpBridgeMode({ agentCapabilities: { mcpCapabilities: { acp: true } } })).toBe("native");
    expect(mcpBridgeMode({ capabilities: { session: { mcp: { http: {} } } } })).toBe("http");
    expect(mcpBridgeMode({}, shim)).toBe("stdio");
    expect(mcpBridgeMode({})).toBe("unavailable");
  });
});
