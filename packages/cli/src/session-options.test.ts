import { describe, expect, it } from "vitest";
import type { SessionState } from "acp-kit";
import { describeFailure, ExitCodes } from "./exit-codes.js";
import { resolveSettingValue, SettingValueError } from "./session-options.js";

const withOptions = {
  configOptions: [
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: "fast-1",
      options: [
        { value: "fast-1", name: "Fast" },
        { value: "smart-2", name: "Smart" },
      ],
    },
  ],
  availableModes: [
    { id: "ask", name: "Ask" },
    { id: "code", name: "Code" },
  ],
  currentModeId: "ask",
} as unknown as SessionState;

describe("--mode and --model values", () => {
  it("takes an id, or an id or a name in any case", () => {
    expect(resolveSettingValue(withOptions, "model", "smart-2")).toBe("smart-2");
    expect(resolveSettingValue(withOptions, "model", "SMART")).toBe("smart-2");
    expect(resolveSettingValue(withOptions, "mode", "Code")).toBe("code");
  });

  it("rejects an unknown value naming the valid ones, as a usage error (exit 2)", () => {
    let error: unknown;
    try {
      resolveSettingValue(withOptions, "model", "gpt-9");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingValueError);
    expect((error as Error).message).toBe(
      "--model gpt-9: unknown model; the agent offers fast-1 (Fast), smart-2 (Smart).",
    );
    expect(describeFailure(error).exitCode).toBe(ExitCodes.USAGE);
    expect(() =>
      resolveSettingValue({ configOptions: [] } as unknown as SessionState, "model", "x"),
    ).toThrow("--model x: this agent offers no choice of model.");
  });
});
