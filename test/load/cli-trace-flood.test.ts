/**
 * `acp-kit trace` when the editor leaves while the agent floods: the editor closes both
 * pipes, the agent keeps writing tiny lines (JSON, not JSON, on stdout or stderr) and
 * ignores the end of its stdin. The proxy must end it when its grace expires, shedding
 * recording and saying how much it shed, rather than letting recording starve its timers
 * (they fired 7-73 s late). The bounds on time are generous, for a loaded machine: the
 * order of the proxy's events says that the grace, not something else, ended the agent.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTraceProxy } from "../../packages/cli/src/trace/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-load-flood-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const GRACE_MS = 1000;

/** An agent that writes `line` for ever to `stream`, as fast as the pipe takes it. */
function floodAgent(line: string, stream: "stdout" | "stderr"): string {
  const unit = `${line}\n`;
  return (
    `const out = process.${stream};` +
    `const b = Buffer.from(${JSON.stringify(unit)}.repeat(Math.ceil(65536 / ${unit.length})));` +
    `function w() { while (out.write(b)); out.once("drain", w); }` +
    `w(); process.stdin.resume();`
  );
}

const shapes: [string, string, "stdout" | "stderr"][] = [
  ["tiny JSON lines on stdout", "{}", "stdout"],
  ["one-byte non-JSON lines on stdout", "x", "stdout"],
  ["tiny lines on stderr", "e", "stderr"],
];

describe("trace proxy with a flooding agent after the editor left", () => {
  it.each(shapes)("ends the agent within its grace: %s", async (name, line, stream) => {
    const out = join(dir, `${name.replace(/\W+/g, "-")}.ndjson`);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.resume();
    stderr.resume();
    const result = runTraceProxy({
      command: process.execPath,
      args: ["-e", floodAgent(line, stream)],
      out,
      stdin,
      stdout,
      stderr,
      quiet: true,
      stdinGraceMs: GRACE_MS,
      killGraceMs: 1000,
    });
    await sleep(500);
    const closedAt = performance.now();
    stdin.end();
    stdout.destroy();
    stderr.destroy();
    const outcome = await result;
    const took = performance.now() - closedAt;
    expect(outcome.signal ?? outcome.exitCode).toBeTruthy();
    expect(took).toBeLessThan(GRACE_MS + 6000);
    const records = (await readFile(out, "utf8"))
      .trimEnd()
      .split("\n")
      .map((r) => JSON.parse(r) as Record<string, unknown>);
    const events = records.filter((r) => r.type === "event" && r.event !== "dropped");
    expect(events.map((r) => [r.event, r.detail])).toEqual([
      ["stdin-end", undefined],
      ["grace-expired", undefined],
      ["terminate", "SIGTERM"],
    ]);
    // The grace timer fired on time, give or take a loaded machine (not seconds late).
    const [ended, expired] = events.map((r) => Number(r.t));
    expect(Number(expired) - Number(ended)).toBeLessThan(GRACE_MS + 3000);
    const exit = records.at(-1) as { type: string; stats: { shed?: number; dropped: number } };
    expect(exit.type).toBe("exit");
    // Whatever was not recorded is said so, as a count.
    const busy = records.filter((r) => r.event === "dropped" && r.detail === "busy");
    const shedEvents = busy.reduce((sum, r) => sum + Number(r.count), 0);
    expect(shedEvents).toBe(exit.stats.shed ?? 0);
  });
});
