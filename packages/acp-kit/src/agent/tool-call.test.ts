/* eslint-disable @typescript-eslint/require-await -- turn functions are async by contract; some here await nothing */
import { describe, expect, it } from "vitest";
import type { ToolCallContent } from "../index.js";
import { harness } from "../../../../test/support/agent-harness.js";
import { toolContent } from "./tool-call-content.js";

describe("ToolCallHandle", () => {
  it("reports the call, then sends only what changed", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const call = turn.toolCall({
        toolCallId: "read-1",
        title: "Read a.ts",
        kind: "read",
        locations: [{ path: "/work/a.ts" }],
        rawInput: { path: "/work/a.ts" },
      });
      await call.start();
      await call.start(); // no change: nothing sent
      await call.update({ title: "Read a.ts", kind: "read", rawInput: { path: "/work/a.ts" } });
      await call.update({ locations: [{ path: "/work/a.ts", line: 3 }], title: null });
      await call.complete({
        content: [toolContent.text("3 lines")],
        locations: [{ path: "/work/a.ts", line: 3 }],
        rawOutput: { lines: 3 },
      });
      expect(call.isFinished).toBe(true);
      expect(call.state).toMatchObject({ status: "completed", kind: "read", title: "Read a.ts" });
    });
    await h.prompt(sessionId);
    expect(h.seen).toEqual([
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "read-1",
          title: "Read a.ts",
          kind: "read",
          status: "pending",
          locations: [{ path: "/work/a.ts" }],
          rawInput: { path: "/work/a.ts" },
        },
      },
      {
        update: { sessionUpdate: "tool_call_update", toolCallId: "read-1", status: "in_progress" },
      },
      {
        update: {
          sessionUpdate: "tool_call_update",
          toolCallId: "read-1",
          locations: [{ path: "/work/a.ts", line: 3 }],
        },
      },
      {
        update: {
          sessionUpdate: "tool_call_update",
          toolCallId: "read-1",
          status: "completed",
          content: [{ type: "content", content: { type: "text", text: "3 lines" } }],
          rawOutput: { lines: 3 },
        },
      },
      { answer: { stopReason: "end_turn" } },
    ]);
  });

  it("fails with a reason, and sends _meta even when nothing else changed", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const call = turn.toolCall({ toolCallId: "x", title: "Run", kind: "execute" });
      await call.update({ _meta: { progress: 0.5 } });
      await call.fail("Command not found");
      await call.fail("Command not found"); // unchanged
    });
    await h.prompt(sessionId);
    expect(h.updates().slice(1)).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "x", _meta: { progress: 0.5 } },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "x",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: "Command not found" } }],
      },
    ]);
  });

  it("compares against a copy, so reusing and mutating a list still sends it", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const content: ToolCallContent[] = [toolContent.text("one")];
      const call = turn.toolCall({ toolCallId: "c", title: "Stream", content });
      content.push(toolContent.text("two"));
      await call.update({ content });
      await call.complete();
    });
    await h.prompt(sessionId);
    expect(h.updates()[1]).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c",
      content: [
        { type: "content", content: { type: "text", text: "one" } },
        { type: "content", content: { type: "text", text: "two" } },
      ],
    });
  });

  it("generates ids that differ within and across turns", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    const ids: string[] = [];
    h.onTurn(async (turn) => {
      for (let i = 0; i < 3; i++) ids.push(turn.toolCall({ title: `t${i}` }).id);
      for (const call of turn.toolCalls) void call.complete();
    });
    await h.prompt(sessionId);
    await h.prompt(sessionId);
    expect(new Set(ids).size).toBe(6);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{12}_[0-9a-z]+$/);
  });

  it("shows diffs (no oldText for a new file) and embedded terminals", async () => {
    const released: string[] = [];
    const h = harness({
      createTerminal: (params) => ({ terminalId: `term-${params.command}` }),
      releaseTerminal: (params) => {
        released.push(params.terminalId);
      },
    });
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const edit = turn.toolCall({ toolCallId: "e", title: "Edit", kind: "edit" });
      await edit.complete({
        content: [
          toolContent.diff("/work/a.ts", "old\n", "new\n"),
          toolContent.diff("/work/new.ts", null, "created\n"),
        ],
      });
      const run = turn.toolCall({ toolCallId: "r", title: "Run tests", kind: "execute" });
      const terminal = await turn.createTerminal({ command: "npm", args: ["test"] });
      try {
        await run.start({ content: [toolContent.terminal(terminal)] });
        await run.complete();
      } finally {
        await terminal.release();
      }
    });
    await h.prompt(sessionId);
    expect(h.updates()).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "e",
        title: "Edit",
        kind: "edit",
        status: "pending",
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "e",
        status: "completed",
        content: [
          { type: "diff", path: "/work/a.ts", oldText: "old\n", newText: "new\n" },
          { type: "diff", path: "/work/new.ts", newText: "created\n" },
        ],
      },
      {
        sessionUpdate: "tool_call",
        toolCallId: "r",
        title: "Run tests",
        kind: "execute",
        status: "pending",
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "r",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: "term-npm" }],
      },
      { sessionUpdate: "tool_call_update", toolCallId: "r", status: "completed" },
    ]);
    expect(released).toEqual(["term-npm"]);
  });
});
