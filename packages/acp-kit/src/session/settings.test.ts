/** {@link sessionSetting}: where a session's mode and model live, and their values. */
import { describe, expect, it } from "vitest";
import type { SessionConfigOption } from "../index.js";
import { selectOptionValues, sessionSetting } from "./settings.js";
import { emptySessionState, type SessionState } from "./state.js";

const grouped: SessionConfigOption = {
  type: "select",
  id: "agent-mode",
  name: "Mode",
  category: "mode",
  currentValue: "plan",
  options: [
    {
      group: "safe",
      name: "Safe",
      options: [{ value: "plan", name: "Plan", description: "Reads only" }],
    },
    { group: "free", name: "Free", options: [{ value: "code", name: "Code" }] },
  ],
};

function stateWith(setup: Partial<SessionState>): SessionState {
  return { ...emptySessionState("s1"), ...setup };
}

describe("sessionSetting", () => {
  it("prefers the config option of the category to the session's modes", () => {
    const state = stateWith({
      configOptions: [grouped],
      availableModes: [{ id: "ask", name: "Ask" }],
      currentModeId: "ask",
    });
    expect(sessionSetting(state, "mode")).toEqual({
      configId: "agent-mode",
      values: [
        { id: "plan", name: "Plan", description: "Reads only" },
        { id: "code", name: "Code" },
      ],
      current: "plan",
    });
  });

  it("falls back to the modes for a mode, never for a model", () => {
    const state = stateWith({
      availableModes: [{ id: "ask", name: "Ask", description: null }],
      currentModeId: "ask",
    });
    expect(sessionSetting(state, "mode")).toEqual({
      configId: undefined,
      values: [{ id: "ask", name: "Ask" }],
      current: "ask",
    });
    expect(sessionSetting(state, "model")).toBeUndefined();
    expect(sessionSetting(undefined, "mode")).toBeUndefined();
  });

  it("ignores a boolean option of the category", () => {
    const flag: SessionConfigOption = {
      type: "boolean",
      id: "fast",
      name: "Fast",
      category: "model",
      currentValue: true,
    };
    expect(sessionSetting(stateWith({ configOptions: [flag] }), "model")).toBeUndefined();
    expect(selectOptionValues(flag)).toEqual([]);
  });
});
