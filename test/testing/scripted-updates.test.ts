import { describe, expect, it } from "vitest";
import { chunk, CWD, harness, runTurn as turn, SID } from "./fixtures/scenario-harness.js";

describe("scripted agent steps: session updates and the end of a turn", () => {
  it("sends mode, command, config option, session info, usage and raw updates", async () => {
    const scenario = {
      modes: {
        currentModeId: "ask",
        availableModes: [
          { id: "ask", name: "Ask" },
          { id: "code", name: "Code" },
        ],
      },
      configOptions: [
        {
          id: "model",
          name: "Model",
          type: "select",
          currentValue: "a",
          options: [
            { value: "a", name: "A" },
            { value: "b", name: "B" },
          ],
        },
        { id: "fast", name: "Fast", type: "boolean", currentValue: false },
      ],
    };
    const { updates } = await turn(
      [
        { mode: "code" },
        { commands: [{ name: "go", description: "Go in ${cwd}" }] },
        { setConfig: { model: "b", fast: true } },
        { sessionInfo: { title: "T", updatedAt: null } },
        { usage: { used: 10, size: 100, cost: { amount: 0.5, currency: "EUR" } } },
        {
          update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "echo" } },
        },
      ],
      { scenario },
    );
    expect(updates).toEqual([
      { sessionUpdate: "current_mode_update", currentModeId: "code" },
      {
        sessionUpdate: "available_commands_update",
        availableCommands: [{ name: "go", description: `Go in ${CWD}` }],
      },
      {
        sessionUpdate: "config_option_update",
        // The client did not advertise boolean options: only the select is shown.
        configOptions: [{ ...scenario.configOptions[0], currentValue: "b" }],
      },
      { sessionUpdate: "session_info_update", title: "T", updatedAt: null },
      {
        sessionUpdate: "usage_update",
        used: 10,
        size: 100,
        cost: { amount: 0.5, currency: "EUR" },
      },
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "echo" } },
    ]);
  });

  it("ends with any stop reason, or fails with the given error", async () => {
    for (const reason of ["max_tokens", "max_turn_requests", "refusal", "cancelled", "end_turn"]) {
      const { stop, updates } = await turn([{ stop: reason }, { text: "never" }]);
      expect(stop).toBe(reason);
      expect(updates).toEqual([]);
    }
    const h = harness({
      turns: [
        {
          steps: [
            { text: "before" },
            { fail: { code: -32042, message: "Boom in ${sessionId}", data: { why: "${prompt}" } } },
          ],
        },
      ],
    });
    await h.initialize();
    const sessionId = await h.newSession();
    await expect(h.prompt(sessionId, "try")).rejects.toMatchObject({
      code: -32042,
      message: `Boom in ${SID}`,
      data: { why: "try" },
    });
    expect(h.updates()).toEqual([chunk("before")]);
  });
});
