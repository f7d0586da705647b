/**
 * The reducer is pure and total: it never mutates its inputs (they are deep-frozen here),
 * never throws on schema-valid updates, and keeps the thread's invariants. Updates come
 * from the official unstable JSON Schema (as the schema property test generates them),
 * with ids drawn from small pools so that merges by id actually happen.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValid, type SessionUpdate } from "../index.js";
import {
  loadUnstableSchema,
  SchemaArbitraries,
} from "../../../../test/support/schema-arbitraries.js";
import { reduceSession } from "./reduce.js";
import { emptySessionState, type SessionState } from "./state.js";
import { applySetup, beginLoad, beginTurn, cancelTurn, endTurn } from "./turns.js";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value))
      deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

const ID_KEYS = ["toolCallId", "messageId", "compactionId", "planId"] as const;

/** `update` with its ids (and a plan's id) replaced by ids from a pool of three. */
function pooled(update: unknown, pick: number): unknown {
  if (typeof update !== "object" || update === null) return update;
  const copy: Record<string, unknown> = { ...(update as Record<string, unknown>) };
  for (const key of ID_KEYS) if (typeof copy[key] === "string") copy[key] = `${key}-${pick % 3}`;
  if (copy.sessionUpdate === "subagent_update") copy.sessionId = `child-${pick % 2}`;
  const plan = copy.plan as Record<string, unknown> | undefined;
  if (copy.sessionUpdate === "plan_update" && typeof plan === "object") {
    copy.plan = { ...plan, planId: `plan-${pick % 2}` };
  }
  return copy;
}

const arbitraries = new SchemaArbitraries(loadUnstableSchema().$defs, 4);
const updateArb: fc.Arbitrary<SessionUpdate> = fc
  .tuple(arbitraries.forDef("SessionUpdate"), fc.nat(), fc.boolean())
  .map(([raw, pick, dropId]) => {
    const value = pooled(raw, pick) as Record<string, unknown>;
    if (dropId && "messageId" in value && String(value.sessionUpdate).endsWith("_chunk")) {
      delete value.messageId;
    }
    return value;
  })
  .filter((value): value is SessionUpdate => isValid("SessionUpdate", value));

type Step =
  { op: "update"; update: SessionUpdate } | { op: "begin" | "end" | "cancel" | "load" | "setup" };

/** Kinds this version does not know, as a newer agent could send them. */
const unknownArb = fc
  .record({ sessionUpdate: fc.constantFrom("artifact_update", "_vendor/x"), n: fc.nat() })
  .map((u) => u as unknown as SessionUpdate);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: updateArb.map((update): Step => ({ op: "update", update })) },
  { weight: 1, arbitrary: unknownArb.map((update): Step => ({ op: "update", update })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Step>(
      { op: "begin" },
      { op: "end" },
      { op: "cancel" },
      { op: "load" },
      { op: "setup" },
    ),
  },
);

function step(state: SessionState, s: Step): SessionState {
  switch (s.op) {
    case "update":
      return reduceSession(state, s.update);
    case "begin":
      return beginTurn(state, [{ type: "text", text: "prompt" }]);
    case "end":
      return endTurn(state, "end_turn");
    case "cancel":
      return cancelTurn(state);
    case "load":
      return beginLoad(state);
    case "setup":
      return applySetup(state, { modes: { currentModeId: "m", availableModes: [] } });
  }
}

function checkInvariants(state: SessionState): void {
  const toolIds = new Set<string>();
  const messageKeys = new Set<string>();
  for (const item of state.thread) {
    if (item.type === "tool_call") {
      expect(toolIds.has(item.toolCallId)).toBe(false);
      toolIds.add(item.toolCallId);
      expect(item.statusHistory.at(-1)).toBe(item.status);
      item.statusHistory.forEach((s, i) => expect(s).not.toBe(item.statusHistory[i - 1]));
    } else if (item.type === "message" && item.messageId !== null) {
      const key = `${item.role}/${item.messageId}`;
      expect(messageKeys.has(key)).toBe(false);
      messageKeys.add(key);
    }
  }
  for (const turn of state.turns) expect(turn.threadStart).toBeLessThanOrEqual(state.thread.length);
}

describe("purity and totality", () => {
  it("never mutates the state or the update, never throws, keeps the invariants", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        let state = deepFreeze(emptySessionState("s"));
        for (const s of steps) {
          deepFreeze(s);
          const before = structuredClone(state);
          const next = deepFreeze(step(state, s));
          expect(state).toEqual(before);
          checkInvariants(next);
          state = next;
        }
      }),
      { numRuns: 150 },
    );
  });

  it("loses no text: messages hold exactly the text of their chunks", () => {
    const chunkArb = updateArb.filter(
      (u) =>
        u.sessionUpdate.endsWith("_chunk") &&
        u.sessionUpdate !== "compaction_summary_chunk" &&
        u.sessionUpdate !== "session_message_chunk",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(chunkArb, updateArb), { maxLength: 40 }), (updates) => {
        const state = updates.reduce(reduceSession, emptySessionState("s"));
        const length = (blocks: readonly unknown[]) =>
          blocks.reduce<number>(
            (n, b) =>
              n +
              ((b as { type?: unknown }).type === "text"
                ? String((b as { text: unknown }).text).length
                : 0),
            0,
          );
        const sent = updates
          .filter((u) =>
            ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"].includes(
              u.sessionUpdate,
            ),
          )
          .reduce((n, u) => n + length([(u as { content: unknown }).content]), 0);
        const kept = state.thread.reduce(
          (n, i) => n + (i.type === "message" ? length(i.content) : 0),
          0,
        );
        expect(kept).toBe(sent);
      }),
      { numRuns: 100 },
    );
  });
});
