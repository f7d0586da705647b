/**
 * `acp-kit trace` as a real child process (the built CLI, dist/cli.js), between
 * a real ClientSideConnection and the fixture agent: transparency, exit status and signals.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../packages/acp-kit/src/index.js";
import { DEFAULT_TRACE_MAX_LINE_BYTES, readTrace } from "../../packages/cli/src/trace/index.js";
import { processAlive } from "../../packages/acp-kit/src/node/process-group.js";
import {
  agentFixture,
  connectTappedClient,
  expectedLines,
  readBytes,
  recordedLines,
  rejection,
  repoRoot,
  text,
  waitFor,
  type TappedClient,
} from "./fixtures/trace-harness.js";

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

interface ProxyProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly client: TappedClient;
  readonly exited: Promise<Exit>;
  readonly out: string;
  readonly teeIn: string;
  readonly teeOut: string;
  stderr(): string;
}

let dir: string;
let runs = 0;
const started: ProxyProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-trace-process-"));
});
afterEach(() => {
  for (const proxy of started.splice(0)) proxy.child.kill("SIGKILL");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function startProxy(agentArgs: string[] = []): ProxyProcess {
  runs++;
  const out = join(dir, `trace-${runs}.ndjson`);
  const teeIn = join(dir, `in-${runs}.bin`);
  const teeOut = join(dir, `out-${runs}.bin`);
  const agent = [process.execPath, agentFixture, "--tee-in", teeIn, "--tee-out", teeOut];
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, "packages", "cli", "dist", "cli.js"),
      "trace",
      "--out",
      out,
      "--",
      ...agent,
      ...agentArgs,
    ],
    { cwd: repoRoot, stdio: "pipe" },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const proxy: ProxyProcess = {
    child,
    client: connectTappedClient(child.stdin, child.stdout),
    exited,
    out,
    teeIn,
    teeOut,
    stderr: () => stderr,
  };
  started.push(proxy);
  return proxy;
}

async function initialized(client: TappedClient): Promise<string> {
  await client.connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await client.connection.newSession({ cwd: dir, mcpServers: [] });
  return sessionId;
}

describe("acp-kit trace as a process", () => {
  it("is byte-transparent and records what crossed it", async () => {
    const proxy = startProxy();
    const { client } = proxy;
    const sessionId = await initialized(client);
    for (const words of ["hello", "ask", "odd", "big 300000"]) {
      const response = await client.connection.prompt({ sessionId, prompt: [text(words)] });
      expect(response.stopReason).toBe("end_turn");
    }
    await client.writeRaw("not json from the client\r\n\n");
    client.end();
    expect(await proxy.exited).toEqual({ code: 0, signal: null });

    const sent = Buffer.concat(client.sent);
    const received = Buffer.concat(client.received);
    expect((await readBytes(proxy.teeIn)).equals(sent)).toBe(true);
    expect((await readBytes(proxy.teeOut)).equals(received)).toBe(true);

    const trace = await readTrace(proxy.out);
    const max = DEFAULT_TRACE_MAX_LINE_BYTES;
    expect(recordedLines(trace.records, "client→agent")).toEqual(expectedLines(sent, max));
    expect(recordedLines(trace.records, "agent→client")).toEqual(expectedLines(received, max));
    expect(trace.header?.pid).toEqual(expect.any(Number));
    expect(trace.exit).toMatchObject({ code: 0, signal: null });
    expect(proxy.stderr()).toContain(`acp-kit trace: recording to ${proxy.out}`);
  });

  it("exits with the agent's exit code", async () => {
    const proxy = startProxy(["--exit-code", "7"]);
    await initialized(proxy.client);
    proxy.client.end();
    expect(await proxy.exited).toEqual({ code: 7, signal: null });
  });

  it("exits when the agent crashes, though its own stdin stays open", async () => {
    const proxy = startProxy();
    const sessionId = await initialized(proxy.client);
    await rejection(proxy.client.connection.prompt({ sessionId, prompt: [text("crash")] }));
    expect(await proxy.exited).toEqual({ code: 3, signal: null });
    expect(proxy.stderr()).toContain("about to crash");
  });

  it("dies by the signal that killed the agent", async () => {
    const proxy = startProxy();
    const sessionId = await initialized(proxy.client);
    await rejection(proxy.client.connection.prompt({ sessionId, prompt: [text("suicide")] }));
    expect(await proxy.exited).toEqual({ code: null, signal: "SIGTERM" });
    expect((await readTrace(proxy.out)).exit).toMatchObject({ code: null, signal: "SIGTERM" });
  });

  it("passes SIGTERM on to the agent's whole process group", async () => {
    const proxy = startProxy(["--grandchild"]);
    await initialized(proxy.client);
    await waitFor(() => /grandchild \d+/.test(proxy.stderr()), 20_000, "the grandchild");
    const grandchild = Number(/grandchild (\d+)/.exec(proxy.stderr())?.[1]);
    expect(processAlive(grandchild)).toBe(true);
    proxy.child.kill("SIGTERM");
    expect(await proxy.exited).toEqual({ code: null, signal: "SIGTERM" });
    await waitFor(() => !processAlive(grandchild), 10_000, "the grandchild to be gone");
    const trace = await readTrace(proxy.out);
    const signals = trace.records.flatMap((r) =>
      r.type === "event" && r.event === "signal" ? [r.detail] : [],
    );
    expect(signals).toEqual(["SIGTERM"]);
    expect(trace.exit).toMatchObject({ signal: "SIGTERM" });
  });
});
