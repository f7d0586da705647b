/**
 * The provider side of MCP-over-ACP, differentially: the same raw `mcp/message` lines go
 * to the official SDK 2.4.0's client with its `McpOverAcpProvider` and to acp-kit's
 * `ClientSideConnection` with `McpProvider`, v1 and v2, each serving the same server
 * handler; the lines each writes back must be the same bytes (the binding fixes them),
 * except a malformed envelope's `data`, which each library's validator words its own way.
 */
import * as theirV1 from "@agentclientprotocol/sdk/unstable";
import * as theirV2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { describe, expect, it } from "vitest";
import { ClientSideConnection, ndJsonStream } from "../../packages/acp-kit/src/index.js";
import { ClientSideConnection as ClientSideConnectionV2 } from "../../packages/acp-kit/src/v2/index.js";
import { McpProtocolError, McpProvider } from "../../packages/acp-kit/src/mcp/index.js";
import { rawSide, type RawSide } from "./wire.js";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** What a handler sees, common to both libraries' handler contexts. */
interface HandlerContext {
  readonly method: string;
  readonly requestId: string;
  readonly params: Record<string, unknown> | undefined;
  readonly signal: AbortSignal;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
}
type Handler = (context: HandlerContext) => unknown;

interface Registered {
  readonly dispose: () => Promise<void>;
}
interface Side {
  readonly wire: RawSide;
  /** Runs the initialize exchange (v2 sends nothing before it). */
  readonly initialize: () => Promise<void>;
  readonly register: (options: {
    serverId: string;
    handler: Handler;
    maxActiveRequests?: number;
  }) => Registered;
  /** Makes an MCP error the way this side's library does. */
  readonly mcpError: (code: number, message: string, data?: unknown) => Error;
}

type MakeSide = () => Side;

/** The official provider's side, whichever version: its app and its classes. */
function theirSide(
  wire: RawSide,
  provider: theirV1.McpOverAcpProvider,
  agent: theirV1.HasConnectionContext,
  initialize?: () => Promise<unknown>,
): Side {
  return {
    wire,
    initialize: () =>
      initialize === undefined ? Promise.resolve() : answerInitialize(wire, initialize),
    register: ({ serverId, handler, maxActiveRequests }) =>
      provider.registerServer(agent, {
        name: "tools",
        serverId,
        handler: handler as theirV1.McpRequestHandler,
        ...(maxActiveRequests === undefined ? {} : { maxActiveRequests }),
      }),
    mcpError: (code, message, data) => new theirV1.McpProtocolError(code, message, data),
  };
}

function theirsV1(): Side {
  const wire = rawSide();
  const provider = new theirV1.McpOverAcpProvider();
  const connection = theirV1
    .client({ name: "official-client" })
    .onRequest("mcp/message", provider.handleRequest)
    .connect(theirV1.ndJsonStream(wire.output, wire.input));
  return theirSide(wire, provider, connection.agent);
}

function theirsV2(): Side {
  const wire = rawSide();
  const provider = new theirV2.McpOverAcpProvider();
  const connection = theirV2
    .client({ name: "official-client" })
    .onRequest("mcp/message", provider.handleRequest)
    .connect(theirV2.ndJsonStream(wire.output, wire.input));
  return theirSide(wire, provider, connection.agent, () =>
    connection.agent.request("initialize", V2_INITIALIZE),
  );
}

function ours(version: 1 | 2): MakeSide {
  return () => {
    const wire = rawSide();
    const mcp = new McpProvider();
    const stream = ndJsonStream(wire.output, wire.input);
    let initialize = (): Promise<void> => Promise.resolve();
    if (version === 1)
      new ClientSideConnection(
        (agent) => ({
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
          sessionUpdate: () => undefined,
          unstable_messageMcp: mcp.attach(agent),
        }),
        stream,
      );
    else {
      const connection = new ClientSideConnectionV2(
        (agent) => ({ sessionUpdate: () => undefined, unstable_messageMcp: mcp.attach(agent) }),
        stream,
      );
      initialize = () => answerInitialize(wire, () => connection.initialize(V2_INITIALIZE));
    }
    return {
      wire,
      initialize,
      register: ({ serverId, handler, maxActiveRequests }) =>
        mcp.register({
          name: "tools",
          serverId,
          handler: handler as never,
          ...(maxActiveRequests === undefined ? {} : { maxActiveRequests }),
        }),
      mcpError: (code, message, data) => new McpProtocolError(code, message, data),
    };
  };
}

const V2_INITIALIZE = { protocolVersion: 2, info: { name: "client", version: "1.0.0" } };
const V2_INITIALIZED = {
  protocolVersion: 2,
  info: { name: "agent", version: "1.0.0" },
  capabilities: { session: { mcp: { acp: {} } } },
};

/** Sends `initialize` through `send` and answers it from the wire. */
async function answerInitialize(wire: RawSide, send: () => Promise<unknown>): Promise<void> {
  const done = send();
  const request = await wire.next();
  await wire.write({ jsonrpc: "2.0", id: request.id, result: V2_INITIALIZED });
  await done;
}

let nextId = 1;
function message(
  requestId: string,
  method = "tools/list",
  params: unknown = { _meta: META },
  serverId = "srv",
): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: nextId++,
    method: "mcp/message",
    params: { serverId, requestId, method, ...(params === undefined ? {} : { params }) },
  };
}

/** A handler that blocks until released or aborted; `started` resolves when it runs. */
function gate(): {
  handler: Handler;
  started: Promise<HandlerContext>;
  release(value: unknown): void;
} {
  let onStart!: (context: HandlerContext) => void;
  const started = new Promise<HandlerContext>((resolve) => (onStart = resolve));
  let release!: (value: unknown) => void;
  const released = new Promise<unknown>((resolve) => (release = resolve));
  return {
    started,
    release,
    handler: (context) => {
      onStart(context);
      return new Promise((resolve, reject) => {
        context.signal.addEventListener("abort", () => reject(new Error("aborted")), {
          once: true,
        });
        void released.then(resolve);
      });
    },
  };
}

/**
 * Each case drives one side and returns the lines it wrote, in order; the case runs once
 * per library and the lines must be equal.
 */
const CASES: Record<string, (side: Side) => Promise<string[]>> = {
  "unknown server: -33001 with data.serverId": async ({ wire, register }) => {
    register({ serverId: "srv", handler: () => ({ result: {} }) });
    await wire.write(message("r", "tools/list", { _meta: META }, "other"));
    return [await wire.nextLine()];
  },
  "a result, null or with carrier _meta, passes as it is": async ({ wire, register }) => {
    register({
      serverId: "srv",
      handler: ({ method }) =>
        method === "a" ? { result: null } : { result: { tools: [] }, _meta: { trace: "t" } },
    });
    await wire.write(message("r1", "a"));
    const first = await wire.nextLine();
    await wire.write(message("r2", "b"));
    return [first, await wire.nextLine()];
  },
  "the inner _meta checks: missing version, wrong version, missing capabilities": async ({
    wire,
    register,
  }) => {
    register({ serverId: "srv", handler: () => ({ result: {} }) });
    const lines: string[] = [];
    for (const params of [
      undefined,
      {},
      { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2025-06-18" } },
      { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
      { _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": [] } },
    ]) {
      await wire.write(message("r", "tools/list", params));
      lines.push(await wire.nextLine());
    }
    return lines;
  },
  "an MCP error thrown by the handler is an inner error": async ({ wire, register, mcpError }) => {
    register({
      serverId: "srv",
      handler: () => {
        throw mcpError(-32602, "Unknown tool: nope", { tool: "nope" });
      },
    });
    await wire.write(message("r", "tools/call", { name: "nope", _meta: META }));
    return [await wire.nextLine()];
  },
  "any other failure is -33002 with its details": async ({ wire, register }) => {
    register({
      serverId: "srv",
      handler: () => {
        throw new Error("disk on fire");
      },
    });
    await wire.write(message("r"));
    return [await wire.nextLine()];
  },
  "an invalid outcome is -33002": async ({ wire, register }) => {
    register({
      serverId: "srv",
      handler: ({ method }) =>
        method === "a"
          ? {}
          : method === "b"
            ? { result: 1, error: { code: 1, message: "x" } }
            : { error: { code: 1.5, message: "x" } },
    });
    const lines: string[] = [];
    for (const method of ["a", "b", "c"]) {
      await wire.write(message(`r-${method}`, method));
      lines.push(await wire.nextLine());
    }
    return lines;
  },
  "a duplicate active request id is -32602 with serverId and requestId": async ({
    wire,
    register,
  }) => {
    const blocked = gate();
    register({ serverId: "srv", handler: blocked.handler });
    await wire.write(message("same"));
    await blocked.started;
    await wire.write(message("same"));
    const duplicate = await wire.nextLine();
    blocked.release({ result: "first" });
    return [duplicate, await wire.nextLine()];
  },
  "the active request limit is -33000": async ({ wire, register }) => {
    const blocked = gate();
    register({ serverId: "srv", handler: blocked.handler, maxActiveRequests: 1 });
    await wire.write(message("one"));
    await blocked.started;
    await wire.write(message("two"));
    const refused = await wire.nextLine();
    blocked.release({ result: "one" });
    const first = await wire.nextLine();
    await wire.write(message("three"));
    return [refused, first, await wire.nextLine()];
  },
  "$/cancel_request answers -32800": async ({ wire, register }) => {
    const blocked = gate();
    register({ serverId: "srv", handler: blocked.handler });
    const request = message("slow");
    await wire.write(request);
    await blocked.started;
    await wire.write({
      jsonrpc: "2.0",
      method: "$/cancel_request",
      params: { requestId: request.id },
    });
    return [await wire.nextLine()];
  },
  "notifications come before the answer, and none after it": async ({ wire, register }) => {
    let late: HandlerContext | undefined;
    register({
      serverId: "srv",
      handler: async (context) => {
        late = context;
        await context.notify("notifications/progress", { progressToken: 7, progress: 1 });
        await context.notify("notifications/message");
        return { result: { done: true } };
      },
    });
    await wire.write(
      message("r", "tools/call", { name: "t", _meta: { ...META, progressToken: 7 } }),
    );
    const lines = [await wire.nextLine(), await wire.nextLine(), await wire.nextLine()];
    await late?.notify("notifications/progress", { progressToken: 7, progress: 2 });
    await wire.write(message("r2"));
    lines.push(await wire.nextLine());
    return lines;
  },
  "dispose during a call: -32800, then -33001": async ({ wire, register }) => {
    const blocked = gate();
    const registration = register({ serverId: "srv", handler: blocked.handler });
    await wire.write(message("r"));
    await blocked.started;
    const disposed = registration.dispose();
    const cancelled = await wire.nextLine();
    await disposed;
    await wire.write(message("r2"));
    return [cancelled, await wire.nextLine()];
  },
};

const PAIRS: [string, MakeSide, MakeSide][] = [
  ["v1", theirsV1, ours(1)],
  ["v2", theirsV2, ours(2)],
];

describe.each(PAIRS)(
  "the %s provider: the official SDK's lines and ours",
  (_, theirSide, ourSide) => {
    it.each(Object.keys(CASES))("%s", async (name) => {
      const run = CASES[name];
      if (run === undefined) throw new Error(name);
      nextId = 1;
      const theirWire = theirSide();
      await theirWire.initialize();
      const expected = await run(theirWire);
      nextId = 1;
      const ourWire = ourSide();
      await ourWire.initialize();
      const actual = await run(ourWire);
      expect(actual).toEqual(expected);
      expect(actual.length).toBeGreaterThan(0);
    });

    it("a malformed envelope: -32602 Invalid params (data worded by each validator)", async () => {
      const answers: unknown[] = [];
      for (const make of [theirSide, ourSide]) {
        const { wire, register, initialize } = make();
        await initialize();
        register({ serverId: "srv", handler: () => ({ result: {} }) });
        const lines = [
          { jsonrpc: "2.0", id: 1, method: "mcp/message", params: { requestId: "r", method: "m" } },
          {
            jsonrpc: "2.0",
            id: 2,
            method: "mcp/message",
            params: { serverId: "srv", requestId: 5, method: "m" },
          },
          {
            jsonrpc: "2.0",
            id: 3,
            method: "mcp/message",
            params: { serverId: "srv", requestId: "r" },
          },
        ];
        const got: unknown[] = [];
        for (const line of lines) {
          await wire.write(line);
          const answer = await wire.next();
          const error = answer.error as { code: number; message: string };
          got.push({ id: answer.id, code: error.code, message: error.message });
        }
        answers.push(got);
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[0]).toEqual(
        [1, 2, 3].map((id) => ({ id, code: -32602, message: "Invalid params" })),
      );
    });
  },
);
