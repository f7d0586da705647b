import { describe, expect, it, vi } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  memoryStreamPair,
  type Agent,
  type Client,
  type SessionNotification,
  type SessionUpdate,
} from "../index.js";
import { emptySessionState } from "./state.js";
import { SessionStore, type SessionAgent, type SessionStoreEvent } from "./store.js";

const chunk = (text: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
});
const note = (sessionId: string, update: SessionUpdate): SessionNotification => ({
  sessionId,
  update,
});

describe("SessionStore basics", () => {
  it("creates a session's state on first sight and folds into it", () => {
    const store = new SessionStore();
    expect(store.get("s")).toBeUndefined();
    const first = store.apply(note("s", chunk("a")));
    store.apply(note("other", chunk("x")));
    const second = store.apply(note("s", chunk("b")));
    expect(store.get("s")).toBe(second);
    expect(first.thread[0]).toMatchObject({ content: [{ type: "text", text: "a" }] });
    expect(second.thread[0]).toMatchObject({ content: [{ type: "text", text: "ab" }] });
    expect(store.sessionIds()).toEqual(["s", "other"]);
    expect(store.delete("other")).toBe(true);
    expect(store.sessionIds()).toEqual(["s"]);
  });

  it("tells listeners after each change, filtered by session when asked", () => {
    const store = new SessionStore();
    const all: SessionStoreEvent[] = [];
    const onlyS: string[] = [];
    const off = store.subscribe((e) => all.push(e));
    store.subscribe((e) => onlyS.push(e.change.type), "s");
    store.apply(note("s", chunk("a")));
    store.beginTurn("s");
    store.apply(note("t", chunk("b")));
    store.endTurn("s", "end_turn");
    store.endTurn("s", "end_turn"); // no running turn: no change, no event
    off();
    store.cancelTurn("s");
    expect(all.map((e) => [e.sessionId, e.change.type])).toEqual([
      ["s", "update"],
      ["s", "begin_turn"],
      ["t", "update"],
      ["s", "end_turn"],
    ]);
    expect(all[0]?.previous).toBeUndefined();
    expect(all[1]?.previous).toBe(all[0]?.state);
    expect(all[0]?.change).toEqual({ type: "update", update: chunk("a") });
    expect(onlyS).toEqual(["update", "begin_turn", "end_turn"]);
  });

  it("calls every listener even if one throws, then rethrows (or reports)", () => {
    const store = new SessionStore();
    const later = vi.fn();
    store.subscribe(() => {
      throw new Error("boom");
    });
    store.subscribe(later);
    expect(() => store.apply(note("s", chunk("a")))).toThrow("boom");
    expect(later).toHaveBeenCalledOnce();
    expect(store.get("s")?.thread).toHaveLength(1);

    const reported: unknown[] = [];
    const quiet = new SessionStore({ onListenerError: (error) => reported.push(error) });
    quiet.subscribe(() => {
      throw new Error("boom");
    });
    expect(() => quiet.apply(note("s", chunk("a")))).not.toThrow();
    expect(reported).toHaveLength(1);
  });

  it("keeps beginLoad / setup / cancel as changes", () => {
    const store = new SessionStore();
    store.apply(note("s", chunk("old")));
    expect(store.beginLoad("s")).toEqual({ ...emptySessionState("s"), loading: true });
    expect(store.setup("s", { configOptions: [] })).toMatchObject({
      loading: false,
      configOptions: [],
    });
  });
});

describe("SessionStore.wrap", () => {
  class Editor implements Client {
    #seen: string[] = [];
    requestPermission() {
      return { outcome: { outcome: "cancelled" as const } };
    }
    sessionUpdate(params: SessionNotification) {
      this.#seen.push(params.update.sessionUpdate);
    }
    get seen() {
      return this.#seen;
    }
  }

  it("feeds the store, then the client, whose other members keep working", () => {
    const store = new SessionStore();
    const editor = new Editor();
    const order: string[] = [];
    store.subscribe(() => order.push("store"));
    const wrapped = store.wrap(editor);
    wrapped.sessionUpdate(note("s", chunk("a")));
    order.push("after");
    expect(order).toEqual(["store", "after"]);
    expect(editor.seen).toEqual(["agent_message_chunk"]);
    expect(wrapped.seen).toBe(editor.seen);
    expect(wrapped.requestPermission()).toEqual({ outcome: { outcome: "cancelled" } });
    expect("sessionUpdate" in wrapped).toBe(true);
    expect(Reflect.get(wrapped, "requestPermission")).toBe(
      Reflect.get(wrapped, "requestPermission"),
    );
  });

  it("still gives the client the update when a listener throws, then fails", async () => {
    const store = new SessionStore();
    store.subscribe(() => {
      throw new Error("ui");
    });
    const seen: string[] = [];
    const sync = store.wrap({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: (p) => void seen.push(p.sessionId),
    });
    expect(() => sync.sessionUpdate(note("a", chunk("x")))).toThrow("ui");
    const asyncClient = store.wrap({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: async (p) => {
        await Promise.resolve();
        seen.push(p.sessionId);
      },
    });
    await expect(asyncClient.sessionUpdate(note("b", chunk("x")))).rejects.toThrow("ui");
    expect(seen).toEqual(["a", "b"]);
  });

  it("receives updates through a real connection, in order, around the responses", async () => {
    const store = new SessionStore();
    const { agent: a, client: b } = memoryStreamPair();
    const agent: Agent = {
      initialize: () => ({ protocolVersion: 1 }),
      authenticate: () => undefined,
      cancel: () => undefined,
      newSession: async () => {
        await agentSide.sessionUpdate(
          note("s1", { sessionUpdate: "current_mode_update", currentModeId: "code" }),
        );
        return {
          sessionId: "s1",
          modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] },
        };
      },
      prompt: async ({ sessionId }) => {
        await agentSide.sessionUpdate(note(sessionId, chunk("Hello")));
        setTimeout(() => void agentSide.sessionUpdate(note(sessionId, chunk(" (late)"))), 5);
        return { stopReason: "end_turn" };
      },
    };
    const agentSide = new AgentSideConnection(() => agent, a);
    const client = new ClientSideConnection(
      () =>
        store.wrap({
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
          sessionUpdate: () => undefined,
        }),
      b,
    );
    const { sessionId } = await store.newSession(client, { cwd: "/w", mcpServers: [] });
    expect(store.get(sessionId)).toMatchObject({
      currentModeId: "ask",
      availableModes: [{ id: "ask", name: "Ask" }],
    });
    const result = await store.prompt(client, {
      sessionId,
      prompt: [{ type: "text", text: "Hi" }],
    });
    expect(result.stopReason).toBe("end_turn");
    expect(store.get(sessionId)?.thread).toHaveLength(2);
    await vi.waitFor(() =>
      expect(store.get(sessionId)?.thread[1]).toMatchObject({
        content: [{ type: "text", text: "Hello (late)" }],
      }),
    );
    expect(store.get(sessionId)?.turns).toEqual([
      {
        prompt: [{ type: "text", text: "Hi" }],
        threadStart: 0,
        ended: true,
        stopReason: "end_turn",
        cancelled: false,
        usage: null,
      },
    ]);
  });
});

describe("SessionStore agent helpers", () => {
  const fake = (overrides: Partial<SessionAgent>): SessionAgent => ({
    newSession: () => Promise.reject(new Error("unused")),
    loadSession: () => Promise.reject(new Error("unused")),
    resumeSession: () => Promise.reject(new Error("unused")),
    prompt: () => Promise.reject(new Error("unused")),
    cancel: () => Promise.resolve(),
    ...overrides,
  });

  it("ends a failed prompt's turn without a stop reason and rethrows", async () => {
    const store = new SessionStore();
    const failing = fake({ prompt: () => Promise.reject(new Error("gone")) });
    await expect(store.prompt(failing, { sessionId: "s", prompt: [] })).rejects.toThrow("gone");
    expect(store.get("s")?.turns[0]).toMatchObject({ ended: true, stopReason: null });
  });

  it("a listener that throws does not hide the agent's error, nor leave a turn open", async () => {
    const store = new SessionStore();
    store.subscribe((event) => {
      if (event.change.type === "end_turn") throw new Error("listener bug");
    });
    const failing = fake({ prompt: () => Promise.reject(new Error("the agent's reason")) });
    await expect(store.prompt(failing, { sessionId: "s", prompt: [] })).rejects.toThrow(
      "the agent's reason",
    );
    // After a success, the listener's error is what the caller hears of.
    const working = fake({ prompt: () => Promise.resolve({ stopReason: "end_turn" }) });
    await expect(store.prompt(working, { sessionId: "s", prompt: [] })).rejects.toThrow(
      "listener bug",
    );

    const early = new SessionStore();
    early.subscribe((event) => {
      if (event.change.type === "begin_turn") throw new Error("listener bug");
    });
    const prompt = vi.fn(() => Promise.resolve({ stopReason: "end_turn" as const }));
    await expect(early.prompt(fake({ prompt }), { sessionId: "s", prompt: [] })).rejects.toThrow(
      "listener bug",
    );
    expect(prompt).not.toHaveBeenCalled();
    expect(early.get("s")?.turns[0]).toMatchObject({ ended: true, stopReason: null });
  });

  it("cancels the turn locally before telling the agent", async () => {
    const store = new SessionStore();
    store.beginTurn("s");
    store.apply(note("s", { sessionUpdate: "tool_call", toolCallId: "t", title: "x" }));
    const cancel = vi.fn(() => {
      expect(store.get("s")?.thread[0]).toMatchObject({ cancelled: true });
      return Promise.resolve();
    });
    await store.cancel(fake({ cancel }), { sessionId: "s" });
    expect(cancel).toHaveBeenCalledWith({ sessionId: "s" });
  });

  it("loads: drops the old conversation, keeps the replay, applies the response", async () => {
    const store = new SessionStore();
    store.apply(note("s", chunk("stale")));
    const loading = fake({
      loadSession: () => {
        expect(store.get("s")?.loading).toBe(true);
        store.apply(note("s", chunk("replayed")));
        return Promise.resolve({ configOptions: [] });
      },
    });
    await store.loadSession(loading, { sessionId: "s", cwd: "/w", mcpServers: [] });
    expect(store.get("s")).toMatchObject({ loading: false, configOptions: [] });
    expect(store.get("s")?.thread).toEqual([
      {
        type: "message",
        role: "agent",
        messageId: null,
        origin: "agent",
        content: [{ type: "text", text: "replayed" }],
      },
    ]);
    const failing = fake({ loadSession: () => Promise.reject(new Error("no")) });
    await expect(
      store.loadSession(failing, { sessionId: "s", cwd: "/w", mcpServers: [] }),
    ).rejects.toThrow("no");
    expect(store.get("s")?.loading).toBe(false);
  });

  it("resumes: applies the response without touching the conversation", async () => {
    const store = new SessionStore();
    store.apply(note("s", chunk("kept")));
    const resuming = fake({
      resumeSession: () => Promise.resolve({ modes: { currentModeId: "m", availableModes: [] } }),
    });
    await store.resumeSession(resuming, { sessionId: "s", cwd: "/w" });
    expect(store.get("s")).toMatchObject({
      currentModeId: "m",
      thread: [{ content: [{ type: "text", text: "kept" }] }],
    });
  });
});

describe("SessionStore in v2 (applyV2)", () => {
  it("folds a v2 agent's own updates, and from then on ignores v1's view of them", () => {
    const store = new SessionStore();
    const events: SessionStoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    store.beginTurn("s", [{ type: "text", text: "go" }]);
    expect(store.followsInV2("s")).toBe(false);
    store.applyV2({
      sessionId: "s",
      update: {
        sessionUpdate: "user_message",
        messageId: "u1",
        content: [{ type: "text", text: "go" }],
      },
    });
    store.applyV2({
      sessionId: "s",
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: "t",
        title: "Edit",
        content: [
          {
            type: "diff",
            changes: [{ operation: "add", path: "/p/new.txt" }],
            patch: { format: "git_patch", text: "@@ -0,0 +1 @@\n+hi\n" },
          },
        ],
      },
    });
    expect(store.followsInV2("s")).toBe(true);
    const before = store.get("s");
    // What a bridge shows of the same call in v1 is not folded a second time.
    const after = store.apply(
      note("s", {
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "Edit",
        content: [{ type: "content", content: { type: "text", text: "@@ -0,0 +1 @@\n+hi\n" } }],
      }),
    );
    expect(after).toBe(before);
    expect(store.apply(note("s", chunk("echo of nothing")))).toBe(before);
    // The current mode (a bridge emulates modes for v2 agents) is still taken.
    const moded = store.apply(
      note("s", { sessionUpdate: "current_mode_update", currentModeId: "plan" }),
    );
    expect(moded.currentModeId).toBe("plan");
    expect(moded.thread).toHaveLength(2);
    expect(moded.thread[0]).toMatchObject({ role: "user", messageId: "u1", origin: "agent" });
    expect(moded.thread[1]).toMatchObject({
      type: "tool_call",
      content: [{ type: "diff", changes: [{ operation: "add", path: "/p/new.txt" }] }],
    });
    store.applyV2({
      sessionId: "s",
      update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
    });
    expect(store.get("s")?.turns[0]).toMatchObject({ ended: true, stopReason: "end_turn" });
    expect(events.map((e) => e.change.type)).toEqual([
      "begin_turn",
      "update_v2",
      "update_v2",
      "update",
      "update_v2",
    ]);
    // The prompt's answer after the idle state changes nothing more.
    expect(store.endTurn("s", "end_turn")).toBe(store.get("s"));
    // Other sessions, and a deleted one seen again, are folded in v1 as before.
    expect(store.apply(note("other", chunk("a"))).thread).toHaveLength(1);
    store.delete("s");
    expect(store.followsInV2("s")).toBe(false);
    expect(store.apply(note("s", chunk("a"))).thread).toHaveLength(1);
  });
});
