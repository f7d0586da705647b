/**
 * Remote scenario: `node --expose-gc --import tsx bench/remote.ts [--quick]`.
 *
 *  R1  100,000 `session/update`s in one prompt turn over loopback, Streamable HTTP/SSE
 *      and WebSocket: acp-kit's server + client, and the official SDK 2.4.0's server +
 *      client transports (`experimental/server`, `experimental/http-client`,
 *      `experimental/ws-client`), in the same process and run. The agent and the client
 *      API on top are acp-kit's classic classes on both sides, so the columns compare the
 *      transports.
 *  R2  memory (heap and RSS growth) of 1,000 idle HTTP connections (initialized, their
 *      connection SSE stream open), client and server in this process.
 *
 * Prints a Markdown table and writes bench/results/remote.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import WebSocket, { WebSocketServer } from "ws";
import {
  AgentSideConnection,
  ClientSideConnection,
  PROTOCOL_VERSION,
  type Stream,
} from "../packages/acp-kit/src/index.ts";
import { connectHttp, connectWebSocket } from "../packages/acp-kit/src/http/client/index.ts";
import { createAcpNodeServer } from "../packages/acp-kit/src/http/server/index.ts";

const quick = process.argv.includes("--quick");
const UPDATES = quick ? 5_000 : 100_000;
const IDLE = quick ? 100 : 1_000;
const RUNS = Number(process.env.BENCH_RUNS ?? (quick ? 1 : 3));

function agent(stream: Stream): AgentSideConnection {
  return new AgentSideConnection(
    (conn) => ({
      initialize: () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }),
      newSession: () => ({ sessionId: "s1" }),
      authenticate: () => ({}),
      cancel: () => undefined,
      prompt: async (params) => {
        const n = Number(params.prompt[0]?.type === "text" ? params.prompt[0].text : "0");
        for (let i = 0; i < n; i++) {
          await conn.sessionUpdate({
            sessionId: params.sessionId,
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: `chunk ${i}` },
            },
          });
        }
        return { stopReason: "end_turn" };
      },
    }),
    stream,
  );
}

interface Running {
  readonly url: string;
  close(): Promise<void>;
}

async function ourServer(): Promise<Running> {
  const server = createAcpNodeServer({ agent: (stream) => agent(stream) });
  const { port } = await server.listen(0, "127.0.0.1");
  return { url: `http://127.0.0.1:${port}/acp`, close: () => server.close() };
}

interface OfficialServerModule {
  AcpServer: new (options: { createAgent: () => unknown }) => { close(): Promise<void> };
}
interface OfficialNodeModule {
  createNodeHttpHandler: (server: unknown) => (req: unknown, res: unknown) => void;
  createNodeWebSocketUpgradeHandler: (
    server: unknown,
    wss: WebSocketServer,
  ) => (req: unknown, socket: unknown, head: unknown) => void;
}
type StreamFactory = (url: string, options?: Record<string, unknown>) => Stream;

async function officialServer(): Promise<Running> {
  const { AcpServer } =
    (await import("@agentclientprotocol/sdk/experimental/server")) as OfficialServerModule;
  const node = (await import("@agentclientprotocol/sdk/experimental/node")) as OfficialNodeModule;
  const acp = new AcpServer({
    createAgent: () => ({
      connect: (stream: Stream) => {
        const connection = agent(stream);
        return { closed: connection.closed };
      },
    }),
  });
  const wss = new WebSocketServer({ noServer: true });
  const http: Server = createServer(node.createNodeHttpHandler(acp));
  http.on("upgrade", node.createNodeWebSocketUpgradeHandler(acp, wss));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/acp`,
    close: async () => {
      await acp.close();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

async function officialClients(): Promise<{ http: StreamFactory; ws: StreamFactory }> {
  const h = (await import("@agentclientprotocol/sdk/experimental/http-client")) as {
    createHttpStream: StreamFactory;
  };
  const w = (await import("@agentclientprotocol/sdk/experimental/ws-client")) as {
    createWebSocketStream: StreamFactory;
  };
  return {
    http: (url) => h.createHttpStream(url),
    ws: (url) => w.createWebSocketStream(url.replace("http:", "ws:"), { WebSocket }),
  };
}

/** One turn of `UPDATES` updates; returns milliseconds. */
async function turn(stream: Stream & { close?: () => Promise<void> }): Promise<number> {
  let seen = 0;
  const connection = new ClientSideConnection(
    () => ({
      sessionUpdate: () => {
        seen++;
      },
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
    }),
    stream,
  );
  await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
  const start = performance.now();
  await connection.prompt({ sessionId, prompt: [{ type: "text", text: String(UPDATES) }] });
  const ms = performance.now() - start;
  if (seen !== UPDATES) throw new Error(`saw ${seen} updates, not ${UPDATES}`);
  if (stream.close !== undefined) await stream.close();
  else await stream.writable.close().catch(() => undefined);
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function idleMemory(
  start: () => Promise<Running>,
  open: StreamFactory,
): Promise<{ heapMb: number; rssMb: number }> {
  const server = await start();
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const held: { connection: ClientSideConnection; stream: Stream }[] = [];
  for (let i = 0; i < IDLE; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, IDLE - i) }, async () => {
        const stream = open(server.url);
        const connection = new ClientSideConnection(
          () => ({
            sessionUpdate: () => undefined,
            requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
          }),
          stream,
        );
        await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
        held.push({ connection, stream });
      }),
    );
  }
  await new Promise((r) => setTimeout(r, 500));
  gc?.();
  const after = process.memoryUsage();
  for (const { stream } of held) {
    const s = stream as Stream & { close?: () => Promise<void> };
    await (s.close?.() ?? s.writable.close()).catch(() => undefined);
  }
  await server.close();
  return {
    heapMb: (after.heapUsed - before.heapUsed) / 2 ** 20,
    rssMb: (after.rss - before.rss) / 2 ** 20,
  };
}

const official = await officialClients();
const rows: { scenario: string; acpKit: string; official: string }[] = [];
for (const [name, ours, theirs] of [
  ["R1 HTTP/SSE", (url: string) => connectHttp(url), official.http],
  ["R1 WebSocket", (url: string) => connectWebSocket(url), official.ws],
] as const) {
  const kit: number[] = [];
  const off: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    // Alternate, so that neither side always runs on a warmer process.
    const s1 = await ourServer();
    kit.push(await turn(ours(s1.url)));
    await s1.close();
    const s2 = await officialServer();
    off.push(await turn(theirs(s2.url)));
    await s2.close();
  }
  const fmt = (ms: number) =>
    `${ms.toFixed(0)} ms (${Math.round(UPDATES / (ms / 1000)).toLocaleString("en")} updates/s)`;
  rows.push({
    scenario: `${name}, ${UPDATES.toLocaleString("en")} updates`,
    acpKit: fmt(median(kit)),
    official: fmt(median(off)),
  });
  console.error(
    `${name}: acp-kit ${kit.map((v) => v.toFixed(0)).join(", ")} ms; official ${off.map((v) => v.toFixed(0)).join(", ")} ms`,
  );
}
const memKit = await idleMemory(ourServer, (url) => connectHttp(url));
const memOff = await idleMemory(officialServer, official.http);
const fmtMem = (m: { heapMb: number; rssMb: number }) =>
  `heap +${m.heapMb.toFixed(1)} MB, RSS +${m.rssMb.toFixed(1)} MB (${((m.heapMb * 1024) / IDLE).toFixed(1)} KB heap each)`;
rows.push({
  scenario: `R2 ${IDLE} idle HTTP connections (client + server)`,
  acpKit: fmtMem(memKit),
  official: fmtMem(memOff),
});

const table = [
  "| Scenario | acp-kit | official SDK 2.4.0 |",
  "| --- | --- | --- |",
  ...rows.map((r) => `| ${r.scenario} | ${r.acpKit} | ${r.official} |`),
].join("\n");
console.log(table);
const dir = resolve(import.meta.dirname, "results");
mkdirSync(dir, { recursive: true });
writeFileSync(
  resolve(dir, "remote.json"),
  JSON.stringify({ quick, updates: UPDATES, idle: IDLE, rows }, null, 2),
);
process.exit(0);
