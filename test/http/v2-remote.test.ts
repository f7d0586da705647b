/**
 * ACP v2 over the remote transports (Streamable HTTP/SSE and WebSocket), both ways:
 * acp-kit's server serving an acp-kit v2 agent and a `protocolRouter` of v1 and v2;
 * acp-kit's v2 client and `negotiate()` over acp-kit's remote clients; the official SDK
 * 2.4.0's v2 client over its own HTTP and WebSocket streams against acp-kit's server, and
 * acp-kit's v2 client against the official server serving an official v2 agent. A whole
 * v2 session each time: initialize v2, session/new, prompts read until idle, a tool call
 * created and patched, a permission request answered and one withdrawn
 * (`$/cancel_request`), a cancelled turn, session/close.
 */
import {
  agent as theirV2Agent,
  agentProtocolRouter,
  client as theirV2Client,
  RequestError as TheirRequestError,
  type AgentContext,
} from "@agentclientprotocol/sdk/experimental/v2";
import { agent as theirV1Agent } from "@agentclientprotocol/sdk";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import {
  ClientSideConnection as V1ClientSideConnection,
  type Stream,
} from "../../packages/acp-kit/src/index.js";
import {
  connectHttp,
  connectWebSocket,
  type RemoteClientOptions,
  type RemoteEvent,
  type RemoteStream,
} from "../../packages/acp-kit/src/http/client/index.js";
import {
  createAcpNodeServer,
  type AcpAgentFactory,
  type AcpNodeServer,
} from "../../packages/acp-kit/src/http/server/index.js";
import {
  AgentSideConnection,
  ClientSideConnection,
  negotiate,
  protocolRouter,
  RequestError,
  type Negotiated,
} from "../../packages/acp-kit/src/v2/index.js";
import { until, whenAborted } from "../support/interop-wire.js";
import { startTcpProxy, type TcpProxy } from "./client-proxy.js";
import { RawClient } from "./server-support.js";
import {
  CLIENT_INFO,
  PERMISSION,
  refusingV1Agent,
  V1_AGENT_INFO,
  V2_AGENT_INFO,
  v1Agent,
  v2Agent,
  V2Recorder,
} from "./v2-support.js";

type Connect = (url: string, options?: RemoteClientOptions) => RemoteStream;
const transports: [string, Connect][] = [
  ["HTTP/SSE", connectHttp],
  ["WebSocket", connectWebSocket],
];

const text = (t: string) => [{ type: "text" as const, text: t }];

/** What each test started, ended after it. */
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(
  agent: AcpAgentFactory,
  options: { resumable?: boolean; keepAliveMs?: number; maxConnectionsPerPrincipal?: number } = {},
): Promise<{ url: string; port: number; server: AcpNodeServer }> {
  const server = createAcpNodeServer({ agent, ...options });
  const { port } = await server.listen(0, "127.0.0.1");
  cleanup.push(() => server.close());
  return { url: `http://127.0.0.1:${port}/acp`, port, server };
}

function open(connect: Connect, url: string, options?: RemoteClientOptions): RemoteStream {
  const stream = connect(url, options);
  cleanup.push(() => stream.close());
  return stream;
}

const v1Options = {
  info: CLIENT_INFO,
  v1: () => ({
    requestPermission: () => ({ outcome: { outcome: "cancelled" as const } }),
    sessionUpdate: () => undefined,
  }),
  v2: () => ({ sessionUpdate: () => undefined }),
};

async function v1Turn(agreed: Negotiated): Promise<unknown> {
  if (agreed.version !== 1) throw new Error("expected v1");
  const { sessionId } = await agreed.connection.newSession({ cwd: "/work", mcpServers: [] });
  return agreed.connection.prompt({ sessionId, prompt: text("hi") });
}

const v2Only: AcpAgentFactory = (stream) => new AgentSideConnection(v2Agent, stream);
const router: AcpAgentFactory = (stream) =>
  protocolRouter({ v1: v1Agent, v2: v2Agent }).connect(stream);

/**
 * Plays a whole v2 session with acp-kit's v2 client and checks what arrives: initialize,
 * session/new, a plain turn, a tool call patched, a permission answered, a cancelled turn
 * whose permission request is withdrawn, session/close.
 */
async function wholeSession(connection: ClientSideConnection, rec: V2Recorder): Promise<void> {
  const { sessionId } = await connection.newSession({ cwd: "/work" });

  const first = await connection.prompt({ sessionId, prompt: text("hello") });
  await rec.untilIdle(sessionId, 1);
  expect(rec.of(sessionId)).toContainEqual(
    expect.objectContaining({ sessionUpdate: "user_message", messageId: first.messageId }),
  );
  expect(rec.agentText(sessionId)).toBe("ok");

  await connection.prompt({ sessionId, prompt: text("tool") });
  await rec.untilIdle(sessionId, 2);
  const patches = rec
    .of(sessionId)
    .filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "read-1");
  expect(patches).toEqual([
    expect.objectContaining({ title: "Read NOTES.md", kind: "read", status: "in_progress" }),
    expect.objectContaining({
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "the notes" } }],
    }),
  ]);
  expect(rec.agentText(sessionId)).toBe("okdone");

  await connection.prompt({ sessionId, prompt: text("ask") });
  expect(await until(() => rec.asked.length === 1)).toBe(true);
  const asked = rec.asked[0];
  expect(asked?.params).toMatchObject({ sessionId, ...PERMISSION });
  expect(
    await until(() =>
      rec
        .of(sessionId)
        .some((u) => u.sessionUpdate === "state_update" && u.state === "requires_action"),
    ),
  ).toBe(true);
  asked?.answer.resolve({ outcome: { outcome: "selected", optionId: "yes" } });
  await rec.untilIdle(sessionId, 3);
  expect(rec.agentText(sessionId)).toBe("okdonechose yes");

  // A turn cancelled while it waits: it ends `cancelled`.
  await connection.prompt({ sessionId, prompt: text("wait") });
  expect(
    await until(() =>
      rec
        .of(sessionId)
        .some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "wait-1"),
    ),
  ).toBe(true);
  // `tool_call/cancel`, a v2 method scoped to the session: the call ends `cancelled`.
  await expect(connection.cancelToolCall({ sessionId, toolCallId: "wait-1" })).resolves.toEqual({});
  expect(
    await until(() =>
      rec
        .of(sessionId)
        .some(
          (u) =>
            u.sessionUpdate === "tool_call_update" &&
            u.toolCallId === "wait-1" &&
            u.status === "cancelled",
        ),
    ),
  ).toBe(true);
  await connection.cancel({ sessionId });
  await rec.untilIdle(sessionId, 4);

  // A turn cancelled while its permission request waits: the agent withdraws the request
  // with `$/cancel_request`, which aborts the client's handler.
  await connection.prompt({ sessionId, prompt: text("ask") });
  expect(await until(() => rec.asked.length === 2)).toBe(true);
  await connection.cancel({ sessionId });
  await rec.untilIdle(sessionId, 5);
  expect(rec.asked[1]?.signal?.aborted).toBe(true);
  expect(rec.idles(sessionId)).toEqual([
    "end_turn",
    "end_turn",
    "end_turn",
    "cancelled",
    "cancelled",
  ]);

  await expect(connection.closeSession({ sessionId })).resolves.toEqual({});
  const late = await connection
    .prompt({ sessionId, prompt: text("hello") })
    .catch((e: unknown) => e);
  expect(late).toBeInstanceOf(RequestError);
  expect((late as RequestError).code).toBe(-32002);
}

describe.each(transports)("%s: acp-kit's v2 client ⇄ acp-kit's server", (_name, connect) => {
  describe.each([
    ["a v2 agent", v2Only],
    ["protocolRouter({ v1, v2 })", router],
  ])("serving %s", (_agentName, agent) => {
    it("a whole v2 session", async () => {
      const { url } = await serve(agent);
      const rec = new V2Recorder();
      const connection = new ClientSideConnection(() => rec.client, open(connect, url));
      const init = await connection.initialize({
        protocolVersion: 2,
        info: CLIENT_INFO,
        capabilities: {},
      });
      expect(init).toMatchObject({ protocolVersion: 2, info: V2_AGENT_INFO });
      await wholeSession(connection, rec);
    });

    it("negotiate() agrees on v2 and plays the session", async () => {
      const { url } = await serve(agent);
      const rec = new V2Recorder();
      const agreed = await negotiate(open(connect, url), {
        info: CLIENT_INFO,
        v1: () => ({
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
          sessionUpdate: () => undefined,
        }),
        v2: () => rec.client,
      });
      expect(agreed.version).toBe(2);
      if (agreed.version !== 2) return;
      await wholeSession(agreed.connection, rec);
    });
  });

  it("protocolRouter: a v1 client is served by the v1 agent", async () => {
    const { url } = await serve(router);
    const seen: string[] = [];
    const connection = new V1ClientSideConnection(
      () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: (n) => {
          if (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text")
            seen.push(n.update.content.text);
        },
      }),
      open(connect, url),
    );
    const init = await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
    expect(init).toMatchObject({ protocolVersion: 1, agentInfo: V1_AGENT_INFO });
    const { sessionId } = await connection.newSession({ cwd: "/work", mcpServers: [] });
    await expect(connection.prompt({ sessionId, prompt: text("hi v1") })).resolves.toEqual({
      stopReason: "end_turn",
    });
    expect(seen).toEqual(["hi v1"]);
  });

  it("negotiate() with a v1-only router: v1, on the same connection", async () => {
    const initializes: number[] = [];
    const { url } = await serve((stream: Stream) =>
      protocolRouter({
        v1: (conn) => {
          const agent = v1Agent(conn);
          return {
            ...agent,
            initialize: (params) => {
              initializes.push(params.protocolVersion);
              return agent.initialize(params);
            },
          };
        },
      }).connect(stream),
    );
    const stream = open(connect, url);
    const agreed = await negotiate(stream, v1Options);
    expect(agreed.version).toBe(1);
    expect(await v1Turn(agreed)).toEqual({ stopReason: "end_turn" });
    expect(initializes).toEqual([1]);
  });

  it("negotiate() with an agent that refuses v2 with an error: asked again in v1, on a new remote connection", async () => {
    const seen = { initialize: [] as number[] };
    const connections: string[] = [];
    // One connection at a time: the refused one must be gone before the next is opened.
    const { url } = await serve(
      (stream, context) => {
        connections.push(context.connectionId);
        return refusingV1Agent(stream, seen);
      },
      { maxConnectionsPerPrincipal: 1 },
    );
    const events: RemoteEvent[] = [];
    const stream = open(connect, url, { onEvent: (e) => events.push(e) });
    const agreed = await negotiate(stream, v1Options);
    expect(agreed.version).toBe(1);
    expect(agreed.response).toMatchObject({ protocolVersion: 1, agentInfo: V1_AGENT_INFO });
    expect(await v1Turn(agreed)).toEqual({ stopReason: "end_turn" });
    expect(seen.initialize).toEqual([2, 1]);
    // The server refuses a second initialize on a connection: the retry opened another.
    expect(connections).toHaveLength(2);
    expect(stream.connectionId).toBe(connections[1]);
  });
});

/** `stream`, with its first message held until `release` settles. */
function holdFirst(stream: RemoteStream, release: Promise<unknown>): Stream {
  let first = true;
  return {
    writable: stream.writable,
    readable: stream.readable.pipeThrough(
      new TransformStream({
        async transform(message, controller) {
          if (first) {
            first = false;
            await release;
          }
          controller.enqueue(message);
        },
      }),
    ),
  };
}

/**
 * A client whose first connection's loss it sees: over HTTP, the end of the connection's
 * event stream (not reconnected: `reconnect: false`); over WebSocket, the socket's close.
 * `lost` resolves once the transport has handled it.
 */
function watchedClient(
  transport: string,
  url: string,
): { stream: RemoteStream; lost: Promise<void> } {
  let seen!: () => void;
  const lost = new Promise<void>((resolve) => (seen = resolve));
  // The transport handles the loss in the same turn of the event loop: the next one is after.
  const handled = (): void => void setTimeout(seen, 0);
  if (transport === "HTTP/SSE") {
    const fetchWatched: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method !== "GET" || response.body === null) return response;
      const body = response.body.pipeThrough(new TransformStream({ flush: handled }));
      return new Response(body, response);
    };
    return { stream: open(connectHttp, url, { fetch: fetchWatched, reconnect: false }), lost };
  }
  class WatchedSocket extends WebSocket {
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      const result = super.emit(event, ...args);
      if (event === "close") handled();
      return result;
    }
  }
  const stream = connectWebSocket(url, { WebSocket: WatchedSocket });
  cleanup.push(() => stream.close());
  return { stream, lost };
}

describe.each(transports)("%s: an agent that leaves after refusing v2", (name) => {
  it("negotiate() asks again in v1 on a new connection, after the first one was lost", async () => {
    const seen = { initialize: [] as number[] };
    let first = true;
    const server = createAcpNodeServer({
      agent: (stream) => {
        if (!first) return refusingV1Agent(stream, seen);
        first = false;
        // Answers the v2 initialize with an error and leaves.
        void (async () => {
          const reader = stream.readable.getReader();
          const writer = stream.writable.getWriter();
          const { value } = await reader.read();
          const id = (value as { id?: number } | undefined)?.id ?? 0;
          seen.initialize.push(2);
          await writer.write({
            jsonrpc: "2.0",
            id,
            error: { code: -32600, message: "Invalid request", data: "only version 1" },
          });
          await writer.close();
        })();
      },
      resumable: true,
    });
    const { port } = await server.listen(0, "127.0.0.1");
    cleanup.push(() => server.close());
    const { stream, lost } = watchedClient(name, `http://127.0.0.1:${port}/acp`);
    // The refusal reaches negotiate() only once the transport has seen the connection end.
    const agreed = await negotiate(holdFirst(stream, lost), v1Options);
    expect(agreed.version).toBe(1);
    expect(await v1Turn(agreed)).toEqual({ stopReason: "end_turn" });
    expect(seen.initialize).toEqual([2, 1]);
  });
});

describe.each(transports)("%s: a network cut in the middle of a v2 turn", (_name, connect) => {
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  it("loses no v2 update and no answer", async () => {
    const { port } = await serve(v2Only, { resumable: true, keepAliveMs: 100 });
    proxy = await startTcpProxy(port);
    const events: RemoteEvent[] = [];
    const rec = new V2Recorder();
    const connection = new ClientSideConnection(
      () => rec.client,
      open(connect, `http://127.0.0.1:${proxy.port}/acp`, {
        reconnect: { initialDelayMs: 10, maxDelayMs: 100, maxAttempts: 30 },
        keepAliveTimeoutMs: 600,
        requestTimeoutMs: 2_000,
        onEvent: (e) => events.push(e),
      }),
    );
    await connection.initialize({ protocolVersion: 2, info: CLIENT_INFO, capabilities: {} });
    const { sessionId } = await connection.newSession({ cwd: "/work" });
    const N = 3_000;
    const first = await connection.prompt({ sessionId, prompt: text(`count ${N}`) });
    // Held while the first turn runs: its answer comes after the cut.
    const held = connection.prompt({ sessionId, prompt: text("tool") });
    expect(
      await until(
        () =>
          rec.of(sessionId).filter((u) => u.sessionUpdate === "agent_message_chunk").length >= 300,
      ),
    ).toBe(true);
    expect(proxy.cut()).toBeGreaterThan(0);
    const second = await held;
    await rec.untilIdle(sessionId, 2, 30_000);
    const expected = Array.from({ length: N }, (_, i) => `${i};`).join("") + "done";
    expect(rec.agentText(sessionId)).toBe(expected);
    // Each prompt echoed once, each turn ended once, the tool call patched once.
    const echoes = rec
      .of(sessionId)
      .filter((u) => u.sessionUpdate === "user_message")
      .map((u) => (u as { messageId: string }).messageId);
    expect(echoes).toEqual([first.messageId, second.messageId]);
    expect(rec.idles(sessionId)).toEqual(["end_turn", "end_turn"]);
    expect(rec.of(sessionId).filter((u) => u.sessionUpdate === "tool_call_update")).toHaveLength(2);
    expect(events).toContainEqual(expect.objectContaining({ type: "reconnected", resumed: true }));
  });
});

// ---- the official SDK on the other end ----

interface OfficialStreams {
  createHttpStream(url: string): Stream;
  createWebSocketStream(url: string, options: { WebSocket: unknown }): Stream;
}

async function officialStreams(): Promise<OfficialStreams> {
  const http = "@agentclientprotocol/sdk/experimental/http-client";
  const ws = "@agentclientprotocol/sdk/experimental/ws-client";
  const { createHttpStream } = (await import(http)) as Pick<OfficialStreams, "createHttpStream">;
  const { createWebSocketStream } = (await import(ws)) as Pick<
    OfficialStreams,
    "createWebSocketStream"
  >;
  return { createHttpStream, createWebSocketStream };
}

describe.each([
  ["HTTP/SSE", (s: OfficialStreams, url: string) => s.createHttpStream(url)],
  ["WebSocket", (s: OfficialStreams, url: string) => s.createWebSocketStream(url, { WebSocket })],
])("the official v2 client over its %s stream ⇄ acp-kit's server", (_name, make) => {
  it.each([
    ["a v2 agent", v2Only],
    ["protocolRouter({ v1, v2 })", router],
  ])("serving %s: a whole session", async (_agentName, agent) => {
    const { url } = await serve(agent);
    const asked: AbortSignal[] = [];
    const client = theirV2Client()
      .onRequest("session/request_permission", (ctx) => {
        asked.push(ctx.signal);
        if (asked.length === 1)
          return { outcome: { outcome: "selected", optionId: "yes" } } as never;
        return new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () =>
            resolve({ outcome: { outcome: "cancelled" } }),
          ),
        ) as never;
      })
      .connect(make(await officialStreams(), url));
    cleanup.push(() => client.close());
    const init = await client.agent.request("initialize", {
      protocolVersion: 2,
      info: CLIENT_INFO,
      capabilities: {},
    });
    expect(init).toMatchObject({ protocolVersion: 2, info: V2_AGENT_INFO });
    const active = await client.agent.buildSession("/work").start();
    const sessionId = active.sessionId;

    await active.prompt("tool");
    expect(await active.readTextUntilIdle()).toBe("done");
    await active.prompt("ask");
    expect(await active.readTextUntilIdle()).toBe("chose yes");

    // One tool call cancelled (`tool_call/cancel`), then the turn (`session/cancel`).
    await active.prompt("wait");
    expect(await until(() => active.canCancelToolCall("wait-1"))).toBe(true);
    await expect(active.cancelToolCall("wait-1")).resolves.toEqual({});
    await client.agent.notify("session/cancel", { sessionId });
    const stop = async (): Promise<unknown> => {
      for (;;) {
        const message = await active.nextUpdate();
        if (message.kind === "stop") return message;
      }
    };
    expect(await stop()).toMatchObject({ stopReason: "cancelled" });

    // Cancelled while the permission request waits: withdrawn, and the turn ends cancelled.
    await active.prompt("ask");
    expect(await until(() => asked.length === 2)).toBe(true);
    await client.agent.notify("session/cancel", { sessionId });
    expect(await stop()).toMatchObject({ stopReason: "cancelled" });
    expect(asked[1]?.aborted).toBe(true);
    await expect(client.agent.request("session/close", { sessionId })).resolves.toEqual({});
  });
});

/**
 * An official v2 agent: `tool` (a tool call created, then patched), `ask-withdrawn` (a
 * permission request withdrawn at once), `wait` (until cancelled).
 */
function officialV2App() {
  let sessions = 0;
  let messages = 0;
  const waiting = new Map<string, () => void>();
  const update = (cx: AgentContext, sessionId: string, u: Record<string, unknown>) =>
    cx.notify("session/update", { sessionId, update: u } as never);
  return theirV2Agent()
    .onRequest("initialize", () => ({
      protocolVersion: 2,
      info: { name: "official-v2-agent", version: "2.4.0" },
      capabilities: { session: {} },
    }))
    .onRequest("session/new", () => ({ sessionId: `official-s${++sessions}` }))
    .onRequest("session/list", () => ({ sessions: [] }))
    .onRequest("session/resume", () => ({}))
    .onRequest("session/close", () => ({}))
    .onRequest("session/prompt", async (ctx) => {
      const cx = ctx.client;
      const { sessionId, prompt } = ctx.params;
      const messageId = `u-${++messages}`;
      await update(cx, sessionId, { sessionUpdate: "user_message", messageId, content: prompt });
      await update(cx, sessionId, { sessionUpdate: "state_update", state: "running" });
      const first = prompt[0] as { text?: unknown };
      void (async () => {
        let stopReason = "end_turn";
        if (first.text === "tool") {
          await update(cx, sessionId, {
            sessionUpdate: "tool_call_update",
            toolCallId: "t1",
            title: "Read",
            status: "in_progress",
          });
          await update(cx, sessionId, {
            sessionUpdate: "tool_call_update",
            toolCallId: "t1",
            status: "completed",
          });
        } else if (first.text === "ask-withdrawn") {
          // Asks, and withdraws the request at once (`$/cancel_request`).
          const withdraw = new AbortController();
          const asked = cx.request(
            "session/request_permission",
            { sessionId, ...PERMISSION } as never,
            { cancellationSignal: withdraw.signal },
          );
          withdraw.abort();
          await asked.catch(() => undefined);
        } else if (first.text === "wait") {
          await new Promise<void>((resolve) => waiting.set(sessionId, resolve));
          stopReason = "cancelled";
        }
        await update(cx, sessionId, {
          sessionUpdate: "agent_message_chunk",
          messageId: `a-${messageId}`,
          content: { type: "text", text: stopReason },
        });
        await update(cx, sessionId, { sessionUpdate: "state_update", state: "idle", stopReason });
      })();
      return { messageId };
    })
    .onNotification("session/cancel", (ctx) => {
      waiting.get(ctx.params.sessionId)?.();
      waiting.delete(ctx.params.sessionId);
    });
}

/** The official server (`experimental/server` + `experimental/node`) on loopback. */
async function startOfficialServer(createAgent: () => unknown): Promise<string> {
  const serverPath = "@agentclientprotocol/sdk/experimental/server";
  const nodePath = "@agentclientprotocol/sdk/experimental/node";
  const { AcpServer } = (await import(serverPath)) as {
    AcpServer: new (options: { createAgent: () => unknown }) => { close(): Promise<void> };
  };
  const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = (await import(nodePath)) as {
    createNodeHttpHandler: (server: unknown) => (req: unknown, res: unknown) => void;
    createNodeWebSocketUpgradeHandler: (
      server: unknown,
      wss: WebSocketServer,
    ) => (req: unknown, socket: unknown, head: unknown) => void;
  };
  const acp = new AcpServer({ createAgent });
  const wss = new WebSocketServer({ noServer: true });
  const http: Server = createServer(createNodeHttpHandler(acp));
  http.on("upgrade", createNodeWebSocketUpgradeHandler(acp, wss));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  cleanup.push(async () => {
    await acp.close();
    wss.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return `http://127.0.0.1:${port}/acp`;
}

describe.each(transports)("%s: acp-kit's v2 client ⇄ the official server", (_name, connect) => {
  it.each([
    ["an official v2 agent", () => officialV2App()],
    [
      "agentProtocolRouter() with v1 and v2",
      () =>
        agentProtocolRouter()
          .withV1(
            theirV1Agent().onRequest("initialize", () => ({
              protocolVersion: 1,
              agentCapabilities: {},
              authMethods: [],
            })),
          )
          .withV2(officialV2App()),
    ],
  ])("serving %s: a whole session through negotiate()", async (_agentName, createAgent) => {
    const url = await startOfficialServer(createAgent);
    const rec = new V2Recorder();
    const agreed = await negotiate(open(connect, url), {
      info: CLIENT_INFO,
      v1: () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => undefined,
      }),
      v2: () => rec.client,
    });
    expect(agreed.version).toBe(2);
    if (agreed.version !== 2) return;
    const connection = agreed.connection;
    const { sessionId } = await connection.newSession({ cwd: "/work" });
    const answer = await connection.prompt({ sessionId, prompt: text("tool") });
    await rec.untilIdle(sessionId, 1);
    expect(rec.kinds(sessionId)).toEqual([
      "user_message",
      "state_update",
      "tool_call_update",
      "tool_call_update",
      "agent_message_chunk",
      "state_update",
    ]);
    expect(rec.of(sessionId)[0]).toMatchObject({ messageId: answer.messageId });
    await connection.prompt({ sessionId, prompt: text("wait") });
    expect(await until(() => rec.kinds(sessionId).length === 8)).toBe(true);
    await connection.cancel({ sessionId });
    await rec.untilIdle(sessionId, 2);
    expect(rec.idles(sessionId)).toEqual(["end_turn", "cancelled"]);
    await expect(connection.closeSession({ sessionId })).resolves.toEqual({});
  });

  it("an official v1 agent that refuses v2 with an error: negotiate() retries v1 on a new connection", async () => {
    const url = await startOfficialServer(() =>
      theirV1Agent()
        .onRequest("initialize", (ctx) => {
          if (ctx.params.protocolVersion !== 1)
            throw new TheirRequestError(-32600, "Invalid request", "only protocol version 1");
          return { protocolVersion: 1, agentCapabilities: {}, authMethods: [] };
        })
        .onRequest("session/new", () => ({ sessionId: "official-v1" }))
        .onRequest("session/prompt", () => ({ stopReason: "end_turn" }))
        .onNotification("session/cancel", () => undefined),
    );
    const agreed = await negotiate(open(connect, url), {
      info: CLIENT_INFO,
      v1: () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => undefined,
      }),
      v2: () => ({ sessionUpdate: () => undefined }),
    });
    expect(agreed.version).toBe(1);
    if (agreed.version !== 1) return;
    const { sessionId } = await agreed.connection.newSession({ cwd: "/work", mcpServers: [] });
    expect(sessionId).toBe("official-v1");
    await expect(agreed.connection.prompt({ sessionId, prompt: text("hi") })).resolves.toEqual({
      stopReason: "end_turn",
    });
  });
});

describe("acp-kit's server: the agent's $/cancel_request", () => {
  it("goes on the stream of the request it withdraws, after it (HTTP/SSE)", async () => {
    // An agent that asks the client on session s1 and withdraws the request at once.
    const agent: AcpAgentFactory = (stream) => {
      const writer = stream.writable.getWriter();
      void (async () => {
        const reader = stream.readable.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const m = value as { id?: number; method?: string };
          if (m.method === "initialize")
            await writer.write({
              jsonrpc: "2.0",
              id: m.id ?? 0,
              result: { protocolVersion: 2, info: V2_AGENT_INFO },
            });
          if (m.method === "_test/withdraw") {
            await writer.write({
              jsonrpc: "2.0",
              id: "ask-1",
              method: "session/request_permission",
              params: { sessionId: "s1", ...PERMISSION },
            });
            await writer.write({
              jsonrpc: "2.0",
              method: "$/cancel_request",
              params: { requestId: "ask-1" },
            });
            await writer.write({ jsonrpc: "2.0", id: m.id ?? 0, result: {} });
          }
        }
      })();
    };
    const { url } = await serve(agent);
    const raw = new RawClient(url);
    await raw.initialize();
    const connectionStream = await raw.sse();
    const sessionStream = await raw.sse("s1");
    cleanup.push(() => connectionStream.cancel());
    cleanup.push(() => sessionStream.cancel());
    expect((await raw.request("_test/withdraw", {})).status).toBe(202);
    // The connection stream gets only the answer to `_test/withdraw` (sent after the rest).
    const [answer] = await connectionStream.take(1);
    expect(answer?.data).toMatchObject({ result: {} });
    const onSession = await sessionStream.take(2);
    expect(onSession.map((e) => e.data.method)).toEqual([
      "session/request_permission",
      "$/cancel_request",
    ]);
  });
});

describe("acp-kit's HTTP client: the agent's $/cancel_request before the request it withdraws", () => {
  it("is delivered right after that request (the official server sends it on the connection stream)", async () => {
    const url = await startOfficialServer(() => officialV2App());
    // The session stream holds the permission request until the connection stream has
    // brought the `$/cancel_request` (and the client has read it): the worst order.
    let cancelSeen!: () => void;
    const cancelled = new Promise<void>((resolve) => (cancelSeen = resolve));
    const reorder: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method !== "GET" || response.body === null) return response;
      const session = new Headers(init.headers).get("Acp-Session-Id") !== null;
      const decoder = new TextDecoder();
      const body = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          async transform(chunk, controller) {
            const text = decoder.decode(chunk, { stream: true });
            if (session && text.includes("session/request_permission")) await cancelled;
            controller.enqueue(chunk);
            if (!session && text.includes("$/cancel_request")) setTimeout(cancelSeen, 0);
          },
        }),
      );
      return new Response(body, response);
    };
    const rec = new V2Recorder();
    const connection = new ClientSideConnection(
      () => rec.client,
      open(connectHttp, url, { fetch: reorder }),
    );
    await connection.initialize({ protocolVersion: 2, info: CLIENT_INFO, capabilities: {} });
    const { sessionId } = await connection.newSession({ cwd: "/work" });
    await connection.prompt({ sessionId, prompt: text("ask-withdrawn") });
    expect(await until(() => rec.asked.length === 1)).toBe(true);
    const signal = rec.asked[0]?.signal;
    if (signal === undefined) throw new Error("no signal");
    expect((await whenAborted(signal)).aborted).toBe(true);
    await rec.untilIdle(sessionId, 1);
  });
});
