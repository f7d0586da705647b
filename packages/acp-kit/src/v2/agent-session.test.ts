import { describe, expect, it } from "vitest";
import { ConnectionError, RequestError } from "../jsonrpc/errors.js";
import type * as schema from "../schema/v2/types.gen.js";
import { validateV2 } from "../schema/v2/validate.js";
import { reduceSessionV2, terminalOutputText } from "../session/reduce-v2.js";
import { emptySessionState, type SessionState } from "../session/state.js";
import { memoryStreamPair } from "../transport/memory.js";
import {
  AgentSession,
  type AgentSessionOptions,
  type SessionSink,
  type Turn,
  type TurnHandler,
  type TurnStopReason,
} from "./agent-session.js";
import { AgentSideConnection } from "./agent-side-connection.js";
import { ClientSideConnection } from "./client-side-connection.js";

const SESSION = "s-1";
const INFO = { name: "test", version: "1.0.0" };
const text = (t: string): schema.ContentBlock => ({ type: "text", text: t });
const promptOf = (t: string): schema.PromptRequest => ({ sessionId: SESSION, prompt: [text(t)] });
const said = (turn: Turn): string => {
  const first = turn.prompt[0];
  return first?.type === "text" ? first.text : "";
};
const PERMISSION = {
  title: "Run it?",
  options: [{ optionId: "ok", name: "OK", kind: "allow_once" as const }],
};

function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 1));
  }
}

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RequestError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

/** A pending permission request as the client sees it. */
interface PendingPermission {
  readonly params: schema.RequestPermissionRequest;
  readonly signal: AbortSignal | undefined;
  answer(response: schema.RequestPermissionResponse): void;
}

/**
 * A v2 agent whose one session is an {@link AgentSession}, and a v2 client, linked by an
 * in-memory NDJSON pair. `run` is the turn handler every prompt gets.
 */
async function pair(options: AgentSessionOptions = {}) {
  const streams = memoryStreamPair();
  const updates: schema.SessionUpdate[] = [];
  const invalid: unknown[] = [];
  const permissions: PendingPermission[] = [];
  const wire: Record<string, unknown>[] = [];
  let ids = 0;
  const h: { run: TurnHandler; session?: AgentSession } = { run: () => "end_turn" };
  const agent = new AgentSideConnection(
    (conn) => ({
      initialize: () => ({ protocolVersion: 2, info: INFO, capabilities: { session: {} } }),
      newSession: () => {
        h.session = new AgentSession(conn, SESSION, { newId: () => `id-${++ids}`, ...options });
        return { sessionId: SESSION };
      },
      listSessions: () => ({ sessions: [] }),
      resumeSession: async (params) => {
        await h.session!.resume(params);
        return {};
      },
      closeSession: () => h.session!.close(),
      prompt: (params, context) =>
        h.session!.prompt(params, (turn) => h.run(turn), context?.signal),
      cancel: () => h.session?.cancel(),
      cancelToolCall: (params) => h.session!.cancelToolCall(params),
      cancelTerminal: (params) => h.session!.cancelTerminal(params),
    }),
    streams.agent,
  );
  agent.observe((direction, message) => {
    if (direction === "out") wire.push(message as Record<string, unknown>);
  });
  const client = new ClientSideConnection(
    () => ({
      sessionUpdate: (params) => {
        if (!validateV2("UpdateSessionNotification", params).ok) invalid.push(params);
        updates.push(params.update);
      },
      requestPermission: (params, context) =>
        new Promise((answer) => {
          context?.signal.addEventListener("abort", () =>
            answer({ outcome: { outcome: "cancelled" } }),
          );
          permissions.push({ params, signal: context?.signal, answer });
        }),
    }),
    streams.client,
  );
  const sent: Record<string, unknown>[] = [];
  client.observe((direction, message) => {
    if (direction === "out") sent.push(message as Record<string, unknown>);
  });
  await client.initialize({ protocolVersion: 2, info: INFO });
  await client.newSession({ cwd: "/work" });
  const states = (): Record<string, unknown>[] =>
    updates.filter((u) => u.sessionUpdate === "state_update");
  const idles = (): Record<string, unknown>[] => states().filter((s) => s.state === "idle");
  return {
    agent,
    client,
    h,
    get session(): AgentSession {
      return h.session!;
    },
    updates,
    invalid,
    permissions,
    wire,
    sent,
    states,
    idles,
    /** Sends a prompt and waits for the idle that ends its turn. */
    async turn(t: string): Promise<schema.PromptResponse> {
      const before = idles().length;
      const answer = await client.prompt(promptOf(t));
      await until(() => idles().length > before);
      return answer;
    },
    fold: (from: SessionState = emptySessionState(SESSION)): SessionState =>
      updates.reduce(reduceSessionV2, from),
    close(): void {
      client.close();
      agent.close();
    },
  };
}

/** A turn handler that waits for the test to release each turn, in start order. */
function gated() {
  const started: string[] = [];
  const gates = new Map<string, ReturnType<typeof deferred<TurnStopReason>>>();
  const run: TurnHandler = async (turn) => {
    const gate = deferred<TurnStopReason>();
    gates.set(said(turn), gate);
    started.push(said(turn));
    return gate.promise;
  };
  return {
    run,
    started,
    release: async (t: string, reason: TurnStopReason = "end_turn") => {
      await until(() => gates.has(t));
      gates.get(t)!.resolve(reason);
    },
  };
}

describe("AgentSession: prompts", () => {
  it("holds prompts sent during a turn and inserts them FIFO, each answered once inserted", async () => {
    const p = await pair();
    try {
      const gate = gated();
      p.h.run = gate.run;
      const first = await p.client.prompt(promptOf("a"));
      const order: string[] = [];
      const second = p.client.prompt(promptOf("b")).then((r) => (order.push("b"), r));
      const third = p.client.prompt(promptOf("c")).then((r) => (order.push("c"), r));
      await new Promise((r) => setTimeout(r, 20));
      expect(order).toEqual([]);
      expect(gate.started).toEqual(["a"]);
      await gate.release("a");
      const b = await second;
      expect(order).toEqual(["b"]);
      // Its insertion comes after the idle that ended the turn before it.
      const kinds = p.updates.map((u) =>
        u.sessionUpdate === "state_update"
          ? (u as { state: string }).state
          : u.sessionUpdate === "user_message"
            ? `user:${u.messageId}`
            : u.sessionUpdate,
      );
      expect(kinds).toEqual([
        `user:${first.messageId}`,
        "running",
        "idle",
        `user:${b.messageId}`,
        "running",
      ]);
      await gate.release("b", "max_tokens");
      const c = await third;
      await gate.release("c");
      await until(() => p.idles().length === 3);
      expect(gate.started).toEqual(["a", "b", "c"]);
      expect([first, b, c]).toEqual([
        { messageId: "id-1" },
        { messageId: "id-2" },
        { messageId: "id-3" },
      ]);
      expect(p.idles().map((s) => s.stopReason)).toEqual(["end_turn", "max_tokens", "end_turn"]);
      expect(p.invalid).toEqual([]);
    } finally {
      p.close();
    }
  });

  it("session/cancel answers held prompts -32800 and ends the turn cancelled even if its handler returns normally; a later prompt is unaffected", async () => {
    const p = await pair();
    try {
      const gate = gated();
      p.h.run = gate.run;
      await p.client.prompt(promptOf("a"));
      const held1 = rejection(p.client.prompt(promptOf("b")));
      const held2 = rejection(p.client.prompt(promptOf("c")));
      await new Promise((r) => setTimeout(r, 10));
      await p.client.cancel({ sessionId: SESSION });
      for (const error of [await held1, await held2])
        expect({ code: error.code, message: error.message }).toEqual({
          code: -32800,
          message: "Request cancelled",
        });
      // The handler ignores its signal and says end_turn: the turn still ends cancelled.
      await gate.release("a");
      await until(() => p.idles().length === 1);
      expect(p.idles()[0]).toEqual({
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "cancelled",
      });
      const after = await p.client.prompt(promptOf("d"));
      expect(after).toEqual({ messageId: "id-2" });
      await gate.release("d");
      await until(() => p.idles().length === 2);
      expect(p.idles()[1]?.stopReason).toBe("end_turn");
      expect(gate.started).toEqual(["a", "d"]);
      expect(p.invalid).toEqual([]);
    } finally {
      p.close();
    }
  });

  it("a held prompt the client withdraws ($/cancel_request) is answered -32800 and never inserted", async () => {
    const p = await pair();
    try {
      const gate = gated();
      p.h.run = gate.run;
      await p.client.prompt(promptOf("a"));
      const controller = new AbortController();
      const withdrawn = p.client.prompt(promptOf("b"), { signal: controller.signal });
      withdrawn.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 10));
      controller.abort();
      await expect(withdrawn).rejects.toBeInstanceOf(ConnectionError);
      await until(() => p.wire.some((m) => "id" in m && "error" in m));
      const answer = p.wire.find((m) => "id" in m && "error" in m) as { error: { code: number } };
      expect(answer.error.code).toBe(-32800);
      await gate.release("a");
      await until(() => p.idles().length === 1);
      const next = await p.client.prompt(promptOf("c"));
      await gate.release("c");
      await until(() => p.idles().length === 2);
      expect(gate.started).toEqual(["a", "c"]);
      expect(next).toEqual({ messageId: "id-2" });
    } finally {
      p.close();
    }
  });

  it("a turn that throws ends idle error: a RequestError's code, message and data; anything else -32603", async () => {
    const p = await pair();
    try {
      const thrown: unknown[] = [
        new RequestError(-32000, "Authentication required", { method: "x" }),
        new Error("disk full"),
        new Error(""),
        "a string",
      ];
      for (const error of thrown) {
        p.h.run = () => {
          throw error;
        };
        await p.turn("go");
      }
      expect(p.idles().map((s) => s.error)).toEqual([
        { code: -32000, message: "Authentication required", data: { method: "x" } },
        { code: -32603, message: "disk full" },
        { code: -32603, message: "Internal error" },
        { code: -32603, message: "a string" },
      ]);
      expect(p.idles().every((s) => s.stopReason === "error")).toBe(true);
      expect(p.invalid).toEqual([]);
      // The prompt itself succeeded: the failure came after insertion.
      expect(p.session.busy).toBe(false);
    } finally {
      p.close();
    }
  });

  it("close answers held prompts -32800 and later prompts -32002 with data {sessionId}", async () => {
    const p = await pair();
    try {
      const gate = gated();
      p.h.run = gate.run;
      await p.client.prompt(promptOf("a"));
      const held = rejection(p.client.prompt(promptOf("b")));
      await new Promise((r) => setTimeout(r, 10));
      expect(await p.client.closeSession({ sessionId: SESSION })).toEqual({});
      expect((await held).code).toBe(-32800);
      // The turn ends when its handler returns (it ignores its signal here): cancelled.
      await gate.release("a");
      await until(() => p.idles().length === 1);
      expect(p.idles()[0]?.stopReason).toBe("cancelled");
      const error = await rejection(p.client.prompt(promptOf("c")));
      expect({ code: error.code, message: error.message, data: error.data }).toEqual({
        code: -32002,
        message: "Resource not found",
        data: { sessionId: SESSION },
      });
      expect(p.session.closed).toBe(true);
    } finally {
      p.close();
    }
  });

  it("close during a turn: the turn ends cancelled and background work is stopped before the answer; nothing for the session is sent after it", async () => {
    const p = await pair();
    try {
      const keepWriting = deferred();
      const stopped: string[] = [];
      p.h.run = async (turn) => {
        const s = turn.session;
        const tool = await s.toolCall({
          toolCallId: "watch",
          status: "in_progress",
          onCancel: () => void stopped.push("watch"),
        });
        await tool.runInBackground();
        const term = await s.terminal({
          terminalId: "server",
          onCancel: async () => {
            stopped.push("server");
            await term.exit({ signal: "SIGTERM" });
          },
        });
        await term.runInBackground();
        // Ignores its signal, and goes on writing after the close.
        await keepWriting.promise;
        await s.agentMessage().append("too late");
        return "end_turn" as const;
      };
      await p.client.prompt(promptOf("go"));
      await until(() => p.states().length === 3);
      expect(await p.client.closeSession({ sessionId: SESSION })).toEqual({});
      expect(stopped).toEqual(["watch", "server"]);
      const closeId = p.sent.find((m) => m.method === "session/close")?.id;
      const answerAt = p.wire.findIndex((m) => !("method" in m) && m.id === closeId);
      expect(answerAt).toBeGreaterThan(0);
      const updatesAfter = p.wire.slice(answerAt + 1).filter((m) => m.method === "session/update");
      expect(updatesAfter).toEqual([]);
      const last = p.updates.slice(-5);
      expect(last).toEqual([
        { sessionUpdate: "tool_call_update", toolCallId: "watch", status: "cancelled" },
        {
          sessionUpdate: "state_update",
          state: "running",
          background: [{ type: "terminal", terminalId: "server" }],
        },
        {
          sessionUpdate: "terminal_update",
          terminalId: "server",
          exitStatus: { signal: "SIGTERM" },
        },
        { sessionUpdate: "state_update", state: "running", background: [] },
        { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled", background: [] },
      ]);
      const count = p.updates.length;
      keepWriting.resolve();
      await new Promise((r) => setTimeout(r, 20));
      expect(p.updates.length).toBe(count);
      // Closing again changes nothing.
      await p.session.close();
      expect(p.updates.length).toBe(count);
    } finally {
      p.close();
    }
  });

  it("a resume after close attaches the session again: prompts work, the history is replayed", async () => {
    const p = await pair();
    try {
      await p.turn("one");
      await p.client.closeSession({ sessionId: SESSION });
      expect((await rejection(p.client.prompt(promptOf("refused")))).code).toBe(-32002);
      const before = p.updates.length;
      await p.client.resumeSession({
        sessionId: SESSION,
        cwd: "/work",
        replayFrom: { type: "start" },
      });
      expect(p.updates.slice(before).map((u) => u.sessionUpdate)).toEqual([
        "user_message",
        "state_update",
      ]);
      expect(p.session.closed).toBe(false);
      expect(await p.turn("two")).toEqual({ messageId: "id-2" });
    } finally {
      p.close();
    }
  });

  it('whileBusy "reject" refuses a prompt during a turn with -32600', async () => {
    const p = await pair({ whileBusy: "reject" });
    try {
      const gate = gated();
      p.h.run = gate.run;
      await p.client.prompt(promptOf("a"));
      const error = await rejection(p.client.prompt(promptOf("b")));
      expect({ code: error.code, message: error.message }).toEqual({
        code: -32600,
        message: "Invalid request: a turn is already running in this session",
      });
      await gate.release("a");
      await until(() => p.idles().length === 1);
      await p.client.prompt(promptOf("c"));
      await gate.release("c");
      await until(() => p.idles().length === 2);
      expect(gate.started).toEqual(["a", "c"]);
    } finally {
      p.close();
    }
  });
});

describe("AgentSession: permissions", () => {
  it("requestPermission makes the state requires_action until answered, then running", async () => {
    const p = await pair();
    try {
      const outcome = deferred<schema.RequestPermissionResponse>();
      p.h.run = async (turn) => {
        outcome.resolve(await turn.session.requestPermission(PERMISSION));
        return "end_turn" as const;
      };
      await p.client.prompt(promptOf("go"));
      await until(() => p.permissions.length === 1);
      expect(p.permissions[0]?.params).toEqual({ ...PERMISSION, sessionId: SESSION });
      expect(p.session.state).toBe("requires_action");
      p.permissions[0]!.answer({ outcome: { outcome: "selected", optionId: "ok" } });
      expect(await outcome.promise).toEqual({ outcome: { outcome: "selected", optionId: "ok" } });
      await until(() => p.idles().length === 1);
      expect(p.states().map((s) => s.state)).toEqual([
        "running",
        "requires_action",
        "running",
        "idle",
      ]);
    } finally {
      p.close();
    }
  });

  it("session/cancel withdraws the turn's pending permission request with $/cancel_request; it is answered cancelled", async () => {
    const p = await pair();
    try {
      const outcome = deferred<schema.RequestPermissionResponse>();
      p.h.run = async (turn) => {
        outcome.resolve(await turn.session.requestPermission(PERMISSION));
        return "end_turn" as const;
      };
      await p.client.prompt(promptOf("go"));
      await until(() => p.permissions.length === 1);
      await p.client.cancel({ sessionId: SESSION });
      expect(await outcome.promise).toEqual({ outcome: { outcome: "cancelled" } });
      await until(() => p.permissions[0]!.signal?.aborted === true);
      expect(p.wire.some((m) => "method" in m && m.method === "$/cancel_request")).toBe(true);
      await until(() => p.idles().length === 1);
      expect(p.states().map((s) => s.state)).toEqual(["running", "requires_action", "idle"]);
      expect(p.idles()[0]?.stopReason).toBe("cancelled");
    } finally {
      p.close();
    }
  });

  it("a permission request for listed background work is not withdrawn by session/cancel, and leaves the foreground state alone; close withdraws it", async () => {
    const p = await pair();
    try {
      const outcome = deferred<schema.RequestPermissionResponse>();
      const release = deferred();
      p.h.run = async (turn) => {
        const tool = await turn.session.toolCall({ toolCallId: "bg", title: "watch" });
        await tool.runInBackground();
        void turn.session
          .requestPermission({
            ...PERMISSION,
            subject: { type: "tool_call", toolCall: { toolCallId: "bg" } },
          })
          .then((response) => outcome.resolve(response));
        await release.promise;
        return "end_turn" as const;
      };
      await p.client.prompt(promptOf("go"));
      await until(() => p.permissions.length === 1);
      expect(p.states().map((s) => s.state)).toEqual(["running", "running"]);
      await p.client.cancel({ sessionId: SESSION });
      release.resolve();
      await until(() => p.idles().length === 1);
      await new Promise((r) => setTimeout(r, 10));
      expect(p.permissions[0]!.signal?.aborted).toBe(false);
      await p.client.closeSession({ sessionId: SESSION });
      expect(await outcome.promise).toEqual({ outcome: { outcome: "cancelled" } });
      expect(p.permissions[0]!.signal?.aborted).toBe(true);
    } finally {
      p.close();
    }
  });
});

describe("AgentSession: tool calls, terminals, background work", () => {
  it("background work appears on every state update once reported and shrinks as work finishes", async () => {
    const p = await pair();
    try {
      const finish = deferred();
      p.h.run = async (turn) => {
        const tool = await turn.session.toolCall({
          toolCallId: "t1",
          title: "build",
          status: "in_progress",
        });
        await tool.runInBackground();
        const term = await turn.session.terminal({ terminalId: "term-1", command: "make" });
        await term.runInBackground();
        void finish.promise.then(async () => {
          await tool.update({ status: "completed" });
          await term.exit({ exitCode: 0 });
        });
        return "end_turn" as const;
      };
      await p.turn("go");
      expect(p.states().map((s) => [s.state, s.background])).toEqual([
        ["running", undefined],
        ["running", [{ type: "tool_call", toolCallId: "t1" }]],
        [
          "running",
          [
            { type: "tool_call", toolCallId: "t1" },
            { type: "terminal", terminalId: "term-1" },
          ],
        ],
        [
          "idle",
          [
            { type: "tool_call", toolCallId: "t1" },
            { type: "terminal", terminalId: "term-1" },
          ],
        ],
      ]);
      finish.resolve();
      await until(() => p.states().length === 6);
      expect(
        p
          .states()
          .slice(4)
          .map((s) => [s.state, s.stopReason, s.background]),
      ).toEqual([
        ["idle", "end_turn", [{ type: "terminal", terminalId: "term-1" }]],
        ["idle", "end_turn", []],
      ]);
      // Once reported, every later state update carries the list (empty now).
      p.h.run = () => "end_turn";
      await p.turn("again");
      expect(
        p
          .states()
          .slice(6)
          .map((s) => s.background),
      ).toEqual([[], []]);
      expect(p.invalid).toEqual([]);
    } finally {
      p.close();
    }
  });

  it("finished work is not listed as background, and listing the same work twice keeps one entry", async () => {
    const p = await pair();
    try {
      p.h.run = async (turn) => {
        const done = await turn.session.toolCall({ toolCallId: "done", status: "completed" });
        await done.runInBackground();
        const exited = await turn.session.terminal({ terminalId: "exited" });
        await exited.exit({ exitCode: 0 });
        await exited.runInBackground();
        const live = await turn.session.toolCall({ toolCallId: "live", status: "in_progress" });
        await live.runInBackground();
        await live.runInBackground();
        return "end_turn" as const;
      };
      await p.turn("go");
      expect(p.idles()[0]?.background).toEqual([{ type: "tool_call", toolCallId: "live" }]);
    } finally {
      p.close();
    }
  });

  it("tool_call/cancel runs the cancel handler and confirms with a cancelled status; unknown, final or non-cancellable calls get -32602", async () => {
    const p = await pair();
    let cancelled = 0;
    try {
      p.h.run = async (turn) => {
        const t1 = await turn.session.toolCall({
          toolCallId: "t1",
          status: "in_progress",
          onCancel: () => {
            cancelled++;
          },
        });
        await t1.runInBackground();
        await turn.session.toolCall({ toolCallId: "plain", status: "in_progress" });
        const done = await turn.session.toolCall({ toolCallId: "done", onCancel: () => undefined });
        await done.update({ status: "completed" });
        // A handler that reports its own final status: no second one is added.
        const self = await turn.session.toolCall({
          toolCallId: "self",
          onCancel: () => self.update({ status: "failed" }),
        });
        const withdrawn = await turn.session.toolCall({
          toolCallId: "withdrawn",
          onCancel: () => undefined,
        });
        await withdrawn.update({ capabilities: null });
        return "end_turn" as const;
      };
      await p.turn("go");
      const before = p.updates.length;
      expect(await p.client.cancelToolCall({ sessionId: SESSION, toolCallId: "t1" })).toEqual({});
      expect(await p.client.cancelToolCall({ sessionId: SESSION, toolCallId: "self" })).toEqual({});
      expect(cancelled).toBe(1);
      await until(() => p.updates.length >= before + 3);
      expect(p.updates.slice(before)).toEqual([
        { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "cancelled" },
        { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", background: [] },
        { sessionUpdate: "tool_call_update", toolCallId: "self", status: "failed" },
      ]);
      for (const toolCallId of ["nope", "plain", "done", "t1", "withdrawn"]) {
        const error = await rejection(p.client.cancelToolCall({ sessionId: SESSION, toolCallId }));
        expect({ code: error.code, message: error.message, data: error.data }).toEqual({
          code: -32602,
          message: "Invalid params: the tool call is unknown or not cancellable",
          data: { toolCallId },
        });
      }
    } finally {
      p.close();
    }
  });

  it("terminal/cancel runs the cancel handler (the exit confirms it); unknown, exited or non-cancellable terminals get -32602", async () => {
    const p = await pair();
    try {
      p.h.run = async (turn) => {
        const term = await turn.session.terminal({
          terminalId: "term-1",
          command: "sleep 100",
          onCancel: () => term.exit({ signal: "SIGTERM" }),
        });
        await term.write("zzz\n");
        await turn.session.terminal({ terminalId: "plain" });
        const exited = await turn.session.terminal({
          terminalId: "exited",
          onCancel: () => undefined,
        });
        await exited.exit({ exitCode: 0 });
        return "end_turn" as const;
      };
      await p.turn("go");
      const before = p.updates.length;
      expect(await p.client.cancelTerminal({ sessionId: SESSION, terminalId: "term-1" })).toEqual(
        {},
      );
      await until(() => p.updates.length > before);
      expect(p.updates.slice(before)).toEqual([
        {
          sessionUpdate: "terminal_update",
          terminalId: "term-1",
          exitStatus: { signal: "SIGTERM" },
        },
      ]);
      for (const terminalId of ["nope", "plain", "exited", "term-1"]) {
        const error = await rejection(p.client.cancelTerminal({ sessionId: SESSION, terminalId }));
        expect({ code: error.code, message: error.message, data: error.data }).toEqual({
          code: -32602,
          message: "Invalid params: the terminal is unknown or not cancellable",
          data: { terminalId },
        });
      }
      // Terminal output crossed as base64 and folds back to the text.
      const folded = p.fold().terminals.find((t) => t.terminalId === "term-1")!;
      expect(terminalOutputText(folded)).toBe("zzz\n");
    } finally {
      p.close();
    }
  });
});

/** The parts of a folded state a replay must reproduce. */
function transcript(state: SessionState): unknown {
  return {
    thread: state.thread.map((item) =>
      item.type === "tool_call" ? { ...item, statusHistory: undefined } : item,
    ),
    plans: state.plans,
    terminals: state.terminals.map((t) => ({ ...t, output: terminalOutputText(t) })),
    availableCommands: state.availableCommands,
    info: state.info,
  };
}

describe("AgentSession: resume", () => {
  /** A session with a bit of everything, one turn long. */
  async function busySession(options: AgentSessionOptions = {}) {
    const p = await pair(options);
    p.h.run = async (turn) => {
      const s = turn.session;
      const thought = s.agentThought();
      await thought.append("hmm");
      s.agentMessage(); // never written: nothing to replay
      const reply = s.agentMessage();
      await reply.append("Hel");
      await reply.append("lo");
      await s.plan([{ content: "one", priority: "high", status: "pending" }], "p1");
      await s.plan([{ content: "two", priority: "low", status: "pending" }], "p2");
      await s.plan([{ content: "one", priority: "high", status: "completed" }], "p1");
      const tool = await s.toolCall({
        toolCallId: "t1",
        title: "Edit",
        kind: "edit",
        status: "in_progress",
        _meta: { a: 1 },
      });
      await tool.update({ _meta: { b: 2 } });
      await tool.appendContent({ type: "content", content: text("done") });
      await tool.update({ status: "completed", title: null });
      const term = await s.terminal({ terminalId: "term-1", command: "ls", cwd: "/work" });
      await term.write("a\n");
      await term.write(new TextEncoder().encode("b ✅\n"));
      await term.exit({ exitCode: 0 });
      await s.update({
        sessionUpdate: "available_commands_update",
        availableCommands: [{ type: "command", name: "x", description: "X" }],
      });
      await s.update({ sessionUpdate: "session_info_update", title: "T" });
      await s.update({ sessionUpdate: "plan_removed", planId: "p2" });
      return { stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } };
    };
    await p.turn("go");
    return p;
  }

  it("with replayFrom start, replays the session in the order its parts began, then a snapshot, before the answer; the fold equals the live one", async () => {
    const p = await busySession();
    try {
      const live = transcript(p.fold());
      const before = p.updates.length;
      await p.client.resumeSession({
        sessionId: SESSION,
        cwd: "/work",
        replayFrom: { type: "start" },
      });
      const replay = p.updates.slice(before);
      expect(replay.map((u) => u.sessionUpdate)).toEqual([
        "user_message",
        "agent_thought",
        "agent_message",
        "plan_update",
        "tool_call_update",
        "terminal_update",
        "available_commands_update",
        "session_info_update",
        "state_update",
      ]);
      expect(replay.at(-1)).toEqual({
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "end_turn",
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      });
      expect(transcript(replay.reduce(reduceSessionV2, emptySessionState(SESSION)))).toEqual(live);
      expect(p.invalid).toEqual([]);
    } finally {
      p.close();
    }
  });

  it("without replayFrom, only the snapshot", async () => {
    const p = await busySession();
    try {
      const before = p.updates.length;
      await p.client.resumeSession({ sessionId: SESSION, cwd: "/work" });
      expect(p.updates.slice(before)).toEqual([
        {
          sessionUpdate: "state_update",
          state: "idle",
          stopReason: "end_turn",
          usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        },
      ]);
    } finally {
      p.close();
    }
  });

  it("replays a compaction (its status and summary as one compaction_update) where it began", async () => {
    const p = await pair();
    try {
      p.h.run = async (turn) => {
        await turn.session.agentMessage().append("before");
        await turn.session.update({
          sessionUpdate: "compaction_update",
          compactionId: "c1",
          status: "in_progress",
        });
        await turn.session.update({
          sessionUpdate: "compaction_summary_chunk",
          compactionId: "c1",
          content: text("Sum"),
        });
        await turn.session.update({
          sessionUpdate: "compaction_summary_chunk",
          compactionId: "c1",
          content: text("mary"),
        });
        await turn.session.update({
          sessionUpdate: "compaction_update",
          compactionId: "c1",
          status: "completed",
        });
        await turn.session.agentMessage().append("after");
        await turn.session.update({
          sessionUpdate: "notice",
          severity: "info",
          title: "live only",
        });
        return "end_turn" as const;
      };
      await p.turn("go");
      const live = transcript(p.fold());
      const before = p.updates.length;
      await p.client.resumeSession({
        sessionId: SESSION,
        cwd: "/work",
        replayFrom: { type: "start" },
      });
      const replay = p.updates.slice(before);
      expect(replay.map((u) => u.sessionUpdate)).toEqual([
        "user_message",
        "agent_message",
        "compaction_update",
        "agent_message",
        "state_update",
      ]);
      expect(replay[2]).toEqual({
        sessionUpdate: "compaction_update",
        compactionId: "c1",
        status: "completed",
        summary: [text("Summary")],
      });
      expect(transcript(replay.reduce(reduceSessionV2, emptySessionState(SESSION)))).toEqual(live);
      expect(p.invalid).toEqual([]);
    } finally {
      p.close();
    }
  });

  it("a resume during a turn: the snapshot says running (or requires_action while a permission is asked), with the background list", async () => {
    const p = await pair();
    try {
      const asked = deferred();
      const done = deferred();
      p.h.run = async (turn) => {
        const tool = await turn.session.toolCall({ toolCallId: "bg", title: "serve" });
        await tool.runInBackground();
        await turn.session.agentMessage().append("working");
        asked.resolve();
        await turn.session.requestPermission(PERMISSION);
        await done.promise;
        return "end_turn" as const;
      };
      await p.client.prompt(promptOf("go"));
      await asked.promise;
      await until(() => p.permissions.length === 1);
      let before = p.updates.length;
      await p.client.resumeSession({ sessionId: SESSION, cwd: "/work" });
      expect(p.updates.slice(before)).toEqual([
        {
          sessionUpdate: "state_update",
          state: "requires_action",
          background: [{ type: "tool_call", toolCallId: "bg" }],
        },
      ]);
      p.permissions[0]!.answer({ outcome: { outcome: "selected", optionId: "ok" } });
      await until(() => p.session.state === "running");
      before = p.updates.length;
      await p.client.resumeSession({
        sessionId: SESSION,
        cwd: "/work",
        replayFrom: { type: "start" },
      });
      expect(p.updates.slice(before).map((u) => u.sessionUpdate)).toEqual([
        "user_message",
        "tool_call_update",
        "agent_message",
        "state_update",
      ]);
      expect(p.updates.at(-1)).toEqual({
        sessionUpdate: "state_update",
        state: "running",
        background: [{ type: "tool_call", toolCallId: "bg" }],
      });
      done.resolve();
      await until(() => p.idles().length === 1);
    } finally {
      p.close();
    }
  });

  it("replays at most maxTerminalReplayBytes of a terminal's output: its tail", async () => {
    const p = await pair({ maxTerminalReplayBytes: 10 });
    try {
      p.h.run = async (turn) => {
        const term = await turn.session.terminal({ terminalId: "term-1" });
        await term.write("0123456789");
        await term.write("abcdef");
        const big = await turn.session.terminal({ terminalId: "term-2" });
        await big.write("x".repeat(5) + "ABCDEFGHIJ");
        return "end_turn" as const;
      };
      await p.turn("go");
      const before = p.updates.length;
      await p.client.resumeSession({
        sessionId: SESSION,
        cwd: "/work",
        replayFrom: { type: "start" },
      });
      const terminals = p.updates
        .slice(before)
        .filter((u) => u.sessionUpdate === "terminal_update") as schema.TerminalUpdate[];
      expect(terminals.map((t) => Buffer.from(t.output!.data, "base64").toString())).toEqual([
        "6789abcdef",
        "ABCDEFGHIJ",
      ]);
    } finally {
      p.close();
    }
  });
});

describe("AgentSession: ordering under a slow sink", () => {
  /** A sink whose sends resolve only when the test says (a slow client). */
  function slowSink() {
    const sent: schema.SessionUpdate[] = [];
    const waiting: (() => void)[] = [];
    const sink: SessionSink = {
      sessionUpdate: (params) => {
        sent.push(params.update);
        return new Promise((resolve) => waiting.push(resolve));
      },
      requestPermission: () => Promise.resolve({ outcome: { outcome: "cancelled" } }),
    };
    return { sink, sent, flush: () => waiting.splice(0).forEach((resolve) => resolve()) };
  }

  it("a prompt that arrives while the idle is being sent waits behind the prompts held before it", async () => {
    const { sink, sent, flush } = slowSink();
    let ids = 0;
    const session = new AgentSession(sink, SESSION, { newId: () => `m${++ids}` });
    const gate = gated();
    const a = await session.prompt(promptOf("a"), gate.run);
    const b = session.prompt(promptOf("b"), gate.run);
    await gate.release("a");
    // The turn ended; its idle is on its way, not yet delivered.
    await until(() => sent.some((u) => (u as { state?: string }).state === "idle"));
    const c = session.prompt(promptOf("c"), gate.run);
    flush();
    expect(await b).toEqual({ messageId: "m2" });
    await new Promise((r) => setTimeout(r, 10));
    flush();
    expect(gate.started).toEqual(["a", "b"]);
    await gate.release("b");
    await until(() => gate.started.length === 3);
    flush();
    expect(await c).toEqual({ messageId: "m3" });
    expect(gate.started).toEqual(["a", "b", "c"]);
    expect(a).toEqual({ messageId: "m1" });
  });
});
