/**
 * The caller side of MCP-over-ACP, differentially: the official SDK 2.4.0's agent with its
 * `McpOverAcpCaller` and acp-kit's `AgentSideConnection` with `McpCaller`, v1 and v2, make
 * the same calls against a raw client that answers with the same lines. What each caller
 * writes must be the same bytes but for the outer JSON-RPC id (each numbers its own), and
 * each call must end the same way: the same MCP outcome, or an ACP error with the same
 * code, message and data.
 */
import * as theirV1 from "@agentclientprotocol/sdk/unstable";
import * as theirV2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { describe, expect, it } from "vitest";
import { AgentSideConnection, ndJsonStream } from "../../packages/acp-kit/src/index.js";
import { AgentSideConnection as AgentSideConnectionV2 } from "../../packages/acp-kit/src/v2/index.js";
import { McpCaller } from "../../packages/acp-kit/src/mcp/index.js";
import { rawSide, type RawSide } from "./wire.js";

const CLIENT_INFO = { name: "mcp-caller", version: "1.0.0" };

interface CallOptions {
  requestId: string;
  signal?: AbortSignal;
  onNotification?: (notification: unknown) => void;
  _meta?: Record<string, unknown>;
}
interface Side {
  readonly wire: RawSide;
  readonly call: (
    serverId: string,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
  ) => Promise<unknown>;
}

const V1_INIT = {
  protocolVersion: 1,
  agentCapabilities: { mcpCapabilities: { acp: true } },
  authMethods: [],
};
const V2_INIT = {
  protocolVersion: 2,
  info: { name: "agent", version: "1.0.0" },
  capabilities: { session: { mcp: { acp: {} } } },
};

/** The raw client's `initialize`, so that a v2 agent may send requests. */
async function initialize(wire: RawSide, version: 1 | 2): Promise<void> {
  await wire.write({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params:
      version === 1
        ? { protocolVersion: 1, clientCapabilities: {} }
        : { protocolVersion: 2, info: { name: "raw-client", version: "1.0.0" } },
  });
  await wire.next();
}

async function theirsV1(): Promise<Side> {
  const wire = rawSide();
  const caller = new theirV1.McpOverAcpCaller({ clientInfo: CLIENT_INFO });
  const agent = theirV1
    .agent({ name: "official-agent" })
    .onRequest("initialize", () => V1_INIT)
    .onNotification("mcp/message", caller.handleNotification)
    .connect(theirV1.ndJsonStream(wire.output, wire.input));
  await initialize(wire, 1);
  return {
    wire,
    call: (serverId, method, params, options) =>
      caller.request(agent.client, serverId, method, params, options),
  };
}

async function theirsV2(): Promise<Side> {
  const wire = rawSide();
  const caller = new theirV2.McpOverAcpCaller({ clientInfo: CLIENT_INFO });
  const agent = theirV2
    .agent({ name: "official-agent" })
    .onRequest("initialize", () => V2_INIT)
    .onNotification("mcp/message", caller.handleNotification)
    .connect(theirV2.ndJsonStream(wire.output, wire.input));
  await initialize(wire, 2);
  return {
    wire,
    call: (serverId, method, params, options) =>
      caller.request(agent.client, serverId, method, params, options),
  };
}

async function oursV1(): Promise<Side> {
  const wire = rawSide();
  const caller = new McpCaller({ clientInfo: CLIENT_INFO });
  new AgentSideConnection(
    (connection) => ({
      initialize: () => V1_INIT,
      newSession: () => ({ sessionId: "s" }),
      authenticate: () => ({}),
      prompt: () => ({ stopReason: "end_turn" }),
      cancel: () => undefined,
      unstable_messageMcp: caller.attach(connection),
    }),
    ndJsonStream(wire.output, wire.input),
  );
  await initialize(wire, 1);
  return {
    wire,
    call: (serverId, method, params, options) => caller.request(serverId, method, params, options),
  };
}

async function oursV2(): Promise<Side> {
  const wire = rawSide();
  const caller = new McpCaller({ clientInfo: CLIENT_INFO });
  new AgentSideConnectionV2(
    (connection) => ({
      initialize: () => V2_INIT,
      newSession: () => ({ sessionId: "s" }),
      listSessions: () => ({ sessions: [] }),
      resumeSession: () => ({}),
      closeSession: () => ({}),
      prompt: () => ({ messageId: "m" }),
      cancel: () => undefined,
      unstable_messageMcp: caller.attach(connection),
    }),
    ndJsonStream(wire.output, wire.input),
  );
  await initialize(wire, 2);
  return {
    wire,
    call: (serverId, method, params, options) => caller.request(serverId, method, params, options),
  };
}

/** A line without its outer `id` (each library numbers its own requests). */
function withoutId(line: string): string {
  return line.replace(/"id":(\d+|"[^"]*"),?/, "");
}

/** How a call ended: its outcome, or its error's code, message and data. */
async function ending(call: Promise<unknown>): Promise<unknown> {
  try {
    return { outcome: await call };
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    return { error: { code, message, data } };
  }
}

/** What a case saw: the lines the caller wrote (ids removed) and how the calls ended. */
interface Seen {
  lines: string[];
  endings: unknown[];
  notifications: unknown[];
}

/** A call answered with `answer` (the ACP response's `result` or `error` member). */
function answered(answer: Record<string, unknown>, params?: Record<string, unknown>) {
  return async (side: Side): Promise<Seen> => {
    const pending = ending(side.call("srv", "tools/call", params, { requestId: "r-1" }));
    const line = await side.wire.nextLine();
    const { id } = JSON.parse(line) as { id: unknown };
    await side.wire.write({ jsonrpc: "2.0", id, ...answer });
    return { lines: [withoutId(line)], endings: [await pending], notifications: [] };
  };
}

const CASES: Record<string, (side: Side) => Promise<Seen>> = {
  "the request line: params with the required inner _meta added": answered(
    { result: { result: { tools: [] } } },
    { name: "echo", arguments: { message: "x" } },
  ),
  "the request line: the caller's own inner _meta is kept": answered(
    { result: { result: {} } },
    {
      _meta: {
        progressToken: 3,
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
      },
    },
  ),
  "a null result is a result": answered({ result: { result: null } }),
  "an MCP error is an outcome, not a rejection": answered({
    result: { error: { code: -32602, message: "Unknown tool", data: { tool: "x" } } },
  }),
  "result wins when both are present": answered({
    result: { result: 1, error: { code: 1, message: "m" }, _meta: { k: "v" } },
  }),
  "a carrier with neither is -33002": answered({ result: { other: true } }),
  "an error carrier that is not an MCP error is -33002": answered({
    result: { error: { code: "x", message: 1 } },
  }),
  "an outer ACP error is a rejection with its code, message and data": answered({
    error: {
      code: -33001,
      message: "MCP server registration unavailable",
      data: { serverId: "srv" },
    },
  }),
  "no params": answered({ result: { result: {} } }, undefined),
  "the envelope's own _meta": async (side) => {
    const pending = ending(
      side.call("srv", "ping", {}, { requestId: "r-1", _meta: { traceparent: "00-a-b-01" } }),
    );
    const line = await side.wire.nextLine();
    const { id } = JSON.parse(line) as { id: unknown };
    await side.wire.write({ jsonrpc: "2.0", id, result: { result: {} } });
    return { lines: [withoutId(line)], endings: [await pending], notifications: [] };
  },
  "notifications reach their request only, and only while it runs": async (side) => {
    const notifications: unknown[] = [];
    const pending = ending(
      side.call(
        "srv",
        "tools/call",
        { name: "count" },
        {
          requestId: "r-1",
          onNotification: (n) => notifications.push(n),
        },
      ),
    );
    const line = await side.wire.nextLine();
    const { id } = JSON.parse(line) as { id: unknown };
    const notify = (requestId: string, serverId = "srv", extra = {}): Promise<void> =>
      side.wire.write({
        jsonrpc: "2.0",
        method: "mcp/message",
        params: {
          serverId,
          requestId,
          method: "notifications/progress",
          params: { progressToken: 1, progress: 1 },
          ...extra,
        },
      });
    await notify("r-1");
    await notify("other-request");
    await notify("r-1", "other-server");
    await notify("r-1", "srv", { _meta: { hop: 1 } });
    // A round trip, so that the notifications were handled before the answer comes (the
    // official v2 side lets an answer overtake a notification just before it).
    await side.wire.write({ jsonrpc: "2.0", id: "sync", method: "_sync", params: {} });
    const sync = await side.wire.nextLine();
    await side.wire.write({ jsonrpc: "2.0", id, result: { result: {} } });
    const ended = await pending;
    await notify("r-1");
    // A round trip after the late notification, so that it was handled if ever.
    const next = ending(side.call("srv", "ping", {}, { requestId: "r-2" }));
    const nextLine = JSON.parse(await side.wire.nextLine()) as { id: unknown };
    await side.wire.write({ jsonrpc: "2.0", id: nextLine.id, result: { result: {} } });
    return { lines: [withoutId(line), sync], endings: [ended, await next], notifications };
  },
  "cancelling sends $/cancel_request for the outer id": async (side) => {
    const controller = new AbortController();
    const pending = ending(
      side.call(
        "srv",
        "tools/call",
        { name: "wait" },
        {
          requestId: "r-1",
          signal: controller.signal,
        },
      ),
    );
    const line = await side.wire.nextLine();
    const { id } = JSON.parse(line) as { id: unknown };
    controller.abort();
    const cancel = JSON.parse(await side.wire.nextLine()) as { params: { requestId: unknown } };
    expect(cancel.params.requestId).toEqual(id);
    await side.wire.write({
      jsonrpc: "2.0",
      id,
      error: { code: -32800, message: "Request cancelled" },
    });
    await pending;
    return {
      lines: [withoutId(line), JSON.stringify({ ...cancel, params: { requestId: "<id>" } })],
      endings: [],
      notifications: [],
    };
  },
};

const PAIRS: [string, () => Promise<Side>, () => Promise<Side>][] = [
  ["v1", theirsV1, oursV1],
  ["v2", theirsV2, oursV2],
];

describe.each(PAIRS)("the %s caller: the official SDK's and ours", (_, theirs, ours) => {
  it.each(Object.keys(CASES))("%s", async (name) => {
    const run = CASES[name];
    if (run === undefined) throw new Error(name);
    const expected = await run(await theirs());
    const actual = await run(await ours());
    expect(actual).toEqual(expected);
    expect(actual.lines.length).toBeGreaterThan(0);
  });
});
