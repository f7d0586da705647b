/**
 * `McpClientBridge` on ACP v2: an acp-kit v2 client with a provider registration ⇄ an
 * in-process acp-kit v2 agent that lacks `acp` and, during `session/new`, calls the
 * rewritten entry with a real MCP client: an `http` entry when it advertises
 * `capabilities.session.mcp.http`, a stdio shim entry (`type: "stdio"`, as v2 wants)
 * running the built `acp-kit mcp-shim` when it does not; and a v2 agent with `acp` that
 * gets the declaration unchanged.
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
import { ndJsonStream } from "../../packages/acp-kit/src/index.js";
import { fromFetchHandler, McpProvider } from "../../packages/acp-kit/src/mcp/index.js";
import { McpClientBridge } from "../../packages/acp-kit/src/node/mcp-bridge/index.js";
import {
  AgentSideConnection as AgentSideConnectionV2,
  ClientSideConnection as ClientSideConnectionV2,
} from "../../packages/acp-kit/src/v2/index.js";
import { interopWire } from "../support/interop-wire.js";

const cli = new URL("../../packages/cli/dist/cli.js", import.meta.url).pathname;

function buildServer(): McpServer {
  const server = new McpServer({ name: "editor-tools", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: `echo: ${message}` }] }),
  );
  return server;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Entry = Record<string, unknown>;

/** What the agent's MCP client got from one entry. */
async function callEntry(entry: Entry): Promise<unknown> {
  const info = { name: "v2-agent", version: "1.0.0" };
  if (entry.type === "http") {
    const headers = Object.fromEntries(
      (entry.headers as { name: string; value: string }[]).map((h) => [h.name, h.value]),
    );
    const client = new Client(info);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(String(entry.url)), { requestInit: { headers } }),
    );
    const called = await client.callTool({ name: "echo", arguments: { message: "v2 http" } });
    await client.close();
    return called.content;
  }
  if (entry.type === "stdio") {
    const client = new ClientV1(info);
    await client.connect(
      new StdioClientTransport({
        command: String(entry.command),
        args: entry.args as string[],
        env: {
          ...getDefaultEnvironment(),
          ...Object.fromEntries(
            (entry.env as { name: string; value: string }[]).map((e) => [e.name, e.value]),
          ),
        },
      }),
    );
    const called = await client.callTool({ name: "echo", arguments: { message: "v2 stdio" } });
    await client.close();
    return called.content;
  }
  return undefined;
}

async function run(mcp: Record<string, unknown>, stdio: boolean) {
  const wire = interopWire();
  const seen: { servers: Entry[]; results: unknown[] } = { servers: [], results: [] };
  const agent = new AgentSideConnectionV2(
    () => ({
      initialize: () => ({
        protocolVersion: 2,
        info: { name: "v2-agent", version: "1.0.0" },
        capabilities: { session: { mcp } },
      }),
      newSession: async (params) => {
        seen.servers = params.mcpServers as Entry[];
        for (const entry of seen.servers) seen.results.push(await callEntry(entry));
        return { sessionId: "s-1" };
      },
      listSessions: () => ({ sessions: [] }),
      resumeSession: () => ({}),
      closeSession: () => ({}),
      prompt: () => ({ messageId: "m-1" }),
      cancel: () => undefined,
    }),
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
  );
  const provider = new McpProvider();
  const client = new ClientSideConnectionV2(
    (connection) => ({
      sessionUpdate: () => undefined,
      unstable_messageMcp: provider.attach(connection),
    }),
    ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
  );
  const bridge = new McpClientBridge(
    provider,
    stdio ? { stdioShim: { command: process.execPath, args: [cli, "mcp-shim"] } } : {},
  );
  cleanups.push(async () => {
    await bridge.close();
    client.close();
    agent.close();
  });
  const mode = bridge.configure(
    await client.initialize({ protocolVersion: 2, info: { name: "client", version: "1.0.0" } }),
  );
  const tools = provider.register({
    name: "editor-tools",
    handler: fromFetchHandler(createMcpHandler(buildServer, { legacy: "reject" })),
  });
  await client.newSession(await bridge.rewrite({ cwd: "/", mcpServers: [tools.declaration] }));
  return { mode, seen, declaration: tools.declaration };
}

describe("McpClientBridge on ACP v2", () => {
  it("an agent with http gets an http entry and calls it during session/new", async () => {
    const { mode, seen } = await run({ http: {} }, false);
    expect(mode).toBe("http");
    expect(seen.servers).toMatchObject([{ type: "http", name: "editor-tools" }]);
    expect(seen.results).toEqual([[{ type: "text", text: "echo: v2 http" }]]);
  });

  it("an agent without http gets a typed stdio shim entry", async () => {
    const { mode, seen } = await run({}, true);
    expect(mode).toBe("stdio");
    expect(seen.servers).toMatchObject([
      { type: "stdio", name: "editor-tools", command: process.execPath },
    ]);
    expect(seen.results).toEqual([[{ type: "text", text: "echo: v2 stdio" }]]);
  });

  it("an agent with acp gets the declaration unchanged", async () => {
    const { mode, seen, declaration } = await run({ acp: {}, http: {} }, true);
    expect(mode).toBe("native");
    expect(seen.servers).toEqual([declaration]);
  });
});
