import { describe, expect, it } from "vitest";
import type { ContentBlock, SessionUpdate } from "../index.js";
import { reduceSession } from "./reduce.js";
import { emptySessionState, type SessionState } from "./state.js";

const text = (t: string): ContentBlock => ({ type: "text", text: t });
const agent = (t: string, messageId?: string | null): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: text(t),
  ...(messageId === undefined ? {} : { messageId }),
});
const thought = (t: string, messageId?: string | null): SessionUpdate => ({
  sessionUpdate: "agent_thought_chunk",
  content: text(t),
  ...(messageId === undefined ? {} : { messageId }),
});
const user = (t: string, messageId?: string | null): SessionUpdate => ({
  sessionUpdate: "user_message_chunk",
  content: text(t),
  ...(messageId === undefined ? {} : { messageId }),
});

function fold(updates: SessionUpdate[], from: SessionState = emptySessionState("s")) {
  return updates.reduce(reduceSession, from);
}

/** The thread as `role:id:text` strings, for compact assertions on grouping. */
function messages(state: SessionState): string[] {
  return state.thread.map((item) => {
    if (item.type !== "message") return item.type;
    const joined = item.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("|");
    return `${item.role}:${item.messageId ?? "-"}:${joined}`;
  });
}

describe("message chunks without ids", () => {
  it("joins consecutive chunks of one role into one message and one text block", () => {
    const state = fold([agent("Hel"), agent("l", null), agent("o")]);
    expect(state.thread).toEqual([
      {
        type: "message",
        role: "agent",
        messageId: null,
        origin: "agent",
        content: [text("Hello")],
      },
    ]);
  });

  it("starts a new message on a change of role", () => {
    const state = fold([thought("hmm"), agent("A"), thought("more"), agent("B"), user("u")]);
    expect(messages(state)).toEqual([
      "thought:-:hmm",
      "agent:-:A",
      "thought:-:more",
      "agent:-:B",
      "user:-:u",
    ]);
  });

  it("starts a new message after a tool call or another new thread item", () => {
    const state = fold([
      agent("before"),
      { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read" },
      agent("after"),
      { sessionUpdate: "compaction_update", compactionId: "c", status: "completed" },
      agent("later"),
    ]);
    expect(messages(state)).toEqual([
      "agent:-:before",
      "tool_call",
      "agent:-:after",
      "compaction",
      "agent:-:later",
    ]);
  });

  it("is not split by updates that add no thread item", () => {
    const state = fold([
      agent("a"),
      { sessionUpdate: "plan", entries: [] },
      { sessionUpdate: "usage_update", used: 1, size: 2 },
      { sessionUpdate: "tool_call_update", toolCallId: "unknown-yet" },
      agent("b"),
    ]);
    // The placeholder tool call is a new thread item, so it does split.
    expect(messages(state)).toEqual(["agent:-:a", "tool_call", "agent:-:b"]);
    const quiet = fold([
      agent("a"),
      { sessionUpdate: "plan", entries: [] },
      { sessionUpdate: "current_mode_update", currentModeId: "m" },
      { sessionUpdate: "brand_new_kind" } as unknown as SessionUpdate,
      agent("b"),
    ]);
    expect(messages(quiet)).toEqual(["agent:-:ab"]);
  });

  it("keeps non-text and annotated blocks as their own blocks", () => {
    const image: ContentBlock = { type: "image", data: "AA==", mimeType: "image/png" };
    const annotated: ContentBlock = { type: "text", text: "!", annotations: { priority: 1 } };
    const state = fold([
      agent("a"),
      { sessionUpdate: "agent_message_chunk", content: image },
      agent("b"),
      agent("c"),
      { sessionUpdate: "agent_message_chunk", content: annotated },
      agent("d"),
    ]);
    expect(state.thread).toEqual([
      {
        type: "message",
        role: "agent",
        messageId: null,
        origin: "agent",
        content: [text("a"), image, text("bc"), annotated, text("d")],
      },
    ]);
  });
});

describe("message chunks with ids", () => {
  it("appends by id, so interleaved messages stay apart", () => {
    const state = fold([
      thought("think ", "t1"),
      agent("Hi ", "m1"),
      thought("more", "t1"),
      agent("there", "m1"),
    ]);
    expect(messages(state)).toEqual(["thought:t1:think more", "agent:m1:Hi there"]);
  });

  it("starts a new message for a different id, even of the same role", () => {
    expect(messages(fold([agent("a", "m1"), agent("b", "m2"), agent("c", "m1")]))).toEqual([
      "agent:m1:ac",
      "agent:m2:b",
    ]);
  });

  it("keys messages by role and id", () => {
    expect(messages(fold([user("q", "x"), agent("a", "x"), user("?", "x")]))).toEqual([
      "user:x:q?",
      "agent:x:a",
    ]);
  });

  it("does not continue a message with an id from an id-less chunk (or the reverse)", () => {
    expect(messages(fold([agent("a", "m1"), agent("b"), agent("c", "m1"), agent("d")]))).toEqual([
      "agent:m1:ac",
      "agent:-:bd",
    ]);
    expect(messages(fold([agent("a"), agent("b", "m1")]))).toEqual(["agent:-:a", "agent:m1:b"]);
  });

  it("compares ids as opaque strings", () => {
    expect(messages(fold([agent("a", "1"), agent("b", "01"), agent("c", "")]))).toEqual([
      "agent:1:a",
      "agent:01:b",
      "agent::c",
    ]);
  });
});
