/**
 * The scripted agent in ACP v2 against acp-kit's v2 `TestClient`: the same scenarios as
 * in v1 (the CLI fixtures, the program's basic scenario, the demo, the steps tests'
 * scenarios), every agent message valid v2, each turn ending idle with the scenario's
 * stop reason, and the transcript folded by `reduceSessionV2` the v1 run's one.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { demoScenario } from "../../packages/acp-kit/src/testing/index.js";
import { runScenario, V2Checker, type RunOptions } from "./fixtures/v2-parity.js";

const CWD = "/project";

function fixture(path: string): unknown {
  return JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
}

/** Runs a scenario in v1 and v2 and compares what both versions say. */
async function parity(scenario: unknown, prompts: readonly string[], options: RunOptions = {}) {
  const checker = new V2Checker();
  const v1 = await runScenario(1, scenario, prompts, options);
  const v2 = await runScenario(2, scenario, prompts, options, checker);
  expect(checker.issues).toEqual([]);
  expect(checker.checked).toBeGreaterThan(0);
  expect(v2.outcomes).toEqual(v1.outcomes);
  expect(v2.transcript).toEqual(v1.transcript);
  // Every turn the v2 agent ran ended with an idle (the session is idle at the end).
  expect(v2.client.state(v2.sessionId)?.activity).toMatchObject({ state: "idle" });
  await v1.client.close();
  await v2.client.close();
  return { v1, v2 };
}

describe("the scripted agent in v2, scenario by scenario, against the v1 run", () => {
  it("cli-scenario.json: commands, streaming, tool calls, permission, markdown, refusal", async () => {
    const { v2 } = await parity(fixture("../cli/fixtures/cli-scenario.json"), [
      "/shout hey",
      "where am I",
      "stream it",
      "use a tool",
      "permission please",
      "markdown",
      "refuse",
      "anything",
    ]);
    expect(v2.outcomes).toEqual([
      "end_turn",
      "end_turn",
      "end_turn",
      "end_turn",
      "end_turn",
      "end_turn",
      "refusal",
      "end_turn",
    ]);
    // v1 modes are a config option of category mode in v2.
    expect(v2.client.state(v2.sessionId)?.configOptions).toEqual([
      expect.objectContaining({ id: "mode", category: "mode", currentValue: "ask" }),
    ]);
  });

  it("scenario-basic.json: thought, word chunks, a tool call, a command", async () => {
    await parity(fixture("./fixtures/scenario-basic.json"), ["/echo hi", "hello", "other"]);
  });

  it("error-scenario.json: fail steps end idle with the error; stop steps with their reason", async () => {
    const { v2 } = await parity(fixture("../cli/fixtures/error-scenario.json"), [
      "details",
      "string",
      "login",
      "cancel",
      "tokens",
      "requests",
      "anything",
    ]);
    expect(v2.outcomes).toEqual([
      {
        code: -32603,
        message: "Internal error",
        data: { details: "Claude Code process exited with code 1" },
      },
      { code: -32603, message: "Internal error", data: "CODEX_API_KEY is not set" },
      {
        code: -32000,
        message: "Authentication required",
        data: { message: "Gemini API key is missing" },
      },
      "cancelled",
      "max_tokens",
      "max_turn_requests",
      {
        code: -32603,
        message: "Internal error",
        data: { message: "stream disconnected before completion: error sending request" },
      },
    ]);
    // Errors after the insertion are idle errors, not errors of session/prompt.
    const idles = v2.client
      .updatesV2(v2.sessionId)
      .filter((u) => u.sessionUpdate === "state_update" && u.state === "idle");
    expect(idles[0]).toEqual({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "error",
      error: {
        code: -32603,
        message: "Internal error",
        data: { details: "Claude Code process exited with code 1" },
      },
    });
  });

  it("options-scenario.json: config options (configId in v2), set from the client", async () => {
    const { v2 } = await parity(fixture("../cli/fixtures/options-scenario.json"), ["go"], {
      before: async (client, sessionId) => {
        if (client.version === 2) {
          const answer = await client.agentV2.setSessionConfigOption({
            sessionId,
            configId: "model",
            type: "id",
            value: "smart-2",
          });
          expect(answer.configOptions.map((o) => o.configId)).toEqual(["mode", "model"]);
        } else {
          await client.agent.setSessionConfigOption({
            sessionId,
            configId: "model",
            value: "smart-2",
          });
        }
      },
    });
    expect(v2.transcript.config).toEqual({ mode: "ask", model: "smart-2" });
  });

  it("the demo scenario: plan, files, permission, diff, terminal (files and commands are the agent's own in v2)", async () => {
    const { v2 } = await parity(
      demoScenario(),
      ["hello", "/explain README.md", "code mode", "what now"],
      {
        files: { [`${CWD}/README.md`]: "# Project\n\nA readme.\n" },
        terminal: { output: "v20.0.0\n", exitCode: 0 },
      },
    );
    const updates = v2.client.updatesV2(v2.sessionId);
    // The v1 diff is one change with a git patch; the terminal is the agent's own.
    const diffs = updates.flatMap((u) =>
      u.sessionUpdate === "tool_call_update"
        ? (u.content ?? []).filter((c) => c.type === "diff")
        : [],
    );
    const inCwd: unknown = expect.stringContaining(CWD);
    const newFile: unknown = expect.stringContaining("new file mode");
    expect(diffs[0]).toMatchObject({
      type: "diff",
      changes: [{ operation: "add", path: inCwd }],
      patch: { format: "git_patch", text: newFile },
    });
    const terminal = updates.find((u) => u.sessionUpdate === "terminal_update");
    expect(terminal).toMatchObject({ terminalId: "term-1", command: "node --version" });
    expect(v2.client.state(v2.sessionId)?.terminals[0]).toMatchObject({
      terminalId: "term-1",
      exitStatus: { exitCode: 0 },
    });
  });
});

const STEP_SCENARIOS: Record<string, { steps: unknown[]; options?: RunOptions }> = {
  "text and thoughts, chunked": {
    steps: [
      { text: "Hello big world\n" },
      { text: "Hello big world\n", chunk: "word", messageId: "m1" },
      { text: "one\ntwo", chunk: "line" },
      { text: "añb", chunk: 2 },
      { text: ["a", "b"] },
      { thought: "hmm ${cwd}", delayMs: 1000 },
    ],
  },
  "content blocks, plans and plan entries": {
    steps: [
      { message: { type: "image", data: "AAAA", mimeType: "image/png" }, messageId: "img" },
      { plan: ["Read", { content: "Write", priority: "high", status: "in_progress" }] },
      { planEntry: 0, status: "completed" },
      { planEntry: "Write", status: "completed" },
    ],
  },
  "tool calls with text, diff and terminal content": {
    steps: [
      {
        toolCall: "Edit a.ts",
        kind: "edit",
        locations: ["src/a.ts", { path: "/abs/b.ts", line: 3 }],
        rawInput: { file: "a.ts" },
      },
      { toolUpdate: { status: "in_progress", title: "Editing a.ts" } },
      {
        toolUpdate: {
          status: "completed",
          content: [
            { text: "Done in ${cwd}" },
            { diff: "./src/a.ts", oldText: "old", newText: "new" },
            { diff: "new.ts", newText: "fresh" },
          ],
          rawOutput: { ok: true },
        },
      },
      { toolCall: "Second", toolCallId: "mine", status: "in_progress" },
      { toolUpdate: { status: "failed" }, toolCallId: "call_1" },
    ],
  },
  "files with saved values and error branches": {
    steps: [
      { readFile: "notes.txt", saveAs: "notes", then: [{ text: "got ${notes}" }] },
      {
        readFile: "/missing.txt",
        onError: [{ text: "failed: ${error}" }],
        then: [{ text: "never" }],
      },
      { writeFile: "out.txt", content: "${notes}!" },
      { readFile: "out.txt", saveAs: "out" },
      { text: "$${notes} is ${notes}, out is ${out}" },
    ],
    options: { files: { [`${CWD}/notes.txt`]: "hello" } },
  },
  "commands in terminals embedded in the tool call": {
    steps: [
      { toolCall: "Run", toolCallId: "run", content: [{ text: "running" }] },
      { terminal: "node", args: ["-v"], cwd: "sub", saveAs: "out" },
      { text: "${out}|${out.exitCode}" },
    ],
    options: { terminal: { output: "v1\n", exitCode: 3 } },
  },
  "session updates: commands, config, info, usage, raw updates": {
    steps: [
      { commands: [{ name: "go", description: "Go in ${cwd}" }] },
      { sessionInfo: { title: "T", updatedAt: null } },
      { usage: { used: 10, size: 100, cost: { amount: 0.5, currency: "EUR" } } },
      { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "raw" } } },
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "raw-1",
          title: "Raw",
          status: "completed",
        },
      },
      { update: { sessionUpdate: "plan", entries: [] } },
    ],
  },
  "the agent echoing the prompt (user_message_chunk), then more user chunks": {
    steps: [
      { update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "echo" } } },
      { update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "ed" } } },
      { text: "answer" },
      { update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "later" } } },
    ],
  },
  "permission allow branch": {
    steps: [
      { toolCall: "Delete", kind: "delete" },
      {
        permission: ["allow_once", "reject_once"],
        allow: [{ text: "allowed" }, { toolUpdate: { status: "completed" } }],
        reject: [{ text: "rejected" }],
      },
    ],
  },
};

describe("the steps tests' scenarios in v2, against the v1 run", () => {
  for (const [name, { steps, options }] of Object.entries(STEP_SCENARIOS)) {
    it(name, async () => {
      await parity({ turns: [{ steps }] }, ["go"], options);
    });
  }

  it("modes: the mode step changes the `mode` config option", async () => {
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
      ],
      turns: [{ steps: [{ mode: "code" }, { setConfig: { model: "b" } }] }],
    };
    const { v2 } = await parity(scenario, ["go"]);
    expect(v2.transcript.config).toEqual({ mode: "code", model: "b" });
    const updates = v2.client.updatesV2(v2.sessionId);
    expect(updates).toContainEqual({
      sessionUpdate: "config_option_update",
      configOptions: [
        expect.objectContaining({ configId: "model", currentValue: "a" }),
        expect.objectContaining({ configId: "mode", category: "mode", currentValue: "code" }),
      ],
    });
  });
});

describe("the prompt matching tests' scenario in v2, against the v1 run", () => {
  const scenario = {
    turns: [
      { match: { exact: "ping" }, steps: [{ text: "pong" }] },
      {
        match: { regex: "^fix (?<what>\\w+) in (\\w+)$", flags: "i" },
        steps: [{ text: "${match.what}/${match.2}/${match.0}" }],
      },
      { match: { command: "echo" }, steps: [{ text: "[${args}]" }] },
      { match: { contains: "weather" }, steps: [{ text: "sunny: ${prompt}" }] },
      { steps: [{ text: "first ${turn}", messageId: "m-${turn}" }] },
      { steps: [{ text: "second" }, { stop: "max_tokens" }] },
    ],
  };

  it("exact, regex groups, slash commands, substrings, ordered turns, ${turn}", async () => {
    const { v2 } = await parity(scenario, [
      "ping",
      "Fix bug in parser",
      "/echo  a b ",
      "/echo",
      "how is the weather?",
      "prompt 1",
      "prompt 2",
      "prompt 3",
    ]);
    expect(v2.outcomes.slice(-3)).toEqual(["end_turn", "max_tokens", "max_tokens"]);
    expect(v2.client.textOf(v2.sessionId)).toBe(
      "pongbug/parser/Fix bug in parser[a b][]sunny: how is the weather?first 6secondsecond",
    );
  });

  it("a prompt no turn answers is an error of session/prompt (before insertion)", async () => {
    const scenario = { turns: [{ match: { exact: "a" }, steps: [] }] };
    const v1 = await runScenario(1, scenario, ["b", "a"]);
    const v2 = await runScenario(2, scenario, ["b", "a"]);
    expect(v2.outcomes).toEqual(v1.outcomes);
    expect(v2.outcomes).toEqual([
      { code: -32603, message: "No scenario turn answers this prompt", data: { prompt: "b" } },
      "end_turn",
    ]);
    // Where the versions differ: a v1 client keeps its record of the failed prompt; in v2
    // the message was never inserted, so there is none.
    expect(v1.transcript.thread).toEqual([
      { role: "user", text: "b" },
      { role: "user", text: "a" },
    ]);
    expect(v2.transcript.thread).toEqual([{ role: "user", text: "a" }]);
    await v1.client.close();
    await v2.client.close();
  });
});

describe("the v2 checker itself", () => {
  it("flags a v1-shaped update and a bad result, passes valid ones", () => {
    const checker = new V2Checker();
    const chunk = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } };
    checker.fromAgent({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: chunk },
    });
    checker.fromAgent({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { ...chunk, messageId: "m" } },
    });
    checker.fromClient({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: {} });
    checker.fromAgent({ jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } });
    checker.fromAgent({ jsonrpc: "2.0", id: 1, result: { messageId: "m" } });
    expect(checker.checked).toBe(4);
    expect(checker.issues).toHaveLength(2);
    expect(checker.issues[0]).toContain("session/update");
    expect(checker.issues[1]).toContain("session/prompt result");
  });
});
