/* eslint-disable @typescript-eslint/require-await -- turn functions are async by contract; some here await nothing */
import { describe, expect, it } from "vitest";
import { RequestError } from "../index.js";
import { AgentKit } from "./agent-kit.js";
import { harness, pause, until } from "../../../../test/support/agent-harness.js";

describe("AgentKit prompt turns", () => {
  it("streams text and thought chunks in call order and answers after them", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      // Deliberately not awaited: the kit still answers only after these updates.
      void turn.thought("thinking");
      void turn.text("Hello, ");
      void turn.text("world", { messageId: "m-1" });
      void turn.content({ type: "resource_link", uri: "file:///a", name: "a" });
      return "end_turn";
    });
    await h.prompt(sessionId);
    expect(h.seen).toEqual([
      {
        update: {
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: "thinking" },
        },
      },
      {
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "Hello, " },
        },
      },
      {
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "world" },
          messageId: "m-1",
        },
      },
      {
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "resource_link", uri: "file:///a", name: "a" },
        },
      },
      { answer: { stopReason: "end_turn" } },
    ]);
  });

  it("tags the chunks of one message with one fresh id", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const thinking = turn.thinking();
      const reply = turn.message();
      await thinking.text("a");
      await reply.text("b");
      await reply.text("c");
      await turn.message("mine").text("d");
    });
    await h.prompt(sessionId);
    const updates = h.updates() as { sessionUpdate: string; messageId?: string }[];
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      "agent_thought_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
    ]);
    const [thought, b, c, d] = updates.map((u) => u.messageId);
    expect(b).toBe(c);
    expect(thought).not.toBe(b);
    expect(b).toMatch(/^msg_[0-9a-f]{12}_\w+$/);
    expect(d).toBe("mine");
  });

  it("maps what the turn returns to the answer", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async () => undefined);
    expect(await h.prompt(sessionId)).toEqual({ stopReason: "end_turn" });
    h.onTurn(async () => "max_tokens");
    expect(await h.prompt(sessionId)).toEqual({ stopReason: "max_tokens" });
    h.onTurn(async () => Promise.resolve({ stopReason: "refusal", _meta: { why: "policy" } }));
    expect(await h.prompt(sessionId)).toEqual({ stopReason: "refusal", _meta: { why: "policy" } });
  });

  it("sends usage updates", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      await turn.usage({ used: 1200, size: 200_000 });
      await turn.usage({ used: 1500, size: 200_000, cost: { amount: 0.02, currency: "USD" } });
    });
    await h.prompt(sessionId);
    expect(h.updates()).toEqual([
      { sessionUpdate: "usage_update", used: 1200, size: 200_000 },
      {
        sessionUpdate: "usage_update",
        used: 1500,
        size: 200_000,
        cost: { amount: 0.02, currency: "USD" },
      },
    ]);
  });

  it("gives the turn the prompt and the session state", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    let seen: unknown;
    h.onTurn(async (turn) => {
      seen = { id: turn.sessionId, state: turn.session, prompt: turn.prompt };
    });
    await h.prompt(sessionId, "question");
    expect(seen).toEqual({
      id: sessionId,
      state: { cwd: "/work" },
      prompt: [{ type: "text", text: "question" }],
    });
  });

  it("answers unknown sessions -32002 with the id, and ignores their cancels", async () => {
    const h = harness();
    await h.client.cancel({ sessionId: "nope" });
    const error = await h.prompt("nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({
      code: -32002,
      message: "Session not found: nope",
      data: { sessionId: "nope" },
    });
  });

  it("passes errors through and marks unfinished tool calls failed first", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      turn.toolCall({ toolCallId: "t1", title: "Work" });
      throw new RequestError(-32000, "Authentication required");
    });
    const error = await h.prompt(sessionId).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32000 });
    expect(h.updates()).toEqual([
      { sessionUpdate: "tool_call", toolCallId: "t1", title: "Work", status: "pending" },
      { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "failed" },
    ]);

    h.onTurn(async () => {
      throw new Error("boom");
    });
    await expect(h.prompt(sessionId)).rejects.toMatchObject({
      code: -32603,
      data: { details: "boom" },
    });
  });

  it("fails the turn when an update cannot be sent, even if nobody awaited it", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      void turn.toolCall({ title: "x", rawInput: { n: 10n } });
      return "end_turn";
    });
    await expect(h.prompt(sessionId)).rejects.toMatchObject({ code: -32603 });
  });

  it("drops updates sent after the answer", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    let late: (() => Promise<void>) | undefined;
    h.onTurn(async (turn) => {
      late = () => turn.text("too late");
    });
    await h.prompt(sessionId);
    await late?.();
    h.onTurn(async (turn) => turn.text("next turn").then(() => undefined));
    await h.prompt(sessionId);
    expect(h.updates()).toEqual([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "next turn" } },
    ]);
  });

  it("can be used without a context", async () => {
    const kit = new AgentKit<number>({
      signal: new AbortController().signal,
      sessionUpdate: () => Promise.resolve(),
      requestPermission: () => Promise.reject(new Error("unused")),
      readTextFile: () => Promise.reject(new Error("unused")),
      writeTextFile: () => Promise.reject(new Error("unused")),
      createTerminal: () => Promise.reject(new Error("unused")),
    });
    const { sessionId } = kit.sessions.create(() => 7);
    const answer = await kit.prompt({ sessionId, prompt: [] }, undefined, async (turn) => {
      await turn.flush();
      return turn.session === 7 ? "end_turn" : "refusal";
    });
    expect(answer).toEqual({ stopReason: "end_turn" });
  });
});

describe("PromptTurn client calls", () => {
  it("reads and writes files for the session, withdrawn when the turn is cancelled", async () => {
    const calls: unknown[] = [];
    let slowRead: AbortSignal | undefined;
    const h = harness({
      readTextFile: async (params, context) => {
        calls.push(params);
        if (params.path === "/work/slow.txt") {
          slowRead = context?.signal;
          await pause(10_000, context?.signal);
        }
        return { content: "text" };
      },
      writeTextFile: (params) => {
        calls.push(params);
      },
    });
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const text = await turn.readTextFile("/work/a.txt", { line: 2, limit: 5 });
      await turn.writeTextFile("/work/b.txt", text.toUpperCase());
      await turn.readTextFile("/work/slow.txt");
    });
    const answer = h.prompt(sessionId);
    await until(() => slowRead !== undefined);
    await h.client.cancel({ sessionId });
    expect(await answer).toEqual({ stopReason: "cancelled" });
    await until(() => slowRead?.aborted === true); // $/cancel_request reached the client
    expect(calls).toEqual([
      { sessionId, path: "/work/a.txt", line: 2, limit: 5 },
      { sessionId, path: "/work/b.txt", content: "TEXT" },
      { sessionId, path: "/work/slow.txt" },
    ]);
  });
});
