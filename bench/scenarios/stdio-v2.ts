/**
 * S4v2: S1v2 across a real child process's stdio: the v2 agent runs in a child (plain JS
 * from bench/agents/), the v2 client here. Spawned and initialized once per cell; only the
 * turns are timed, from the prompt until the client has the turn's idle state.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { REPO_ROOT } from "../lib/kit-module.ts";
import { CHUNK_TEXT, assert, settleWithin, type StreamResult } from "../lib/common.ts";
import type { StdioSession } from "./stdio.ts";

type Child = ChildProcessByStdio<Writable, Readable, null>;
type Update = {
  sessionUpdate?: string;
  state?: string;
  content?: { text?: unknown };
};

function spawnAgent(impl: "kit" | "official", kitUrl: string): Child {
  const file = resolve(REPO_ROOT, "bench", "agents", `${impl}-v2-agent.js`);
  return spawn(process.execPath, ["--expose-gc", file, ...(impl === "kit" ? [kitUrl] : [])], {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, BENCH_CHUNK_TEXT: CHUNK_TEXT },
  });
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

/** Counts updates, keeps the last chunk's text, and resolves a turn at its idle state. */
class TurnWatch {
  received = 0;
  lastText: unknown;
  private done: (() => void) | undefined;

  arm(): Promise<void> {
    this.received = 0;
    return new Promise<void>((resolve) => (this.done = resolve));
  }

  seen(update: Update): void {
    this.received++;
    if (update.sessionUpdate === "agent_message_chunk") this.lastText = update.content?.text;
    if (update.sessionUpdate === "state_update" && update.state === "idle" && this.done) {
      const finish = this.done;
      this.done = undefined;
      finish();
    }
  }
}

/** The v2 sessions S4v2 drives. */
export async function startStdioV2Session(
  impl: "kit" | "official",
  kitUrl: string,
): Promise<StdioSession> {
  const child = spawnAgent(impl, kitUrl);
  const output = Writable.toWeb(child.stdin) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>;
  const watch = new TurnWatch();
  let send: (text: string) => Promise<void>;
  let closeClient: () => void;
  if (impl === "kit") {
    const kit = (await import(
      new URL("./v2.js", kitUrl).href
    )) as typeof import("../../packages/acp-kit/src/v2/index.ts");
    const conn = new kit.ClientSideConnection(
      () => ({ sessionUpdate: (params) => watch.seen(params.update as Update) }),
      kit.ndJsonStream(output, input),
    );
    await conn.initialize({ protocolVersion: 2, info: { name: "bench", version: "0.0.0" } });
    const { sessionId } = await conn.newSession({ cwd: "/bench" });
    send = async (text) => {
      await conn.prompt({ sessionId, prompt: [{ type: "text", text }] });
    };
    closeClient = () => conn.close();
  } else {
    const conn = client()
      .onNotification("session/update", ({ params }) => watch.seen(params.update as Update))
      .connect(ndJsonStream(output, input));
    await conn.agent.request("initialize", {
      protocolVersion: 2,
      info: { name: "bench", version: "0.0.0" },
    });
    const { sessionId } = await conn.agent.request("session/new", { cwd: "/bench" });
    send = async (text) => {
      await conn.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    };
    closeClient = () => conn.close();
  }
  const turn = async (text: string): Promise<void> => {
    const idle = watch.arm();
    await send(text);
    await idle;
  };
  return {
    async prompt(n): Promise<StreamResult> {
      const idle = watch.arm();
      const t0 = performance.now();
      await send(`stream ${n}`);
      await idle;
      const ms = performance.now() - t0;
      assert(watch.received === n + 3, `received ${watch.received} of ${n + 3}`);
      // The streamed updates only: not the echo, `running` and `idle`.
      return { ms, receivedAtResolve: watch.received - 3 };
    },
    childGc: () => turn("gc"),
    async childCpuMs() {
      await turn("cpu");
      const micros = Number(watch.lastText);
      assert(Number.isFinite(micros), "the agent's CPU time");
      return micros / 1000;
    },
    async close() {
      closeClient();
      await stopChild(child);
    },
  };
}
