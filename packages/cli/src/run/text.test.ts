import { describe, expect, it } from "vitest";
import type { ThreadItem } from "acp-kit";
import { finishedPrefix, liveTail } from "./text.js";

describe("liveTail", () => {
  it("keeps a text that fits, whole", () => {
    expect(liveTail("one\ntwo", 5, 80)).toEqual({ text: "one\ntwo", hiddenLines: 0 });
  });

  it("keeps the last lines that fit, counting wrapped rows", () => {
    const text = ["a", "b", "x".repeat(150), "c"].join("\n");
    // 150 characters take two rows of 80: "c" and the long line make three.
    expect(liveTail(text, 3, 80)).toEqual({ text: `${"x".repeat(150)}\nc`, hiddenLines: 2 });
  });

  it("reopens a code block the cut falls into", () => {
    const text = ["intro", "```ts", "const a = 1;", "const b = 2;", "```", "after"].join("\n");
    expect(liveTail(text, 3, 80)).toEqual({
      text: "```\nconst b = 2;\n```\nafter",
      hiddenLines: 3,
    });
  });

  it("shows the end of a single line taller than the room", () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(" ");
    const { text, hiddenLines } = liveTail(words, 2, 40);
    expect(hiddenLines).toBe(0);
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("word99")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(81);
  });
});

describe("finishedPrefix", () => {
  const message = (text: string): ThreadItem =>
    ({
      type: "message",
      role: "agent",
      content: [{ type: "text", text }],
      messageId: null,
    }) as unknown as ThreadItem;
  const tool = (status: string): ThreadItem =>
    ({ type: "tool_call", toolCallId: status, status }) as unknown as ThreadItem;

  it("stops at the message still streaming and at a tool call still running", () => {
    expect(finishedPrefix([message("a"), tool("completed"), message("b")], 0)).toBe(2);
    expect(finishedPrefix([message("a"), tool("in_progress"), message("b")], 0)).toBe(1);
    expect(finishedPrefix([message("a"), tool("failed")], 0)).toBe(2);
    expect(finishedPrefix([message("a"), message("b")], 1)).toBe(1);
    expect(finishedPrefix([], 0)).toBe(0);
  });
});
