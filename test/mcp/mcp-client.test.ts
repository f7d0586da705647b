/**
 * A real MCP client over MCP-over-ACP: `Client` of `@modelcontextprotocol/client` 2.4.0,
 * pinned to MCP 2026-07-28, on a small MCP transport that sends each of its requests
 * through acp-kit's `McpCaller` (on an agent's connection) to the official client's
 * `McpOverAcpProvider`, which serves an `@modelcontextprotocol/server` server, over byte
 * pipes. It lists and calls tools and gets progress, as it would over HTTP.
 */
import * as theirV1 from "@agentclientprotocol/sdk/unstable";
import { fromMcpServer } from "@agentclientprotocol/sdk/experimental/mcp-server";
import { Client } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { expect, it } from "vitest";
import { AgentSideConnection, ndJsonStream } from "../../packages/acp-kit/src/index.js";
import { McpCaller } from "../../packages/acp-kit/src/mcp/index.js";
import { interopWire } from "../support/interop-wire.js";

type Message = Record<string, unknown>;

/** An MCP transport whose requests travel as `mcp/message` through `caller`. */
function acpTransport(caller: McpCaller, serverId: string) {
  const transport = {
    onmessage: undefined as ((message: Message) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    start: () => Promise.resolve(),
    close: () => {
      transport.onclose?.();
      return Promise.resolve();
    },
    send: (message: Message): Promise<void> => {
      if (typeof message.method !== "string" || !("id" in message)) return Promise.resolve();
      const id = message.id;
      void caller
        .request(serverId, message.method, message.params as Record<string, unknown>, {
          requestId: String(id),
          onNotification: (n) => transport.onmessage?.({ jsonrpc: "2.0", ...n }),
        })
        .then(
          (outcome) => transport.onmessage?.({ jsonrpc: "2.0", id, ...outcome }),
          (error: unknown) => transport.onerror?.(error as Error),
        );
      return Promise.resolve();
    },
  };
  return transport;
}

it("an MCP SDK client pinned to 2026-07-28 lists and calls tools through McpCaller", async () => {
  const wire = interopWire();
  const caller = new McpCaller();
  const agent = new AgentSideConnection(
    (connection) => ({
      initialize: () => ({
        protocolVersion: 1,
        agentCapabilities: { mcpCapabilities: { acp: true } },
      }),
      newSession: () => ({ sessionId: "s" }),
      authenticate: () => ({}),
      prompt: () => ({ stopReason: "end_turn" }),
      cancel: () => undefined,
      unstable_messageMcp: caller.attach(connection),
    }),
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
  );
  const provider = new theirV1.McpOverAcpProvider();
  const client = theirV1
    .client({ name: "official-client" })
    .onRequest("mcp/message", provider.handleRequest)
    .connect(theirV1.ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
  const tools = provider.registerServer(client.agent, {
    name: "project-tools",
    handler: fromMcpServer(() => {
      const server = new McpServer({ name: "project-tools", version: "1.0.0" });
      server.registerTool(
        "add",
        { inputSchema: z.object({ a: z.number(), b: z.number() }) },
        async ({ a, b }, ctx) => {
          const token = ctx.mcpReq._meta?.progressToken;
          if (token !== undefined)
            await ctx.mcpReq.notify({
              method: "notifications/progress",
              params: { progressToken: token, progress: 1, total: 1 },
            });
          return { content: [{ type: "text", text: String(a + b) }] };
        },
      );
      return server;
    }).handler,
  });

  const mcp = new Client(
    { name: "agent-mcp-client", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await mcp.connect(acpTransport(caller, tools.serverId));
  const listed = await mcp.listTools();
  expect(listed.tools.map((tool) => tool.name)).toEqual(["add"]);
  const progress: unknown[] = [];
  const result = await mcp.callTool(
    { name: "add", arguments: { a: 2, b: 3 } },
    { onprogress: (p) => progress.push(p) },
  );
  expect(result.content).toEqual([{ type: "text", text: "5" }]);
  expect(progress).toEqual([expect.objectContaining({ progress: 1, total: 1 })]);
  const methods = wire.agentToClientTap
    .withMethod("mcp/message")
    .map((m) => (m.params as { method: string }).method);
  expect(methods).toContain("tools/list");
  expect(methods).toContain("tools/call");
  await mcp.close();
  agent.close();
  client.close();
});
