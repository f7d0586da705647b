/**
 * MCP-over-ACP against the official SDK 2.4.0, both ways and in both protocol versions:
 * the official agent's `McpOverAcpCaller` calling acp-kit's `McpProvider`, and acp-kit's
 * `McpCaller` calling the official client's `McpOverAcpProvider`. The two sides are joined
 * by two byte pipes, each framed by its own library's `ndJsonStream`.
 *
 * The MCP server on the provider side is one written with `@modelcontextprotocol/server`:
 * acp-kit serves it through `fromFetchHandler(createMcpHandler(...))`, the official side
 * through its `fromMcpServer`. The binding's limits and disposal use plain handlers.
 */
import * as theirV1 from "@agentclientprotocol/sdk/unstable";
import * as theirV2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { fromMcpServer } from "@agentclientprotocol/sdk/experimental/mcp-server";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { afterEach, describe, expect, it } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  ndJsonStream,
} from "../../packages/acp-kit/src/index.js";
import {
  AgentSideConnection as AgentSideConnectionV2,
  ClientSideConnection as ClientSideConnectionV2,
} from "../../packages/acp-kit/src/v2/index.js";
import {
  McpCaller,
  McpProvider,
  acpMcpServers,
  fromFetchHandler,
  type McpOutcome,
  type McpServerAcpDeclaration,
} from "../../packages/acp-kit/src/mcp/index.js";
import { deferred, interopWire, until, type InteropWire } from "../support/interop-wire.js";

const CLIENT_INFO = { name: "mcp-caller", version: "1.0.0" };

// ---------------------------------------------------------------------------------------
// The MCP server both providers serve

function buildServer(): McpServer {
  const server = new McpServer({ name: "project-tools", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: message }] }),
  );
  server.registerTool(
    "count",
    { description: "Counts, reporting progress", inputSchema: z.object({ to: z.number() }) },
    async ({ to }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let progress = 1; progress <= to; progress++)
        if (token !== undefined)
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress, total: to },
          });
      return { content: [{ type: "text", text: `counted to ${to}` }] };
    },
  );
  return server;
}

// ---------------------------------------------------------------------------------------
// Both libraries' handlers see the same context; these are written once for both.

interface HandlerContext {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly signal: AbortSignal;
}
type Handler = (context: HandlerContext) => Promise<McpOutcome> | McpOutcome;

/** A handler that answers once released, or fails once aborted. */
function gate(): {
  handler: Handler;
  started: Promise<HandlerContext>;
  aborted: Promise<unknown>;
  release: (outcome: McpOutcome) => void;
} {
  const started = deferred<HandlerContext>();
  const aborted = deferred<unknown>();
  const released = deferred<McpOutcome>();
  return {
    started: started.promise,
    aborted: aborted.promise,
    release: (outcome) => released.resolve(outcome),
    handler: (context) => {
      started.resolve(context);
      return new Promise((resolve, reject) => {
        context.signal.addEventListener(
          "abort",
          () => {
            const reason: unknown = context.signal.reason;
            aborted.resolve(reason);
            reject(new Error("aborted"));
          },
          { once: true },
        );
        void released.promise.then(resolve);
      });
    },
  };
}

// ---------------------------------------------------------------------------------------
// One pair: a caller on the agent side, a provider on the client side

interface CallOptions {
  requestId?: string;
  signal?: AbortSignal;
  onNotification?: (notification: { method: string; params?: unknown }) => void;
}
type Call = (
  serverId: string,
  method: string,
  params?: Record<string, unknown>,
  options?: CallOptions,
) => Promise<McpOutcome>;

interface Registration {
  readonly declaration: McpServerAcpDeclaration;
  readonly dispose: () => Promise<void>;
}

/** What the agent did while handling `session/new`, before answering. */
interface DuringNewSession {
  readonly declared: McpServerAcpDeclaration[];
  readonly discover: McpOutcome;
  readonly list: McpOutcome;
}

interface Pair {
  readonly wire: InteropWire;
  /** The agent's caller. */
  readonly call: Call;
  /** A second caller on the same connection (its request ids are its own). */
  readonly otherCall: Call;
  /** Registers the MCP SDK server, or a plain handler. */
  readonly register: (name: string, handler?: Handler, maxActiveRequests?: number) => Registration;
  /** The client's `session/new` with these servers; the agent calls them before answering. */
  readonly newSession: (mcpServers: McpServerAcpDeclaration[]) => Promise<void>;
  readonly duringNewSession: Promise<DuringNewSession>;
  readonly close: () => void;
}

/** The agent's part of `session/new`: discover and list every declared `acp` server. */
async function callDeclared(
  params: { mcpServers?: readonly unknown[] | null },
  call: Call,
  record: (seen: DuringNewSession) => void,
): Promise<void> {
  const declared = acpMcpServers(params);
  const first = declared[0];
  if (first === undefined) return;
  const discover = await call(first.serverId, "server/discover");
  const list = await call(first.serverId, "tools/list");
  record({ declared, discover, list });
}

const V1_AGENT_INIT = {
  protocolVersion: 1,
  agentCapabilities: { mcpCapabilities: { acp: true } },
  authMethods: [],
};
const V2_AGENT_INIT = {
  protocolVersion: 2,
  info: { name: "agent", version: "1.0.0" },
  capabilities: { session: { mcp: { acp: {} } } },
};
const V2_CLIENT_INIT = { protocolVersion: 2, info: { name: "client", version: "1.0.0" } };

const MCP_HANDLER_OPTIONS = { legacy: "reject" } as const;

/** The official agent with its caller ⇄ acp-kit's client with its provider. */
async function officialAgentV1(): Promise<Pair> {
  const wire = interopWire();
  const caller = new theirV1.McpOverAcpCaller({ clientInfo: CLIENT_INFO });
  const other = new theirV1.McpOverAcpCaller({ clientInfo: CLIENT_INFO });
  const seen = deferred<DuringNewSession>();
  const agent = theirV1
    .agent({ name: "official-agent" })
    .onRequest("initialize", () => V1_AGENT_INIT)
    .onRequest("session/new", async (ctx) => {
      await callDeclared(
        ctx.params,
        (id, method, params) => caller.request(ctx.client, id, method, params),
        (during) => seen.resolve(during),
      );
      return { sessionId: "s-1" };
    })
    .onNotification("mcp/message", caller.handleNotification)
    .connect(theirV1.ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
  const mcp = new McpProvider();
  const client = new ClientSideConnection(
    (connection) => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: () => undefined,
      unstable_messageMcp: mcp.attach(connection),
    }),
    ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
  );
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  return {
    wire,
    call: (id, method, params, options) =>
      caller.request(agent.client, id, method, params, options),
    otherCall: (id, method, params, options) =>
      other.request(agent.client, id, method, params, options),
    register: (name, handler, maxActiveRequests) =>
      mcp.register({
        name,
        handler: handler ?? fromFetchHandler(createMcpHandler(buildServer, MCP_HANDLER_OPTIONS)),
        ...(maxActiveRequests === undefined ? {} : { maxActiveRequests }),
      }),
    newSession: async (mcpServers) => {
      await client.newSession({ cwd: "/", mcpServers });
    },
    duringNewSession: seen.promise,
    close: () => {
      agent.close();
      client.close();
    },
  };
}

/** acp-kit's agent with its caller ⇄ the official client with its provider. */
async function ourAgentV1(): Promise<Pair> {
  const wire = interopWire();
  const mcp = new McpCaller({ clientInfo: CLIENT_INFO });
  const seen = deferred<DuringNewSession>();
  let other: McpCaller | undefined;
  const agent = new AgentSideConnection(
    (connection) => {
      other = new McpCaller({ clientInfo: CLIENT_INFO }, connection);
      return {
        initialize: () => V1_AGENT_INIT,
        newSession: async (params) => {
          await callDeclared(
            params,
            (id, method) => mcp.request(id, method),
            (during) => seen.resolve(during),
          );
          return { sessionId: "s-1" };
        },
        authenticate: () => ({}),
        prompt: () => ({ stopReason: "end_turn" }),
        cancel: () => undefined,
        unstable_messageMcp: mcp.attach(connection),
      };
    },
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
  );
  const provider = new theirV1.McpOverAcpProvider();
  const client = theirV1
    .client({ name: "official-client" })
    .onRequest("mcp/message", provider.handleRequest)
    .onNotification("session/update", () => undefined)
    .connect(theirV1.ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
  await client.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return {
    wire,
    call: (id, method, params, options) => mcp.request(id, method, params, options),
    otherCall: (id, method, params, options) => {
      if (other === undefined) throw new Error("no connection");
      return other.request(id, method, params, options);
    },
    register: (name, handler, maxActiveRequests) =>
      provider.registerServer(client.agent, {
        name,
        handler:
          (handler as theirV1.McpRequestHandler | undefined) ?? fromMcpServer(buildServer).handler,
        ...(maxActiveRequests === undefined ? {} : { maxActiveRequests }),
      }),
    newSession: async (mcpServers) => {
      await client.agent.request("session/new", { cwd: "/", mcpServers });
    },
    duringNewSession: seen.promise,
    close: () => {
      agent.close();
      client.close();
    },
  };
}

/** The official v2 agent with its caller ⇄ acp-kit's v2 client with its provider. */
async function officialAgentV2(): Promise<Pair> {
  const wire = interopWire();
  const caller = new theirV2.McpOverAcpCaller({ clientInfo: CLIENT_INFO });
  const other = new theirV2.McpOverAcpCaller({ clientInfo: CLIENT_INFO });
  const seen = deferred<DuringNewSession>();
  const agent = theirV2
    .agent({ name: "official-agent" })
    .onRequest("initialize", () => V2_AGENT_INIT)
    .onRequest("session/new", async (ctx) => {
      await callDeclared(
        ctx.params,
        (id, method, params) => caller.request(ctx.client, id, method, params),
        (during) => seen.resolve(during),
      );
      return { sessionId: "s-1" };
    })
    .onNotification("mcp/message", caller.handleNotification)
    .connect(theirV2.ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
  const mcp = new McpProvider();
  const client = new ClientSideConnectionV2(
    (connection) => ({
      sessionUpdate: () => undefined,
      unstable_messageMcp: mcp.attach(connection),
    }),
    ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
  );
  await client.initialize(V2_CLIENT_INIT);
  return {
    wire,
    call: (id, method, params, options) =>
      caller.request(agent.client, id, method, params, options),
    otherCall: (id, method, params, options) =>
      other.request(agent.client, id, method, params, options),
    register: (name, handler, maxActiveRequests) =>
      mcp.register({
        name,
        handler: handler ?? fromFetchHandler(createMcpHandler(buildServer, MCP_HANDLER_OPTIONS)),
        ...(maxActiveRequests === undefined ? {} : { maxActiveRequests }),
      }),
    newSession: async (mcpServers) => {
      await client.newSession({ cwd: "/", mcpServers });
    },
    duringNewSession: seen.promise,
    close: () => {
      agent.close();
      client.close();
    },
  };
}

/** acp-kit's v2 agent with its caller ⇄ the official v2 client with its provider. */
async function ourAgentV2(): Promise<Pair> {
  const wire = interopWire();
  const mcp = new McpCaller({ clientInfo: CLIENT_INFO });
  const seen = deferred<DuringNewSession>();
  let other: McpCaller | undefined;
  const agent = new AgentSideConnectionV2(
    (connection) => {
      other = new McpCaller({ clientInfo: CLIENT_INFO }, connection);
      return {
        initialize: () => V2_AGENT_INIT,
        newSession: async (params) => {
          await callDeclared(
            params,
            (id, method) => mcp.request(id, method),
            (during) => seen.resolve(during),
          );
          return { sessionId: "s-1" };
        },
        listSessions: () => ({ sessions: [] }),
        resumeSession: () => ({}),
        closeSession: () => ({}),
        prompt: () => ({ messageId: "m-1" }),
        cancel: () => undefined,
        unstable_messageMcp: mcp.attach(connection),
      };
    },
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
  );
  const provider = new theirV2.McpOverAcpProvider();
  const client = theirV2
    .client({ name: "official-client" })
    .onRequest("mcp/message", provider.handleRequest)
    .onNotification("session/update", () => undefined)
    .connect(theirV2.ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
  await client.agent.request("initialize", V2_CLIENT_INIT);
  return {
    wire,
    call: (id, method, params, options) => mcp.request(id, method, params, options),
    otherCall: (id, method, params, options) => {
      if (other === undefined) throw new Error("no connection");
      return other.request(id, method, params, options);
    },
    register: (name, handler, maxActiveRequests) =>
      provider.registerServer(client.agent, {
        name,
        handler:
          (handler as theirV2.McpRequestHandler | undefined) ?? fromMcpServer(buildServer).handler,
        ...(maxActiveRequests === undefined ? {} : { maxActiveRequests }),
      }),
    newSession: async (mcpServers) => {
      await client.agent.request("session/new", { cwd: "/", mcpServers });
    },
    duringNewSession: seen.promise,
    close: () => {
      agent.close();
      client.close();
    },
  };
}

/** An ACP error as `{ code, message, data }`, from either library. */
async function acpError(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    return { code, message, ...(data === undefined ? {} : { data }) };
  }
  throw new Error("expected an ACP error");
}

function textOf(outcome: McpOutcome): unknown {
  if (!("result" in outcome)) return outcome;
  const result = outcome.result as { content?: { text?: string }[] };
  return result.content?.[0]?.text;
}

/** The `mcp/message` responses that crossed from the client to the agent. */
function mcpErrorsOnWire(wire: InteropWire): number[] {
  const ids = new Set(wire.agentToClientTap.withMethod("mcp/message").map((m) => m.id));
  return wire.clientToAgentTap.messages
    .filter((m) => ids.has(m.id) && "error" in m)
    .map((m) => (m.error as { code: number }).code);
}

const PAIRS: [string, () => Promise<Pair>][] = [
  ["v1: official agent (McpOverAcpCaller) → acp-kit client (McpProvider)", officialAgentV1],
  ["v1: acp-kit agent (McpCaller) → official client (McpOverAcpProvider)", ourAgentV1],
  ["v2: official agent (McpOverAcpCaller) → acp-kit client (McpProvider)", officialAgentV2],
  ["v2: acp-kit agent (McpCaller) → official client (McpOverAcpProvider)", ourAgentV2],
];

describe.each(PAIRS)("%s", (_, connect) => {
  let pair: Pair | undefined;
  const open = async (): Promise<Pair> => (pair = await connect());
  afterEach(() => pair?.close());

  it("the agent discovers and lists a declared server while handling session/new", async () => {
    const { register, newSession, duringNewSession, wire } = await open();
    const tools = register("project-tools");
    await newSession([tools.declaration]);
    const seen = await duringNewSession;
    expect(seen.declared).toEqual([tools.declaration]);
    expect(seen.discover).toMatchObject({
      result: { supportedVersions: ["2026-07-28"], capabilities: { tools: {} } },
    });
    expect(seen.list).toMatchObject({
      result: { tools: [{ name: "echo" }, { name: "count" }] },
    });
    // Both calls crossed the wire before the session/new answer did.
    const order = wire.clientToAgentTap.messages.map((m) => m.method ?? "answer");
    const newSessionAt = order.indexOf("session/new");
    const calls = wire.agentToClientTap.withMethod("mcp/message");
    expect(calls.map((m) => (m.params as { method: string }).method)).toEqual([
      "server/discover",
      "tools/list",
    ]);
    expect(newSessionAt).toBeGreaterThanOrEqual(0);
    const sessionAnswerIndex = wire.agentToClientTap.messages.findIndex(
      (m) => (m.result as { sessionId?: string } | undefined)?.sessionId === "s-1",
    );
    const lastCallIndex = wire.agentToClientTap.messages.lastIndexOf(calls[1] ?? {});
    expect(lastCallIndex).toBeLessThan(sessionAnswerIndex);
  });

  it("calls a tool, and an unknown tool is an MCP error, not an ACP one", async () => {
    const { register, call } = await open();
    const { serverId } = register("project-tools").declaration;
    expect(
      textOf(await call(serverId, "tools/call", { name: "echo", arguments: { message: "hé" } })),
    ).toBe("hé");
    const unknown = await call(serverId, "tools/call", { name: "nope", arguments: {} });
    expect(unknown).toMatchObject({ error: { code: expect.any(Number) as number } });
  });

  it("delivers progress notifications to the request, before its answer", async () => {
    const { register, call } = await open();
    const { serverId } = register("project-tools").declaration;
    const seen: unknown[] = [];
    const outcome = await call(
      serverId,
      "tools/call",
      { name: "count", arguments: { to: 3 }, _meta: { progressToken: "p-1" } },
      { onNotification: (n) => seen.push({ method: n.method, params: n.params }) },
    );
    expect(textOf(outcome)).toBe("counted to 3");
    expect(seen).toEqual(
      [1, 2, 3].map((progress) => ({
        method: "notifications/progress",
        params: expect.objectContaining({ progressToken: "p-1", progress, total: 3 }) as unknown,
      })),
    );
  });

  it("cancels with $/cancel_request: the handler is aborted and the answer is -32800", async () => {
    const { register, call, wire } = await open();
    const blocked = gate();
    const { serverId } = register("slow", blocked.handler).declaration;
    const controller = new AbortController();
    const pending = call(serverId, "tools/call", { name: "wait" }, { signal: controller.signal });
    await blocked.started;
    controller.abort();
    await expect(pending).rejects.toBeDefined();
    await blocked.aborted;
    await until(() => mcpErrorsOnWire(wire).includes(-32800), 5_000);
    expect(wire.agentToClientTap.withMethod("$/cancel_request")).toHaveLength(1);
  });

  it("an unknown server is -33001", async () => {
    const { register, call } = await open();
    register("project-tools");
    expect(await acpError(call("no-such-server", "tools/list"))).toEqual({
      code: -33001,
      message: "MCP server registration unavailable",
      data: { serverId: "no-such-server" },
    });
  });

  it("a request id active for the server is -32602", async () => {
    const { register, call, otherCall } = await open();
    const blocked = gate();
    const { serverId } = register("slow", blocked.handler).declaration;
    const first = call(serverId, "tools/call", { name: "wait" }, { requestId: "same" });
    await blocked.started;
    expect(await acpError(otherCall(serverId, "tools/list", {}, { requestId: "same" }))).toEqual({
      code: -32602,
      message: "Invalid params: duplicate active MCP request ID",
      data: { serverId, requestId: "same" },
    });
    blocked.release({ result: { content: [] } });
    await expect(first).resolves.toEqual({ result: { content: [] } });
  });

  it("the active request limit is -33000", async () => {
    const { register, call } = await open();
    const blocked = gate();
    const { serverId } = register("slow", blocked.handler, 1).declaration;
    const first = call(serverId, "tools/call", { name: "wait" });
    await blocked.started;
    expect(await acpError(call(serverId, "tools/list"))).toEqual({
      code: -33000,
      message: "MCP-over-ACP active request limit exceeded",
      data: { serverId },
    });
    blocked.release({ result: null });
    await expect(first).resolves.toEqual({ result: null });
  });

  it("dispose during a call: the call ends -32800, later calls -33001", async () => {
    const { register, call } = await open();
    const blocked = gate();
    const registration = register("slow", blocked.handler);
    const { serverId } = registration.declaration;
    const pending = call(serverId, "tools/call", { name: "wait" });
    await blocked.started;
    const disposed = registration.dispose();
    expect(await acpError(pending)).toMatchObject({ code: -32800 });
    await disposed;
    expect(await acpError(call(serverId, "tools/list"))).toMatchObject({ code: -33001 });
  });
});
