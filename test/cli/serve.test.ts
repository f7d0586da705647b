/**
 * `acp-kit serve` and `--url`, end to end with the built CLI (dist/cli.js): a stdio agent
 * served over HTTP and WebSocket, checked through the `--url` bridge, its process group
 * ended with its connection, and the loopback/token rule.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientSideConnection, PROTOCOL_VERSION } from "../../packages/acp-kit/src/index.js";
import { connectHttp } from "../../packages/acp-kit/src/http/client/index.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const agentCommand = [process.execPath, "--import", "tsx", join(repoRoot, "examples", "agent.ts")];

/** Starts `serve` and resolves with its URL (its first stdout line). */
export async function startServe(
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [cli, "serve", "--port", "0", ...extra, "--", ...agentCommand],
    {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const line = out.split("\n")[0];
      if (out.includes("\n") && line !== undefined) resolve(line.trim());
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, url };
}

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === pid) out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

async function waitFor(predicate: () => boolean, ms = 15_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

if (!existsSync(cli)) throw new Error("Build first (npm run build): these tests run dist/cli.js");

describe("acp-kit serve", { timeout: 120_000 }, () => {
  let serve: { child: ChildProcess; url: string };

  beforeAll(async () => {
    serve = await startServe();
  });

  afterAll(async () => {
    serve.child.kill("SIGTERM");
    await new Promise((resolve) => serve.child.once("exit", resolve));
  });

  it("prints a loopback URL; check --url passes the served agent over HTTP and over WebSocket", () => {
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/acp$/);
    for (const url of [serve.url, serve.url.replace("http:", "ws:")]) {
      const result = spawnSync(process.execPath, [cli, "check", "--url", url], {
        encoding: "utf8",
        timeout: 90_000,
      });
      expect(result.stdout).toMatch(/\d+ passed, 0 failed/);
      expect(result.status).toBe(0);
    }
  });

  it("one agent process per connection, ended when its connection ends", async () => {
    const pid = serve.child.pid ?? 0;
    const before = childrenOf(pid).length;
    // HTTP: close() sends DELETE. (A WebSocket closed with 1000 is kept for a resume while
    // resumable streams are on, until its retention time passes; see docs/remote.md.)
    const streams = [connectHttp(serve.url), connectHttp(serve.url)];
    const connections = streams.map(
      (s) =>
        new ClientSideConnection(
          () => ({
            sessionUpdate: () => undefined,
            requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
          }),
          s,
        ),
    );
    await Promise.all(
      connections.map((c) =>
        c.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }),
      ),
    );
    expect(await waitFor(() => childrenOf(pid).length === before + 2)).toBe(true);
    await Promise.all(streams.map((s) => s.close()));
    expect(await waitFor(() => childrenOf(pid).length === before)).toBe(true);
  });

  it("prompt --url: a turn with a remote agent, as with a local one", () => {
    const result = spawnSync(
      process.execPath,
      [cli, "prompt", "--url", serve.url, "--deny-all", "Hello there"],
      { encoding: "utf8", timeout: 90_000 },
    );
    expect(result.stderr).not.toMatch(/remote agent at/);
    expect(result.stdout.length).toBeGreaterThan(0);
  });
});

describe("acp-kit serve: who may connect", { timeout: 60_000 }, () => {
  it("refuses to listen beyond loopback without a token (usage error)", () => {
    const result = spawnSync(
      process.execPath,
      [cli, "serve", "--host", "0.0.0.0", "--port", "0", "--", "true"],
      {
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/without a token/);
  });

  it("with --token-env: no token, 401 on initialize; the token, it works", async () => {
    const serve = await startServe(["--token-env", "ACP_TEST_TOKEN"], {
      ACP_TEST_TOKEN: "s3cret-token",
    });
    try {
      const noToken = new ClientSideConnection(
        () => ({
          sessionUpdate: () => undefined,
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        }),
        connectHttp(serve.url, { reconnect: false }),
      );
      await expect(
        noToken.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }),
      ).rejects.toThrow();
      const stream = connectHttp(serve.url, { headers: { Authorization: "Bearer s3cret-token" } });
      const ok = new ClientSideConnection(
        () => ({
          sessionUpdate: () => undefined,
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        }),
        stream,
      );
      await expect(
        ok.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }),
      ).resolves.toMatchObject({ protocolVersion: PROTOCOL_VERSION });
      await stream.close();
    } finally {
      serve.child.kill("SIGTERM");
      await new Promise((resolve) => serve.child.once("exit", resolve));
    }
  });
});

describe("acp-kit serve: what is kept for clients that resume", { timeout: 60_000 }, () => {
  /** The retention a served agent's initialize result advertises. */
  async function advertised(url: string): Promise<unknown> {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} },
      }),
    });
    const body = (await response.json()) as { result: { _meta: Record<string, unknown> } };
    await fetch(url, {
      method: "DELETE",
      headers: { "Acp-Connection-Id": response.headers.get("Acp-Connection-Id") ?? "" },
    });
    return (body.result._meta["acp/transport"] as { resumable?: unknown }).resumable;
  }

  async function withServe(extra: string[], check: (url: string) => Promise<void>): Promise<void> {
    const serve = await startServe(extra);
    try {
      await check(serve.url);
    } finally {
      serve.child.kill("SIGTERM");
      await new Promise((resolve) => serve.child.once("exit", resolve));
    }
  }

  it("the library's retention by default; the flags set it", async () => {
    await withServe([], async (url) => {
      expect(await advertised(url)).toEqual({
        retentionMessages: 1000,
        retentionWindowSeconds: 60,
        retentionBytes: 128 * 1024 * 1024,
        retentionSeconds: 300,
      });
    });
    const flags = ["--retention-messages", "5000", "--retention-window", "2.5"];
    flags.push("--retention-bytes", "16MiB", "--resume-wait", "30");
    await withServe(flags, async (url) => {
      expect(await advertised(url)).toEqual({
        retentionMessages: 5000,
        retentionWindowSeconds: 2.5,
        retentionBytes: 16 * 1024 * 1024,
        retentionSeconds: 30,
      });
    });
  });

  it.each([
    [["--retention-bytes", "12XB"], /Give a size in bytes, or with KiB, MiB or GiB/],
    [["--retention-window", "-1"], /Give a number, 0 or more/],
    [["--retention-messages", "1.5"], /Give a whole number, 0 or more/],
    [["--no-resume", "--retention-window", "5"], /--no-resume keeps nothing/],
  ])("%j: a usage error", (extra, message) => {
    const result = spawnSync(
      process.execPath,
      [cli, "serve", "--port", "0", ...extra, "--", "true"],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(result.stderr).toMatch(message);
    expect(result.status).toBe(2);
  });
});
