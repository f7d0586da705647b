/**
 * Settling after an agent dies while a helper it started (an MCP or language server, say)
 * keeps its stderr, or its stdout and stderr, open and ignores SIGTERM: the pending request
 * must reject soon after the agent's own process exited (within 150 ms on an idle machine;
 * asserted here with a generous margin), quoting the stderr lines written before the death,
 * however long the kill grace is. Real processes: `fixtures/dying-agent.mjs`.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionError } from "../../packages/acp-kit/src/index.js";
import { AgentExitError } from "../../packages/acp-kit/src/node/spawn/errors.js";
import { spawnAgent, type SpawnedAgent } from "../../packages/acp-kit/src/node/spawn/agent.js";
import { processRunning } from "../support/processes.js";

const dyingAgent = fileURLToPath(new URL("./fixtures/dying-agent.mjs", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Well under the old 2 s (4 s with a longer grace), and a wide margin over 150 ms. */
const SETTLE_LIMIT_MS = 900;

const groups: number[] = [];

afterEach(() => {
  // Whatever happened in the test, nothing of the agent's group may outlive it.
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
});

async function settleAfterDeath(
  hold: "stderr" | "both",
  killGraceMs: number,
): Promise<{ agent: SpawnedAgent; error: unknown; settleMs: number }> {
  const agent = await spawnAgent({
    command: process.execPath,
    args: [dyingAgent, hold],
    killGraceMs,
  });
  groups.push(agent.pid);
  let exitAt: number | undefined;
  agent.process.once("exit", () => (exitAt = performance.now()));
  await agent.initialize();
  let error: unknown;
  try {
    await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
  } catch (caught) {
    error = caught;
  }
  const rejectedAt = performance.now();
  expect(exitAt).toBeDefined();
  return { agent, error, settleMs: rejectedAt - (exitAt ?? rejectedAt) };
}

describe.skipIf(process.platform === "win32")("settling after the agent dies", () => {
  for (const hold of ["stderr", "both"] as const) {
    for (const killGraceMs of [2000, 4000]) {
      it(`rejects pending requests soon when a helper holds ${hold === "both" ? "stdout and stderr" : "stderr"} (grace ${killGraceMs} ms)`, async () => {
        const { agent, error, settleMs } = await settleAfterDeath(hold, killGraceMs);
        console.log(
          `agent death, helper holds ${hold}, grace ${killGraceMs} ms: settled ${settleMs.toFixed(1)} ms after the exit`,
        );
        expect(error).toBeInstanceOf(ConnectionError);
        const failure = error as ConnectionError;
        expect(failure.code).toBe("connection_closed");
        expect(failure.message).toContain("exited with code 3");
        expect(failure.message).toContain("fatal: the model backend went away");
        expect(failure.cause).toBeInstanceOf(AgentExitError);
        expect((failure.cause as AgentExitError).stderrTail).toContain(
          "fatal: the model backend went away",
        );
        expect(settleMs).toBeLessThan(SETTLE_LIMIT_MS);

        // The stubborn helper is ended with the group (SIGKILL after the grace).
        const helperLine = agent.stderr.find((line) => line.startsWith("helper "));
        const helperPid = Number(helperLine?.split(" ")[1]);
        expect(helperPid).toBeGreaterThan(0);
        if (killGraceMs > 2000) {
          // Not worth waiting out a long grace here: end the group as an editor would.
          process.kill(-agent.pid, "SIGKILL");
        }
        await agent.close();
        expect(processRunning(helperPid)).toBe(false);
      }, 20_000);
    }
  }

  it("still delivers the answer the agent wrote just before it died", async () => {
    const agent = await spawnAgent({
      command: process.execPath,
      args: [dyingAgent, "both", "answer"],
    });
    groups.push(agent.pid);
    await agent.initialize();
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    expect(sessionId).toBe("last-words");
    await agent.exited;
    await agent.close();
  }, 20_000);
});
