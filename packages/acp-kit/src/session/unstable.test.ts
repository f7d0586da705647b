import { describe, expect, it } from "vitest";
import type { PlanUpdateContent, SessionUpdate } from "../index.js";
import { reduceSession } from "./reduce.js";
import { emptySessionState } from "./state.js";

function fold(updates: SessionUpdate[]) {
  return updates.reduce(reduceSession, emptySessionState("s"));
}

describe("plan_update / plan_removed", () => {
  it("upserts plans by id in place and removes them", () => {
    const items: PlanUpdateContent = {
      type: "items",
      planId: "p1",
      entries: [{ content: "a", priority: "low", status: "pending" }],
    };
    const markdown: PlanUpdateContent = { type: "markdown", planId: "p2", content: "# Plan" };
    const state = fold([
      { sessionUpdate: "plan_update", plan: items },
      { sessionUpdate: "plan_update", plan: markdown },
      {
        sessionUpdate: "plan_update",
        plan: { type: "file", planId: "p1", uri: "file:///plan.md" },
      },
    ]);
    expect(state.plans).toEqual([{ type: "file", planId: "p1", uri: "file:///plan.md" }, markdown]);
    expect(state.plan).toBeNull();
    const removed = reduceSession(state, { sessionUpdate: "plan_removed", planId: "p1" });
    expect(removed.plans).toEqual([markdown]);
    expect(reduceSession(removed, { sessionUpdate: "plan_removed", planId: "nope" })).toBe(removed);
  });
});

describe("compactions", () => {
  it("creates an entry at its place in the thread and patches it by id", () => {
    const state = fold([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "a" } },
      { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" },
      {
        sessionUpdate: "compaction_summary_chunk",
        compactionId: "c1",
        content: { type: "text", text: "Sum" },
      },
      {
        sessionUpdate: "compaction_summary_chunk",
        compactionId: "c1",
        content: { type: "text", text: "mary" },
      },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "b" } },
      { sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" },
    ]);
    expect(state.thread[1]).toEqual({
      type: "compaction",
      compactionId: "c1",
      status: "completed",
      summary: [{ type: "text", text: "Summary" }],
      error: null,
    });
    expect(state.thread).toHaveLength(3);
  });

  it("replaces or clears the summary and the error tri-state", () => {
    const base = fold([
      {
        sessionUpdate: "compaction_summary_chunk",
        compactionId: "c",
        content: { type: "text", text: "x" },
      },
    ]);
    expect(base.thread[0]).toMatchObject({
      status: "in_progress",
      summary: [{ type: "text", text: "x" }],
    });
    const failed = reduceSession(base, {
      sessionUpdate: "compaction_update",
      compactionId: "c",
      status: "failed",
      summary: null,
      error: "too long",
    });
    expect(failed.thread[0]).toMatchObject({ status: "failed", summary: [], error: "too long" });
    const retried = reduceSession(failed, {
      sessionUpdate: "compaction_update",
      compactionId: "c",
      status: "completed",
      summary: [{ type: "text", text: "new" }],
      error: null,
    });
    expect(retried.thread[0]).toMatchObject({
      summary: [{ type: "text", text: "new" }],
      error: null,
    });
    const kept = reduceSession(retried, {
      sessionUpdate: "compaction_update",
      compactionId: "c",
      status: "completed",
    });
    expect(kept.thread[0]).toMatchObject({ summary: [{ type: "text", text: "new" }] });
  });
});

describe("session messages", () => {
  it("creates, streams and patches a message between sessions", () => {
    const state = fold([
      {
        sessionUpdate: "session_message_chunk",
        messageId: "sm1",
        content: { type: "text", text: "Do " },
      },
      {
        sessionUpdate: "session_message_chunk",
        messageId: "sm1",
        content: { type: "text", text: "it" },
      },
      {
        sessionUpdate: "session_message",
        messageId: "sm1",
        senderSessionId: "parent",
        recipientSessionId: "child",
      },
      { sessionUpdate: "session_message", messageId: "sm1", recipientSessionId: null },
    ]);
    expect(state.thread).toEqual([
      {
        type: "session_message",
        messageId: "sm1",
        senderSessionId: "parent",
        recipientSessionId: null,
        senderMessageId: null,
        recipientMessageId: null,
        content: [{ type: "text", text: "Do it" }],
      },
    ]);
    const replaced = reduceSession(state, {
      sessionUpdate: "session_message",
      messageId: "sm1",
      content: [{ type: "text", text: "Done" }],
    });
    expect(replaced.thread[0]).toMatchObject({
      content: [{ type: "text", text: "Done" }],
      senderSessionId: "parent",
    });
    const cleared = reduceSession(replaced, {
      sessionUpdate: "session_message",
      messageId: "sm1",
      content: [],
    });
    expect(cleared.thread[0]).toMatchObject({ content: [] });
  });
});

describe("subagent_update", () => {
  it("announces child sessions and patches them tri-state", () => {
    const state = fold([
      {
        sessionUpdate: "subagent_update",
        sessionId: "c1",
        title: "Explore",
        state: { state: "running" },
      },
      { sessionUpdate: "subagent_update", sessionId: "c2", cwd: "/w" },
      {
        sessionUpdate: "subagent_update",
        sessionId: "c1",
        description: "Looks around",
        state: { state: "idle", stopReason: "end_turn" },
        title: null,
      },
    ]);
    expect(state.subagents).toEqual([
      {
        sessionId: "c1",
        title: null,
        description: "Looks around",
        capabilities: null,
        state: { state: "idle", stopReason: "end_turn" },
        cwd: null,
        additionalDirectories: null,
      },
      {
        sessionId: "c2",
        title: null,
        description: null,
        capabilities: null,
        state: null,
        cwd: "/w",
        additionalDirectories: null,
      },
    ]);
  });
});
