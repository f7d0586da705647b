/**
 * The command line with ACP v2 agents: `acp-kit bridge` between an editor of one version
 * and an agent of the other (real processes, the built CLI), and `prompt --protocol`.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ClientSideConnection,
  ndJsonStream,
  type SessionNotification,
} from "../../packages/acp-kit/src/index.js";
import { ClientSideConnection as V2ClientSideConnection } from "../../packages/acp-kit/src/v2/index.js";
import type { UpdateSessionNotification } from "../../packages/acp-kit/src/v2/index.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const v2Agent = join(repoRoot, "test", "node", "fixtures", "spawn-v2-agent.mjs");
const v1Agent = join(repoRoot, "test", "node", "fixtures", "spawn-raw-agent.js");
const scripted = [
  process.execPath,
  join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js"),
  "--no-delays",
  join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json"),
];

beforeAll(() => {
  if (!existsSync(cli))
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
});

function startBridge(args: string[]) {
  const child = spawn(process.execPath, [cli, "bridge", ...args], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin),
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    { closeOutput: true },
  );
  return { child, stream, exited, stderr: () => stderr };
}

describe("acp-kit bridge", () => {
  it("--as v1: a v1 client runs a v2 agent; the end sums up nothing lost", async () => {
    const bridged = startBridge(["--as", "v1", "--", process.execPath, v2Agent]);
    const updates: SessionNotification[] = [];
    const agent = new ClientSideConnection(
      () => ({
        sessionUpdate: (params) => {
          updates.push(params);
        },
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      }),
      bridged.stream,
    );
    const info = await agent.initialize({ protocolVersion: 1, clientCapabilities: {} });
    expect(info.protocolVersion).toBe(1);
    expect(info.agentInfo?.name).toBe("spawn-v2-agent");
    const { sessionId } = await agent.newSession({ cwd: repoRoot, mcpServers: [] });
    expect(
      (await agent.prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] })).stopReason,
    ).toBe("end_turn");
    expect(updates.map((u) => u.update)).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "agent-1",
        content: { type: "text", text: "pong: hi" },
      },
    ]);
    agent.close();
    expect(await bridged.exited).toBe(0);
    expect(bridged.stderr()).toContain("client speaks ACP v1, the agent v2: translating");
  });

  it("--as v2: a v2 client runs a v1 agent, a turn read until idle", async () => {
    const bridged = startBridge(["--as", "v2", "--", process.execPath, v1Agent]);
    const updates: UpdateSessionNotification[] = [];
    let idle: () => void = () => undefined;
    const idled = new Promise<void>((resolve) => (idle = resolve));
    const agent = new V2ClientSideConnection(
      () => ({
        sessionUpdate: (params) => {
          updates.push(params);
          const u = params.update as { sessionUpdate: string; state?: string };
          if (u.sessionUpdate === "state_update" && u.state === "idle") idle();
        },
      }),
      bridged.stream,
    );
    const info = await agent.initialize({
      protocolVersion: 2,
      info: { name: "v2-editor", version: "1" },
    });
    expect(info.protocolVersion).toBe(2);
    const { sessionId } = await agent.newSession({ cwd: repoRoot });
    const { messageId } = await agent.prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] });
    await idled;
    const kinds = updates.map((u) => (u.update as { sessionUpdate: string }).sessionUpdate);
    expect(kinds[0]).toBe("user_message");
    expect((updates[0]?.update as { messageId?: string }).messageId).toBe(messageId);
    expect(kinds).toContain("state_update");
    agent.close();
    expect(await bridged.exited).toBe(0);
    expect(bridged.stderr()).toContain("client speaks ACP v2, the agent v1: translating");
  });

  it("relays when both speak the same version", async () => {
    const bridged = startBridge(["--as", "v1", "--", process.execPath, v1Agent]);
    const agent = new ClientSideConnection(
      () => ({
        sessionUpdate: () => undefined,
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      }),
      bridged.stream,
    );
    expect(
      (await agent.initialize({ protocolVersion: 1, clientCapabilities: {} })).protocolVersion,
    ).toBe(1);
    agent.close();
    await bridged.exited;
    expect(bridged.stderr()).toContain("client and agent speak ACP v1: relaying");
  });

  it("refuses a missing or wrong --as with a usage error", () => {
    for (const args of [
      ["--", "true"],
      ["--as", "v3", "--", "true"],
    ]) {
      const result = spawnSync(process.execPath, [cli, "bridge", ...args], {
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(result.status).toBe(2);
    }
  });
});

describe("acp-kit prompt --protocol", () => {
  const prompt = (extra: string[], agent: string[]) =>
    spawnSync(process.execPath, [cli, "prompt", ...extra, "hello", "--", ...agent], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 60_000,
    });

  it("auto (the default) runs a v2 agent and says so in --json", () => {
    const result = prompt(["--json"], [process.execPath, v2Agent]);
    expect(result.status).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events[0]).toMatchObject({ type: "initialize", protocolVersion: 1, agentProtocol: 2 });
    expect(result.stdout).toContain("pong: hello");
  });

  it("1 with a v2-only agent fails to start, naming the agent's refusal", () => {
    const result = prompt(["--protocol", "1"], [process.execPath, v2Agent]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("Unsupported protocol version");
  });

  it("auto with a v1 agent speaks v1", () => {
    const result = prompt(["--json"], scripted);
    expect(result.status).toBe(0);
    const first = JSON.parse(result.stdout.split("\n")[0] ?? "{}") as Record<string, unknown>;
    expect(first).toMatchObject({ type: "initialize", agentProtocol: 1 });
  });
});
