/**
 * M4, real MCP clients through the loopback bridges: `Client` of
 * `@modelcontextprotocol/client` 2.4.0 pinned to 2026-07-28, in `auto`, and in its
 * default (legacy, 2025) mode, and `Client` of `@modelcontextprotocol/sdk` 1.x, each over
 * its own Streamable HTTP transport, list and call a tool of an `@modelcontextprotocol/server`
 * server registered with acp-kit's `McpProvider` (the client side of a real ACP pipe).
 * Pin and auto work through both bridges; legacy and 1.x only through acp-kit's 2025-era
 * front end: the SDK bridge refuses them.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { fromFetchHandler } from "../../packages/acp-kit/src/mcp/index.js";
import { ourBridge, sdkBridge, type BridgeUnderTest } from "./bridge-support.js";

function buildServer(): McpServer {
  const server = new McpServer({ name: "project-tools", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: `echo: ${message}` }] }),
  );
  return server;
}

const handler = () => fromFetchHandler(createMcpHandler(buildServer, { legacy: "reject" }));

const open: BridgeUnderTest[] = [];
const clients: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await Promise.all(open.splice(0).map((bridge) => bridge.close()));
});

type Mode = "pin" | "auto" | "legacy" | "sdk-1.x";

/** Connects a real client in `mode`, lists the tools and calls `echo`. */
async function listAndCall(bridge: BridgeUnderTest, mode: Mode) {
  const url = new URL(bridge.http.url);
  const requestInit = { headers: { Authorization: `Bearer ${bridge.http.token}` } };
  const info = { name: `client-${mode}`, version: "1.0.0" };
  if (mode === "sdk-1.x") {
    const client = new ClientV1(info);
    clients.push(client);
    await client.connect(new TransportV1(url, { requestInit }));
    const tools = await client.listTools();
    const called = await client.callTool({ name: "echo", arguments: { message: "hi" } });
    return { tools: tools.tools.map((tool) => tool.name), content: called.content };
  }
  const client = new Client(info, {
    versionNegotiation: { mode: mode === "pin" ? { pin: "2026-07-28" } : mode },
  });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  const tools = await client.listTools();
  const called = await client.callTool({ name: "echo", arguments: { message: "hi" } });
  return { tools: tools.tools.map((tool) => tool.name), content: called.content };
}

const EXPECTED = { tools: ["echo"], content: [{ type: "text", text: "echo: hi" }] };

describe("real MCP clients through the bridges", () => {
  for (const mode of ["pin", "auto"] as const)
    it(`client 2.4.0 (${mode}) works through both bridges`, async () => {
      for (const bridge of [
        await sdkBridge({}, undefined, handler()),
        await ourBridge({}, undefined, true, handler()),
      ]) {
        open.push(bridge);
        expect(await listAndCall(bridge, mode), bridge.label).toEqual(EXPECTED);
      }
    });

  for (const mode of ["legacy", "sdk-1.x"] as const)
    it(`${mode === "legacy" ? "client 2.4.0 (legacy)" : "@modelcontextprotocol/sdk 1.x"} works only through acp-kit's front end`, async () => {
      const sdk = await sdkBridge({}, undefined, handler());
      open.push(sdk);
      await expect(listAndCall(sdk, mode)).rejects.toThrow();
      const ours = await ourBridge({}, undefined, true, handler());
      open.push(ours);
      expect(await listAndCall(ours, mode)).toEqual(EXPECTED);
      // What crossed ACP for it: server/discover for initialize, then the list and the call.
      const methods = ours.wire.agentToClientTap
        .withMethod("mcp/message")
        .map((message) => (message.params as { method: string }).method);
      expect(methods).toEqual(["server/discover", "tools/list", "tools/call"]);
      // Without the front end, acp-kit's bridge refuses it as the SDK's does.
      const strict = await ourBridge({}, undefined, false, handler());
      open.push(strict);
      await expect(listAndCall(strict, mode)).rejects.toThrow();
    });
});
