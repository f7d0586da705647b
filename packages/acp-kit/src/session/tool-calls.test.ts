import { describe, expect, it } from "vitest";
import type { SessionUpdate, ToolCallContent } from "../index.js";
import { reduceSession } from "./reduce.js";
import { emptySessionState, type ThreadToolCall } from "./state.js";

function fold(updates: SessionUpdate[]) {
  return updates.reduce(reduceSession, emptySessionState("s"));
}

function calls(updates: SessionUpdate[]): ThreadToolCall[] {
  return fold(updates).thread.filter((i): i is ThreadToolCall => i.type === "tool_call");
}

const out = (t: string): ToolCallContent => ({
  type: "content",
  content: { type: "text", text: t },
});

describe("tool_call", () => {
  it("creates a call with the protocol's defaults", () => {
    expect(calls([{ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read file" }])).toEqual([
      {
        type: "tool_call",
        toolCallId: "t1",
        title: "Read file",
        kind: "other",
        status: "pending",
        content: [],
        locations: [],
        statusHistory: ["pending"],
        placeholder: false,
        cancelled: false,
      },
    ]);
  });

  it("keeps every field sent", () => {
    const [call] = calls([
      {
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "ls",
        name: "bash",
        kind: "execute",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: "term-1" }],
        locations: [{ path: "/w", line: 3 }],
        rawInput: { command: "ls" },
        rawOutput: "a\nb",
        _meta: { "x.dev/trace": 1 },
      },
    ]);
    expect(call).toMatchObject({
      name: "bash",
      kind: "execute",
      status: "in_progress",
      statusHistory: ["in_progress"],
      content: [{ type: "terminal", terminalId: "term-1" }],
      locations: [{ path: "/w", line: 3 }],
      rawInput: { command: "ls" },
      rawOutput: "a\nb",
      _meta: { "x.dev/trace": 1 },
    });
  });

  it("merges a duplicate id into the existing call without resetting it", () => {
    const state = fold([
      { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read", rawInput: {} },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "in_progress",
        content: [out("x")],
      },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "..." } },
      {
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Read /a.ts",
        kind: "read",
        rawInput: { path: "/a.ts" },
      },
    ]);
    expect(state.thread.map((i) => i.type)).toEqual(["tool_call", "message"]);
    expect(state.thread[0]).toMatchObject({
      title: "Read /a.ts",
      kind: "read",
      status: "in_progress",
      statusHistory: ["pending", "in_progress"],
      content: [out("x")],
      rawInput: { path: "/a.ts" },
      placeholder: false,
    });
  });
});

describe("tool_call_update", () => {
  const start: SessionUpdate = {
    sessionUpdate: "tool_call",
    toolCallId: "t1",
    title: "Edit",
    kind: "edit",
    content: [out("plan")],
    locations: [{ path: "/a.ts" }],
  };

  it("replaces content and locations when present, never appends", () => {
    const [call] = calls([
      start,
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        content: [{ type: "diff", path: "/b.ts", oldText: null, newText: "x" }],
        locations: [{ path: "/b.ts", line: 1 }],
      },
    ]);
    expect(call?.content).toEqual([{ type: "diff", path: "/b.ts", oldText: null, newText: "x" }]);
    expect(call?.locations).toEqual([{ path: "/b.ts", line: 1 }]);
    const [emptied] = calls([
      start,
      { sessionUpdate: "tool_call_update", toolCallId: "t1", content: [], locations: [] },
    ]);
    expect(emptied).toMatchObject({ content: [], locations: [] });
  });

  it("treats null like a left-out field: unchanged", () => {
    const [call] = calls([
      start,
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        title: null,
        kind: null,
        status: null,
        content: null,
        locations: null,
        rawInput: null,
        _meta: null,
      },
    ]);
    expect(call).toEqual(calls([start])[0]);
  });

  it("overwrites the other fields and records status transitions", () => {
    const [call] = calls([
      start,
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "in_progress",
        title: "Edit a.ts",
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "in_progress",
        rawOutput: { n: 1 },
      },
      { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "failed", kind: "delete" },
      { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", _meta: { k: 2 } },
    ]);
    expect(call).toMatchObject({
      title: "Edit a.ts",
      kind: "delete",
      status: "completed",
      statusHistory: ["pending", "in_progress", "failed", "completed"],
      rawOutput: { n: 1 },
      _meta: { k: 2 },
    });
  });

  it("creates a placeholder for an unknown id, filled in by a later tool_call", () => {
    const updates: SessionUpdate[] = [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "late",
        status: "in_progress",
        content: [out("…")],
      },
    ];
    expect(calls(updates)).toEqual([
      {
        type: "tool_call",
        toolCallId: "late",
        title: "",
        kind: "other",
        status: "in_progress",
        content: [out("…")],
        locations: [],
        statusHistory: ["in_progress"],
        placeholder: true,
        cancelled: false,
      },
    ]);
    const filled = calls([
      ...updates,
      { sessionUpdate: "tool_call", toolCallId: "late", title: "Fetch", kind: "fetch" },
    ]);
    expect(filled).toHaveLength(1);
    expect(filled[0]).toMatchObject({
      title: "Fetch",
      kind: "fetch",
      status: "in_progress",
      content: [out("…")],
      placeholder: false,
    });
  });

  it("patches the call with that id only", () => {
    const state = fold([
      start,
      { ...start, toolCallId: "t2", title: "Other" },
      { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" },
    ]);
    expect(state.thread.map((c) => (c.type === "tool_call" ? c.status : ""))).toEqual([
      "completed",
      "pending",
    ]);
  });
});
