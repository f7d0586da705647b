/**
 * acp-kit's v2 agent side against the official SDK 2.4.0 v2 `client()`, differentially:
 * every scenario runs first against the official v2 `agent()` written to do the same
 * thing by hand, then against acp-kit's `AgentSideConnection` + `AgentSession`; what
 * crossed the wire must be the same, byte for byte once parsed, on real NDJSON pipes.
 */
import {
  agent as officialAgent,
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
  RequestError as TheirRequestError,
  type AgentContext,
  type ClientConnection,
} from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import {
  AgentSession,
  AgentSideConnection,
  ndJsonStream,
  RequestError,
  type Agent,
  type TerminalWriter,
  type ToolCallWriter,
} from "../../packages/acp-kit/src/v2/index.js";
import { interopWire, until, type InteropWire } from "../support/interop-wire.js";

const ROOT = "/work/project";
const INFO = { name: "v2-agent", version: "1.0.0" };
const CLIENT_INFO = { name: "v2-client", version: "1.0.0" };
const INIT_RESPONSE = { protocolVersion: 2, info: INFO, capabilities: { session: {} } };
const SESSION = "s-1";
const encode = (text: string): string => Buffer.from(text, "utf8").toString("base64");

/** The agent under test, started on `wire`. */
type AgentUnderTest = (wire: InteropWire) => { close(): void };

/** The scenario, written by hand with the official `agent()`: what v2 asks for. */
const theirs: AgentUnderTest = (wire) => {
  let ids = 0;
  const closed = new Set<string>();
  let background: Record<string, unknown>[] = [];
  const update = (cx: AgentContext, u: Record<string, unknown>): Promise<void> =>
    cx.notify("session/update", { sessionId: SESSION, update: u } as never);
  const state = (cx: AgentContext, s: Record<string, unknown>): Promise<void> =>
    update(cx, { sessionUpdate: "state_update", ...s, background: [...background] });
  const idle = { state: "idle", stopReason: "end_turn" };
  const connection = officialAgent()
    .onRequest("initialize", () => INIT_RESPONSE)
    .onRequest("session/new", () => ({ sessionId: SESSION }))
    .onRequest("session/list", () => ({ sessions: [] }))
    .onRequest("session/resume", () => ({}))
    .onRequest("session/close", (ctx) => {
      if (closed.has(ctx.params.sessionId))
        throw new TheirRequestError(-32002, "Resource not found", { sessionId: SESSION });
      closed.add(ctx.params.sessionId);
      return {};
    })
    .onRequest("session/prompt", async (ctx) => {
      const messageId = `id-${++ids}`;
      await update(ctx.client, {
        sessionUpdate: "user_message",
        messageId,
        content: ctx.params.prompt,
      });
      await update(ctx.client, { sessionUpdate: "state_update", state: "running" });
      const cx = ctx.client;
      void (async () => {
        const reply = `id-${++ids}`;
        await update(cx, {
          sessionUpdate: "agent_message_chunk",
          messageId: reply,
          content: { type: "text", text: "Hello, " },
        });
        await update(cx, {
          sessionUpdate: "agent_message_chunk",
          messageId: reply,
          content: { type: "text", text: "world" },
        });
        await update(cx, {
          sessionUpdate: "tool_call_update",
          title: "Run tests",
          kind: "execute",
          status: "in_progress",
          toolCallId: "t1",
          capabilities: { cancel: {} },
        });
        background = [{ type: "tool_call", toolCallId: "t1" }];
        await state(cx, { state: "running" });
        await update(cx, {
          sessionUpdate: "terminal_update",
          command: "npm test",
          terminalId: "term-1",
          capabilities: { cancel: {} },
        });
        await update(cx, {
          sessionUpdate: "terminal_output_chunk",
          terminalId: "term-1",
          data: encode("running 42 tests ✅\n"),
        });
        background = [...background, { type: "terminal", terminalId: "term-1" }];
        await state(cx, { state: "running" });
        await state(cx, idle);
      })();
      return { messageId };
    })
    .onRequest("tool_call/cancel", async (ctx) => {
      if (ctx.params.toolCallId !== "t1")
        throw TheirRequestError.invalidParams(
          { toolCallId: ctx.params.toolCallId },
          "the tool call is unknown or not cancellable",
        );
      await update(ctx.client, {
        sessionUpdate: "tool_call_update",
        status: "cancelled",
        toolCallId: "t1",
      });
      background = background.filter((w) => w.type !== "tool_call");
      await state(ctx.client, idle);
      return {};
    })
    .onRequest("terminal/cancel", async (ctx) => {
      await update(ctx.client, {
        sessionUpdate: "terminal_update",
        exitStatus: { signal: "SIGTERM" },
        terminalId: "term-1",
      });
      background = background.filter((w) => w.type !== "terminal");
      await state(ctx.client, idle);
      return {};
    })
    .onNotification("session/cancel", () => undefined)
    .connect(theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
  return { close: () => connection.close() };
};

/** The same scenario on acp-kit's v2 agent side. */
const ours: AgentUnderTest = (wire) => {
  let ids = 0;
  const connection = new AgentSideConnection(
    (conn): Agent => {
      let session: AgentSession | undefined;
      const closed = new Set<string>();
      let tool: ToolCallWriter | undefined;
      let terminal: TerminalWriter | undefined;
      return {
        initialize: () => INIT_RESPONSE,
        newSession: () => {
          session = new AgentSession(conn, SESSION, { newId: () => `id-${++ids}` });
          return { sessionId: SESSION };
        },
        listSessions: () => ({ sessions: [] }),
        resumeSession: () => ({}),
        closeSession: ({ sessionId }) => {
          if (closed.has(sessionId))
            throw new RequestError(-32002, "Resource not found", { sessionId: SESSION });
          closed.add(sessionId);
          return session?.close();
        },
        prompt: (params) =>
          session!.prompt(params, async (turn) => {
            const reply = turn.session.agentMessage();
            await reply.append("Hello, ");
            await reply.append("world");
            tool = await turn.session.toolCall({
              toolCallId: "t1",
              title: "Run tests",
              kind: "execute",
              status: "in_progress",
              onCancel: () => undefined,
            });
            await tool.runInBackground();
            terminal = await turn.session.terminal({
              terminalId: "term-1",
              command: "npm test",
              onCancel: () => terminal?.exit({ signal: "SIGTERM" }),
            });
            await terminal.write("running 42 tests ✅\n");
            await terminal.runInBackground();
            return "end_turn" as const;
          }),
        cancel: () => session?.cancel(),
        cancelToolCall: (params) => session!.cancelToolCall(params),
        cancelTerminal: (params) => session!.cancelTerminal(params),
      };
    },
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, { closeOutput: true }),
  );
  return { close: () => connection.close() };
};

function connectTheirClient(wire: InteropWire): ClientConnection {
  return officialClient().connect(
    theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
  );
}

/** The official client drives a whole session; returns what it saw. */
async function driveSession(start: AgentUnderTest): Promise<{
  wire: InteropWire;
  text: string;
  messageId: string;
  backgroundAfterTurn: unknown;
  closes: unknown[];
}> {
  const wire = interopWire();
  const agent = start(wire);
  const client = connectTheirClient(wire);
  try {
    const init = await client.agent.request("initialize", {
      protocolVersion: 2,
      info: CLIENT_INFO,
      capabilities: {},
    });
    expect(init).toEqual(INIT_RESPONSE);
    const session = await client.agent.buildSession(ROOT).start();
    const { messageId } = await session.prompt("hello");
    const text = await session.readTextUntilIdle();
    const backgroundAfterTurn = session.background;
    expect(session.canCancelToolCall("t1")).toBe(true);
    expect(session.canCancelTerminal("term-1")).toBe(true);
    await session.cancelToolCall("t1");
    await session.cancelTerminal("term-1");
    expect(await until(() => session.background?.length === 0)).toBe(true);
    const closes = [
      await client.agent.request("session/close", { sessionId: SESSION }),
      await client.agent.request("session/close", { sessionId: SESSION }),
    ];
    return { wire, text, messageId, backgroundAfterTurn, closes };
  } finally {
    client.close();
    agent.close();
  }
}

/** Messages sorted by id (answers to concurrent requests have no fixed order). */
function byId(messages: Record<string, unknown>[]): Record<string, unknown>[] {
  return [...messages].sort(
    (a, b) =>
      JSON.stringify(a.id ?? null).localeCompare(JSON.stringify(b.id ?? null)) ||
      JSON.stringify(a).localeCompare(JSON.stringify(b)),
  );
}

/**
 * What the agent wrote: its notifications in order, and its answers by id (v2 gives an
 * answer no fixed order relative to the session's updates).
 */
function agentWrote(wire: InteropWire): { notifications: unknown[]; answers: unknown[] } {
  const messages = wire.agentToClientTap.messages;
  return {
    notifications: messages.filter((message) => "method" in message),
    answers: byId(messages.filter((message) => !("method" in message))),
  };
}

describe("acp-kit's v2 agent side against the official v2 client (differential)", () => {
  it("a session: echo, running → idle, chunks, cancellable tool call and terminal, background, close twice", async () => {
    const baseline = await driveSession(theirs);
    const result = await driveSession(ours);
    expect(baseline.text).toBe("Hello, world");
    expect(result.text).toBe(baseline.text);
    expect(result.messageId).toBe(baseline.messageId);
    expect(result.backgroundAfterTurn).toEqual(baseline.backgroundAfterTurn);
    expect(result.closes).toEqual([{}, {}]);
    expect(result.closes).toEqual(baseline.closes);
    expect(agentWrote(result.wire)).toEqual(agentWrote(baseline.wire));
  });

  it("refuses what comes before initialize, v1 versions and null ids with the official bytes", async () => {
    const probe = async (start: AgentUnderTest): Promise<unknown[]> => {
      const wire = interopWire();
      const agent = start(wire);
      const writer = wire.clientToAgent.writable.getWriter();
      void wire.agentToClient.readable.pipeTo(new WritableStream());
      const send = (message: unknown): Promise<void> =>
        writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
      await send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: ROOT } });
      await send({
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {} },
      });
      await send({
        jsonrpc: "2.0",
        id: null,
        method: "initialize",
        params: { protocolVersion: 2, info: CLIENT_INFO },
      });
      await send({
        jsonrpc: "2.0",
        id: 3,
        method: "initialize",
        params: { protocolVersion: 2, info: CLIENT_INFO },
      });
      await send({ jsonrpc: "2.0", id: 4, method: "session/new", params: { cwd: ROOT } });
      await send({
        jsonrpc: "2.0",
        id: 5,
        method: "initialize",
        params: { protocolVersion: 2, info: CLIENT_INFO },
      });
      await send({
        jsonrpc: "2.0",
        id: 6,
        method: "tool_call/cancel",
        params: { sessionId: SESSION, toolCallId: "nope" },
      });
      // A newer version with a malformed `info`: read as v2 with a stand-in `info`, but
      // refused all the same, since other requests came before.
      await send({
        jsonrpc: "2.0",
        id: 7,
        method: "initialize",
        params: { protocolVersion: 3, info: 5 },
      });
      await send([{ jsonrpc: "2.0", id: 8, method: "session/list", params: {} }]);
      await send({ jsonrpc: "2.0", id: 9, method: "session/list", params: {} });
      await until(() => wire.agentToClientTap.messages.length >= 10);
      agent.close();
      // Answers to concurrent requests have no fixed order: compare them by id.
      return byId(wire.agentToClientTap.messages);
    };
    const baseline = await probe(theirs);
    const result = await probe(ours);
    expect(baseline).toHaveLength(10);
    expect(result).toEqual(baseline);
  });
});
