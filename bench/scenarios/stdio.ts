/* eslint-disable @typescript-eslint/no-deprecated -- the classic API is what acp-kit
   exposes; acp-sdk-classic (1.9.0) only provides its types and marks them deprecated. */
/**
 * S4: S1 across a real child process's stdio. The agent runs in a child
 * process (plain JS from bench/agents/, no loader), the client runs here. The
 * child is spawned and handshaken once per implementation; only prompt turns
 * are timed, so process startup never enters the numbers.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  PROTOCOL_VERSION,
  client,
  ndJsonStream,
  type ContentBlock,
} from "@agentclientprotocol/sdk";
import type { ClassicModule } from "../lib/kit-module.ts";
import { REPO_ROOT } from "../lib/kit-module.ts";
import { RawPeer } from "../lib/raw-peer.js";
import { CHUNK_TEXT, assert, settleWithin, type StreamResult } from "../lib/common.ts";

export type StdioImpl = "kit" | "official" | "raw" | "rawc";

/** A live child agent plus this process's client for it. */
export interface StdioSession {
  /** One timed prompt turn streaming `n` updates. */
  prompt(n: number): Promise<StreamResult>;
  /** Untimed: asks the child to run a full GC (the child runs with --expose-gc). */
  childGc(): Promise<void>;
  /** Untimed: the child's CPU time so far (user + system), in ms. */
  childCpuMs(): Promise<number>;
  close(): Promise<void>;
}

type Child = ChildProcessByStdio<Writable, Readable, null>;

function spawnAgent(impl: StdioImpl, kitUrl: string): Child {
  // The coalescing raw loop is the raw agent with its coalescing writer.
  const file = resolve(REPO_ROOT, "bench", "agents", `${impl === "rawc" ? "raw" : impl}-agent.js`);
  const args = ["--expose-gc", file, ...(impl === "kit" ? [kitUrl] : [])];
  return spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "inherit"],
    env: {
      ...process.env,
      BENCH_CHUNK_TEXT: CHUNK_TEXT,
      BENCH_RAW_WRITE: impl === "rawc" ? "coalesce" : "each",
    },
  });
}

function webStreams(child: Child): {
  output: WritableStream<Uint8Array>;
  input: ReadableStream<Uint8Array>;
} {
  return {
    output: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    input: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  };
}

async function stopChild(child: Child): Promise<void> {
  const exited = new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done();
    else child.once("exit", () => done());
  });
  child.stdin.end();
  await settleWithin(exited, 2000);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill();
    await settleWithin(exited, 2000);
  }
}

const textPrompt = (text: string): ContentBlock[] => [{ type: "text", text }];

/** The CPU time an agent reported in the text of its last update (see the agents' "cpu"). */
function cpuMsOf(update: unknown): number {
  const text = (update as { update?: { content?: { text?: unknown } } } | undefined)?.update
    ?.content?.text;
  const micros = Number(text);
  assert(Number.isFinite(micros), "the agent's CPU time");
  return micros / 1000;
}

async function kitSession(mod: ClassicModule, kitUrl: string): Promise<StdioSession> {
  const child = spawnAgent("kit", kitUrl);
  const { output, input } = webStreams(child);
  let received = 0;
  let last: unknown;
  const conn = new mod.ClientSideConnection(
    () => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: (params) => {
        received++;
        last = params;
      },
    }),
    mod.ndJsonStream(output, input),
  );
  await conn.initialize({ protocolVersion: mod.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await conn.newSession({ cwd: "/bench", mcpServers: [] });
  return {
    async prompt(n) {
      received = 0;
      const t0 = performance.now();
      const r = await conn.prompt({ sessionId, prompt: textPrompt(`stream ${n}`) });
      const ms = performance.now() - t0;
      assert(r.stopReason === "end_turn", "stopReason");
      return { ms, receivedAtResolve: received };
    },
    async childGc() {
      await conn.prompt({ sessionId, prompt: textPrompt("gc") });
    },
    async childCpuMs() {
      await conn.prompt({ sessionId, prompt: textPrompt("cpu") });
      return cpuMsOf(last);
    },
    close: () => stopChild(child),
  };
}

async function officialSession(): Promise<StdioSession> {
  const child = spawnAgent("official", "");
  const { output, input } = webStreams(child);
  let received = 0;
  let last: unknown;
  const conn = client()
    .onNotification("session/update", ({ params }) => {
      received++;
      last = params;
    })
    .onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" as const } }))
    .connect(ndJsonStream(output, input));
  await conn.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const { sessionId } = await conn.agent.request("session/new", { cwd: "/bench", mcpServers: [] });
  return {
    async prompt(n) {
      received = 0;
      const t0 = performance.now();
      const r = await conn.agent.request("session/prompt", {
        sessionId,
        prompt: textPrompt(`stream ${n}`),
      });
      const ms = performance.now() - t0;
      assert(r.stopReason === "end_turn", "stopReason");
      return { ms, receivedAtResolve: received };
    },
    async childGc() {
      await conn.agent.request("session/prompt", { sessionId, prompt: textPrompt("gc") });
    },
    async childCpuMs() {
      await conn.agent.request("session/prompt", { sessionId, prompt: textPrompt("cpu") });
      return cpuMsOf(last);
    },
    async close() {
      conn.close();
      await stopChild(child);
    },
  };
}

async function rawSession(impl: "raw" | "rawc"): Promise<StdioSession> {
  const child = spawnAgent(impl, "");
  const { output, input } = webStreams(child);
  let received = 0;
  let last: unknown;
  const peer = new RawPeer(output, input, {
    write: impl === "rawc" ? "coalesce" : "each",
    onNotification: (method, params) => {
      if (method === "session/update") {
        received++;
        last = params;
      }
    },
  });
  await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = (await peer.request("session/new", {
    cwd: "/bench",
    mcpServers: [],
  })) as { sessionId: string };
  return {
    async prompt(n) {
      received = 0;
      const t0 = performance.now();
      const r = (await peer.request("session/prompt", {
        sessionId,
        prompt: textPrompt(`stream ${n}`),
      })) as { stopReason: string };
      const ms = performance.now() - t0;
      assert(r.stopReason === "end_turn", "stopReason");
      return { ms, receivedAtResolve: received };
    },
    async childGc() {
      await peer.request("session/prompt", { sessionId, prompt: textPrompt("gc") });
    },
    async childCpuMs() {
      await peer.request("session/prompt", { sessionId, prompt: textPrompt("cpu") });
      return cpuMsOf(last);
    },
    async close() {
      peer.close();
      await stopChild(child);
    },
  };
}

export function startStdioSession(
  impl: StdioImpl,
  kit: { mod: ClassicModule; url: string },
): Promise<StdioSession> {
  switch (impl) {
    case "kit":
      return kitSession(kit.mod, kit.url);
    case "official":
      return officialSession();
    case "raw":
    case "rawc":
      return rawSession(impl);
  }
}
