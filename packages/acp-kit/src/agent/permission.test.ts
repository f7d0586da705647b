import { describe, expect, it } from "vitest";
import type { RequestPermissionRequest } from "../index.js";
import { isAllowed, type PermissionDecision } from "./permission.js";
import { harness, pause, until } from "../../../../test/support/agent-harness.js";
import { toolContent } from "./tool-call-content.js";

describe("ToolCallHandle.requestPermission", () => {
  it("asks about the call with the default options and returns the chosen kind", async () => {
    const requests: RequestPermissionRequest[] = [];
    let choose = "allow_always";
    const h = harness({
      requestPermission: (params) => {
        requests.push(params);
        return { outcome: { outcome: "selected", optionId: choose } };
      },
    });
    const sessionId = await h.newSession();
    const decisions: PermissionDecision[] = [];
    h.onTurn(async (turn) => {
      const call = turn.toolCall({
        toolCallId: "w",
        title: "Write a.ts",
        kind: "edit",
        locations: [{ path: "/work/a.ts" }],
        content: [toolContent.diff("/work/a.ts", "a", "b")],
      });
      decisions.push(await call.requestPermission());
      choose = "no";
      decisions.push(
        await call.requestPermission([
          "allow_once",
          { optionId: "no", name: "Not now", kind: "reject_once" },
        ]),
      );
      await call.fail("Declined");
    });
    await h.prompt(sessionId);
    expect(decisions).toEqual(["allow_always", "reject_once"]);
    expect(isAllowed("allow_always")).toBe(true);
    expect(isAllowed("reject_once")).toBe(false);
    expect(isAllowed("cancelled")).toBe(false);
    expect(requests[0]).toEqual({
      sessionId,
      toolCall: {
        toolCallId: "w",
        title: "Write a.ts",
        kind: "edit",
        status: "pending",
        locations: [{ path: "/work/a.ts" }],
        content: [{ type: "diff", path: "/work/a.ts", oldText: "a", newText: "b" }],
      },
      options: [
        { optionId: "allow_once", name: "Allow", kind: "allow_once" },
        { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
        { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
      ],
    });
    expect(requests[1]?.options).toEqual([
      { optionId: "allow_once", name: "Allow", kind: "allow_once" },
      { optionId: "no", name: "Not now", kind: "reject_once" },
    ]);
  });

  it('returns "cancelled" for a cancelled outcome', async () => {
    const h = harness({ requestPermission: () => ({ outcome: { outcome: "cancelled" } }) });
    const sessionId = await h.newSession();
    let decision: PermissionDecision | undefined;
    h.onTurn(async (turn) => {
      decision = await turn.toolCall({ title: "x" }).requestPermission();
    });
    await h.prompt(sessionId);
    expect(decision).toBe("cancelled");
  });

  it('withdraws the request when the turn is cancelled and returns "cancelled"', async () => {
    let clientSignal: AbortSignal | undefined;
    const h = harness({
      requestPermission: async (_params, context) => {
        clientSignal = context?.signal;
        await pause(10_000, context?.signal).catch(() => undefined);
        return { outcome: { outcome: "cancelled" } };
      },
    });
    const sessionId = await h.newSession();
    let decision: PermissionDecision | undefined;
    h.onTurn(async (turn) => {
      decision = await turn.toolCall({ toolCallId: "p", title: "x" }).requestPermission();
      return decision === "cancelled" ? "cancelled" : "end_turn";
    });
    const answer = h.prompt(sessionId);
    await until(() => clientSignal !== undefined);
    await h.client.cancel({ sessionId });
    expect(await answer).toEqual({ stopReason: "cancelled" });
    expect(decision).toBe("cancelled");
    await until(() => clientSignal?.aborted === true); // the agent sent $/cancel_request
    // No "failed" update for the open call: the client marks it cancelled itself.
    expect(h.updates()).toHaveLength(1);
  });

  it("never reads an option the client was not offered as a permission", async () => {
    const h = harness({
      requestPermission: () => ({ outcome: { outcome: "selected", optionId: "yolo" } }),
    });
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const decision = await turn.toolCall({ title: "x" }).requestPermission();
      return isAllowed(decision) ? "end_turn" : "refusal";
    });
    await expect(h.prompt(sessionId)).rejects.toMatchObject({
      code: -32603,
      data: { details: expect.stringContaining("was not offered") as unknown },
    });
  });

  it("rejects empty or ambiguous option lists before asking", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    const errors: unknown[] = [];
    h.onTurn(async (turn) => {
      const call = turn.toolCall({ title: "x" });
      await call.requestPermission([]).catch((e: unknown) => errors.push(e));
      await call
        .requestPermission(["allow_once", "allow_once"])
        .catch((e: unknown) => errors.push(e));
      await call.complete();
    });
    await h.prompt(sessionId);
    expect(errors).toHaveLength(2);
    expect(errors.every((e) => e instanceof TypeError)).toBe(true);
    expect(h.seen.some((s) => "permission" in s)).toBe(false);
  });
});
