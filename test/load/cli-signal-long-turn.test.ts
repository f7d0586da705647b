/**
 * Signals act at once during a long turn: `acp-kit run --plain` streaming a 100,000-chunk
 * turn (or a 20,000-tool-call one) ends within about a second of SIGTERM, with the agent.
 * Runs the built CLI.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const agent = join(repoRoot, "test", "load", "fixtures", "long-turn-agent.mjs");

beforeAll(() => {
  if (!existsSync(cli))
    throw new Error("Run `npm run build` first: these tests run the built CLI.");
});

/** True while `pid` runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a turn of `count` items of `mode`, sends SIGTERM once `afterChars` characters
 * were printed; resolves with the exit code, how long the exit took after the signal, and
 * the agent's pid.
 */
function termMidTurn(
  mode: "chunks" | "tools",
  count: number,
  afterChars: number,
): Promise<{ code: number | null; ms: number; agentPid: number; printed: number }> {
  const child = spawn(
    process.execPath,
    [cli, "run", "--plain", "--", process.execPath, agent, mode, String(count)],
    { cwd: repoRoot, env: { ...process.env, NO_COLOR: "1" }, stdio: "pipe" },
  );
  let printed = 0;
  let head = "";
  let sentAt: number | undefined;
  let prompted = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no exit within 60 s (printed ${printed}):\n${head}`));
    }, 60_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      printed += chunk.length;
      if (head.length < 4000) head += chunk;
      if (!prompted && head.includes("connected to")) {
        prompted = true;
        child.stdin.write("go\n");
      }
      if (sentAt === undefined && printed >= afterChars) {
        sentAt = performance.now();
        child.kill("SIGTERM");
      }
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const agentPid = Number(/long turn \(pid (\d+)\)/.exec(head)?.[1]);
      resolve({ code, ms: performance.now() - (sentAt ?? NaN), agentPid, printed });
    });
  });
}

describe("signals during a long turn (run --plain)", { timeout: 120_000 }, () => {
  it("SIGTERM ends a 100,000-chunk turn within about a second", async () => {
    // 100,000 chunks print 500,000 characters: the signal comes a fifth of the way in.
    const { code, ms, agentPid, printed } = await termMidTurn("chunks", 100_000, 100_000);
    expect(code).toBe(143);
    expect(printed).toBeLessThan(500_000); // the turn did not run to its end
    // 1 s is the requirement; the margin is for a loaded machine, not for throughput.
    expect(ms).toBeLessThan(1500);
    expect(agentPid).toBeGreaterThan(0);
    // Ended before the CLI exits; an instant for it to be reaped.
    await vi.waitFor(() => expect(alive(agentPid)).toBe(false), { timeout: 10_000 });
  });

  it("SIGTERM ends a 20,000-tool-call turn late in the turn within about a second", async () => {
    // About 62 characters per tool call: the signal comes past the middle of the turn.
    const { code, ms, printed } = await termMidTurn("tools", 20_000, 700_000);
    expect(code).toBe(143);
    expect(printed).toBeLessThan(1_200_000);
    expect(ms).toBeLessThan(1500);
  });
});
