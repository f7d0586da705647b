/**
 * Two acp-kit peers on real pipes flood each other with requests at once (issue 10,
 * item 1): the agent is `fixtures/flood-agent.ts` on `agentStdioStream()` in a child
 * process, the client runs here on `spawnAgent()`. Each side sends 10,000 concurrent
 * requests of 4 KB; every one must be answered, and neither side's memory may grow
 * without bound.
 *
 * Before the fix, each end stopped reading while about 1 MiB of its own output was
 * queued, so both ended up waiting for the other to read: a few dozen answers, then
 * nothing.
 */
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { spawnAgent, type SpawnedAgent } from "../../packages/acp-kit/src/node/index.js";
import { PROTOCOL_VERSION } from "../../packages/acp-kit/src/index.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/flood-agent.ts", import.meta.url));

const COUNT = 10_000;
const BYTES = 4096;
/** Requests sent per macrotask: bursts of a few hundred, as in the report. */
const BURST = 300;
/** Generous: the messages themselves are 40 MB each way; queuing all of them twice over would pass 200 MB. */
const MAX_RSS_GROWTH = 400 * 1024 * 1024;

let agent: SpawnedAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

it("two acp-kit peers answer 10,000 concurrent 4 KB requests each way over real pipes", async () => {
  let written = 0;
  agent = await spawnAgent({
    command: process.execPath,
    args: ["--import", "tsx", fixture],
    cwd: repoRoot,
    client: {
      requestPermission: () => Promise.resolve({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: () => undefined,
      writeTextFile: (params) => {
        if (params.content.length === BYTES) written++;
        return Promise.resolve({});
      },
    },
  });
  await agent.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
  global.gc?.();
  const baseRss = process.memoryUsage().rss;
  let peakRss = baseRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);

  const text = "b".repeat(BYTES);
  let prompted = 0;
  const fromAgent = agent.connection.extMethod("_flood/start", {
    count: COUNT,
    bytes: BYTES,
    burst: BURST,
  });
  const fromClient: Promise<unknown>[] = [];
  for (let i = 0; i < COUNT; i++) {
    if (i > 0 && i % BURST === 0) await new Promise((resolve) => setImmediate(resolve));
    fromClient.push(
      agent.connection
        .prompt({ sessionId, prompt: [{ type: "text", text }] })
        .then(() => prompted++),
    );
  }
  // Progress is reported on failure: how far each direction got before it stopped.
  const outcome = await Promise.race([
    Promise.all([fromAgent, Promise.all(fromClient)]).then(([agentSide]) => agentSide),
    new Promise<"stuck">((resolve) => setTimeout(() => resolve("stuck"), 60_000).unref()),
  ]);
  clearInterval(sampler);
  console.log(
    `flood: client RSS +${((peakRss - baseRss) / 2 ** 20).toFixed(0)} MiB, agent ${JSON.stringify(outcome)}`,
  );
  expect({ prompted, written, stuck: outcome === "stuck" }).toEqual({
    prompted: COUNT,
    written: COUNT,
    stuck: false,
  });
  const agentSide = outcome as Record<string, number>;
  expect(agentSide.answered).toBe(COUNT);
  expect(agentSide.failed).toBe(0);
  expect(peakRss - baseRss).toBeLessThan(MAX_RSS_GROWTH);
  expect((agentSide.maxRssBytes ?? Infinity) - (agentSide.baseRssBytes ?? 0)).toBeLessThan(
    MAX_RSS_GROWTH,
  );
}, 120_000);
