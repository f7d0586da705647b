/**
 * The stdio shim as a real child process (`acp-kit mcp-shim` of the built CLI, its token
 * in the environment) between real MCP stdio clients and acp-kit's loopback bridge:
 * `@modelcontextprotocol/client` 2.4.0 pinned to 2026-07-28 (the shim sends the revision's
 * mirrored headers), in `auto`, and in its default 2025 mode (the bridge's `initialize`
 * front end), and `@modelcontextprotocol/sdk` 1.x. Each lists and calls a tool of an
 * `@modelcontextprotocol/server` server registered with acp-kit's `McpProvider`; the token
 * never appears in the shim's argv.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { fromFetchHandler } from "../../packages/acp-kit/src/mcp/index.js";
import { ourBridge, type BridgeUnderTest } from "./bridge-support.js";

const cli = new URL("../../packages/cli/dist/cli.js", import.meta.url).pathname;

function buildServer(): McpServer {
  const server = new McpServer({ name: "project-tools", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: `echo: ${message}` }] }),
  );
  return server;
}

const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close().catch(() => undefined);
});

async function bridge(): Promise<BridgeUnderTest> {
  const created = await ourBridge(
    {},
    undefined,
    true,
    fromFetchHandler(createMcpHandler(buildServer, { legacy: "reject" })),
  );
  open.push(created);
  return created;
}

function shimParams(b: BridgeUnderTest) {
  return {
    command: process.execPath,
    args: [cli, "mcp-shim", "--url", b.http.url, "--token-env", "SHIM_TOKEN"],
    env: { PATH: process.env.PATH ?? "", SHIM_TOKEN: b.http.token },
    stderr: "pipe" as const,
  };
}

function argvOf(pid: number | null): string[] {
  return readFileSync(`/proc/${String(pid)}/cmdline`, "utf8").split("\0");
}

const EXPECTED = { tools: ["echo"], content: [{ type: "text", text: "echo: hi" }] };

describe("acp-kit mcp-shim", () => {
  for (const mode of ["pin", "auto", "legacy"] as const)
    it(`carries client 2.4.0 (${mode}) over stdio to the bridge`, async () => {
      const b = await bridge();
      const transport = new StdioClientTransport(shimParams(b));
      const client = new Client(
        { name: `stdio-${mode}`, version: "1.0.0" },
        { versionNegotiation: { mode: mode === "pin" ? { pin: "2026-07-28" } : mode } },
      );
      open.push(client);
      await client.connect(transport);
      expect(argvOf(transport.pid).join(" ")).not.toContain(b.http.token);
      const tools = await client.listTools();
      const called = await client.callTool({ name: "echo", arguments: { message: "hi" } });
      expect({ tools: tools.tools.map((t) => t.name), content: called.content }).toEqual(EXPECTED);
      const methods = b.wire.agentToClientTap
        .withMethod("mcp/message")
        .map((m) => (m.params as { method: string }).method);
      expect(methods.slice(-2)).toEqual(["tools/list", "tools/call"]);
    });

  it("carries @modelcontextprotocol/sdk 1.x over stdio to the bridge", async () => {
    const b = await bridge();
    const transport = new StdioV1(shimParams(b));
    const client = new ClientV1({ name: "stdio-1.x", version: "1.0.0" });
    open.push(client);
    await client.connect(transport);
    const argv = argvOf(transport.pid);
    expect(argv).toContain("mcp-shim");
    expect(argv.join(" ")).not.toContain(b.http.token);
    const tools = await client.listTools();
    const called = await client.callTool({ name: "echo", arguments: { message: "hi" } });
    expect({ tools: tools.tools.map((t) => t.name), content: called.content }).toEqual(EXPECTED);
  });

  it("refuses to start without a token in the environment", async () => {
    const b = await bridge();
    const { spawnSync } = await import("node:child_process");
    const run = spawnSync(
      process.execPath,
      [cli, "mcp-shim", "--url", b.http.url, "--token-env", "SHIM_TOKEN"],
      { env: { PATH: process.env.PATH ?? "" }, input: "", encoding: "utf8" },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("SHIM_TOKEN");
  });
});
