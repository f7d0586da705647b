/**
 * The conductor's MCP stage: acp-kit's client provides a tool over MCP-over-ACP
 * (`McpProvider`, an `acp` declaration), the conductor runs an agent, and
 *
 * - an agent without `acp` but with `http` sees the declaration as a loopback `http` entry
 *   of the bridge (`McpHttpBridge`, injected), and calls the tool with a real MCP client
 *   (`@modelcontextprotocol/client`, in its default 2025 mode and pinned to 2026-07-28)
 *   before it answers `session/new`; the client sees `acp` advertised;
 * - an agent that advertises `acp` gets the declaration untouched, and nothing is added;
 * - an agent with neither gets stdio entries running the stdio shim (the built CLI's
 *   `mcp-shim`) when the conductor has one, and `-32602`, `data: { type: "acp" }` from
 *   the stage when it has not.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { afterEach, describe, expect, it } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  memoryStreamPair,
  RequestError,
  type McpServer as AcpMcpServer,
} from "../../packages/acp-kit/src/index.js";
import { fromFetchHandler, McpProvider } from "../../packages/acp-kit/src/mcp/index.js";
import { McpHttpBridge } from "../../packages/acp-kit/src/node/mcp-bridge/index.js";
import {
  Conductor,
  type ConductorComponent,
  type ConductorMcpBridgeFactory,
  type ConductorTraceEvent,
} from "../../packages/acp-kit/src/proxy/index.js";

function buildServer(): McpServer {
  const server = new McpServer({ name: "editor-tools", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: `echoed: ${message}` }] }),
  );
  return server;
}

type Era = "legacy" | "modern";

interface AgentRecord {
  /** The `mcpServers` of each `session/new`, as the agent got them. */
  readonly declared: AcpMcpServer[][];
  /** What the agent's MCP client got, during `session/new`. */
  readonly calls: { tools: string[]; content: unknown }[];
}

/**
 * An agent (acp-kit's, in memory) advertising the MCP transports `mcp`; in `session/new`
 * it calls `echo` on each `http` server with a real MCP client of `era`.
 */
function agentComponent(
  mcp: Record<string, boolean>,
  era: Era,
): { component: ConductorComponent; record: AgentRecord } {
  const record: AgentRecord = { declared: [], calls: [] };
  const component: ConductorComponent = {
    name: "agent",
    start: () => {
      const pair = memoryStreamPair();
      new AgentSideConnection(
        () => ({
          initialize: () => ({
            protocolVersion: 1,
            agentCapabilities: { mcpCapabilities: mcp },
            authMethods: [],
          }),
          newSession: async (params) => {
            record.declared.push(params.mcpServers);
            for (const server of params.mcpServers) {
              // A stdio entry of the bridge (its shim); other stdio servers are not run.
              if (!("type" in server) && "command" in server && server.args.includes("mcp-shim")) {
                record.calls.push(await callOverStdio(server));
                continue;
              }
              if (!("type" in server) || server.type !== "http") continue;
              const client = new Client(
                { name: "agent-mcp-client", version: "1.0.0" },
                era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
              );
              const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
              await client.connect(
                new StreamableHTTPClientTransport(new URL(server.url), {
                  requestInit: { headers },
                }),
              );
              const tools = await client.listTools();
              const called = await client.callTool({
                name: "echo",
                arguments: { message: "from the agent" },
              });
              record.calls.push({ tools: tools.tools.map((t) => t.name), content: called.content });
              await client.close();
            }
            return { sessionId: "s-1" };
          },
          authenticate: () => ({}),
          prompt: () => ({ stopReason: "end_turn" as const }),
          cancel: () => undefined,
        }),
        pair.agent,
      );
      return Promise.resolve({ stream: pair.client, close: () => Promise.resolve() });
    },
  };
  return { component, record };
}

/** Calls `echo` on a stdio entry with a real MCP stdio client of the 2025 era (SDK 1.x). */
async function callOverStdio(server: {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}): Promise<{ tools: string[]; content: unknown }> {
  const client = new ClientV1({ name: "agent-mcp-client", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: {
        ...getDefaultEnvironment(),
        ...Object.fromEntries(server.env.map((e) => [e.name, e.value])),
      },
    }),
  );
  const tools = await client.listTools();
  const called = await client.callTool({ name: "echo", arguments: { message: "from the agent" } });
  await client.close();
  return { tools: tools.tools.map((t) => t.name), content: called.content };
}

/** The built CLI's `mcp-shim`, as the conductor command passes it. */
const CLI_SHIM = {
  command: process.execPath,
  args: [new URL("../../packages/cli/dist/cli.js", import.meta.url).pathname, "mcp-shim"],
};

const conductors: Conductor[] = [];
afterEach(() => {
  for (const conductor of conductors.splice(0)) conductor.close();
});

const httpBridge: ConductorMcpBridgeFactory = (caller) => new McpHttpBridge(caller);

/** acp-kit's client with a provider, through a conductor in front of `agent`. */
async function clientThrough(
  agent: ConductorComponent,
  mcpBridge?: ConductorMcpBridgeFactory,
  mcpStdioShim?: typeof CLI_SHIM,
) {
  const trace: ConductorTraceEvent[] = [];
  const conductor = new Conductor({
    agent,
    ...(mcpBridge === undefined ? {} : { mcpBridge }),
    ...(mcpStdioShim === undefined ? {} : { mcpStdioShim }),
    trace: (event) => trace.push(event),
  });
  conductors.push(conductor);
  const pair = memoryStreamPair();
  void conductor.connect(pair.agent);
  const provider = new McpProvider();
  const connection = new ClientSideConnection(
    (c) => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" as const } }),
      sessionUpdate: () => undefined,
      unstable_messageMcp: provider.attach(c),
    }),
    pair.client,
  );
  const tools = provider.register({
    name: "editor-tools",
    handler: fromFetchHandler(createMcpHandler(buildServer, { legacy: "reject" })),
  });
  const init = await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
  return { connection, tools, init, trace };
}

/** The `mcp/message` requests the trace shows going to the client. */
function mcpMessagesToClient(trace: readonly ConductorTraceEvent[]): string[] {
  return trace.flatMap((event) => {
    if (event.type !== "message" || event.to !== "client") return [];
    const message = event.message as {
      method?: string;
      id?: unknown;
      params?: { method?: string };
    };
    return message.method === "mcp/message" && message.id !== undefined
      ? [message.params?.method ?? "?"]
      : [];
  });
}

describe("the conductor's MCP stage", () => {
  for (const era of ["legacy", "modern"] as const)
    it(`an agent with http only: acp is advertised, the declaration is bridged, the agent's ${era} MCP client calls the tool during session/new`, async () => {
      const { component, record } = agentComponent({ http: true }, era);
      const { connection, tools, init, trace } = await clientThrough(component, httpBridge);
      expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, acp: true });
      await connection.newSession({ cwd: "/", mcpServers: [tools.declaration] });
      const [declared] = record.declared;
      expect(declared).toHaveLength(1);
      const entry = declared?.[0];
      expect(entry !== undefined && "type" in entry && entry.type === "http").toBe(true);
      if (entry === undefined || !("type" in entry) || entry.type !== "http") return;
      expect(entry.name).toBe("editor-tools");
      expect(entry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp-/);
      expect(entry.headers.map((h) => h.name)).toEqual(["Authorization"]);
      expect(entry.headers[0]?.value).toMatch(/^Bearer /);
      expect(record.calls).toEqual([
        { tools: ["echo"], content: [{ type: "text", text: "echoed: from the agent" }] },
      ]);
      // Each MCP request went up the chain to the client's provider as mcp/message.
      // (the 2025-era front end answers initialize from server/discover).
      expect(mcpMessagesToClient(trace)).toEqual(["server/discover", "tools/list", "tools/call"]);
    });

  it("an agent with native acp: the declaration reaches it untouched, nothing is advertised", async () => {
    const { component, record } = agentComponent({ acp: true, http: true }, "modern");
    const { connection, tools, init } = await clientThrough(component, httpBridge);
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ acp: true, http: true });
    await connection.newSession({ cwd: "/", mcpServers: [tools.declaration] });
    expect(record.declared).toEqual([[tools.declaration]]);
    expect(record.calls).toEqual([]);
  });

  it("an agent without acp or http: an acp declaration is refused with -32602 {type: acp}; others pass", async () => {
    const { component, record } = agentComponent({}, "modern");
    const { connection, tools, init } = await clientThrough(component, httpBridge);
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({});
    const refused = await connection
      .newSession({ cwd: "/", mcpServers: [tools.declaration] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RequestError);
    expect(refused).toMatchObject({ code: -32602, data: { type: "acp" } });
    expect(record.declared).toEqual([]);
    const stdio = { name: "local", command: "true", args: [], env: [] };
    await connection.newSession({ cwd: "/", mcpServers: [stdio] });
    expect(record.declared).toEqual([[stdio]]);
  });

  it("an agent without acp or http, with the stdio shim given: acp is advertised, the agent's stdio MCP client (SDK 1.x) runs the shim (the built CLI) and calls the tool during session/new; the token is only in the entry's env", async () => {
    const { component, record } = agentComponent({}, "legacy");
    const { connection, tools, init, trace } = await clientThrough(component, httpBridge, CLI_SHIM);
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ acp: true });
    await connection.newSession({ cwd: "/", mcpServers: [tools.declaration] });
    const entry = record.declared[0]?.[0];
    expect(entry).toMatchObject({
      name: "editor-tools",
      command: process.execPath,
      args: [
        ...CLI_SHIM.args,
        "--url",
        expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp-/),
        "--token-env",
        expect.any(String),
      ],
    });
    const env = entry !== undefined && "env" in entry ? entry.env : [];
    expect(env).toHaveLength(1);
    expect(JSON.stringify(entry && "args" in entry ? entry.args : [])).not.toContain(
      env[0]?.value ?? "?",
    );
    expect(record.calls).toEqual([
      { tools: ["echo"], content: [{ type: "text", text: "echoed: from the agent" }] },
    ]);
    expect(mcpMessagesToClient(trace)).toEqual(["server/discover", "tools/list", "tools/call"]);
  });

  it("without a bridge, an agent with http only is not told about acp, and acp declarations are refused", async () => {
    const { component, record } = agentComponent({ http: true }, "modern");
    const { connection, tools, init } = await clientThrough(component);
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true });
    await expect(
      connection.newSession({ cwd: "/", mcpServers: [tools.declaration] }),
    ).rejects.toMatchObject({ code: -32602, data: { type: "acp" } });
    expect(record.declared).toEqual([]);
  });
});
