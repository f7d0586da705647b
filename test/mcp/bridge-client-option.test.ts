/**
 * The client option, against the built packages: `connectAgent({ mcp, mcpBridge })` with a
 * tool registered on acp-kit's `McpProvider`, and a real agent process that calls every
 * MCP server it is given while it handles `session/new` (before answering). An agent
 * with `http` gets an `http` entry and reaches the tool through the loopback bridge with a
 * real (2025-era) MCP client; an agent with `acp` gets the declaration unchanged; an agent
 * with neither gets a stdio entry running `acp-kit mcp-shim` (the token in its
 * environment, not its argv) when a shim command is given, and the unchanged declaration
 * otherwise.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { ClientSideConnection, ndJsonStream } from "acp-kit";
import { connectAgent, quoteCommandLine, type ConnectAgentOptions } from "acp-kit/node";
import { fromFetchHandler, McpProvider } from "acp-kit/mcp";
import * as z from "zod";
import { describe, expect, it, onTestFinished } from "vitest";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const agentScript = new URL("./fixtures/bridge-agent.ts", import.meta.url).pathname;
const cli = join(repoRoot, "packages/cli/dist/cli.js");

function buildServer(): McpServer {
  const server = new McpServer({ name: "editor-tools", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: `echo: ${message}` }] }),
  );
  return server;
}

interface Report {
  mcpServers: Record<string, unknown>[];
  results: Record<string, unknown>[];
}

/** Starts the agent with these capabilities, opens a session with the tool, returns the report. */
async function run(caps: string, bridge: ConnectAgentOptions["mcpBridge"]) {
  const report = join(testTempDir("acp-kit-bridge-"), "report.json");
  const mcp = new McpProvider();
  const tools = mcp.register({
    name: "editor-tools",
    handler: fromFetchHandler(createMcpHandler(buildServer, { legacy: "reject" })),
  });
  const agent = await connectAgent({
    command: process.execPath,
    args: ["--import", "tsx", agentScript],
    cwd: repoRoot,
    env: { BRIDGE_AGENT_CAPS: caps, BRIDGE_AGENT_REPORT: report },
    mcp,
    ...(bridge === undefined ? {} : { mcpBridge: bridge }),
  });
  onTestFinished(() => agent.close().then(() => undefined));
  await agent.newSession({ mcpServers: [tools.declaration] });
  return {
    declaration: tools.declaration,
    mode: agent.mcpBridge?.mode,
    report: JSON.parse(readFileSync(report, "utf8")) as Report,
  };
}

describe("connectAgent's mcpBridge option", () => {
  it("an agent with http but not acp gets an http entry, and calls it during session/new", async () => {
    const { report, mode } = await run("http", true);
    expect(mode).toBe("http");
    expect(report.mcpServers).toEqual([
      {
        type: "http",
        name: "editor-tools",
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp-[A-Za-z0-9_-]+$/) as string,
        headers: [
          {
            name: "Authorization",
            value: expect.stringMatching(/^Bearer [A-Za-z0-9_-]{43}$/) as string,
          },
        ],
      },
    ]);
    expect(report.results).toEqual([
      { via: "http", tools: ["echo"], content: [{ type: "text", text: "echo: over http" }] },
    ]);
  });

  it("an agent with acp gets the declaration unchanged", async () => {
    const { report, declaration, mode } = await run("acp,http", true);
    expect(mode).toBe("native");
    expect(report.mcpServers).toEqual([declaration]);
    expect(report.results).toMatchObject([
      {
        via: "acp",
        outcome: { result: { content: [{ type: "text", text: "echo: native" }] } },
      },
    ]);
  });

  it("an agent with neither gets a stdio shim entry; the token is in its env, not its argv", async () => {
    const { report, mode } = await run("", {
      stdioShim: { command: process.execPath, args: [cli, "mcp-shim"] },
    });
    expect(mode).toBe("stdio");
    const [entry] = report.mcpServers;
    const token = (entry?.env as { name: string; value: string }[])[0]?.value ?? "";
    expect(entry).toEqual({
      name: "editor-tools",
      command: process.execPath,
      args: [
        cli,
        "mcp-shim",
        "--url",
        expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp-/) as string,
        "--token-env",
        "ACP_KIT_MCP_BRIDGE_TOKEN",
      ],
      env: [{ name: "ACP_KIT_MCP_BRIDGE_TOKEN", value: token }],
    });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [result] = report.results;
    expect(result).toMatchObject({
      via: "stdio",
      tools: ["echo"],
      content: [{ type: "text", text: "echo: over stdio" }],
    });
    const cmdline = result?.cmdline as string[];
    expect(cmdline).toContain("mcp-shim");
    expect(cmdline.join(" ")).not.toContain(token);
  });

  it("nothing is advertised that cannot be served: no http, no shim, or the option off", async () => {
    const withoutShim = await run("", true);
    expect(withoutShim.mode).toBe("unavailable");
    expect(withoutShim.report.mcpServers).toEqual([withoutShim.declaration]);
    const off = await run("http", undefined);
    expect(off.mode).toBeUndefined();
    expect(off.report.mcpServers).toEqual([off.declaration]);
  });
});

describe("acp-kit conductor: its MCP stage serves a stdio-only agent through its own mcp-shim", () => {
  it("the client sees acp advertised; the agent gets a stdio entry running this CLI's mcp-shim and calls the tool during session/new", async () => {
    const report = join(testTempDir("acp-kit-bridge-"), "report.json");
    const agentCommand = quoteCommandLine([process.execPath, "--import", "tsx", agentScript]);
    const child = spawn(process.execPath, [cli, "conductor", "agent", agentCommand], {
      cwd: repoRoot,
      env: { ...process.env, BRIDGE_AGENT_CAPS: "", BRIDGE_AGENT_REPORT: report },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    onTestFinished(async () => {
      child.stdin.end();
      await exited;
    });
    const mcp = new McpProvider();
    const tools = mcp.register({
      name: "editor-tools",
      handler: fromFetchHandler(createMcpHandler(buildServer, { legacy: "reject" })),
    });
    const connection = new ClientSideConnection(
      (agent) => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" as const } }),
        sessionUpdate: () => undefined,
        unstable_messageMcp: mcp.attach(agent),
      }),
      ndJsonStream(
        Writable.toWeb(child.stdin),
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
    );
    const init = await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentCapabilities?.mcpCapabilities?.acp).toBe(true);
    await connection.newSession({ cwd: repoRoot, mcpServers: [tools.declaration] });
    const { mcpServers, results } = JSON.parse(readFileSync(report, "utf8")) as Report;
    expect(mcpServers).toEqual([
      {
        name: "editor-tools",
        command: process.execPath,
        args: [
          cli,
          "mcp-shim",
          "--url",
          expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp-/) as string,
          "--token-env",
          "ACP_KIT_MCP_BRIDGE_TOKEN",
        ],
        env: [{ name: "ACP_KIT_MCP_BRIDGE_TOKEN", value: expect.any(String) as string }],
      },
    ]);
    expect(results).toMatchObject([
      { via: "stdio", tools: ["echo"], content: [{ type: "text", text: "echo: over stdio" }] },
    ]);
  });
});
