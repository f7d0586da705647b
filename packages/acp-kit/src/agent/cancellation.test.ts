import { describe, expect, it } from "vitest";
import { ConnectionError } from "../index.js";
import { harness, pause, until } from "../../../../test/support/agent-harness.js";

describe("AgentKit cancellation", () => {
  it("answers cancelled after session/cancel even though the turn threw, after its updates", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    let reason: unknown;
    let cancelledInFinally = false;
    h.onTurn(async (turn) => {
      await turn.text("working");
      const call = turn.toolCall({ toolCallId: "t", title: "Long task", status: "in_progress" });
      try {
        await pause(10_000, turn.signal); // rejects with an AbortError once cancelled
      } finally {
        reason = turn.signal.reason;
        cancelledInFinally = turn.cancelled;
        void call.update({ rawOutput: { stopped: true } }); // still before the answer
      }
      return "end_turn";
    });
    const answer = h.prompt(sessionId);
    await until(() => h.seen.length === 2);
    await h.client.cancel({ sessionId });
    expect(await answer).toEqual({ stopReason: "cancelled" });
    expect(cancelledInFinally).toBe(true);
    expect(reason).toBeInstanceOf(DOMException);
    expect(reason).toMatchObject({ name: "AbortError" });
    expect(h.seen).toEqual([
      {
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "working" },
        },
      },
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "t",
          title: "Long task",
          status: "in_progress",
        },
      },
      {
        update: {
          sessionUpdate: "tool_call_update",
          toolCallId: "t",
          rawOutput: { stopped: true },
        },
      },
      { answer: { stopReason: "cancelled" } },
    ]);
    expect(h.kit.isRunning(sessionId)).toBe(false);
  });

  it("answers cancelled when a cancelled turn returns normally", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      await until(() => turn.cancelled);
      return "end_turn";
    });
    const answer = h.prompt(sessionId);
    await until(() => h.kit.isRunning(sessionId));
    await h.client.cancel({ sessionId });
    expect(await answer).toEqual({ stopReason: "cancelled" });
  });

  it("cancels the turn on $/cancel_request of the prompt request", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    let result: unknown;
    h.onTurn(async (turn) => {
      await pause(10_000, turn.signal).catch(() => undefined);
      result = turn.signal.reason;
      return "end_turn";
    });
    const controller = new AbortController();
    const answer = h.client.prompt(
      { sessionId, prompt: [{ type: "text", text: "x" }] },
      { signal: controller.signal },
    );
    await until(() => h.kit.isRunning(sessionId));
    controller.abort();
    await expect(answer).rejects.toBeInstanceOf(ConnectionError);
    await until(() => result !== undefined);
    expect(result).toMatchObject({ name: "AbortError" });
    await until(() => !h.kit.isRunning(sessionId));
  });

  it("cancels the turn when the connection closes", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    let aborted = false;
    h.onTurn(async (turn) => {
      await pause(10_000, turn.signal).catch(() => (aborted = true));
    });
    const answer = h.prompt(sessionId).catch((e: unknown) => e);
    await until(() => h.kit.isRunning(sessionId));
    h.agent.close();
    expect(await answer).toBeInstanceOf(ConnectionError);
    await until(() => aborted);
  });

  it("cancels the running turn and forgets the session on closeSession", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => pause(10_000, turn.signal));
    const answer = h.prompt(sessionId);
    await until(() => h.kit.isRunning(sessionId));
    expect(await h.kit.closeSession(sessionId)).toBe(true);
    expect(await answer).toEqual({ stopReason: "cancelled" });
    expect(h.kit.sessions.has(sessionId)).toBe(false);
    expect(await h.kit.closeSession(sessionId)).toBe(false);
  });
});
