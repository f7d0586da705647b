/**
 * The example proxies (examples/proxies/), run as programs the way their comments say:
 * the permission guard under the Conductor, the tracing tee standalone, each with the
 * official SDK's client in front and its agent behind.
 */
import {
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
  type ClientConnection,
} from "@agentclientprotocol/sdk";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { ndJsonStream } from "../../packages/acp-kit/src/index.js";
import { commandComponent } from "../../packages/acp-kit/src/node/proxy/command-component.js";
import { Conductor } from "../../packages/acp-kit/src/proxy/index.js";
import { interopWire } from "../support/interop-wire.js";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const example = (name: string): string => join(repoRoot, "examples", "proxies", name);
const agentFixture = new URL("./fixtures/official-agent.mjs", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function officialOn(stream: {
  writable: WritableStream<Uint8Array>;
  readable: ReadableStream<Uint8Array>;
}) {
  const heard: string[] = [];
  const asked: string[] = [];
  const connection: ClientConnection = officialClient({ name: "official-client" })
    .onNotification("session/update", (ctx) => {
      const update = ctx.params.update;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
        heard.push(update.content.text);
    })
    .onRequest("session/request_permission", (ctx) => {
      asked.push(ctx.params.toolCall.title ?? "");
      return { outcome: { outcome: "selected", optionId: "allow" } };
    })
    .connect(theirNdJsonStream(stream.writable, stream.readable));
  cleanups.push(() => connection.close());
  return { connection, heard, asked };
}

async function turn(connection: ClientConnection, cwd: string) {
  await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request<{ sessionId: string }>("session/new", {
    cwd,
    mcpServers: [],
  });
  return connection.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
}

describe("examples/proxies/permission-guard.ts", () => {
  function guarded(rules: string) {
    const dir = testTempDir("acp-guard-");
    const file = join(dir, "rules.txt");
    writeFileSync(file, rules);
    const conductor = new Conductor({
      proxies: [
        commandComponent(
          {
            command: process.execPath,
            args: ["--import", "tsx", example("permission-guard.ts"), "--rules", file],
          },
          { cwd: repoRoot },
        ),
      ],
      agent: commandComponent({ command: process.execPath, args: [agentFixture] }),
    });
    cleanups.push(() => conductor.close());
    const wire = interopWire();
    void conductor.connect(
      ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, { closeOutput: true }),
    );
    return {
      dir,
      client: officialOn({
        writable: wire.clientToAgent.writable,
        readable: wire.agentToClient.readable,
      }),
    };
  }

  it("answers by its rules without asking the client", async () => {
    const { dir, client } = guarded("deny edit *\n");
    expect(await turn(client.connection, dir)).toMatchObject({ _meta: { chosen: "reject" } });
    expect(client.asked).toEqual([]);
    expect(client.heard).toEqual(["thinking", "decided: reject"]);
  });

  it("passes what no rule decides to the client", async () => {
    const { dir, client } = guarded("allow read *\n");
    expect(await turn(client.connection, dir)).toMatchObject({ _meta: { chosen: "allow" } });
    expect(client.asked).toEqual(["Write notes.txt"]);
  });
});

describe("examples/proxies/tracing-tee.ts", () => {
  it("writes a trace that acp-kit trace view reads, without secrets", async () => {
    const out = join(testTempDir("acp-tee-"), "t.ndjson");
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        example("tracing-tee.ts"),
        "--out",
        out,
        "--",
        process.execPath,
        agentFixture,
      ],
      { cwd: repoRoot, stdio: ["pipe", "pipe", "inherit"] },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    cleanups.push(() => child.kill("SIGKILL"));
    const client = officialOn({
      writable: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      readable: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    });
    await client.connection.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    await client.connection.agent.request("session/new", {
      cwd: repoRoot,
      mcpServers: [{ name: "t", command: "/bin/t", args: [], env: [{ name: "K", value: "hush" }] }],
    });
    client.connection.close();
    child.stdin.end();
    expect(await exited).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(text).not.toContain("hush");
    const view = spawnSync(process.execPath, [cli, "trace", "view", out], { encoding: "utf8" });
    expect(view.status, view.stderr).toBe(0);
    expect(view.stdout).toContain("initialize");
    expect(view.stdout).toContain("session/new");
  });
});

describe("examples/proxies/mcp-tool.ts", () => {
  it("adds its MCP tool to the session; the agent calls it over mcp/message through the proxy", async () => {
    const conductor = new Conductor({
      proxies: [
        commandComponent(
          { command: process.execPath, args: ["--import", "tsx", example("mcp-tool.ts")] },
          { cwd: repoRoot },
        ),
      ],
      agent: commandComponent(
        {
          command: process.execPath,
          args: ["--import", "tsx", new URL("./fixtures/mcp-agent.ts", import.meta.url).pathname],
        },
        { cwd: repoRoot },
      ),
    });
    cleanups.push(() => conductor.close());
    const wire = interopWire();
    void conductor.connect(
      ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, { closeOutput: true }),
    );
    const client = officialOn({
      writable: wire.clientToAgent.writable,
      readable: wire.agentToClient.readable,
    });
    await client.connection.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const { sessionId } = await client.connection.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: repoRoot, mcpServers: [] },
    );
    expect(
      await client.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "one two  three" }],
      }),
    ).toMatchObject({ stopReason: "end_turn" });
    expect(client.heard).toEqual(['proxy-tools: {"content":[{"type":"text","text":"3"}]}']);
  });
});
