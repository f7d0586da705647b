/**
 * The real agents call an MCP tool, offline: the fake model asks for the tool
 * ({@link TOOL_CALL_MARKER}), the agent calls it on a plain MCP server that
 * `@modelcontextprotocol/server` serves on loopback HTTP (declared as `http` in
 * `session/new`), and the tool's result reaches the fake model. This is the baseline the
 * MCP-over-ACP bridge tests build on; what each agent advertises and which MCP revision
 * its MCP client speaks is written down in test/real-agents/README.md.
 */
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  nonRootUser,
  sealedHome,
  spawnRealAgent,
  startFakeModelServer,
  startMcpHttpServer,
  TOOL_CALL_MARKER,
  type FakeModelServer,
  type McpHttpServer,
  type RealAgent,
  type RealAgentKind,
  type WireMessage,
} from "../support/real-agents.js";

const WAIT_MS = 45_000;
const TURN_MS = 90_000;
const TEST_MS = 180_000;
const CLIENT_INFO = { name: "acp-kit-real-mcp-test", version: "0.0.0" };
const CODEX_LOGIN = { methodId: "api-key", _meta: { "api-key": { apiKey: "sk-fake-acp-kit" } } };
/**
 * The session mode that lets the tool run once the client allows it: codex's default
 * (`agent`, "Auto review") has a model review each MCP call and claude's default (`auto`)
 * a model classifier, neither of which the fake model can answer.
 */
const ASKING_MODE: Record<RealAgentKind, string> = { codex: "workspace-write", claude: "default" };

let model: FakeModelServer;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  model = await startFakeModelServer();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await model.close();
});

/** An MCP server with one tool, `echo`, that answers `echoed: <message>`. */
function buildServer(): McpServer {
  const server = new McpServer({ name: "project-tools", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: `echoed: ${message}` }] }),
  );
  return server;
}

/** Answers the agent's permission requests with its first "allow" option. */
function allowFirst(message: WireMessage): { result: unknown } | { error: unknown } {
  if (message.method !== "session/request_permission") {
    return { error: { code: -32601, message: "Method not found" } };
  }
  const options = (message.params as { options?: { optionId: string; kind: string }[] }).options;
  const allow = options?.find((o) => o.kind.startsWith("allow"));
  return allow === undefined
    ? { result: { outcome: { outcome: "cancelled" } } }
    : { result: { outcome: { outcome: "selected", optionId: allow.optionId } } };
}

function start(kind: RealAgentKind): { agent: RealAgent; workspace: string } {
  // claude needs a key for a turn, and runs its turns as a non-root user (see the README).
  const runAs = kind === "claude" ? nonRootUser() : undefined;
  const home = sealedHome(kind, {
    model,
    ...(runAs === undefined ? {} : { owner: runAs }),
    ...(kind === "claude" ? { env: { ANTHROPIC_API_KEY: "sk-ant-fake-acp-kit" } } : {}),
  });
  const agent = spawnRealAgent(kind, {
    home,
    ...(runAs === undefined ? {} : { runAs }),
    onRequest: allowFirst,
  });
  cleanups.push(async () => {
    await agent.close();
    home.remove();
  });
  return { agent, workspace: home.workspace };
}

function result(response: WireMessage): Record<string, unknown> {
  expect(response.error, JSON.stringify(response.error)).toBeUndefined();
  return response.result as Record<string, unknown>;
}

async function serveTools(): Promise<McpHttpServer> {
  const mcp = await startMcpHttpServer(createMcpHandler(buildServer));
  cleanups.push(() => mcp.close());
  return mcp;
}

describe.each(["codex", "claude"] as const)("%s calls a tool of a plain MCP server", (kind) => {
  it(
    "declared as http in session/new: the tool runs and its result reaches the model",
    async () => {
      const mcp = await serveTools();
      const { agent, workspace } = start(kind);
      const init = result(
        (
          await agent.request(
            "initialize",
            { protocolVersion: 1, clientInfo: CLIENT_INFO, clientCapabilities: {} },
            WAIT_MS,
          )
        ).response,
      );
      // Neither agent advertises MCP-over-ACP; both take http servers.
      const capabilities = init.agentCapabilities as { mcpCapabilities?: Record<string, unknown> };
      expect(capabilities.mcpCapabilities).toEqual(
        kind === "codex" ? { acp: false, http: true, sse: false } : { http: true, sse: true },
      );
      if (kind === "codex")
        result((await agent.request("authenticate", CODEX_LOGIN, WAIT_MS)).response);
      const { sessionId } = result(
        (
          await agent.request(
            "session/new",
            {
              cwd: workspace,
              mcpServers: [{ type: "http", name: "project-tools", url: mcp.url, headers: [] }],
            },
            WAIT_MS,
          )
        ).response,
      ) as { sessionId: string };
      result(
        (await agent.request("session/set_mode", { sessionId, modeId: ASKING_MODE[kind] }, WAIT_MS))
          .response,
      );
      // The agent lists the tools on its own; the turn starts once it knows them.
      await mcp.answered("tools/list");
      const answer = await agent.request(
        "session/prompt",
        {
          sessionId,
          prompt: [
            { type: "text", text: `Please ${TOOL_CALL_MARKER} echo with {"message":"ping-42"}` },
          ],
        },
        TURN_MS,
      );
      expect(result(answer.response).stopReason).toBe("end_turn");
      expect(model.toolResults).toHaveLength(1);
      expect(model.toolResults[0]?.output).toContain("echoed: ping-42");
      expect(mcp.records.filter((r) => r.method === "tools/call").map((r) => r.status)).toEqual([
        200,
      ]);
      // The MCP revision each agent's client speaks: codex opens a 2025-06-18 session
      // with initialize; claude speaks 2026-07-28 (server/discover, no initialize).
      const first = mcp.records[0];
      if (kind === "codex") {
        expect(first).toMatchObject({ method: "initialize", protocolVersion: "2025-06-18" });
      } else {
        expect(first).toMatchObject({ method: "server/discover", protocolVersion: "2026-07-28" });
        expect(mcp.records.some((r) => r.method === "initialize")).toBe(false);
      }
      // The client allowed the call when the agent asked.
      expect(agent.received.some((m) => m.method === "session/request_permission")).toBe(true);
    },
    TEST_MS,
  );
});
