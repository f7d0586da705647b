/**
 * The live view of `acp-kit run` keeps up with a long turn: it draws once per frame, not
 * once per update. Drawing on every update laid out the live area each time (milliseconds
 * per chunk: 2,000 chunks took 26 s, 8,000 took 72 s); a 40,000-chunk turn now takes
 * about a second. Runs the built CLI in tmux.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const agent = join(repoRoot, "test", "load", "fixtures", "long-turn-agent.mjs");
const sessions: TmuxSession[] = [];

beforeAll(() => {
  if (!hasTmux()) throw new Error("tmux is needed for the CLI's terminal tests");
  if (!existsSync(cli))
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

/** Runs a turn of `count` items of `mode` in the live view; resolves with its duration. */
async function liveTurn(mode: "chunks" | "tools", count: number): Promise<number> {
  const node = shellQuote(process.execPath);
  const t = TmuxSession.start(
    `${node} ${shellQuote(cli)} run -- ${node} ${shellQuote(agent)} ${mode} ${count}`,
    { cwd: repoRoot, width: 100, height: 40, env: {} },
  );
  sessions.push(t);
  await t.waitFor("long-turn 0.0.1");
  await t.waitFor("type a message");
  const start = performance.now();
  t.send("go");
  await t.waitFor(`long turn done after ${count}`, 90_000);
  return performance.now() - start;
}

describe("the live view during a long turn", { timeout: 120_000 }, () => {
  it("shows the end of a 40,000-chunk turn in seconds, not minutes", async () => {
    const ms = await liveTurn("chunks", 40_000);
    // About 1 s here; drawing per update took several minutes. Generous for a shared machine.
    expect(ms).toBeLessThan(30_000);
  });

  it("prints 8,000 finished tool calls in about 4x the time of 2,000", async () => {
    const small = await liveTurn("tools", 2_000);
    const large = await liveTurn("tools", 8_000);
    // Linear is 4x, quadratic 16x.
    expect(large / Math.max(small, 200)).toBeLessThan(8);
  });
});
