/**
 * The bridge between the official SDK 2.4.0 builders, in both directions:
 *
 * (A) the official v1 `client()` → `bridge({ as: 1 })` → the official v2 `agent()`;
 * (B) the official v2 `client()` → `bridge({ as: 2 })` → the official v1 `agent()`.
 *
 * Each agent emits every kind of update its version has; what the client receives, the
 * answers and the lossy counts are compared with a golden transcript
 * (test/fixtures/bridge/*.json; `UPDATE_GOLDEN=1` rewrites them). The official clients
 * parse everything strictly, so a message the bridge got wrong would fail their parse.
 */
import { readFileSync, writeFileSync } from "node:fs";
import {
  agent as theirV1Agent,
  client as theirV1Client,
  ndJsonStream as theirNdJsonStream,
  RequestError as TheirRequestError,
} from "@agentclientprotocol/sdk";
import {
  agent as theirV2Agent,
  client as theirV2Client,
  type AgentContext as V2AgentContext,
} from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { ndJsonStream } from "../../packages/acp-kit/src/index.js";
import { bridge } from "../../packages/acp-kit/src/v2/index.js";
import { interopWire, until, type InteropWire } from "../support/interop-wire.js";

const GOLDEN = new URL("../fixtures/bridge/", import.meta.url);
const CWD = "/work/project";
const base64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

function golden(name: string, actual: unknown): void {
  const file = new URL(`${name}.json`, GOLDEN);
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(file, text);
  expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(file, "utf8")));
}

/** The bridge between two wires: the client's and the agent's. */
function startBridge(client: InteropWire, agent: InteropWire, as: 1 | 2) {
  return bridge(
    ndJsonStream(client.agentToClient.writable, client.clientToAgent.readable, {
      closeOutput: true,
    }),
    ndJsonStream(agent.clientToAgent.writable, agent.agentToClient.readable, { closeOutput: true }),
    { as },
  );
}

// ---------------------------------------------------------------------------------------
// (A) v1 client → v2 agent

const MODE_OPTIONS = (current: string) => [
  {
    configId: "mode",
    name: "Mode",
    category: "mode",
    type: "select",
    currentValue: current,
    options: [
      { value: "ask", name: "Ask" },
      { value: "code", name: "Code", description: "Edits files" },
    ],
  },
];

function v2Agent(wire: InteropWire) {
  let turn = 0;
  const update = (cx: V2AgentContext, u: Record<string, unknown>) =>
    cx.notify("session/update", { sessionId: "s-1", update: u } as never);
  return theirV2Agent()
    .onRequest("initialize", () => ({
      protocolVersion: 2,
      info: { name: "v2-agent", version: "2.0.0" },
      capabilities: { session: { prompt: { image: {} }, mcp: { http: {} }, delete: {} } },
      authMethods: [
        { type: "agent", methodId: "api-key", name: "API key" },
        { type: "terminal", methodId: "login", name: "Log in", args: ["--login"] },
      ],
    }))
    .onRequest("auth/login", () => ({}))
    .onRequest("session/new", () => ({
      sessionId: "s-1",
      configOptions: MODE_OPTIONS("ask") as never,
      availableCommands: [{ type: "command", name: "plan", description: "Plan first" }],
    }))
    .onRequest("session/list", () => ({ sessions: [] }))
    .onRequest("session/resume", async (ctx) => {
      if (ctx.params.replayFrom?.type === "start") {
        await update(ctx.client, {
          sessionUpdate: "user_message",
          messageId: "u-old",
          content: [{ type: "text", text: "earlier question" }],
        });
        await update(ctx.client, {
          sessionUpdate: "agent_message",
          messageId: "a-old",
          content: [{ type: "text", text: "earlier answer" }],
        });
      }
      await update(ctx.client, {
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "end_turn",
      });
      return {};
    })
    .onRequest("session/close", () => ({}))
    .onRequest("session/set_config_option", (ctx) => ({
      configOptions: MODE_OPTIONS(String(ctx.params.value)) as never,
    }))
    .onRequest("session/prompt", async (ctx) => {
      turn++;
      const messageId = `u-${turn}`;
      const cx = ctx.client;
      await update(cx, { sessionUpdate: "user_message", messageId, content: ctx.params.prompt });
      await update(cx, { sessionUpdate: "state_update", state: "running" });
      void (async () => {
        if (turn === 2) {
          await update(cx, {
            sessionUpdate: "state_update",
            state: "idle",
            stopReason: "error",
            error: {
              code: -32000,
              message: "Authentication required",
              data: { reason: "token expired" },
            },
          });
          return;
        }
        await update(cx, {
          sessionUpdate: "agent_thought_chunk",
          messageId: "t-1",
          content: { type: "text", text: "thinking" },
        });
        await update(cx, {
          sessionUpdate: "agent_message",
          messageId: "a-1",
          content: [{ type: "text", text: "Hel" }],
        });
        await update(cx, {
          sessionUpdate: "agent_message",
          messageId: "a-1",
          content: [{ type: "text", text: "Hello" }],
        });
        await update(cx, {
          sessionUpdate: "agent_message_chunk",
          messageId: "a-1",
          content: { type: "text", text: " world" },
        });
        await update(cx, {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          name: "read_file",
          kind: "read",
          status: "in_progress",
          capabilities: { cancel: {} },
        });
        await update(cx, {
          sessionUpdate: "tool_call_content_chunk",
          toolCallId: "t1",
          content: { type: "content", content: { type: "text", text: "file body" } },
        });
        await update(cx, {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          status: "completed",
        });
        await update(cx, {
          sessionUpdate: "tool_call_update",
          toolCallId: "t2",
          title: "Edit a.txt",
          kind: "edit",
          content: [
            {
              type: "diff",
              changes: [{ operation: "modify", path: "/work/project/a.txt" }],
              patch: {
                format: "git_patch",
                text: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
              },
            },
            { type: "diff", changes: [{ operation: "delete", path: "/work/project/old.txt" }] },
          ],
        });
        await update(cx, {
          sessionUpdate: "tool_call_update",
          toolCallId: "t2",
          status: "paused",
          title: null,
        });
        const decision = await cx.request("session/request_permission", {
          sessionId: "s-1",
          title: "Run npm test",
          subject: { type: "command", command: "npm test", cwd: CWD, toolCallId: "t3" },
          options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }],
        });
        await update(cx, {
          sessionUpdate: "tool_call_update",
          toolCallId: "t3",
          title: "npm test",
          kind: "execute",
          content: [{ type: "terminal", terminalId: "term-1" }],
          _meta: { decision },
        });
        await update(cx, {
          sessionUpdate: "terminal_update",
          terminalId: "term-1",
          command: "npm test",
        });
        await update(cx, {
          sessionUpdate: "terminal_output_chunk",
          terminalId: "term-1",
          data: base64("ok ✅\n"),
        });
        await update(cx, {
          sessionUpdate: "terminal_update",
          terminalId: "term-1",
          exitStatus: { exitCode: 0 },
        });
        await update(cx, {
          sessionUpdate: "tool_call_update",
          toolCallId: "t3",
          status: "cancelled",
        });
        await update(cx, {
          sessionUpdate: "plan_update",
          plan: {
            type: "items",
            planId: "p1",
            entries: [{ content: "Read", priority: "high", status: "completed" }],
          },
        });
        await update(cx, {
          sessionUpdate: "plan_update",
          plan: {
            type: "items",
            planId: "p2",
            entries: [{ content: "Other", priority: "low", status: "pending" }],
          },
        });
        await update(cx, {
          sessionUpdate: "available_commands_update",
          availableCommands: [
            {
              type: "command",
              name: "review",
              description: "Review a file",
              input: { type: "text", hint: "path" },
            },
          ],
        });
        await update(cx, {
          sessionUpdate: "config_option_update",
          configOptions: MODE_OPTIONS("code"),
        });
        await update(cx, { sessionUpdate: "usage_update", used: 10, size: 100 });
        await update(cx, {
          sessionUpdate: "notice",
          notice: { type: "info", message: "heads up" },
        });
        await update(cx, { sessionUpdate: "_x_custom", anything: true });
        await update(cx, {
          sessionUpdate: "agent_message",
          messageId: "a-1",
          content: [{ type: "text", text: "Rewritten" }],
        });
        await update(cx, {
          sessionUpdate: "state_update",
          state: "idle",
          stopReason: "end_turn",
          usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        });
      })();
      return { messageId };
    })
    .onNotification("session/cancel", () => undefined)
    .connect(theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
}

describe("bridge, a v1 client and a v2 agent (official builders on both ends)", () => {
  it("initialize, sessions, modes, a turn with every update kind, an error turn, load; golden transcript", async () => {
    const clientWire = interopWire();
    const agentWire = interopWire();
    v2Agent(agentWire);
    const running = startBridge(clientWire, agentWire, 1);
    const updates: unknown[] = [];
    const permissions: unknown[] = [];
    const client = theirV1Client()
      .onNotification("session/update", (ctx) => {
        updates.push(ctx.params.update);
      })
      .onRequest("session/request_permission", (ctx) => {
        permissions.push(ctx.params);
        return { outcome: { outcome: "selected", optionId: "yes" } };
      })
      .connect(
        theirNdJsonStream(clientWire.clientToAgent.writable, clientWire.agentToClient.readable),
      );
    const init = await client.agent.request("initialize", {
      protocolVersion: 1,
      clientInfo: { name: "editor", version: "1.0.0" },
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        auth: { terminal: true },
      },
    });
    expect(await running.ready).toEqual({ client: 1, agent: 2, translating: true });
    await client.agent.request("authenticate", { methodId: "api-key" });
    const session = await client.agent.request("session/new", { cwd: CWD, mcpServers: [] });
    await client.agent.request("session/set_mode", { sessionId: "s-1", modeId: "code" });
    const first = await client.agent.request("session/prompt", {
      sessionId: "s-1",
      prompt: [{ type: "text", text: "hi" }],
    });
    const second = await client.agent
      .request("session/prompt", { sessionId: "s-1", prompt: [{ type: "text", text: "again" }] })
      .then(
        () => "resolved",
        (error: unknown) => ({
          code: (error as TheirRequestError).code,
          message: (error as Error).message,
          data: (error as TheirRequestError).data,
        }),
      );
    const before = updates.length;
    const load = await client.agent.request("session/load", {
      sessionId: "s-1",
      cwd: CWD,
      mcpServers: [],
    });
    expect(await until(() => updates.length >= before + 2)).toBe(true);
    golden("v1-client-to-v2-agent", {
      initialize: init,
      newSession: session,
      prompt: first,
      errorPrompt: second,
      loadSession: load,
      permissions,
      updates,
      lossy: running.lossy,
    });
    client.close();
    running.close();
    await running.closed;
  });
});

// ---------------------------------------------------------------------------------------
// (B) v2 client → v1 agent

function v1Agent(wire: InteropWire) {
  return theirV1Agent()
    .onRequest("initialize", () => ({
      protocolVersion: 1,
      agentInfo: { name: "v1-agent", version: "1.0.0" },
      agentCapabilities: { loadSession: true, promptCapabilities: { embeddedContext: true } },
      authMethods: [{ id: "oauth", name: "Sign in" }],
    }))
    .onRequest("session/new", () => ({
      sessionId: "s-9",
      modes: {
        currentModeId: "ask",
        availableModes: [
          { id: "ask", name: "Ask" },
          { id: "code", name: "Code" },
        ],
      },
    }))
    .onRequest("session/load", async (ctx) => {
      await ctx.client.notify("session/update", {
        sessionId: "s-9",
        update: {
          sessionUpdate: "user_message_chunk",
          content: { type: "text", text: "old question" },
        },
      });
      await ctx.client.notify("session/update", {
        sessionId: "s-9",
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "old answer" },
        },
      });
      return {};
    })
    .onRequest("session/set_mode", async (ctx) => {
      await ctx.client.notify("session/update", {
        sessionId: "s-9",
        update: { sessionUpdate: "current_mode_update", currentModeId: ctx.params.modeId },
      });
      return {};
    })
    .onRequest("session/prompt", async (ctx) => {
      const say = (u: Record<string, unknown>) =>
        ctx.client.notify("session/update", { sessionId: "s-9", update: u as never });
      const text = ctx.params.prompt[0]?.type === "text" ? ctx.params.prompt[0].text : "";
      if (text === "fail")
        throw new TheirRequestError(-32000, "Authentication required", { reason: "expired" });
      await say({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } });
      await say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello" } });
      await say({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: " there" },
      });
      await say({
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Edit a.txt",
        kind: "edit",
        status: "pending",
        content: [
          {
            type: "diff",
            path: "/work/project/a.txt",
            oldText: "one\ntwo\n",
            newText: "one\nTWO\n",
          },
        ],
      });
      const decision = await ctx.client.request("session/request_permission", {
        sessionId: "s-9",
        toolCall: { toolCallId: "t1", title: "Edit a.txt" },
        options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
      });
      await say({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "completed",
        title: null,
        _meta: { decision },
      });
      await say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." } });
      await say({
        sessionUpdate: "plan",
        entries: [{ content: "Edit", priority: "high", status: "completed" }],
      });
      await say({
        sessionUpdate: "available_commands_update",
        availableCommands: [{ name: "review", description: "Review", input: { hint: "path" } }],
      });
      await say({ sessionUpdate: "usage_update", used: 5, size: 50 });
      return { stopReason: "end_turn" };
    })
    .onNotification("session/cancel", () => undefined)
    .connect(theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
}

describe("bridge, a v2 client and a v1 agent (official builders on both ends)", () => {
  it("initialize, a turn read until idle, modes as a config option, an error turn, resume with replay; golden transcript", async () => {
    const clientWire = interopWire();
    const agentWire = interopWire();
    v1Agent(agentWire);
    const running = startBridge(clientWire, agentWire, 2);
    const updates: unknown[] = [];
    const permissions: unknown[] = [];
    const client = theirV2Client()
      .onNotification("session/update", (ctx) => {
        updates.push(ctx.params.update);
      })
      .onRequest("session/request_permission", (ctx) => {
        permissions.push(ctx.params);
        return { outcome: { outcome: "selected", optionId: "ok" } };
      })
      .connect(
        theirNdJsonStream(clientWire.clientToAgent.writable, clientWire.agentToClient.readable),
      );
    const init = await client.agent.request("initialize", {
      protocolVersion: 2,
      info: { name: "v2-editor", version: "1" },
    });
    expect(await running.ready).toEqual({ client: 2, agent: 1, translating: true });
    const session = await client.agent.buildSession(CWD).start();
    const { messageId } = await session.prompt("hi");
    const text = await session.readTextUntilIdle();
    const config = await session.setConfigOption({ configId: "mode", type: "id", value: "code" });
    await session.prompt("fail");
    let stop: unknown;
    for (;;) {
      const next = await session.nextUpdate();
      if (next.kind === "stop") {
        stop = next;
        break;
      }
    }
    const resumed = await client.agent.request("session/resume", {
      sessionId: "s-9",
      cwd: CWD,
      replayFrom: { type: "start" },
    });
    const closed = [
      await client.agent.request("session/close", { sessionId: "s-9" }),
      await client.agent.request("session/close", { sessionId: "s-9" }),
    ];
    golden("v2-client-to-v1-agent", {
      initialize: init,
      newSession: session.newSessionResponse,
      promptMessageId: messageId,
      text,
      setConfigOption: config,
      errorStop: stop,
      resume: resumed,
      closed,
      permissions,
      updates,
      lossy: running.lossy,
    });
    client.close();
    running.close();
    await running.closed;
  });
});
