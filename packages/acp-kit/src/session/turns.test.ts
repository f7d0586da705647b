import { describe, expect, it } from "vitest";
import type { ContentBlock, SessionUpdate } from "../index.js";
import { reduceSession } from "./reduce.js";
import { emptySessionState, type SessionState } from "./state.js";
import { applySetup, beginLoad, beginTurn, cancelTurn, endTurn, takeBackTurn } from "./turns.js";

const text = (t: string): ContentBlock => ({ type: "text", text: t });
const chunk = (
  kind: "user_message_chunk" | "agent_message_chunk",
  t: string,
  messageId?: string,
): SessionUpdate => ({
  sessionUpdate: kind,
  content: text(t),
  ...(messageId ? { messageId } : {}),
});

function fold(state: SessionState, updates: SessionUpdate[]) {
  return updates.reduce(reduceSession, state);
}

describe("beginTurn", () => {
  it("records the prompt as a client message and the turn's start", () => {
    const state = beginTurn(emptySessionState("s"), [text("Fix the bug")]);
    expect(state.thread).toEqual([
      {
        type: "message",
        role: "user",
        messageId: null,
        content: [text("Fix the bug")],
        origin: "client",
      },
    ]);
    expect(state.turns).toEqual([
      {
        prompt: [text("Fix the bug")],
        threadStart: 0,
        ended: false,
        stopReason: null,
        cancelled: false,
        usage: null,
      },
    ]);
  });

  it("lets the agent's echo of the prompt take the recorded message over", () => {
    const state = fold(beginTurn(emptySessionState("s"), [text("Fix it")]), [
      chunk("user_message_chunk", "Fix ", "u1"),
      chunk("user_message_chunk", "it", "u1"),
      chunk("agent_message_chunk", "On it", "a1"),
    ]);
    expect(state.thread).toEqual([
      {
        type: "message",
        role: "user",
        messageId: "u1",
        content: [text("Fix it")],
        origin: "agent",
      },
      {
        type: "message",
        role: "agent",
        messageId: "a1",
        content: [text("On it")],
        origin: "agent",
      },
    ]);
  });

  it("does not take a user chunk after agent output as an echo", () => {
    const state = fold(beginTurn(emptySessionState("s"), [text("Go")]), [
      chunk("agent_message_chunk", "ok"),
      chunk("user_message_chunk", "injected"),
    ]);
    expect(
      state.thread.map((i) => (i.type === "message" ? `${i.role}/${i.origin}` : i.type)),
    ).toEqual(["user/client", "agent/agent", "user/agent"]);
  });

  it("without a prompt, only ends an id-less message of the previous turn", () => {
    let state = fold(emptySessionState("s"), [chunk("agent_message_chunk", "one")]);
    state = endTurn(state, "end_turn");
    state = fold(state, [chunk("agent_message_chunk", " (late)")]);
    state = beginTurn(state);
    state = fold(state, [chunk("agent_message_chunk", "two")]);
    expect(state.thread.map((i) => (i.type === "message" ? i.content : []))).toEqual([
      [text("one (late)")],
      [text("two")],
    ]);
    expect(state.turns).toHaveLength(1); // endTurn without a running turn changes nothing
    expect(state.turns[0]?.threadStart).toBe(1);
  });
});

describe("endTurn and cancelTurn", () => {
  const running = fold(beginTurn(emptySessionState("s"), [text("p")]), [
    { sessionUpdate: "tool_call", toolCallId: "done", title: "a", status: "completed" },
    { sessionUpdate: "tool_call", toolCallId: "run", title: "b", status: "in_progress" },
    { sessionUpdate: "tool_call", toolCallId: "wait", title: "c" },
  ]);

  it("ends the running turn with its stop reason and usage", () => {
    const usage = { totalTokens: 3, inputTokens: 2, outputTokens: 1 };
    const state = endTurn(running, "end_turn", usage);
    expect(state.turns[0]).toMatchObject({
      ended: true,
      stopReason: "end_turn",
      usage,
      cancelled: false,
    });
    expect(endTurn(state, "end_turn")).toBe(state);
    expect(endTurn(emptySessionState("s"), "end_turn").turns).toEqual([]);
  });

  it("cancels the running turn's unfinished tool calls, client-locally", () => {
    const before = fold(emptySessionState("s"), [
      { sessionUpdate: "tool_call", toolCallId: "old", title: "x" },
    ]);
    let state = fold(beginTurn(before, [text("p")]), [
      { sessionUpdate: "tool_call", toolCallId: "run", title: "b", status: "in_progress" },
    ]);
    state = cancelTurn(state);
    state = fold(state, [
      { sessionUpdate: "tool_call_update", toolCallId: "run", status: "failed" },
    ]);
    state = endTurn(state, "cancelled");
    expect(
      state.thread.map((i) =>
        i.type === "tool_call" ? [i.toolCallId, i.status, i.cancelled] : i.type,
      ),
    ).toEqual([["old", "pending", false], "message", ["run", "failed", true]]);
    expect(state.turns[0]).toMatchObject({ cancelled: true, ended: true, stopReason: "cancelled" });
    expect(cancelTurn(state)).toBe(state);
  });

  it("a cancelled stop reason cancels like cancelTurn", () => {
    const state = endTurn(running, "cancelled");
    expect(state.thread.map((i) => (i.type === "tool_call" ? i.cancelled : null))).toEqual([
      null,
      false,
      true,
      true,
    ]);
  });

  it("records a failed request as an ended turn without stop reason", () => {
    expect(endTurn(running, null).turns[0]).toMatchObject({ ended: true, stopReason: null });
  });
});

describe("beginLoad and applySetup", () => {
  it("drops the conversation but keeps the settings until the replay replaces them", () => {
    let state = fold(beginTurn(emptySessionState("s"), [text("p")]), [
      chunk("agent_message_chunk", "a"),
      { sessionUpdate: "plan", entries: [] },
      { sessionUpdate: "current_mode_update", currentModeId: "code" },
      { sessionUpdate: "session_info_update", title: "T" },
      { sessionUpdate: "x_kind" } as unknown as SessionUpdate,
    ]);
    state = beginLoad(state);
    expect(state).toEqual({
      ...emptySessionState("s"),
      currentModeId: "code",
      info: { title: "T", updatedAt: null, _meta: null },
      loading: true,
    });
    expect(applySetup(state, {}).loading).toBe(false);
  });

  it("sets modes and config options from a setup response, leaving absent ones", () => {
    const modes = { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] };
    const state = applySetup(emptySessionState("s"), { modes, configOptions: null });
    expect(state).toMatchObject({
      currentModeId: "ask",
      availableModes: modes.availableModes,
      configOptions: null,
    });
    const again = applySetup(state, { configOptions: [] });
    expect(again).toMatchObject({ currentModeId: "ask", configOptions: [] });
  });
});

describe("takeBackTurn", () => {
  it("removes a turn the agent refused before anything came, with its prompt", () => {
    const before = reduceSession(emptySessionState("s"), chunk("agent_message_chunk", "earlier"));
    const begun = beginTurn(before, [text("Hi")]);
    const back = takeBackTurn(begun);
    expect(back.turns).toEqual([]);
    expect(back.thread).toEqual(before.thread);
    // The thread goes on from there as if the turn had never begun.
    expect(beginTurn(back, [text("Hi")]).thread).toEqual(begun.thread);
  });

  it("ends the turn as failed instead when the agent sent something meanwhile", () => {
    const begun = reduceSession(
      beginTurn(emptySessionState("s"), [text("Hi")]),
      chunk("agent_message_chunk", "x"),
    );
    const back = takeBackTurn(begun);
    expect(back.turns).toMatchObject([{ ended: true, stopReason: null }]);
    expect(back.thread).toHaveLength(2);
  });
});
