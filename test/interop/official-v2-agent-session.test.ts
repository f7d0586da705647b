/**
 * acp-kit's `AgentSession` (on its v2 `AgentSideConnection`) driven by the official SDK
 * 2.4.0 v2 `client()` and its `ActiveSession` helper, on real NDJSON byte pipes: what the
 * official client concludes from our updates (`background`, `isForBackgroundWork`,
 * `canCancelToolCall`, `canCancelTerminal`, its `stop` messages) must be what the
 * session meant, and its held-prompt and cancel rules must hold against ours.
 */
import {
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
  type ActiveSession,
  type ActiveSessionMessage,
  type ClientConnection,
} from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import {
  AgentSession,
  AgentSideConnection,
  ndJsonStream,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type TurnHandler,
} from "../../packages/acp-kit/src/v2/index.js";
import { caught, deferred, interopWire, until, type Deferred } from "../support/interop-wire.js";

const ROOT = "/work/project";
const INFO = { name: "v2-agent", version: "1.0.0" };
const CLIENT_INFO = { name: "v2-client", version: "1.0.0" };
const PERMISSION = {
  title: "Allow?",
  options: [{ optionId: "ok", name: "OK", kind: "allow_once" as const }],
};

/** A permission request as the official client's handler received it. */
interface Asked {
  readonly params: RequestPermissionRequest;
  readonly forBackground: boolean;
  readonly signal: AbortSignal;
  readonly answer: Deferred<RequestPermissionResponse>;
}

/** Our agent (one `AgentSession` per session) and the official client, connected. */
async function connect() {
  const wire = interopWire();
  const h: { run: TurnHandler; session?: AgentSession; active?: ActiveSession } = {
    run: () => "end_turn",
  };
  let ids = 0;
  const agent = new AgentSideConnection(
    (conn) => ({
      initialize: () => ({ protocolVersion: 2, info: INFO, capabilities: { session: {} } }),
      newSession: () => {
        h.session = new AgentSession(conn, "s-1", { newId: () => `id-${++ids}` });
        return { sessionId: "s-1" };
      },
      listSessions: () => ({ sessions: [] }),
      resumeSession: async (params) => {
        await h.session!.resume(params);
        return {};
      },
      closeSession: ({ sessionId }) => {
        if (h.session!.closed) throw new RequestError(-32002, "Resource not found", { sessionId });
        return h.session!.close();
      },
      prompt: (params, context) =>
        h.session!.prompt(params, (turn) => h.run(turn), context?.signal),
      cancel: () => h.session?.cancel(),
      cancelToolCall: (params) => h.session!.cancelToolCall(params),
      cancelTerminal: (params) => h.session!.cancelTerminal(params),
    }),
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, { closeOutput: true }),
  );
  const asked: Asked[] = [];
  const client: ClientConnection = officialClient()
    .onRequest("session/request_permission", (ctx) => {
      const answer = deferred<RequestPermissionResponse>();
      ctx.signal.addEventListener("abort", () =>
        answer.resolve({ outcome: { outcome: "cancelled" } }),
      );
      asked.push({
        params: ctx.params as RequestPermissionRequest,
        forBackground: h.active?.isForBackgroundWork(ctx.params) ?? false,
        signal: ctx.signal,
        answer,
      });
      return answer.promise as Promise<never>;
    })
    .connect(theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
  await client.agent.request("initialize", {
    protocolVersion: 2,
    info: CLIENT_INFO,
    capabilities: {},
  });
  const active = await client.agent.buildSession(ROOT).start();
  h.active = active;
  /** Reads updates until a `stop`; returns everything read. */
  const untilStop = async (): Promise<ActiveSessionMessage[]> => {
    const read: ActiveSessionMessage[] = [];
    for (;;) {
      const message = await active.nextUpdate();
      read.push(message);
      if (message.kind === "stop") return read;
    }
  };
  return {
    wire,
    h,
    active,
    asked,
    client,
    untilStop,
    get session(): AgentSession {
      return h.session!;
    },
    close(): void {
      client.close();
      agent.close();
    },
  };
}

describe("AgentSession under the official v2 client", () => {
  it("background, isForBackgroundWork, canCancelToolCall/canCancelTerminal as the official ActiveSession reads them", async () => {
    const c = await connect();
    try {
      const answered = deferred<RequestPermissionResponse[]>();
      c.h.run = async (turn) => {
        const s = turn.session;
        const watch = await s.toolCall({
          toolCallId: "watch",
          title: "watch",
          status: "in_progress",
          onCancel: () => undefined,
        });
        await watch.runInBackground();
        const server = await s.terminal({
          terminalId: "server",
          command: "npm start",
          onCancel: () => server.exit({ signal: "SIGTERM" }),
        });
        await server.runInBackground();
        const fg = await s.toolCall({ toolCallId: "fg", title: "edit", onCancel: () => undefined });
        await fg.update({ capabilities: null });
        answered.resolve(
          await Promise.all([
            s.requestPermission({
              ...PERMISSION,
              subject: { type: "tool_call", toolCall: { toolCallId: "watch" } },
            }),
            s.requestPermission({
              ...PERMISSION,
              subject: { type: "command", command: "npm start", cwd: ROOT, terminalId: "server" },
            }),
            s.requestPermission({
              ...PERMISSION,
              subject: { type: "tool_call", toolCall: { toolCallId: "fg" } },
            }),
          ]),
        );
        return "end_turn" as const;
      };
      const { messageId } = await c.active.prompt("go");
      expect(messageId).toBe("id-1");
      await until(() => c.asked.length === 3);
      // Both sides agree on which requests are for background work.
      expect(c.asked.map((a) => a.forBackground)).toEqual([true, true, false]);
      expect(c.asked.map((a) => c.session.isForBackgroundWork(a.params))).toEqual([
        true,
        true,
        false,
      ]);
      expect(c.active.background).toEqual([
        { type: "tool_call", toolCallId: "watch" },
        { type: "terminal", terminalId: "server" },
      ]);
      expect(c.active.canCancelToolCall("watch")).toBe(true);
      expect(c.active.canCancelToolCall("fg")).toBe(false);
      expect(c.active.canCancelTerminal("server")).toBe(true);
      // Only the foreground request made the state requires_action.
      expect(c.session.state).toBe("requires_action");
      // session/cancel withdraws the foreground request, not the background ones.
      await c.client.agent.notify("session/cancel", { sessionId: "s-1" });
      await until(() => c.asked[2]!.signal.aborted);
      expect(c.asked.map((a) => a.signal.aborted)).toEqual([false, false, true]);
      c.asked[0]!.answer.resolve({ outcome: { outcome: "selected", optionId: "ok" } });
      c.asked[1]!.answer.resolve({ outcome: { outcome: "selected", optionId: "ok" } });
      expect((await answered.promise).map((r) => r.outcome.outcome)).toEqual([
        "selected",
        "selected",
        "cancelled",
      ]);
      const read = await c.untilStop();
      const stop = read.at(-1)!;
      expect(stop.kind === "stop" && stop.stopReason).toBe("cancelled");
      expect(
        read
          .filter((m) => m.update.sessionUpdate === "state_update")
          .map((m) => (m.update as { state: string }).state),
      ).toEqual(["running", "running", "running", "requires_action", "idle"]);
      // Background work keeps running after the cancel; cancelling it one by one.
      expect(c.active.background).toHaveLength(2);
      await c.active.cancelToolCall("watch");
      await c.active.cancelTerminal("server");
      expect(await until(() => c.active.background?.length === 0)).toBe(true);
      await expect(c.active.cancelToolCall("fg")).rejects.toBeInstanceOf(TypeError);
      // The official client refuses locally what does not advertise cancel; asked anyway:
      const error = (await caught(
        c.client.agent.request("tool_call/cancel", { sessionId: "s-1", toolCallId: "watch" }),
      )) as { code: number; message: string };
      expect([error.code, error.message]).toEqual([
        -32602,
        "Invalid params: the tool call is unknown or not cancellable",
      ]);
    } finally {
      c.close();
    }
  });

  it("ActiveSession.prompt: a held prompt resolves once inserted, -32800 on cancel, withdrawn by its cancellationSignal; close twice is {}", async () => {
    const c = await connect();
    try {
      const gates = new Map<string, Deferred<void>>();
      c.h.run = async (turn) => {
        const first = turn.prompt[0];
        const said = first?.type === "text" ? first.text : "";
        const gate = deferred();
        gates.set(said, gate);
        await gate.promise;
        await turn.session.agentMessage().append(`done ${said}`);
        return "end_turn" as const;
      };
      expect(await c.active.prompt("a")).toEqual({ messageId: "id-1" });
      let bAnswered = false;
      const b = c.active.prompt("b").then((r) => ((bAnswered = true), r));
      const withdrawn = new AbortController();
      const w = caught(c.active.prompt("w", { cancellationSignal: withdrawn.signal }));
      await new Promise((r) => setTimeout(r, 20));
      withdrawn.abort();
      const wError = (await w) as { code?: number; name?: string };
      expect(bAnswered).toBe(false);
      gates.get("a")!.resolve();
      expect(await c.active.readTextUntilIdle()).toBe("done a");
      expect(await b).toEqual({ messageId: "id-3" });
      // Held behind "b", then cancelled.
      const held = caught(c.active.prompt("c"));
      await new Promise((r) => setTimeout(r, 20));
      await c.client.agent.notify("session/cancel", { sessionId: "s-1" });
      const cError = (await held) as { code: number; message: string };
      expect([cError.code, cError.message]).toEqual([-32800, "Request cancelled"]);
      gates.get("b")!.resolve();
      expect(await c.active.readTextUntilIdle()).toBe("done b");
      expect([...gates.keys()]).toEqual(["a", "b"]);
      // The withdrawn prompt never ran; the answer to it on the wire was -32800.
      expect(wError).toBeDefined();
      const prompts = c.wire.clientToAgentTap.withMethod("session/prompt");
      const wId = prompts.find((m) => JSON.stringify(m.params).includes('"w"'))?.id;
      expect(c.wire.agentToClientTap.responseTo(wId)).toMatchObject({ error: { code: -32800 } });
      expect([
        await c.client.agent.request("session/close", { sessionId: "s-1" }),
        await c.client.agent.request("session/close", { sessionId: "s-1" }),
      ]).toEqual([{}, {}]);
      expect(
        c.wire.agentToClientTap.messages.filter(
          (m) => (m.error as { code?: number } | undefined)?.code === -32002,
        ),
      ).toHaveLength(1);
    } finally {
      c.close();
    }
  });

  it("session/resume with replayFrom start: the replay, then a stop snapshot, before the answer", async () => {
    const c = await connect();
    try {
      c.h.run = async (turn) => {
        const reply = turn.session.agentMessage();
        await reply.append("Hel");
        await reply.append("lo");
        const tool = await turn.session.toolCall({
          toolCallId: "t",
          title: "Edit",
          status: "in_progress",
        });
        await tool.update({ status: "completed" });
        return "end_turn" as const;
      };
      await c.active.prompt("go");
      expect(await c.active.readTextUntilIdle()).toBe("Hello");
      await c.client.agent.request("session/resume", {
        sessionId: "s-1",
        cwd: ROOT,
        replayFrom: { type: "start" },
      });
      const read = await c.untilStop();
      expect(read.map((m) => [m.kind, m.update.sessionUpdate])).toEqual([
        ["session_update", "user_message"],
        ["session_update", "agent_message"],
        ["session_update", "tool_call_update"],
        ["stop", "state_update"],
      ]);
      expect(read[1]!.update).toEqual({
        sessionUpdate: "agent_message",
        messageId: "id-2",
        content: [{ type: "text", text: "Hello" }],
      });
      const stop = read[3]!;
      expect(stop.kind === "stop" && stop.stopReason).toBe("end_turn");
    } finally {
      c.close();
    }
  });
});
