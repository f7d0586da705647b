import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../../../../test/support/temp-dir.js";
import { RecentSessions } from "../../recent-sessions.js";
import { runSessionsForget, runSessionsList } from "./sessions.js";
import { UsageError } from "../../target.js";

const at = (minute: number): Date => new Date(Date.UTC(2026, 0, 1, 0, minute));
const cli = new URL("../../../dist/cli.js", import.meta.url).pathname;

function output(): { out: PassThrough; text: () => string } {
  const out = new PassThrough();
  let text = "";
  out.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  return { out, text: () => text };
}

async function filledStore(dir: string): Promise<RecentSessions> {
  const store = new RecentSessions({ dir });
  await store.remember(
    { agent: "claude", cwd: "/a", sessionId: "s-111", title: "Fix the parser" },
    at(1),
  );
  await store.remember({ agent: "claude", cwd: "/b", sessionId: "s-222", name: "review" }, at(2));
  await store.remember({ agent: "node agent.js", cwd: "/a", sessionId: "t-333" }, at(3));
  await store.flush();
  return store;
}

describe("acp-kit sessions", () => {
  it("lists the sessions of one directory, one agent, or all, newest first", async () => {
    const store = await filledStore(testTempDir("sessions-list"));
    const now = at(10);
    const here = output();
    await runSessionsList({ cwd: "/a", out: here.out, store, now });
    const lines = here.text().split("\n");
    expect(lines[0]).toBe('t-333  "(no title)"  7 min ago  agent node agent.js');
    expect(lines[1]).toBe('s-111  "Fix the parser"  9 min ago  agent claude');
    expect(here.text()).not.toContain("s-222");
    expect(here.text()).toContain("acp-kit run 'node agent.js' --resume ID");

    const claude = output();
    await runSessionsList({ agent: "claude", out: claude.out, store, now });
    expect(claude.text()).toContain('s-222  [review]  "(no title)"  8 min ago  in /b');
    expect(claude.text()).toContain('s-111  "Fix the parser"  9 min ago  in /a');
    expect(claude.text()).not.toContain("t-333");

    const json = output();
    await runSessionsList({ json: true, out: json.out, store, now });
    const records = JSON.parse(json.text()) as { sessionId: string }[];
    expect(records.map((r) => r.sessionId)).toEqual(["t-333", "s-222", "s-111"]);

    const none = output();
    await runSessionsList({ agent: "gemini", cwd: "/a", out: none.out, store, now });
    expect(none.text()).toBe("No remembered sessions of gemini in /a.\n");
  });

  it("forgets one by a start of its id or its name, and refuses what is unclear", async () => {
    const dir = testTempDir("sessions-forget");
    const store = await filledStore(dir);
    const quiet = output();
    await expect(runSessionsForget({ session: "s-", out: quiet.out, store })).rejects.toThrow(
      UsageError,
    );
    await expect(
      runSessionsForget({ session: "nothing", cwd: "/a", out: quiet.out, store }),
    ).rejects.toThrow('No remembered session matches "nothing"');
    const done = output();
    await runSessionsForget({ session: "review", out: done.out, store });
    expect(done.text()).toBe("Forgot session s-222 (claude, /b).\n");
    await runSessionsForget({ session: "s-1", cwd: "/a", out: done.out, store });
    const left = await new RecentSessions({ dir }).all();
    expect(left.map((r) => r.sessionId)).toEqual(["t-333"]);
  });

  it("is a command of the built CLI", async () => {
    if (!existsSync(cli)) throw new Error("Build first (npm run build)");
    const dir = testTempDir("sessions-cli");
    await filledStore(dir);
    const env = { ...process.env, ACP_KIT_STATE_DIR: dir };
    const list = spawnSync(process.execPath, [cli, "sessions", "claude", "--all"], {
      encoding: "utf8",
      env,
    });
    expect(list.status).toBe(0);
    expect(list.stdout).toContain("s-222  [review]");
    const forget = spawnSync(process.execPath, [cli, "sessions", "forget", "s-", "--all"], {
      encoding: "utf8",
      env,
    });
    expect(forget.status).toBe(2);
    expect(forget.stderr).toContain("s-111");
  });
});
