import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { demoScenario } from "../../packages/acp-kit/src/testing/scenario/demo.js";
import { formatScenarioIssue } from "../../packages/acp-kit/src/testing/scenario/check.js";
import {
  parseScenario,
  ScenarioError,
  validateScenario,
} from "../../packages/acp-kit/src/testing/scenario/validate.js";

/** The formatted issues of an invalid scenario. */
function problems(value: unknown): string[] {
  const result = validateScenario(value);
  if (result.ok) throw new Error("expected the scenario to be invalid");
  return result.issues.map(formatScenarioIssue);
}

const turn = (...steps: unknown[]) => ({ turns: [{ steps }] });

describe("scenario validation", () => {
  it("accepts the built-in demo and the test fixture", () => {
    expect(validateScenario(demoScenario()).ok).toBe(true);
    const fixture = new URL("./fixtures/scenario-basic.json", import.meta.url);
    expect(() => parseScenario(readFileSync(fixture, "utf8"))).not.toThrow();
  });

  it("takes a permission step's own call in place of an earlier tool call, with a title", () => {
    const call = { title: "rm -rf build", kind: "execute" };
    expect(validateScenario(turn({ permission: ["allow_once"], call })).ok).toBe(true);
    expect(
      validateScenario(
        turn(
          { permission: ["allow_once"], call, toolCallId: "x" },
          { toolUpdate: {}, toolCallId: "x" },
        ),
      ).ok,
    ).toBe(true);
    expect(problems(turn({ permission: ["allow_once"], call: { kind: "execute" } }))).toEqual([
      "turns[0].steps[0].call.title: is missing (expected the tool call's title)",
    ]);
  });

  it("requires turns and an object", () => {
    expect(problems([])).toEqual(["scenario: is an array (expected a scenario object)"]);
    expect(problems({})).toEqual(["turns: is missing (expected an array of turns)"]);
  });

  it("names misspelled keys with a suggestion and the expected keys", () => {
    const result = validateScenario({ turns: [], sesions: [] });
    expect(result).toEqual({
      ok: false,
      issues: [
        {
          path: "sesions",
          message: 'unknown key "sesions" (did you mean "sessions"?)',
          expected:
            "one of $schema, name, description, agent, modes, configOptions, commands, sessions, turns",
        },
      ],
    });
    expect(problems({ turns: [], agent: { capabilites: {} } })[0]).toMatch(
      /^agent\.capabilites: unknown key "capabilites" \(did you mean "capabilities"\?\)/,
    );
    expect(problems(turn({ text: "hi", delayms: 5 }))).toEqual([
      'turns[0].steps[0].delayms: unknown key "delayms" (did you mean "delayMs"?) (expected one of text, chunk, delayMs, messageId)',
    ]);
  });

  it("rejects unknown step kinds with a suggestion", () => {
    const [issue] = problems(turn({ txet: "hi" }));
    expect(issue).toMatch(
      /^turns\[0\]\.steps\[0\]\.txet: unknown step kind "txet" \(did you mean "text"\?\) \(expected exactly one of the step kinds text, thought, /,
    );
    expect(problems(turn({ frobnicate: 1 }))[0]).not.toContain("did you mean");
    expect(problems(turn({}))).toEqual([
      expect.stringMatching(/^turns\[0\]\.steps\[0\]: has no step kind/),
    ]);
    expect(problems(turn({ text: "a", delay: 3 }))).toEqual([
      "turns[0].steps[0]: has several step kinds (text, delay) (expected one step kind per step)",
    ]);
  });

  it("says what is wrong with a value and what was expected", () => {
    expect(problems(turn({ stop: "end" }))).toEqual([
      'turns[0].steps[0].stop: is the string "end" (did you mean "end_turn"?) (expected one of end_turn, max_tokens, max_turn_requests, refusal, cancelled)',
    ]);
    expect(problems(turn({ delay: -1 }))).toEqual([
      "turns[0].steps[0].delay: is the number -1 (expected an integer from 0 to 9007199254740991)",
    ]);
    expect(problems(turn({ text: "x", chunk: "words" }))[0]).toContain('(did you mean "word"?)');
    expect(problems(turn({ fail: { code: "x", message: "" } }))).toEqual([
      'turns[0].steps[0].fail.code: is the string "x" (expected an integer from -2147483648 to 2147483647)',
      "turns[0].steps[0].fail.message: is empty (expected a non-empty string)",
    ]);
    expect(
      problems(
        turn({ permission: ["allow"], toolCallId: "t" }, { toolCall: "T", toolCallId: "t" }),
      ),
    ).toEqual([
      'turns[0].steps[0].permission[0]: is the string "allow" (did you mean "allow_once"?) (expected one of allow_once, allow_always, reject_once, reject_always)',
    ]);
  });

  it("checks protocol objects against the ACP schema", () => {
    expect(problems({ turns: [], agent: { capabilities: { loadSession: "yes" } } })).toEqual([
      "agent.capabilities.loadSession: must be boolean (expected a valid ACP AgentCapabilities)",
    ]);
    expect(problems(turn({ update: { sessionUpdate: "agent_message_chunk" } }))[0]).toMatch(
      /^turns\[0\]\.steps\[0\]\.update.*\(expected a valid ACP SessionUpdate\)$/,
    );
    expect(
      problems({
        turns: [],
        modes: { currentModeId: "x", availableModes: [{ id: "a", name: "A" }] },
      }),
    ).toEqual(['modes.currentModeId: is the string "x" (expected one of a)']);
  });

  it("checks tool call references and placeholders", () => {
    expect(problems(turn({ toolUpdate: { status: "completed" } }))).toEqual([
      'turns[0].steps[0]: a toolUpdate step needs a tool call, but none is reported before it in this turn (expected a toolCall step before it, or a "toolCallId")',
    ]);
    expect(
      problems(turn({ toolCall: "A", toolCallId: "read" }, { toolUpdate: {}, toolCallId: "raed" })),
    ).toEqual([
      'turns[0].steps[1].toolCallId: no toolCall step has the id "raed"; known ids: read (expected the toolCallId of a toolCall step)',
    ]);
    expect(
      problems(
        turn({
          readFile: "a.txt",
          saveAs: "notes",
          then: [{ text: "${note} ${cwdd} ${notes.size}" }],
        }),
      ),
    ).toEqual([
      'turns[0].steps[0].then[0].text: unknown placeholder "${note}" (did you mean "${notes}"?) (expected ${cwd}, ${sessionId}, ${turn}, ${prompt}, ${args}, ${error}, ${match.N} or a saveAs name)',
      'turns[0].steps[0].then[0].text: unknown placeholder "${cwdd}" (did you mean "${cwd}"?) (expected ${cwd}, ${sessionId}, ${turn}, ${prompt}, ${args}, ${error}, ${match.N} or a saveAs name)',
      'turns[0].steps[0].then[0].text: unknown placeholder "${notes.size}" (did you mean "${notes}"?) (expected ${cwd}, ${sessionId}, ${turn}, ${prompt}, ${args}, ${error}, ${match.N} or a saveAs name)',
    ]);
    expect(validateScenario(turn({ text: "$${literal} ${match.1} ${args}" })).ok).toBe(true);
    expect(problems(turn({ readFile: "a", saveAs: "cwd" }))).toEqual([
      'turns[0].steps[0].saveAs: "cwd" is a built-in placeholder (expected another name)',
    ]);
  });

  it("checks modes, config options and matchers", () => {
    const modes = {
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask" },
        { id: "code", name: "Code" },
      ],
    };
    expect(problems({ modes, turns: [{ steps: [{ mode: "cdoe" }] }] })).toEqual([
      'turns[0].steps[0].mode: is the string "cdoe" (did you mean "code"?) (expected one of ask, code)',
    ]);
    expect(problems(turn({ mode: "code" }))[0]).toBe(
      'turns[0].steps[0].mode: needs modes, but the scenario declares none (expected a "modes" section)',
    );
    const configOptions = [
      {
        id: "model",
        name: "Model",
        type: "select",
        currentValue: "fast",
        options: [{ value: "fast", name: "Fast" }],
      },
    ];
    expect(
      problems({ configOptions, turns: [{ steps: [{ setConfig: { model: "slow" } }] }] }),
    ).toEqual(['turns[0].steps[0].setConfig.model: is the string "slow" (expected one of fast)']);
    expect(problems({ turns: [{ match: { regex: "(" }, steps: [] }] })[0]).toMatch(
      /^turns\[0\]\.match\.regex: is not a valid regular expression: .* \(expected a JavaScript regular expression\)$/,
    );
    expect(problems({ turns: [{ match: { command: "/explain" }, steps: [] }] })).toEqual([
      'turns[0].match.command: "/explain" is not a command name (expected the name without "/" or spaces, e.g. "explain")',
    ]);
    expect(problems({ turns: [{ match: { exact: "a", contains: "b" }, steps: [] }] })).toEqual([
      "turns[0].match: has several matchers (exact, contains) (expected one matcher)",
    ]);
  });

  it("checks pre-existing sessions and their history", () => {
    const sessions = [
      {
        sessionId: "s",
        cwd: "relative",
        history: [{ usr: "hi" }, { user: "hi" }, { sessionUpdate: "nope" }],
      },
      { sessionId: "s", cwd: "/x" },
    ];
    const found = problems({ sessions, turns: [] });
    expect(found[0]).toBe("sessions[0].cwd: is not an absolute path (expected an absolute path)");
    expect(found[1]).toMatch(
      /^sessions\[0\]\.history\[0\]\.usr: unknown key "usr" \(did you mean "user"\?\)/,
    );
    expect(found[2]).toMatch(/^sessions\[0\]\.history\[2\].*valid ACP SessionUpdate/);
    expect(found.at(-1)).toBe('sessions[1].sessionId: repeats "s" (expected distinct session ids)');
  });

  it("reports invalid JSON and lists every problem in a ScenarioError", () => {
    expect(() => parseScenario("{ nope", "x.json")).toThrow(
      /^Invalid x\.json \(1 problem\):\n {2}scenario: is not valid JSON: /,
    );
    try {
      parseScenario(
        JSON.stringify({ turns: [{ steps: [{ stop: 1 }, { delay: "x" }] }] }),
        "s.json",
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ScenarioError);
      expect((error as ScenarioError).issues).toHaveLength(2);
      expect((error as Error).message).toBe(
        "Invalid s.json (2 problems):\n" +
          "  turns[0].steps[0].stop: is the number 1 (expected one of end_turn, max_tokens, max_turn_requests, refusal, cancelled)\n" +
          '  turns[0].steps[1].delay: is the string "x" (expected an integer from 0 to 9007199254740991)',
      );
    }
  });
});
