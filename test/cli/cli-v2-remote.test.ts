/**
 * The command line with ACP v2 over the remote transports, and the bridge's restart path,
 * with real processes (the built CLI): `serve` of a v2 agent used by `prompt`/`run --url`
 * with `--protocol auto|1|2` over HTTP and WebSocket (negotiation is end to end: `serve`
 * relays messages and never looks at the version); `serve` of a v1 agent that leaves on a
 * v2 `initialize` (the remote client starts a new connection, so a new agent, for the v1
 * retry); and `acp-kit bridge --as v1|v2` with that agent (the bridge starts it again).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClientSideConnection,
  ndJsonStream,
  type Stream,
} from "../../packages/acp-kit/src/index.js";
import { connectHttp } from "../../packages/acp-kit/src/http/client/index.js";
import {
  ClientSideConnection as V2ClientSideConnection,
  type UpdateSessionNotification,
} from "../../packages/acp-kit/src/v2/index.js";
import { cli, repoRoot, runCli, serve, stop, type Served } from "./remote-harness.js";

const scripted = (protocol: string): string[] => [
  "--",
  process.execPath,
  join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js"),
  "--no-delays",
  "--protocol",
  protocol,
  join(repoRoot, "test", "cli", "fixtures", "v2-remote-scenario.json"),
];
const refuser = join(repoRoot, "test", "cli", "fixtures", "refuses-v2-agent.mjs");

/** The JSON events of `prompt --json`. */
function events(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `serve`, with its stderr kept (the fixture agents log there). */
async function serveLogged(agent: string[]): Promise<Served & { stderr: () => string }> {
  const served = await serve([], {}, agent);
  let stderr = "";
  served.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return { ...served, stderr: () => stderr };
}

const urls = (served: Served): [string, string][] => [
  ["HTTP", served.url],
  ["WebSocket", served.url.replace("http:", "ws:")],
];

describe("serve of a v2 agent, used with --url", { timeout: 120_000 }, () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve([], {}, scripted("2"));
  });
  afterAll(() => stop(served));

  it("prompt --url --protocol auto and 2: the v2 agent, over HTTP and WebSocket", async () => {
    for (const [, url] of urls(served)) {
      for (const protocol of ["auto", "2"]) {
        const result = await runCli([
          "prompt",
          "--json",
          "--url",
          url,
          "--protocol",
          protocol,
          "tool",
        ]);
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        const all = events(result.stdout);
        expect(all[0]).toMatchObject({
          type: "initialize",
          agentInfo: { name: "v2-remote-agent" },
          agentProtocol: 2,
        });
        expect(
          all.map((e) => (e.update as { sessionUpdate?: string } | undefined)?.sessionUpdate),
        ).toEqual([
          undefined,
          undefined,
          "tool_call",
          "tool_call_update",
          "agent_message_chunk",
          undefined,
        ]);
        expect(all.at(-1)).toEqual({ type: "stop", stopReason: "end_turn" });
      }
    }
  });

  it("prompt --url --protocol 1: refused by the v2-only agent, as with a local one", async () => {
    for (const [, url] of urls(served)) {
      const result = await runCli(["prompt", "--json", "--url", url, "--protocol", "1", "tool"]);
      expect(result.code).toBe(31);
      expect(events(result.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 31 });
      expect(result.stdout).toContain("Unsupported protocol version");
      expect(result.stdout).toContain("-32022");
    }
  });

  it("run --plain --url: the transcript says ACP v2", async () => {
    const result = await runCli(["run", "--plain", "--url", served.url.replace("http:", "ws:")], {
      input: "tool\n",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("connected to v2-remote-agent 2.0.0 (ACP v2)");
    expect(result.stdout).toContain("Scan done.");
  });
});

describe("serve of an agent serving v1 and v2 (protocolRouter)", { timeout: 120_000 }, () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve([], {}, scripted("auto"));
  });
  afterAll(() => stop(served));

  it("--protocol auto gets v2, --protocol 1 gets v1", async () => {
    for (const [protocol, version] of [
      ["auto", 2],
      ["1", 1],
    ] as const) {
      const result = await runCli([
        "prompt",
        "--json",
        "--url",
        served.url,
        "--protocol",
        protocol,
        "hello",
      ]);
      expect(result.code).toBe(0);
      expect(events(result.stdout)[0]).toMatchObject({ agentProtocol: version });
      expect(result.stdout).toContain("Hello over the wire.");
    }
  });
});

describe("an agent that leaves on a v2 initialize", { timeout: 120_000 }, () => {
  /** The `initialize` versions each agent process logged, by pid, in order. */
  const initializes = (stderr: string): [number, number][] =>
    [...stderr.matchAll(/refuses-v2-agent (\d+): initialize v(\d+)/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);

  it("behind serve: prompt --url asks again in v1 on a new connection, over HTTP and WebSocket", async () => {
    const served = await serveLogged(["--", process.execPath, refuser]);
    try {
      for (const [, url] of urls(served)) {
        const result = await runCli(["prompt", "--json", "--url", url, "hello"]);
        expect(result.code).toBe(0);
        expect(events(result.stdout)[0]).toMatchObject({
          agentInfo: { name: "refuses-v2-agent" },
          agentProtocol: 1,
        });
        expect(result.stdout).toContain("pong: hello");
      }
      const seen = initializes(served.stderr());
      // Per prompt: a v2 initialize to one agent, a v1 initialize to another.
      expect(seen.map(([, version]) => version)).toEqual([2, 1, 2, 1]);
      expect(new Set(seen.map(([pid]) => pid)).size).toBe(4);
    } finally {
      await stop(served);
    }
  });

  /**
   * The fixture's flags, run after run: the agent's exit races the bridge's v1
   * `initialize` (before `leavesOnBrokenPipe`, 8 runs in 60 lost it: "write EPIPE").
   */
  const BRIDGE_RUNS: string[][][] = [[[]], [[]], [[]], [[]], [["--close-stdin-first"]]];

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
    const stream: Stream = ndJsonStream(
      Writable.toWeb(child.stdin),
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      { closeOutput: true },
    );
    return { stream, exited, stderr: () => stderr };
  }

  it.each(BRIDGE_RUNS)(
    "acp-kit bridge --as v1 %j (run %#): the agent is started again and asked for v1",
    async (flags) => {
      const bridged = startBridge(["--as", "v1", "--", process.execPath, refuser, ...flags]);
      const text: string[] = [];
      const agent = new ClientSideConnection(
        () => ({
          sessionUpdate: (n) => {
            if (
              n.update.sessionUpdate === "agent_message_chunk" &&
              n.update.content.type === "text"
            )
              text.push(n.update.content.text);
          },
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        }),
        bridged.stream,
      );
      const info = await agent.initialize({ protocolVersion: 1, clientCapabilities: {} });
      expect(info).toMatchObject({ protocolVersion: 1, agentInfo: { name: "refuses-v2-agent" } });
      const { sessionId } = await agent.newSession({ cwd: repoRoot, mcpServers: [] });
      await expect(
        agent.prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] }),
      ).resolves.toEqual({ stopReason: "end_turn" });
      expect(text).toEqual(["pong: hi"]);
      agent.close();
      expect(await bridged.exited).toBe(0);
      const seen = initializes(bridged.stderr());
      expect(seen.map(([, version]) => version)).toEqual([2, 1]);
      expect(seen[0]?.[0]).not.toBe(seen[1]?.[0]);
      expect(bridged.stderr()).toContain(
        "the agent left on a v2 initialize: starting it again for v1",
      );
      expect(bridged.stderr()).toContain("client and agent speak ACP v1: relaying");
    },
  );

  it.each(BRIDGE_RUNS)(
    "acp-kit bridge --as v2 %j (run %#): a v2 client gets the v1 agent started again, translated",
    async (flags) => {
      const bridged = startBridge(["--as", "v2", "--", process.execPath, refuser, ...flags]);
      const updates: UpdateSessionNotification[] = [];
      let idle!: () => void;
      const idled = new Promise<void>((resolve) => (idle = resolve));
      const agent = new V2ClientSideConnection(
        () => ({
          sessionUpdate: (params) => {
            updates.push(params);
            const u = params.update;
            if (u.sessionUpdate === "state_update" && u.state === "idle") idle();
          },
        }),
        bridged.stream,
      );
      const info = await agent.initialize({
        protocolVersion: 2,
        info: { name: "v2-editor", version: "1" },
      });
      expect(info).toMatchObject({ protocolVersion: 2, info: { name: "refuses-v2-agent" } });
      const { sessionId } = await agent.newSession({ cwd: repoRoot });
      await agent.prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] });
      await idled;
      expect(updates.map((u) => u.update.sessionUpdate)).toEqual([
        "user_message",
        "state_update",
        "agent_message_chunk",
        "state_update",
      ]);
      agent.close();
      expect(await bridged.exited).toBe(0);
      expect(initializes(bridged.stderr()).map(([, version]) => version)).toEqual([2, 1]);
      expect(bridged.stderr()).toContain("client speaks ACP v2, the agent v1: translating");
    },
  );
});

describe("a v1 editor over HTTP to a v2-only agent", { timeout: 120_000 }, () => {
  it("serve -- acp-kit bridge --as v1 -- <v2 agent>: the v1 client runs the v2 agent", async () => {
    const served = await serve([], {}, [
      "--",
      process.execPath,
      cli,
      "bridge",
      "--as",
      "v1",
      ...scripted("2"),
    ]);
    const stream = connectHttp(served.url);
    try {
      const text: string[] = [];
      const agent = new ClientSideConnection(
        () => ({
          sessionUpdate: (n) => {
            if (
              n.update.sessionUpdate === "agent_message_chunk" &&
              n.update.content.type === "text"
            )
              text.push(n.update.content.text);
          },
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        }),
        stream,
      );
      const info = await agent.initialize({ protocolVersion: 1, clientCapabilities: {} });
      expect(info).toMatchObject({ protocolVersion: 1, agentInfo: { name: "v2-remote-agent" } });
      const { sessionId } = await agent.newSession({ cwd: repoRoot, mcpServers: [] });
      await expect(
        agent.prompt({ sessionId, prompt: [{ type: "text", text: "hello" }] }),
      ).resolves.toEqual({ stopReason: "end_turn" });
      expect(text.join("")).toBe("Hello over the wire.");
    } finally {
      await stream.close();
      await stop(served);
    }
  });
});
