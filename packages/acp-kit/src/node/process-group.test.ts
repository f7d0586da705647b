import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { endProcessGroup, groupAlive, type GroupLeader } from "./process-group.js";

vi.mock("node:fs", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:fs")>();
  return { ...original, readdirSync: vi.fn(original.readdirSync) };
});

/** Starts `sh -c script` as the leader of its own group; resolves once it has exited. */
async function exitedLeader(script: string): Promise<GroupLeader> {
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  await gone;
  return {
    pid: child.pid!,
    exited: gone,
    hasExited: () => exited,
    killLeader: (signal) => child.kill(signal),
  };
}

describe.runIf(process.platform === "linux")("endProcessGroup", () => {
  it("ends what the leader left behind, scanning /proc a few times, not on every poll", async () => {
    // The leader exits at once; its helper ignores SIGTERM, so the grace runs out.
    const leader = await exitedLeader("trap '' TERM; sleep 100 & exit 0");
    expect(groupAlive(leader.pid)).toBe(true);
    const scans = vi.mocked(fs.readdirSync);
    scans.mockClear();
    const started = Date.now();
    await endProcessGroup(leader, { graceMs: 1000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(groupAlive(leader.pid)).toBe(false);
    // The first look finds the helper; later looks check it alone; after SIGKILL one more
    // scan finds nothing running (a zombie left for a non-reaping init does not count).
    expect(scans.mock.calls.length).toBeLessThanOrEqual(4);
  });
});
