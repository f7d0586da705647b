import { describe, expect, it } from "vitest";
import type { ContentBlock, SessionConfigOption, SessionUpdate } from "../index.js";
import { foldSession, reduceSession } from "./reduce.js";
import { emptySessionState, type SessionState } from "./state.js";

const text = (t: string): ContentBlock => ({ type: "text", text: t });
const agent = (t: string, messageId?: string | null): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: text(t),
  ...(messageId === undefined ? {} : { messageId }),
});

function fold(updates: SessionUpdate[], from: SessionState = emptySessionState("s")) {
  return updates.reduce(reduceSession, from);
}

/** The thread as `role:id:text` strings, for compact assertions on grouping. */
function messages(state: SessionState): string[] {
  return state.thread.map((item) => {
    if (item.type !== "message") return item.type;
    const joined = item.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("|");
    return `${item.role}:${item.messageId ?? "-"}:${joined}`;
  });
}

describe("emptySessionState", () => {
  it("knows nothing", () => {
    expect(emptySessionState("s1")).toEqual({
      sessionId: "s1",
      thread: [],
      plan: null,
      plans: [],
      currentModeId: null,
      availableModes: null,
      availableCommands: null,
      configOptions: null,
      usage: null,
      info: { title: null, updatedAt: null, _meta: null },
      notices: [],
      subagents: [],
      activity: null,
      terminals: [],
      turns: [],
      loading: false,
      unknown: [],
    });
  });
});

describe("session-level updates", () => {
  it("replaces the plan, commands and config options wholesale", () => {
    const entry = { content: "step", priority: "high", status: "pending" } as const;
    const command = { name: "web", description: "Search" };
    const option = {
      type: "boolean",
      id: "fast",
      name: "Fast",
      currentValue: true,
    } as unknown as SessionConfigOption;
    const state = fold([
      { sessionUpdate: "plan", entries: [entry, { ...entry, content: "two" }] },
      { sessionUpdate: "plan", entries: [{ ...entry, status: "completed" }] },
      { sessionUpdate: "available_commands_update", availableCommands: [command, command] },
      { sessionUpdate: "available_commands_update", availableCommands: [command] },
      { sessionUpdate: "config_option_update", configOptions: [option, option] },
      { sessionUpdate: "config_option_update", configOptions: [option] },
    ]);
    expect(state.plan).toEqual([{ ...entry, status: "completed" }]);
    expect(state.availableCommands).toEqual([command]);
    expect(state.configOptions).toEqual([option]);
    expect(
      fold([
        { sessionUpdate: "plan", entries: [entry] },
        { sessionUpdate: "plan", entries: [] },
      ]).plan,
    ).toEqual([]);
  });

  it("sets the current mode (accepting the documented `modeId` spelling)", () => {
    expect(
      fold([{ sessionUpdate: "current_mode_update", currentModeId: "code" }]).currentModeId,
    ).toBe("code");
    const lenient = {
      sessionUpdate: "current_mode_update",
      modeId: "ask",
    } as unknown as SessionUpdate;
    expect(fold([lenient]).currentModeId).toBe("ask");
  });

  it("replaces usage, keeping the last cost when an update has none", () => {
    const cost = { amount: 0.5, currency: "USD" };
    const state = fold([
      { sessionUpdate: "usage_update", used: 10, size: 100, cost },
      { sessionUpdate: "usage_update", used: 20, size: 100 },
    ]);
    expect(state.usage).toEqual({ used: 20, size: 100, cost });
    const later = reduceSession(state, {
      sessionUpdate: "usage_update",
      used: 5,
      size: 200,
      cost: null,
    });
    expect(later.usage).toEqual({ used: 5, size: 200, cost });
    expect(fold([{ sessionUpdate: "usage_update", used: 1, size: 2 }]).usage).toEqual({
      used: 1,
      size: 2,
      cost: null,
    });
  });

  it("patches session info tri-state: left out keeps, null clears, a value sets", () => {
    const set = fold([
      { sessionUpdate: "session_info_update", title: "T", updatedAt: "2025-01-01T00:00:00Z" },
    ]);
    expect(set.info).toEqual({ title: "T", updatedAt: "2025-01-01T00:00:00Z", _meta: null });
    const kept = reduceSession(set, {
      sessionUpdate: "session_info_update",
      updatedAt: "2025-01-02T00:00:00Z",
    });
    expect(kept.info).toEqual({ title: "T", updatedAt: "2025-01-02T00:00:00Z", _meta: null });
    const cleared = reduceSession(kept, { sessionUpdate: "session_info_update", title: null });
    expect(cleared.info).toEqual({ title: null, updatedAt: "2025-01-02T00:00:00Z", _meta: null });
    const meta = fold(
      [
        { sessionUpdate: "session_info_update", _meta: { a: 1, b: 1 } },
        { sessionUpdate: "session_info_update", _meta: { b: 2 } },
        { sessionUpdate: "session_info_update", _meta: null },
      ],
      cleared,
    );
    expect(meta.info).toEqual({
      title: null,
      updatedAt: "2025-01-02T00:00:00Z",
      _meta: { a: 1, b: 2 },
    });
  });

  it("appends notices", () => {
    const state = fold([
      { sessionUpdate: "notice", severity: "warning", title: "Rate limited" },
      { sessionUpdate: "notice", severity: "_vendor", title: "Hi", description: null },
    ]);
    expect(state.notices).toEqual([
      { severity: "warning", title: "Rate limited" },
      { severity: "_vendor", title: "Hi", description: null },
    ]);
  });

  it("keeps unknown kinds as received, in order", () => {
    const a = { sessionUpdate: "artifact_update", artifact: { id: 1 } } as unknown as SessionUpdate;
    const b = { sessionUpdate: "_zed.dev/custom", x: [1] } as unknown as SessionUpdate;
    const state = fold([a, agent("x"), b]);
    expect(state.unknown).toEqual([a, b]);
    expect(state.unknown[0]).toBe(a);
  });

  it("keeps the newest 1,000 notices and unknown updates, so that a flood folds in linear time", () => {
    const flood = (count: number): SessionState => {
      let state = emptySessionState("s");
      for (let i = 0; i < count; i++) {
        state = reduceSession(state, {
          sessionUpdate: "future_kind",
          i,
        } as unknown as SessionUpdate);
        state = reduceSession(state, { sessionUpdate: "notice", severity: "info", title: `${i}` });
      }
      return state;
    };
    const state = flood(2500);
    expect(state.unknown).toHaveLength(1000);
    expect(state.notices).toHaveLength(1000);
    expect((state.unknown[0] as unknown as { i: number }).i).toBe(1500);
    expect((state.unknown[999] as unknown as { i: number }).i).toBe(2499);
    expect(state.notices[0]?.title).toBe("1500");
    // 40,000 of each took over 10 s when every update copied the whole list (quadratic).
    const time = (count: number): number => {
      const start = performance.now();
      flood(count);
      return performance.now() - start;
    };
    time(5_000); // warm-up
    const small = time(10_000);
    const large = time(40_000);
    expect(large / Math.max(small, 5)).toBeLessThan(8);
  });
});

describe("foldSession", () => {
  it("folds notifications of the first session, skipping others", () => {
    const state = foldSession([
      { sessionId: "a", update: agent("x") },
      { sessionId: "b", update: agent("nope") },
      { sessionId: "a", update: agent("y") },
    ]);
    expect(state?.sessionId).toBe("a");
    expect(state && messages(state)).toEqual(["agent:-:xy"]);
    expect(foldSession([])).toBeUndefined();
  });
});
