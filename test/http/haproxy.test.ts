/**
 * Scale-out behind a real load balancer: HAProxy (cookie stickiness) in front of two
 * `acp-kit serve` instances on loopback. Several clients at once each stay on the
 * instance that holds their connection; when one instance stops, its clients get a clear
 * error and open new sessions on the other. Needs `haproxy` (apt-get install haproxy;
 * .ci/run installs it) and the built CLI.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClientSideConnection,
  PROTOCOL_VERSION,
  type Client,
} from "../../packages/acp-kit/src/index.js";
import {
  connectHttp,
  MemoryCookieStore,
  type RemoteStream,
} from "../../packages/acp-kit/src/http/client/index.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const scenario = join(repoRoot, "examples", "scenarios", "conformant.json");
const hasHaproxy = spawnSync("haproxy", ["-v"]).status === 0;
if (!existsSync(cli) || !existsSync(scriptedAgent)) {
  throw new Error("Build first (npm run build): these tests run the built CLI and scripted agent");
}
if (!hasHaproxy)
  console.warn("haproxy.test.ts: skipped, haproxy is not installed (apt-get install -y haproxy)");

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startServe(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [cli, "serve", "--port", "0", "--", process.execPath, scriptedAgent, "--no-delays", scenario],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (out.includes("\n")) resolve(out.split("\n")[0] ?? "");
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, port: Number(new URL(url).port) };
}

function childrenOf(pid: number): number {
  let n = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) n++;
    } catch {
      // Gone meanwhile.
    }
  }
  return n;
}

const quietClient = (): Client => ({
  sessionUpdate: () => undefined,
  requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
});

interface Remote {
  readonly cookies: MemoryCookieStore;
  stream: RemoteStream;
  connection: ClientSideConnection;
}

function open(url: string, cookies: MemoryCookieStore): Remote {
  const stream = connectHttp(url, {
    cookies,
    reconnect: { maxAttempts: 3, initialDelayMs: 50, maxDelayMs: 200 },
  });
  return { cookies, stream, connection: new ClientSideConnection(quietClient, stream) };
}

describe.skipIf(!hasHaproxy)(
  "HAProxy with cookie stickiness in front of two serve instances",
  { timeout: 120_000 },
  () => {
    let a: { child: ChildProcess; port: number };
    let b: { child: ChildProcess; port: number };
    let haproxy: ChildProcess;
    let url: string;

    beforeAll(async () => {
      [a, b] = await Promise.all([startServe(), startServe()]);
      const port = await freePort();
      const config = join(tmpdir(), `acp-haproxy-${process.pid}.cfg`);
      // The same configuration as in docs/remote.md, with the ports of this test.
      writeFileSync(
        config,
        `global
  maxconn 1024
defaults
  mode http
  timeout connect 2s
  timeout client 1h
  timeout server 1h
  timeout tunnel 1h
  option redispatch
frontend acp
  bind 127.0.0.1:${port}
  default_backend agents
backend agents
  balance roundrobin
  cookie ACPSRV insert indirect nocache
  server a 127.0.0.1:${a.port} check inter 200 fall 1 rise 1 cookie a
  server b 127.0.0.1:${b.port} check inter 200 fall 1 rise 1 cookie b
`,
      );
      haproxy = spawn("haproxy", ["-db", "-f", config], { stdio: "ignore" });
      url = `http://127.0.0.1:${port}/acp`;
      // Wait until HAProxy answers (a 404 from an instance for GET /).
      for (let i = 0; i < 100; i++) {
        const ok = await fetch(`http://127.0.0.1:${port}/`).then(
          () => true,
          () => false,
        );
        if (ok) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });

    afterAll(async () => {
      for (const child of [haproxy, a.child, b.child]) child.kill("SIGTERM");
      await Promise.all(
        [haproxy, a.child, b.child].map(
          (child) =>
            new Promise((resolve) =>
              child.exitCode === null && child.signalCode === null
                ? child.once("exit", resolve)
                : resolve(null),
            ),
        ),
      );
    });

    it("each connection stays on its instance; a stopped instance's clients get a clear error and start over on the other", async () => {
      const clients = Array.from({ length: 6 }, () => open(url, new MemoryCookieStore()));
      await Promise.all(
        clients.map((c) =>
          c.connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }),
        ),
      );
      // Several sessions per client, at once: every request must reach the instance holding it.
      const sessions = await Promise.all(
        clients.map(async (c) => {
          const ids = [];
          for (let i = 0; i < 3; i++)
            ids.push((await c.connection.newSession({ cwd: "/", mcpServers: [] })).sessionId);
          return ids;
        }),
      );
      expect(sessions.flat()).toHaveLength(18);
      const on = (name: string) =>
        clients.filter((c) => c.cookies.header()?.includes(`ACPSRV=${name}`));
      const onA = on("a");
      const onB = on("b");
      expect(onA.length + onB.length).toBe(6);
      expect(onA.length).toBeGreaterThan(0);
      expect(onB.length).toBeGreaterThan(0);
      // The agent processes are where the cookies say.
      expect(childrenOf(a.child.pid ?? 0)).toBe(onA.length);
      expect(childrenOf(b.child.pid ?? 0)).toBe(onB.length);

      // Stop instance a.
      a.child.kill("SIGTERM");
      await new Promise((resolve) => a.child.once("exit", resolve));
      for (const c of onA) {
        // The connection is gone: the transport ends with an error saying so.
        const error = await c.connection.newSession({ cwd: "/", mcpServers: [] }).then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        expect(error).toBeInstanceOf(Error);
        await c.stream.closed;
      }
      // Clients of b did not notice.
      for (const c of onB)
        await expect(c.connection.newSession({ cwd: "/", mcpServers: [] })).resolves.toBeDefined();
      // The clients of a start over, with the same cookie store: HAProxy sends them to b.
      for (const c of onA) {
        const again = open(url, c.cookies);
        await again.connection.initialize({
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: {},
        });
        await expect(
          again.connection.newSession({ cwd: "/", mcpServers: [] }),
        ).resolves.toBeDefined();
        expect(c.cookies.header()).toContain("ACPSRV=b");
        await again.stream.close();
      }
      await Promise.all(onB.map((c) => c.stream.close()));
    });
  },
);
