/**
 * Keys that arrive together, in a real terminal (tmux): `send-keys Down Enter` writes both
 * keys in one go, as SSH, mosh or type-ahead do. The demo's permission box must act on the
 * option highlighted when Enter came.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const sessions: TmuxSession[] = [];

function demo(): TmuxSession {
  const session = TmuxSession.start(
    `${shellQuote(process.execPath)} ${shellQuote(cli)} demo --fast`,
    { cwd: repoRoot, width: 100, height: 45 },
  );
  sessions.push(session);
  return session;
}

beforeAll(() => {
  if (!hasTmux())
    throw new Error("tmux is needed for the CLI's terminal tests (apt-get install tmux)");
  if (!existsSync(cli))
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

/** Starts the demo and waits for its permission box; resolves with its directory. */
async function atPermissionBox(t: TmuxSession): Promise<string> {
  const intro = await t.waitFor(/acp-kit demo: a scripted agent working in (\S+)/, 30_000);
  const dir = /working in (\S+)/.exec(intro)?.[1] ?? "";
  await t.waitFor("❯ 1. Allow", 30_000);
  return dir;
}

describe("a permission box fed keys in one write", () => {
  it("Down Enter rejects: the edit is not written", async () => {
    const t = demo();
    const dir = await atPermissionBox(t);
    t.keys("Down", "Enter");
    await t.waitFor("No problem: I left your files alone.", 30_000);
    expect(existsSync(join(dir, "acp-kit-demo.md"))).toBe(false);
    expect(t.screen()).not.toContain("acp-kit-demo.md is written");
  });

  it("Down Down Enter comes back to Allow: the edit is written", async () => {
    const t = demo();
    const dir = await atPermissionBox(t);
    t.keys("Down", "Down", "Enter");
    await t.waitFor("acp-kit-demo.md is written", 30_000);
    expect(readFileSync(join(dir, "acp-kit-demo.md"), "utf8")).toContain("# acp-kit demo");
  });
});
