/**
 * agentStdioStream in a real agent process (`fixtures/spawn-console-agent.ts`, run with
 * `node --import tsx`) that writes noise through every stdout path while speaking ACP.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, type LogFields } from "../../packages/acp-kit/src/index.js";
import { spawnAgent } from "../../packages/acp-kit/src/node/spawn/agent.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/spawn-console-agent.ts", import.meta.url));

const NOISE = [
  "noise: console.log",
  "noise: console.info",
  "noise: console.debug",
  "console.dir",
  "noise: process.stdout.write",
];

interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

/**
 * Runs the fixture, sends `initialize` and `session/new` (the second once the first is
 * answered), then ends its stdin and collects everything it wrote.
 */
function run(flags: string[]): Promise<Run> {
  const child = spawn(process.execPath, ["--import", "tsx", fixture, ...flags], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let sentSecond = false;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (!sentSecond && stdout.includes('"id":1,')) {
      sentSecond = true;
      child.stdin.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "session/new",
          params: { cwd: repoRoot, mcpServers: [] },
        }) + "\n",
      );
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} },
    }) + "\n",
  );
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise<Run>((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

describe("agentStdioStream", () => {
  it("keeps stdout clean ndjson: console output goes to stderr", async () => {
    const { stdout, stderr, code } = await run([]);
    expect(code, stderr).toBe(0);
    const lines = stdout.split("\n").filter((line) => line !== "");
    const messages = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: PROTOCOL_VERSION, agentInfo: { name: "console-agent" } },
    });
    expect(messages[1]).toEqual({ jsonrpc: "2.0", id: 2, result: { sessionId: "s-1" } });
    for (const noise of NOISE) {
      expect(stdout).not.toContain(noise);
      expect(stderr).toContain(`${noise} at startup`);
      expect(stderr).toContain(`${noise} in initialize`);
    }
    expect(stderr).toContain("closed");
  }, 40_000);

  it("leaves stdout alone with redirectStdout: false", async () => {
    const { stdout, code, stderr } = await run(["--no-redirect"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("noise: console.log at startup");
    expect(stdout).toContain('"id":1,');
  }, 40_000);

  it("refuses a second stream in the same process", async () => {
    const { stderr } = await run(["--twice"]);
    expect(stderr).toContain("second call: agentStdioStream() was already called");
  }, 40_000);

  it("serves a client connected with spawnAgent, without framing warnings", async () => {
    const warnings: string[] = [];
    const record = (message: string, _fields?: LogFields): void => void warnings.push(message);
    await using agent = await spawnAgent({
      command: process.execPath,
      args: ["--import", "tsx", fixture],
      cwd: repoRoot,
      connection: { logger: { warn: record, error: record } },
    });
    const init = await agent.initialize(undefined, { timeoutMs: 30_000 });
    expect(init.agentInfo?.name).toBe("console-agent");
    await expect(agent.connection.newSession({ cwd: repoRoot, mcpServers: [] })).resolves.toEqual({
      sessionId: "s-1",
    });
    expect(warnings).toEqual([]);
    expect(agent.stderr).toContain("noise: console.log in initialize");
  }, 40_000);
});
