/**
 * spawnAgent's `protocol` option with real processes: `"auto"` asks for v2 and goes on
 * in the version the agent speaks; a v2 agent is bridged to the v1 connection, a v1
 * agent relayed as is.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionNotification } from "../../packages/acp-kit/src/index.js";
import { spawnAgent, type SpawnedAgent } from "../../packages/acp-kit/src/node/spawn/agent.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const v2Agent = fileURLToPath(new URL("./fixtures/spawn-v2-agent.mjs", import.meta.url));
const rawAgent = fileURLToPath(new URL("./fixtures/spawn-raw-agent.js", import.meta.url));
const refuser = fileURLToPath(new URL("../cli/fixtures/refuses-v2-agent.mjs", import.meta.url));

const started: SpawnedAgent[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((agent) => agent.close()));
});

async function start(
  args: string[],
  protocol: "auto" | 1 | 2,
  updates: SessionNotification[] = [],
) {
  const agent = await spawnAgent({
    command: process.execPath,
    args,
    cwd: repoRoot,
    protocol,
    client: {
      sessionUpdate: (params) => {
        updates.push(params);
      },
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
    },
  });
  started.push(agent);
  return agent;
}

describe("spawnAgent({ protocol })", () => {
  it("auto with a v2 agent: a v1 connection, bridged; a whole turn", async () => {
    const updates: SessionNotification[] = [];
    const agent = await start([v2Agent], "auto", updates);
    const info = await agent.initialize();
    expect(agent.protocol).toBe(2);
    expect(info.protocolVersion).toBe(1);
    expect(info.agentInfo?.name).toBe("spawn-v2-agent");
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    const answer = await agent.connection.prompt({
      sessionId,
      prompt: [{ type: "text", text: "ping" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(updates.map((u) => u.update)).toContainEqual({
      sessionUpdate: "agent_message_chunk",
      messageId: "agent-1",
      content: { type: "text", text: "pong: ping" },
    });
    // The prompt's own echo is not shown to the v1 client.
    expect(updates.some((u) => u.update.sessionUpdate === "user_message_chunk")).toBe(false);
  });

  it("1 with a v2 agent: the agent refuses (-32022)", async () => {
    const agent = await start([v2Agent], 1);
    await expect(agent.initialize()).rejects.toMatchObject({ code: -32022 });
  });

  it("auto with a v1 agent: relayed as v1", async () => {
    const agent = await start([rawAgent], "auto");
    const info = await agent.initialize();
    expect(agent.protocol).toBe(1);
    expect(info.protocolVersion).toBe(1);
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    expect(typeof sessionId).toBe("string");
  });

  it.each([[[]], [["--close-stdin-first"]]])(
    "auto with a v1 agent that exits on a v2 initialize %j: started again and asked for v1",
    async (flags: string[]) => {
      const lines: string[] = [];
      const agent = await spawnAgent({
        command: process.execPath,
        args: [refuser, ...flags],
        cwd: repoRoot,
        protocol: "auto",
        onStderr: (line) => lines.push(line),
        client: {
          sessionUpdate: () => undefined,
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        },
      });
      started.push(agent);
      const firstPid = agent.pid;
      // Taken before the restart: the first process's exit is not the agent's.
      const exited = agent.exited;
      let exitedEarly = false;
      void exited.then(() => (exitedEarly = true));
      const info = await agent.initialize();
      expect(agent.protocol).toBe(1);
      expect(info).toMatchObject({ protocolVersion: 1, agentInfo: { name: "refuses-v2-agent" } });
      // A second process answered v1; the first one is gone.
      expect(agent.pid).not.toBe(firstPid);
      expect(lines).toContainEqual(`refuses-v2-agent ${firstPid}: initialize v2`);
      expect(lines).toContainEqual(`refuses-v2-agent ${agent.pid}: initialize v1`);
      const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
      const answer = await agent.connection.prompt({
        sessionId,
        prompt: [{ type: "text", text: "ping" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(agent.exitStatus).toBeUndefined();
      expect(exitedEarly).toBe(false);
      // The second process's exit settles it.
      const closed = await agent.close();
      expect(await exited).toEqual(closed);
      expect(exitedEarly).toBe(true);
    },
  );

  it("auto with an agent that exits before initialize: exited settles with its exit", async () => {
    const agent = await start(["-e", "process.exit(3)"], "auto");
    // Nothing would end the negotiation (no initialize was sent): the exit is the agent's.
    expect(await agent.exited).toEqual({ code: 3, signal: null });
  });

  it("2 with a v1 agent: initialize fails, saying the agent does not speak v2", async () => {
    const agent = await start([rawAgent], 2);
    await expect(agent.initialize()).rejects.toThrow();
    expect(agent.protocol).toBeUndefined();
  });
});
