/**
 * `acp-kit check --protocol auto|1|2`, run from the built CLI against real agent
 * processes: the scripted agent in v2 (all pass, the agreed version in the report), a
 * broken v2 agent (exit code 50, the failed check named), and a bad flag value (usage).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const conformant = join(repoRoot, "examples", "scenarios", "conformant.json");

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Report {
  ok: boolean;
  protocolVersion: number;
  agreedProtocolVersion?: number;
  summary: { passed: number; total: number; mustFailed: number };
  checks: { id: string; status: string; class: string }[];
}

beforeAll(() => {
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
  }
});

describe("acp-kit check --protocol", { timeout: 90_000 }, () => {
  it("2 and auto pass the scripted agent speaking v2, saying which version was agreed", async () => {
    const agent = ["--", process.execPath, scriptedAgent, "--no-delays", "--protocol", "2"];
    const [two, auto] = await Promise.all([
      runCli(["check", "--json", "--protocol", "2", ...agent, conformant]),
      runCli(["check", "--json", ...agent, conformant]),
    ]);
    for (const result of [two, auto]) {
      const report = JSON.parse(result.stdout) as Report;
      expect(report.checks.filter((c) => c.status !== "pass")).toEqual([]);
      expect(report).toMatchObject({ ok: true, protocolVersion: 2, agreedProtocolVersion: 2 });
      expect(report.summary).toMatchObject({ passed: 20, total: 20, mustFailed: 0 });
      expect(report.checks.map((c) => c.id)).toContain("v2-prompt-turn");
      expect(result.code).toBe(0);
    }
    const text = await runCli(["check", "--protocol", "v2", ...agent, conformant]);
    expect(text.stdout).toContain("acp-kit conformance report (protocol v2,");
    expect(text.stdout).toMatch(/^PASS +negotiation .*\n +note: The agent agreed to version 2\.$/m);
    expect(text.stderr).toContain("✓ session/cancel ends the foreground work idle `cancelled`");
    expect(text.code).toBe(0);
  });

  it("fails a v2 agent that ignores session/cancel with exit code 50", async () => {
    const result = await runCli([
      "check",
      "--protocol",
      "2",
      "--",
      process.execPath,
      "--import",
      "tsx",
      "test/testing/fixtures/agent-v2-faulty.ts",
      "--fault=cancel-ignored",
    ]);
    expect(result.stdout).toMatch(/^FAIL MUST +v2-cancel .*\[R207\]$/m);
    expect(result.stdout).toContain("see docs/checklist.md#v2-cancel");
    expect(result.stdout).toContain("NOT CONFORMANT");
    expect(result.code).toBe(50);
  });

  it("rejects a version it does not know (usage error)", async () => {
    const result = await runCli(["check", "--protocol", "3", "--", process.execPath, "x.js"]);
    expect(result.stderr).toContain("Give auto, 1 or 2.");
    expect(result.code).toBe(2);
  });
});
