/**
 * The scripted agent in ACP v2 (`runScriptedAgent(..., { protocol: 2 })`) driven by the
 * official SDK 2.4.0 v2 `client()` and its `ActiveSession`, on real NDJSON byte pipes:
 * every message the agent writes is valid v2, each turn ends with the official client's
 * `stop` (idle) carrying the scenario's stop reason, and the updates folded by
 * `reduceSessionV2` give the v1 run's transcript.
 */
import { readFileSync } from "node:fs";
import {
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
} from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { emptySessionState } from "../../packages/acp-kit/src/session/state.js";
import {
  demoScenario,
  MemoryFiles,
  runScriptedAgent,
} from "../../packages/acp-kit/src/testing/index.js";
import {
  ndJsonStream,
  reduceSessionV2,
  type SessionUpdate,
} from "../../packages/acp-kit/src/v2/index.js";
import { interopWire } from "../support/interop-wire.js";
import {
  memoryFileSystem,
  runScenario,
  scriptedCommands,
  transcript,
  V2Checker,
  type Outcome,
  type RunOptions,
} from "./fixtures/v2-parity.js";

const CWD = "/project";

function fixture(path: string): unknown {
  return JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
}

/** Runs the prompts with the official client; returns outcomes, checker and transcript. */
async function official(scenario: unknown, prompts: readonly string[], options: RunOptions = {}) {
  const wire = interopWire();
  const server = runScriptedAgent(
    scenario,
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, { closeOutput: true }),
    {
      protocol: 2,
      delayScale: 0,
      env: options.env ?? {},
      fileSystem: memoryFileSystem(new MemoryFiles(options.files ?? {})),
      runCommand: scriptedCommands(options.terminal ?? { output: "", exitCode: 0 }),
    },
  );
  const client = officialClient()
    .onRequest("session/request_permission", (ctx) => {
      const params = ctx.params;
      const allow = params.options.find(
        (o) => o.kind === "allow_once" || o.kind === "allow_always",
      );
      return Promise.resolve(
        allow === undefined
          ? { outcome: { outcome: "cancelled" as const } }
          : { outcome: { outcome: "selected" as const, optionId: allow.optionId } },
      );
    })
    .connect(theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
  try {
    const init = await client.agent.request("initialize", {
      protocolVersion: 2,
      info: { name: "official-v2-client", version: "1.0.0" },
      capabilities: {},
    });
    expect(init.protocolVersion).toBe(2);
    const session = await client.agent.buildSession(CWD).start();
    const outcomes: Outcome[] = [];
    for (const prompt of prompts) {
      try {
        await session.prompt(prompt);
      } catch (error) {
        const e = error as { code: number; message: string; data?: unknown };
        outcomes.push({
          code: e.code,
          message: e.message,
          ...(e.data === undefined ? {} : { data: e.data }),
        });
        continue;
      }
      for (;;) {
        const message = await session.nextUpdate();
        if (message.kind !== "stop") continue;
        const idle = message.update as { stopReason?: string; error?: Record<string, unknown> };
        if (idle.stopReason === "error") {
          const {
            code,
            message: text,
            data,
          } = idle.error as {
            code: number;
            message: string;
            data?: unknown;
          };
          outcomes.push({ code, message: text, ...(data === undefined ? {} : { data }) });
        } else outcomes.push(idle.stopReason ?? "end_turn");
        break;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    const checker = new V2Checker();
    for (const message of wire.clientToAgentTap.messages) checker.fromClient(message);
    for (const message of wire.agentToClientTap.messages) checker.fromAgent(message);
    let state = emptySessionState(session.sessionId);
    // The session's setup answer (it comes first) carries its config options.
    const created = wire.agentToClientTap.messages.find(
      (m) => (m.result as { sessionId?: unknown } | undefined)?.sessionId === session.sessionId,
    );
    const setup = created?.result as { configOptions?: unknown[] } | undefined;
    if (setup?.configOptions !== undefined)
      state = reduceSessionV2(state, {
        sessionUpdate: "config_option_update",
        configOptions: setup.configOptions as never,
      });
    for (const message of wire.agentToClientTap.withMethod("session/update")) {
      const params = message.params as { update: SessionUpdate };
      state = reduceSessionV2(state, params.update);
    }
    return {
      outcomes,
      checker,
      transcript: transcript(state),
      allBytes: wire.agentToClientTap.allBytes,
    };
  } finally {
    client.close();
    server.close();
  }
}

async function compare(scenario: unknown, prompts: readonly string[], options: RunOptions = {}) {
  const v1 = await runScenario(1, scenario, prompts, options);
  await v1.client.close();
  const v2 = await official(scenario, prompts, options);
  expect(v2.allBytes).toBe(true);
  expect(v2.checker.issues).toEqual([]);
  expect(v2.checker.checked).toBeGreaterThan(prompts.length);
  expect(v2.outcomes).toEqual(v1.outcomes);
  expect(v2.transcript).toEqual(v1.transcript);
  return v2;
}

describe("the scripted agent in v2 under the official v2 client (real byte pipes)", () => {
  it("cli-scenario.json", async () => {
    const run = await compare(fixture("../cli/fixtures/cli-scenario.json"), [
      "/shout hey",
      "where",
      "stream",
      "tool",
      "permission",
      "markdown",
      "refuse",
      "anything",
    ]);
    expect(run.outcomes.at(-2)).toBe("refusal");
  });

  it("scenario-basic.json", async () => {
    await compare(fixture("./fixtures/scenario-basic.json"), ["/echo hi", "hello", "other"]);
  });

  it("error-scenario.json: idle errors, and -32000 as an error of session/prompt", async () => {
    const run = await compare(fixture("../cli/fixtures/error-scenario.json"), [
      "details",
      "login",
      "cancel",
      "tokens",
      "requests",
    ]);
    expect(run.outcomes).toEqual([
      expect.objectContaining({ code: -32603 }),
      {
        code: -32000,
        message: "Authentication required",
        data: { message: "Gemini API key is missing" },
      },
      "cancelled",
      "max_tokens",
      "max_turn_requests",
    ]);
  });

  it("options-scenario.json", async () => {
    await compare(fixture("../cli/fixtures/options-scenario.json"), ["go"]);
  });

  it("the demo scenario, with the agent's own files and terminal", async () => {
    await compare(demoScenario(), ["hello", "/explain README.md", "code mode", "next"], {
      files: { [`${CWD}/README.md`]: "# Project\n" },
      terminal: { output: "v20.0.0\n", exitCode: 0 },
    });
  });

  it("session/cancel ends a waitForCancel turn idle cancelled after its steps; permission shows requires_action", async () => {
    const wire = interopWire();
    const server = runScriptedAgent(
      fixture("../cli/fixtures/cli-scenario.json"),
      ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, {
        closeOutput: true,
      }),
      { protocol: 2, delayScale: 0 },
    );
    const client = officialClient()
      .onRequest("session/request_permission", () =>
        Promise.resolve({ outcome: { outcome: "selected" as const, optionId: "reject_once" } }),
      )
      .connect(theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
    try {
      await client.agent.request("initialize", {
        protocolVersion: 2,
        info: { name: "official-v2-client", version: "1.0.0" },
        capabilities: {},
      });
      const session = await client.agent.buildSession(CWD).start();
      await session.prompt("wait");
      const seen: string[] = [];
      for (;;) {
        const message = await session.nextUpdate();
        const update = message.update as { sessionUpdate: string; state?: string };
        if (update.sessionUpdate !== "available_commands_update")
          seen.push(
            update.sessionUpdate === "state_update" ? String(update.state) : update.sessionUpdate,
          );
        if (update.sessionUpdate === "agent_message_chunk" && seen.length < 5)
          await client.agent.notify("session/cancel", { sessionId: session.sessionId });
        if (message.kind === "stop") {
          expect(message.update).toMatchObject({ stopReason: "cancelled" });
          break;
        }
      }
      expect(seen).toEqual([
        "user_message",
        "running",
        "agent_message_chunk",
        "agent_message_chunk",
        "idle",
      ]);
      await session.prompt("permission");
      const states: string[] = [];
      let text = "";
      for (;;) {
        const message = await session.nextUpdate();
        const update = message.update as {
          sessionUpdate: string;
          state?: string;
          content?: { text?: string };
        };
        if (update.sessionUpdate === "state_update") states.push(String(update.state));
        if (update.sessionUpdate === "agent_message_chunk") text += update.content?.text ?? "";
        if (message.kind === "stop") break;
      }
      expect(states).toEqual(["running", "requires_action", "running", "idle"]);
      expect(text).toBe("REJECTED");
      const checker = new V2Checker();
      for (const message of wire.clientToAgentTap.messages) checker.fromClient(message);
      for (const message of wire.agentToClientTap.messages) checker.fromAgent(message);
      expect(checker.issues).toEqual([]);
    } finally {
      client.close();
      server.close();
    }
  });
});
