/**
 * `acp-kit conductor` (the built CLI) as a child process, with the Rust conductor's
 * argument shape, and `prompt --proxy`: the official client drives a chain of acp-kit
 * proxies in front of the official agent; the trace file is read back.
 */
import {
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
  type ClientConnection,
} from "@agentclientprotocol/sdk";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { quoteCommandLine } from "../../packages/acp-kit/src/node/proxy/command-line.js";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const node = (...args: string[]): string => quoteCommandLine([process.execPath, ...args]);

beforeAll(() => {
  if (!existsSync(cli)) throw new Error("Build first (npm run build): the tests run dist/cli.js");
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** The conductor program with `args`, driven by the official client over its stdio. */
function conductor(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [cli, "conductor", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  cleanups.push(() => child.kill("SIGKILL"));
  const heard: string[] = [];
  const connection: ClientConnection = officialClient({ name: "official-client" })
    .onNotification("session/update", (ctx) => {
      const update = ctx.params.update;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
        heard.push(update.content.text);
    })
    .onRequest("session/request_permission", () => ({
      outcome: { outcome: "selected", optionId: "allow" },
    }))
    .connect(
      theirNdJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
    );
  return { child, connection, heard, exited, stderr: () => stderr };
}

async function turn(connection: ClientConnection, text: string, mcpServers: unknown[] = []) {
  await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request<{ sessionId: string }>("session/new", {
    cwd: repoRoot,
    mcpServers,
  });
  return connection.agent.request<Record<string, unknown>>("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
  });
}

describe("acp-kit conductor", () => {
  it("agent mode: a chain of two proxies, a trace without secrets, exit 0 when the client leaves", async () => {
    const trace = join(testTempDir("acp-conductor-"), "trace.jsonl");
    const run = conductor(
      [
        "--trace",
        trace,
        "agent",
        node(fixture("kit-proxy.mjs")),
        node(fixture("kit-proxy.mjs")),
        node(fixture("official-agent.mjs")),
      ],
      { PROXY_NAME: "px" },
    );
    const answer = await turn(run.connection, "go", [
      {
        name: "tools",
        command: "/bin/tools",
        args: [],
        env: [{ name: "API_KEY", value: "sk-very-secret" }],
      },
    ]);
    expect(answer).toEqual({ stopReason: "end_turn", _meta: { chosen: "allow", px: 1 } });
    expect(run.heard).toEqual(["[px] [px] thinking", "[px] [px] decided: allow"]);
    run.connection.close();
    run.child.stdin.end();
    expect(await run.exited).toBe(0);
    const text = readFileSync(trace, "utf8");
    expect(text).not.toContain("sk-very-secret");
    const events = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.filter((e) => e.type === "started")).toHaveLength(3);
    const newSession = events.find(
      (e) => (e.message as { method?: string } | undefined)?.method === "session/new",
    );
    expect(newSession).toMatchObject({
      from: "client",
      to: "conductor",
      message: { params: { mcpServers: [{ env: [{ name: "API_KEY", value: "[redacted]" }] }] } },
    });
  });

  it("a nested conductor in proxy mode (conductor proxy ...) inside a chain", async () => {
    const inner = quoteCommandLine([
      process.execPath,
      cli,
      "conductor",
      "proxy",
      node(fixture("kit-proxy.mjs")),
    ]);
    const run = conductor(["agent", inner, node(fixture("official-agent.mjs"))], {
      PROXY_NAME: "nested",
    });
    expect(await turn(run.connection, "go")).toMatchObject({ _meta: { nested: 1 } });
    expect(run.heard).toEqual(["[nested] thinking", "[nested] decided: allow"]);
  });

  it("a component that dies ends the chain: the cause on stderr, exit 1", async () => {
    const run = conductor([
      "agent",
      node(fixture("kit-proxy.mjs")),
      node(fixture("official-agent.mjs")),
    ]);
    await expect(turn(run.connection, "die")).rejects.toBeDefined();
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain("exited with code 3");
  });

  it("usage errors: an unknown mode or dialect, no agent (exit 2)", () => {
    const mode = spawnSync(process.execPath, [cli, "conductor", "serve", "x"], {
      encoding: "utf8",
    });
    expect(mode.status).toBe(2);
    expect(mode.stderr).toContain("agent or proxy");
    const dialect = spawnSync(
      process.execPath,
      [cli, "conductor", "--dialect", "x", "agent", "y"],
      {
        encoding: "utf8",
      },
    );
    expect(dialect.status).toBe(2);
    expect(dialect.stderr).toContain("rust, rfd or thinkwell");
  });
});

describe("prompt --proxy", () => {
  it("runs the turn through the chain (the proxies mark the agent's text)", () => {
    const result = spawnSync(
      process.execPath,
      [
        cli,
        "prompt",
        "--proxy",
        node(fixture("kit-proxy.mjs")),
        "please stream",
        "--",
        process.execPath,
        scriptedAgent,
        "--no-delays",
        join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json"),
      ],
      {
        encoding: "utf8",
        cwd: repoRoot,
        env: { ...process.env, PROXY_NAME: "via-cli" },
        input: "",
      },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("[via-cli] ");
    expect(result.stdout.replaceAll("[via-cli] ", "")).toContain("one two three four five");
  });
});
