/* eslint-disable @typescript-eslint/require-await -- turn functions are async by contract; some here await nothing */
import { describe, expect, it } from "vitest";
import type { PlanEntry } from "../index.js";
import { harness } from "../../../../test/support/agent-harness.js";

const entry = (
  content: string,
  status: PlanEntry["status"] = "pending",
  priority: PlanEntry["priority"] = "medium",
): PlanEntry => ({ content, priority, status });

describe("PlanHandle", () => {
  it("sends the whole plan on every change, and nothing for no change", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const plan = turn.plan(["Read", { content: "Fix", priority: "high" }, "Test"]);
      await plan.start(0);
      await plan.start("Read"); // already in progress
      await plan.advance();
      await plan.add({ content: "Document", priority: "low" });
      await plan.remove("Test");
      await plan.complete(1);
      await plan.advance();
      await plan.advance(); // nothing left to move
      expect(plan.entries).toEqual([
        entry("Read", "completed"),
        entry("Fix", "completed", "high"),
        entry("Document", "completed", "low"),
      ]);
    });
    await h.prompt(sessionId);
    expect(h.updates()).toEqual(
      [
        [entry("Read"), entry("Fix", "pending", "high"), entry("Test")],
        [entry("Read", "in_progress"), entry("Fix", "pending", "high"), entry("Test")],
        [entry("Read", "completed"), entry("Fix", "in_progress", "high"), entry("Test")],
        [
          entry("Read", "completed"),
          entry("Fix", "in_progress", "high"),
          entry("Test"),
          entry("Document", "pending", "low"),
        ],
        [
          entry("Read", "completed"),
          entry("Fix", "in_progress", "high"),
          entry("Document", "pending", "low"),
        ],
        [
          entry("Read", "completed"),
          entry("Fix", "completed", "high"),
          entry("Document", "pending", "low"),
        ],
        [
          entry("Read", "completed"),
          entry("Fix", "completed", "high"),
          entry("Document", "in_progress", "low"),
        ],
        [
          entry("Read", "completed"),
          entry("Fix", "completed", "high"),
          entry("Document", "completed", "low"),
        ],
      ].map((entries) => ({ sessionUpdate: "plan", entries })),
    );
  });

  it("replaces the plan wholesale, including with an empty one", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    h.onTurn(async (turn) => {
      const plan = turn.plan([{ content: "A", status: "in_progress" }]);
      await plan.replace(["B", "C"]);
      await plan.replace([]);
      turn.plan(["D"]); // a new plan replaces the old one too
    });
    await h.prompt(sessionId);
    expect(h.updates()).toEqual([
      { sessionUpdate: "plan", entries: [entry("A", "in_progress")] },
      { sessionUpdate: "plan", entries: [entry("B"), entry("C")] },
      { sessionUpdate: "plan", entries: [] },
      { sessionUpdate: "plan", entries: [entry("D")] },
    ]);
  });

  it("throws RangeError for entries that do not exist, sending nothing", async () => {
    const h = harness();
    const sessionId = await h.newSession();
    const errors: unknown[] = [];
    h.onTurn(async (turn) => {
      const plan = turn.plan(["A"]);
      for (const ref of [1, -1, 0.5, "B"]) {
        try {
          void plan.start(ref);
        } catch (error) {
          errors.push(error);
        }
      }
      // entries are copies: changing them changes nothing
      const copy = plan.entries;
      if (copy[0] !== undefined) copy[0].status = "completed";
      expect(plan.entries[0]?.status).toBe("pending");
    });
    await h.prompt(sessionId);
    expect(errors).toHaveLength(4);
    expect(errors.every((e) => e instanceof RangeError)).toBe(true);
    expect(h.updates()).toHaveLength(1);
  });
});
