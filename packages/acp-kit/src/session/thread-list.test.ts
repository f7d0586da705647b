import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ThreadList } from "./thread-list.js";
import { reduceSession } from "./reduce.js";
import { emptySessionState, threadItem, threadLength, threadSlice } from "./state.js";
import type { SessionUpdate } from "../schema/types.gen.js";

type Op = { push: number } | { set: number; value: number };

describe("ThreadList", () => {
  it("behaves like an array under push and set, and never changes an earlier list", () => {
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 4, arbitrary: fc.nat().map((push) => ({ push })) },
      { weight: 1, arbitrary: fc.record({ set: fc.nat(), value: fc.nat() }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 1200 }), (ops) => {
        const versions: [ThreadList<number>, number[]][] = [[ThreadList.empty(), []]];
        for (const o of ops) {
          const [list, array] = versions[versions.length - 1] ?? [ThreadList.empty(), []];
          if ("push" in o) versions.push([list.push(o.push), [...array, o.push]]);
          else if (array.length > 0) {
            const at = o.set % array.length;
            const copy = [...array];
            copy[at] = o.value;
            versions.push([list.set(at, o.value), copy]);
          }
        }
        for (const [list, array] of versions) {
          expect(list.length).toBe(array.length);
          expect(list.slice()).toEqual(array);
          expect(list.get(array.length)).toBeUndefined();
          expect(list.get(-1)).toBeUndefined();
          if (array.length > 0) expect(list.get(array.length - 1)).toBe(array[array.length - 1]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("keeps 40,000 items through three levels of the tree, and sets anywhere in it", () => {
    const items = Array.from({ length: 40_000 }, (_, i) => i);
    let list = ThreadList.from(items);
    const before = list;
    for (let i = 0; i < 40_000; i += 997) list = list.set(i, -i);
    for (let i = 0; i < 40_000; i++) {
      expect(before.get(i)).toBe(i);
      expect(list.get(i)).toBe(i % 997 === 0 ? -i : i);
    }
    expect(list.slice().length).toBe(40_000);
  });

  it("slices across leaves and the tail, clamped", () => {
    const list = ThreadList.from(Array.from({ length: 1100 }, (_, i) => i));
    expect(list.slice(30, 70)).toEqual(Array.from({ length: 40 }, (_, i) => 30 + i));
    expect(list.slice(1050, 2000)).toEqual(Array.from({ length: 50 }, (_, i) => 1050 + i));
    expect(list.slice(5, 2)).toEqual([]);
    expect(() => list.set(1100, 0)).toThrow(RangeError);
  });
});

describe("the thread of a state", () => {
  const call = (id: string, status: "in_progress" | "completed"): SessionUpdate => ({
    sessionUpdate: "tool_call_update",
    toolCallId: id,
    status,
  });

  it("reads the same through the accessors as through the array", () => {
    let state = emptySessionState("s");
    for (let i = 0; i < 100; i++) state = reduceSession(state, call(`c${i}`, "in_progress"));
    state = reduceSession(state, call("c3", "completed"));
    // What the thread holds, stated on its own (the array is built from the same list).
    expect(state.thread.map((item) => (item as { toolCallId?: string }).toolCallId)).toEqual(
      Array.from({ length: 100 }, (_, i) => `c${i}`),
    );
    expect(state.thread[3]).toMatchObject({ toolCallId: "c3", status: "completed" });
    expect(state.thread[4]).toMatchObject({ toolCallId: "c4", status: "in_progress" });
    expect(threadLength(state)).toBe(state.thread.length);
    expect(threadItem(state, 3)).toBe(state.thread[3]);
    expect(threadSlice(state, 40, 60)).toEqual(state.thread.slice(40, 60));
    const json = JSON.parse(JSON.stringify(state)) as { thread: unknown[] };
    expect(json.thread).toHaveLength(100);
    expect(json.thread[3]).toMatchObject({ toolCallId: "c3", status: "completed" });
    expect(json).toEqual({ ...state, thread: state.thread });
  });

  it("folds a state twice (branches) and a state rebuilt from JSON the same as the original", () => {
    let base = emptySessionState("s");
    for (let i = 0; i < 50; i++) base = reduceSession(base, call(`c${i}`, "in_progress"));
    const a = reduceSession(reduceSession(base, call("x", "in_progress")), call("c1", "completed"));
    const b = reduceSession(reduceSession(base, call("y", "in_progress")), call("x", "completed"));
    // In branch b, "x" is new (the index knows it from branch a only).
    expect(threadLength(b)).toBe(52);
    expect(b.thread[51]).toMatchObject({ toolCallId: "x", placeholder: true, status: "completed" });
    expect(a.thread[1]).toMatchObject({ toolCallId: "c1", status: "completed" });
    expect(base.thread[1]).toMatchObject({ toolCallId: "c1", status: "in_progress" });
    const copy = JSON.parse(JSON.stringify(a)) as typeof a;
    const again = reduceSession(copy, call("c2", "completed"));
    expect(again.thread[2]).toMatchObject({ toolCallId: "c2", status: "completed" });
    expect(threadLength(again)).toBe(51);
  });
});
