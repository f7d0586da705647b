import { describe, expect, it } from "vitest";
import type { SessionUpdate as V2SessionUpdate } from "../schema/v2/types.gen.js";
import { reduceSessionV2, terminalOutputText } from "./reduce-v2.js";
import { emptySessionState, type SessionState, type ThreadToolCall } from "./state.js";
import { beginTurn } from "./turns.js";

const text = (t: string) => ({ type: "text" as const, text: t });

function fold(updates: V2SessionUpdate[], from: SessionState = emptySessionState("s")) {
  return updates.reduce(reduceSessionV2, from);
}

function call(state: SessionState, id: string): ThreadToolCall {
  const found = state.thread.find((item) => item.type === "tool_call" && item.toolCallId === id);
  if (found?.type !== "tool_call") throw new Error(`no tool call ${id}`);
  return found;
}

const base64 = (bytes: Uint8Array | string): string =>
  btoa(
    String.fromCharCode(...(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes)),
  );

describe("reduceSessionV2", () => {
  it("folds a whole v2 turn into the transcript model: echo, chunks, upserts, idle", () => {
    const started = beginTurn(emptySessionState("s"), [text("hello")]);
    const state = fold(
      [
        { sessionUpdate: "state_update", state: "running" },
        { sessionUpdate: "user_message", messageId: "u1", content: [text("hello")] },
        { sessionUpdate: "agent_thought_chunk", messageId: "t1", content: text("think") },
        { sessionUpdate: "agent_message_chunk", messageId: "a1", content: text("Hel") },
        { sessionUpdate: "agent_message_chunk", messageId: "a1", content: text("lo") },
        // A whole-message upsert replaces what the chunks built; later chunks append.
        { sessionUpdate: "agent_message", messageId: "a1", content: [text("Hi")] },
        { sessionUpdate: "agent_message_chunk", messageId: "a1", content: text(" there") },
        { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
      ],
      started,
    );
    const summary = state.thread.map((item) =>
      item.type === "message"
        ? `${item.role}:${item.messageId ?? "-"}:${item.content.map((b) => (b.type === "text" ? b.text : b.type)).join("|")}`
        : item.type,
    );
    // The echo takes the prompt recorded by beginTurn over (with the agent's id): once.
    expect(summary).toEqual(["user:u1:hello", "thought:t1:think", "agent:a1:Hi there"]);
    expect(state.activity).toEqual({
      state: "idle",
      stopReason: "end_turn",
      error: null,
      background: null,
    });
    expect(state.turns.at(-1)).toMatchObject({ ended: true, stopReason: "end_turn" });
    // A repeated idle snapshot is not a new completion.
    const again = reduceSessionV2(state, {
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "end_turn",
    });
    expect(again.turns).toEqual(state.turns);
  });

  it("clears a message with null or [], and keeps it when content is left out", () => {
    const state = fold([{ sessionUpdate: "agent_message", messageId: "a", content: [text("x")] }]);
    const kept = reduceSessionV2(state, { sessionUpdate: "agent_message", messageId: "a" });
    expect(kept.thread).toEqual(state.thread);
    for (const content of [null, []]) {
      const cleared = reduceSessionV2(state, {
        sessionUpdate: "agent_message",
        messageId: "a",
        content,
      });
      expect(cleared.thread).toEqual([expect.objectContaining({ messageId: "a", content: [] })]);
    }
  });

  it("creates a tool call on its first update and patches it by v2's rules", () => {
    const created = fold([{ sessionUpdate: "tool_call_update", toolCallId: "c", name: "shell" }]);
    expect(call(created, "c")).toMatchObject({
      title: "",
      kind: "other",
      status: "pending",
      placeholder: false,
      name: "shell",
    });
    const patched = fold(
      [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "c",
          title: "Run ls",
          kind: "execute",
          status: "in_progress",
          locations: [{ path: "/p" }],
          rawInput: { command: "ls" },
          _meta: { a: 1, b: 2 },
        },
        {
          sessionUpdate: "tool_call_content_chunk",
          toolCallId: "c",
          content: { type: "content", content: text("out") },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "c",
          kind: null,
          locations: null,
          rawInput: null,
          _meta: { a: null, c: 3 },
        },
        { sessionUpdate: "tool_call_update", toolCallId: "c", status: "completed", _meta: {} },
      ],
      created,
    );
    const c = call(patched, "c");
    expect(c).toMatchObject({
      title: "Run ls",
      kind: "other",
      status: "completed",
      locations: [],
      content: [{ type: "content", content: text("out") }],
      statusHistory: ["pending", "in_progress", "completed"],
      _meta: { b: 2, c: 3 },
    });
    expect(c).not.toHaveProperty("rawInput");
    const cancelled = reduceSessionV2(patched, {
      sessionUpdate: "tool_call_update",
      toolCallId: "c",
      status: "cancelled",
    });
    expect(call(cancelled, "c").cancelled).toBe(true);
    // A content chunk for a call not seen yet creates it.
    const fresh = fold([
      {
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "n",
        content: { type: "content", content: text("x") },
      },
    ]);
    expect(call(fresh, "n").content).toHaveLength(1);
  });

  it("keeps the agent's terminals: snapshots replace, chunks append, bytes decode as one stream", () => {
    const euro = new TextEncoder().encode("€"); // three bytes, split over two chunks
    const state = fold([
      {
        sessionUpdate: "terminal_update",
        terminalId: "t",
        command: "make",
        cwd: "/p",
        output: { data: base64("old\n") },
        capabilities: { cancel: {} },
      },
      { sessionUpdate: "terminal_update", terminalId: "t", output: { data: base64("start ") } },
      {
        sessionUpdate: "terminal_output_chunk",
        terminalId: "t",
        data: base64(euro.subarray(0, 2)),
      },
      { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: base64(euro.subarray(2)) },
      { sessionUpdate: "terminal_update", terminalId: "t", exitStatus: { exitCode: 0 } },
    ]);
    expect(state.terminals).toHaveLength(1);
    const [terminal] = state.terminals;
    expect(terminal).toMatchObject({
      terminalId: "t",
      command: "make",
      cwd: "/p",
      cancellable: true,
      exitStatus: { exitCode: 0 },
    });
    expect(terminalOutputText(terminal!)).toBe("start €");
  });

  it("keeps the background work reported last, and the error of an idle", () => {
    const state = fold([
      {
        sessionUpdate: "state_update",
        state: "running",
        background: [{ type: "terminal", terminalId: "t" }],
      },
      {
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "error",
        error: { code: -32603, message: "model down" },
      },
    ]);
    expect(state.activity).toEqual({
      state: "idle",
      stopReason: "error",
      error: { code: -32603, message: "model down" },
      background: [{ type: "terminal", terminalId: "t" }],
    });
  });

  it("keeps kinds it does not know, v1's among them, without folding them as v1 would", () => {
    const updates = [
      { sessionUpdate: "_vendor_progress", step: 1 },
      { sessionUpdate: "tool_call", toolCallId: "x", title: "v1 only" },
    ] as unknown as V2SessionUpdate[];
    const state = fold(updates);
    expect(state.thread).toEqual([]);
    expect(state.unknown).toEqual(updates);
  });

  it("folds the kinds v1 shares as v1 does", () => {
    const state = fold([
      { sessionUpdate: "usage_update", used: 10, size: 100 },
      { sessionUpdate: "session_info_update", title: "T" },
      {
        sessionUpdate: "plan_update",
        plan: {
          type: "items",
          planId: "p",
          entries: [{ content: "a", priority: "high", status: "pending" }],
        },
      },
    ]);
    expect(state.usage).toEqual({ used: 10, size: 100, cost: null });
    expect(state.info.title).toBe("T");
    expect(state.plans).toHaveLength(1);
  });
});

describe("reduceSessionV2: the plan a view shows", () => {
  const items = (planId: string, content: string): V2SessionUpdate =>
    ({
      sessionUpdate: "plan_update",
      plan: {
        type: "items",
        planId,
        entries: [{ content, priority: "medium", status: "pending" }],
      },
    }) as unknown as V2SessionUpdate;

  it("is the items plan updated last; after a removal, the last one left", () => {
    let state = emptySessionState("s");
    state = reduceSessionV2(state, items("a", "first"));
    expect(state.plan?.map((e) => e.content)).toEqual(["first"]);
    state = reduceSessionV2(state, items("b", "second"));
    expect(state.plans.map((p) => p.planId)).toEqual(["a", "b"]);
    expect(state.plan?.map((e) => e.content)).toEqual(["second"]);
    state = reduceSessionV2(state, items("a", "first, again"));
    expect(state.plan?.map((e) => e.content)).toEqual(["first, again"]);
    state = reduceSessionV2(state, {
      sessionUpdate: "plan_removed",
      planId: "b",
    } as unknown as V2SessionUpdate);
    expect(state.plan?.map((e) => e.content)).toEqual(["first, again"]);
    state = reduceSessionV2(state, {
      sessionUpdate: "plan_removed",
      planId: "a",
    } as unknown as V2SessionUpdate);
    expect(state.plans).toEqual([]);
    expect(state.plan).toBeNull();
  });
});
