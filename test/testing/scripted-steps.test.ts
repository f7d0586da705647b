import { describe, expect, it } from "vitest";
import {
  chunk,
  CWD,
  harness,
  requests,
  runTurn as turn,
  SID,
  updatesOf,
} from "./fixtures/scenario-harness.js";

describe("scripted agent steps, end to end", () => {
  it("streams text and thoughts, chunked by word, line, size or given chunks", async () => {
    const { updates, stop } = await turn([
      { text: "Hello big world\n" },
      { text: "Hello big world\n", chunk: "word", messageId: "m1" },
      { text: "one\ntwo", chunk: "line" },
      { text: "añb", chunk: 2 },
      { text: ["a", "b"] },
      { thought: "hmm ${cwd}", delayMs: 1000 },
    ]);
    expect(stop).toBe("end_turn");
    expect(updates).toEqual([
      chunk("Hello big world\n"),
      chunk("Hello ", { messageId: "m1" }),
      chunk("big ", { messageId: "m1" }),
      chunk("world\n", { messageId: "m1" }),
      chunk("one\n"),
      chunk("two"),
      chunk("añ"),
      chunk("b"),
      chunk("a"),
      chunk("b"),
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: `hmm ${CWD}` } },
    ]);
  });

  it("sends content blocks, plans and plan entry changes", async () => {
    const image = { type: "image", data: "AAAA", mimeType: "image/png" };
    const { updates } = await turn([
      { message: image, messageId: "img" },
      { plan: ["Read", { content: "Write", priority: "high", status: "in_progress" }] },
      { planEntry: 0, status: "completed" },
      { planEntry: "Write", status: "completed" },
    ]);
    const entry = (content: string, priority: string, status: string) => ({
      content,
      priority,
      status,
    });
    expect(updates).toEqual([
      { sessionUpdate: "agent_message_chunk", content: image, messageId: "img" },
      {
        sessionUpdate: "plan",
        entries: [entry("Read", "medium", "pending"), entry("Write", "high", "in_progress")],
      },
      {
        sessionUpdate: "plan",
        entries: [entry("Read", "medium", "completed"), entry("Write", "high", "in_progress")],
      },
      {
        sessionUpdate: "plan",
        entries: [entry("Read", "medium", "completed"), entry("Write", "high", "completed")],
      },
    ]);
  });

  it("runs tool calls through their statuses with text, diff and terminal content", async () => {
    const { updates } = await turn([
      {
        toolCall: "Edit a.ts",
        kind: "edit",
        locations: ["src/a.ts", { path: "/abs/b.ts", line: 3 }],
        rawInput: { file: "a.ts" },
      },
      { toolUpdate: { status: "in_progress", title: "Editing a.ts" } },
      {
        toolUpdate: {
          status: "completed",
          content: [
            { text: "Done in ${cwd}" },
            { diff: "./src/a.ts", oldText: "old", newText: "new" },
            { diff: "new.ts", newText: "fresh" },
            { type: "terminal", terminalId: "t-9" },
          ],
          rawOutput: { ok: true },
        },
      },
      { toolCall: "Second", toolCallId: "mine", status: "in_progress" },
      { toolUpdate: { status: "failed" }, toolCallId: "call_1" },
    ]);
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "Edit a.ts",
        kind: "edit",
        status: "pending",
        locations: [{ path: `${CWD}/src/a.ts` }, { path: "/abs/b.ts", line: 3 }],
        rawInput: { file: "a.ts" },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        title: "Editing a.ts",
        status: "in_progress",
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "completed",
        content: [
          { type: "content", content: { type: "text", text: `Done in ${CWD}` } },
          { type: "diff", path: `${CWD}/src/a.ts`, newText: "new", oldText: "old" },
          { type: "diff", path: `${CWD}/new.ts`, newText: "fresh" },
          { type: "terminal", terminalId: "t-9" },
        ],
        rawOutput: { ok: true },
      },
      { sessionUpdate: "tool_call", toolCallId: "mine", title: "Second", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "failed" },
    ]);
  });

  it("reads and writes files through the client, with saved values and error branches", async () => {
    const { messages, h } = await turn(
      [
        {
          readFile: "notes.txt",
          line: 2,
          limit: 1,
          saveAs: "notes",
          then: [{ text: "got ${notes}" }],
        },
        {
          readFile: "/missing.txt",
          onError: [{ text: "failed: ${error}" }],
          then: [{ text: "never" }],
        },
        { writeFile: "out.txt", content: "${notes}!" },
        { text: "$${notes} is ${notes}" },
      ],
      { files: { [`${CWD}/notes.txt`]: "hello" } },
    );
    expect(requests(messages)).toEqual([
      ["fs/read_text_file", { sessionId: SID, path: `${CWD}/notes.txt`, line: 2, limit: 1 }],
      ["fs/read_text_file", { sessionId: SID, path: "/missing.txt" }],
      ["fs/write_text_file", { sessionId: SID, path: `${CWD}/out.txt`, content: "hello!" }],
    ]);
    expect(updatesOf(messages)).toEqual([
      chunk("got hello"),
      chunk("failed: Resource not found: /missing.txt"),
      chunk("${notes} is hello"),
    ]);
    expect(h.files.get(`${CWD}/out.txt`)).toBe("hello!");
  });

  it("does not call the client for a capability it lacks: the error branch runs, or the prompt fails", async () => {
    const steps = [
      { readFile: "a", onError: [{ text: "${error}" }] },
      { toolCall: "T" },
      { terminal: "ls", onError: [{ text: "${error}" }] },
    ];
    const { messages } = await turn(steps, { capabilities: {} });
    expect(requests(messages)).toEqual([]);
    expect(updatesOf(messages).filter((u) => u.sessionUpdate === "agent_message_chunk")).toEqual([
      chunk("The client does not advertise clientCapabilities.fs.readTextFile"),
      chunk("The client does not advertise clientCapabilities.terminal"),
    ]);
    const h = harness(
      { turns: [{ steps: [{ writeFile: "a", content: "x" }] }] },
      { capabilities: {} },
    );
    await h.initialize();
    const sessionId = await h.newSession();
    await expect(h.prompt(sessionId, "go")).rejects.toMatchObject({
      code: -32603,
      message: "The client does not advertise clientCapabilities.fs.writeTextFile",
    });
  });

  it("runs commands in client terminals embedded in the tool call", async () => {
    const { messages } = await turn(
      [
        { toolCall: "Run", toolCallId: "run", content: [{ text: "running" }] },
        {
          terminal: "node",
          args: ["-v"],
          cwd: "sub",
          env: [{ name: "A", value: "1" }],
          outputByteLimit: 10,
          saveAs: "out",
        },
        { text: "${out}|${out.exitCode}" },
        { terminal: "sleep", wait: false },
      ],
      { terminal: { output: "v1\n", exitCode: 3 } },
    );
    const params = { sessionId: SID, terminalId: "term-1" };
    expect(requests(messages)).toEqual([
      [
        "terminal/create",
        {
          command: "node",
          args: ["-v"],
          env: [{ name: "A", value: "1" }],
          cwd: `${CWD}/sub`,
          outputByteLimit: 10,
          sessionId: SID,
        },
      ],
      ["terminal/wait_for_exit", params],
      ["terminal/output", params],
      ["terminal/release", params],
      ["terminal/create", { command: "sleep", sessionId: SID }],
      ["terminal/output", { ...params, terminalId: "term-2" }],
      ["terminal/release", { ...params, terminalId: "term-2" }],
    ]);
    const updates = updatesOf(messages);
    expect(updates[1]).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "run",
      content: [
        { type: "content", content: { type: "text", text: "running" } },
        { type: "terminal", terminalId: "term-1" },
      ],
    });
    expect(updates[2]).toEqual(chunk("v1\n|3"));
    // The terminal is embedded before the agent waits for it.
    const order = messages.map((m) => ("method" in m ? m.method : "response"));
    expect(order.indexOf("session/update", 1)).toBeLessThan(
      order.indexOf("terminal/wait_for_exit"),
    );
  });
});
