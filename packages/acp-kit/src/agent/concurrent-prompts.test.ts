/* eslint-disable @typescript-eslint/require-await -- turn functions are async by contract; some here await nothing */
import { describe, expect, it } from "vitest";
import { harness, pause, until } from "../../../../test/support/agent-harness.js";

describe("AgentKit concurrent prompts", () => {
  it("by default cancels the running turn; the new one starts after its answer", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      await turn.text("first");
      await pause(10_000, turn.signal);
    });
    const first = h.prompt(sessionId, "one");
    await until(() => h.seen.length === 1);
    h.onTurn(async (turn) => {
      await turn.text("second");
      return "end_turn";
    });
    const second = h.prompt(sessionId, "two");
    expect(await first).toEqual({ stopReason: "cancelled" });
    expect(await second).toEqual({ stopReason: "end_turn" });
    expect(h.seen).toEqual([
      {
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "first" } },
      },
      { answer: { stopReason: "cancelled" } },
      {
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "second" } },
      },
      { answer: { stopReason: "end_turn" } },
    ]);
  });

  it("never lets a turn start while an older one still winds down", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      await pause(10_000, turn.signal).catch(() => undefined);
      await pause(30);
      await turn.text("first wound down");
    });
    const first = h.prompt(sessionId, "one");
    await until(() => h.kit.isRunning(sessionId));
    h.onTurn(async (turn) => {
      await turn.text("never");
    });
    const second = h.prompt(sessionId, "two"); // superseded while it waits
    await pause(5);
    h.onTurn(async (turn) => {
      await turn.text("third");
    });
    const third = h.prompt(sessionId, "three");
    expect(await first).toEqual({ stopReason: "cancelled" });
    expect(await second).toEqual({ stopReason: "cancelled" });
    expect(await third).toEqual({ stopReason: "end_turn" });
    const texts = h
      .updates()
      .map((u) => (u.sessionUpdate === "agent_message_chunk" ? u.content : undefined));
    expect(texts).toEqual([
      { type: "text", text: "first wound down" },
      { type: "text", text: "third" },
    ]);
    const order = h.seen.map((s) => ("answer" in s ? s.answer.stopReason : "update"));
    expect(order).toEqual(["update", "cancelled", "cancelled", "update", "end_turn"]);
  });

  it('rejects a second prompt with -32600 under "reject"', async () => {
    const h = harness({}, { concurrentPrompts: "reject" });
    const sessionId = await h.newSession();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    h.onTurn(async () => gate.then(() => "end_turn" as const));
    const first = h.prompt(sessionId);
    await until(() => h.kit.isRunning(sessionId));
    const error = await h.prompt(sessionId).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32600, data: { sessionId } });
    expect((error as Error).message).toContain("already running a prompt turn");
    release();
    expect(await first).toEqual({ stopReason: "end_turn" });
  });

  it('lets a prompt that follows a cancel wait for the cancelled turn, also under "reject"', async () => {
    const h = harness({}, { concurrentPrompts: "reject" });
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      await pause(10_000, turn.signal).catch(() => undefined);
      await pause(20); // still winding down when the next prompt arrives
      await turn.text("wound down");
    });
    const first = h.prompt(sessionId);
    await until(() => h.kit.isRunning(sessionId));
    void h.client.cancel({ sessionId });
    h.onTurn(async () => "end_turn");
    const second = h.prompt(sessionId);
    expect(await first).toEqual({ stopReason: "cancelled" });
    expect(await second).toEqual({ stopReason: "end_turn" });
    expect(h.seen.map((s) => ("answer" in s ? s.answer.stopReason : "update"))).toEqual([
      "update",
      "cancelled",
      "end_turn",
    ]);
  });

  it("keeps sessions apart: a cancel stops only its own session's turn", async () => {
    const h = harness();
    const a = await h.newSession();
    const b = await h.newSession();
    h.onTurn(async (turn) => {
      await pause(turn.sessionId === a ? 10_000 : 30, turn.signal);
    });
    const answerA = h.prompt(a);
    const answerB = h.prompt(b);
    await until(() => h.kit.isRunning(a) && h.kit.isRunning(b));
    await h.client.cancel({ sessionId: a });
    expect(await answerA).toEqual({ stopReason: "cancelled" });
    expect(await answerB).toEqual({ stopReason: "end_turn" });
  });
});
