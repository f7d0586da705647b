import { spawn } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../../test/support/temp-dir.js";
import {
  agentKey,
  AmbiguousSessionError,
  defaultStateDir,
  findSession,
  RecentSessions,
  SessionListUnusableError,
} from "./recent-sessions.js";

const repoRoot = new URL("../../../", import.meta.url).pathname;
const at = (minute: number): Date => new Date(Date.UTC(2026, 0, 1, 0, minute));

describe("defaultStateDir", () => {
  it("follows ACP_KIT_STATE_DIR, XDG_STATE_HOME, then ~/.local/state; LOCALAPPDATA on Windows", () => {
    expect(defaultStateDir({ ACP_KIT_STATE_DIR: "/tmp/s", HOME: "/h" }, "linux")).toBe("/tmp/s");
    expect(defaultStateDir({ XDG_STATE_HOME: "/x", HOME: "/h" }, "linux")).toBe("/x/acp-kit");
    expect(defaultStateDir({ XDG_STATE_HOME: "rel", HOME: "/h" }, "linux")).toBe(
      "/h/.local/state/acp-kit",
    );
    expect(defaultStateDir({ HOME: "/h" }, "darwin")).toBe("/h/.local/state/acp-kit");
    expect(defaultStateDir({ LOCALAPPDATA: "C:\\L", USERPROFILE: "C:\\U" }, "win32")).toContain(
      "acp-kit",
    );
  });
});

describe("agentKey", () => {
  it("keeps names and command lines, and drops credentials and queries from URLs", () => {
    expect(agentKey("claude")).toBe("claude");
    expect(agentKey("node agent.js --x")).toBe("node agent.js --x");
    expect(agentKey("https://me:secret@host:8787/acp?token=abc")).toBe("https://host:8787/acp");
  });
});

describe("RecentSessions", () => {
  it("remembers sessions per agent and directory, most recent first, with names and titles", async () => {
    const store = new RecentSessions({ dir: testTempDir("acp-kit-state-") });
    await store.remember({ agent: "a", cwd: "/p", sessionId: "s1" }, at(1));
    await store.remember({ agent: "a", cwd: "/p", sessionId: "s2", name: "work" }, at(2));
    await store.remember({ agent: "b", cwd: "/p", sessionId: "s3" }, at(3));
    await store.remember({ agent: "a", cwd: "/q", sessionId: "s4" }, at(4));
    await store.remember({ agent: "a", cwd: "/p", sessionId: "s1", title: "Fix it" }, at(5));
    const list = await store.list("a", "/p");
    expect(list.map((r) => r.sessionId)).toEqual(["s1", "s2"]);
    expect(list[0]).toEqual({
      agent: "a",
      cwd: "/p",
      sessionId: "s1",
      title: "Fix it",
      createdAt: at(1).toISOString(),
      lastUsedAt: at(5).toISOString(),
    });
    expect(list[1]?.name).toBe("work");
    // A name moves to the session it is given to now.
    await store.remember({ agent: "a", cwd: "/p", sessionId: "s1", name: "work" }, at(6));
    const renamed = await store.list("a", "/p");
    expect(renamed.map((r) => [r.sessionId, r.name])).toEqual([
      ["s1", "work"],
      ["s2", undefined],
    ]);
  });

  it("keeps the most recently used sessions beyond its limit", async () => {
    const store = new RecentSessions({ dir: testTempDir("acp-kit-state-"), maxRecords: 3 });
    for (let i = 0; i < 5; i++) {
      await store.remember({ agent: "a", cwd: "/p", sessionId: `s${i}` }, at(i));
    }
    await store.remember({ agent: "a", cwd: "/p", sessionId: "s2" }, at(10));
    expect((await store.all()).map((r) => r.sessionId)).toEqual(["s2", "s4", "s3"]);
  });

  it("writes through a temporary file and a rename: no partial file, no leftovers", async () => {
    const dir = testTempDir("acp-kit-state-");
    const store = new RecentSessions({ dir });
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) {
      writes.push(
        store.remember({ agent: "a", cwd: "/p", sessionId: `s${i}`, title: "x".repeat(500) }),
      );
    }
    // While they run, every read of the file sees a whole store.
    const state = { finished: false };
    const written = Promise.all(writes).then(() => (state.finished = true));
    let reads = 0;
    const reading = (async () => {
      while (!state.finished) {
        if (existsSync(join(dir, "sessions.json"))) {
          const text = readFileSync(join(dir, "sessions.json"), "utf8");
          expect(() => JSON.parse(text) as unknown).not.toThrow();
          reads++;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await Promise.all([written, reading]);
    expect(reads).toBeGreaterThan(0);
    expect(await store.all()).toHaveLength(40);
    expect(readdirSync(dir)).toEqual(["sessions.json"]);
  });

  it("sets a corrupt file aside with a warning and starts afresh", async () => {
    const dir = testTempDir("acp-kit-state-");
    writeFileSync(join(dir, "sessions.json"), '{"version": 1, "sessions": [');
    const warnings: string[] = [];
    const store = new RecentSessions({ dir, warn: (m) => warnings.push(m) });
    expect(await store.all()).toEqual([]);
    expect(warnings[0]).toMatch(/unreadable/);
    await store.remember({ agent: "a", cwd: "/p", sessionId: "s1" });
    expect((await store.all()).map((r) => r.sessionId)).toEqual(["s1"]);
    expect(readFileSync(join(dir, "sessions.json.corrupt"), "utf8")).toContain('"sessions": [');
    expect(warnings.some((w) => w.includes("sessions.json.corrupt"))).toBe(true);
    // A file of another shape, and records missing fields, are not trusted either.
    writeFileSync(
      join(dir, "sessions.json"),
      JSON.stringify({
        version: 1,
        sessions: [
          { agent: "a" },
          ...(JSON.parse(readFileSync(join(dir, "sessions.json"), "utf8")) as { sessions: [] })
            .sessions,
        ],
      }),
    );
    expect((await store.all()).map((r) => r.sessionId)).toEqual(["s1"]);
  });

  it("leaves a directory, a socket or a path through a file alone: unusable, said once", async () => {
    const cases: [string, (dir: string) => Promise<() => Promise<void>>, RegExp][] = [
      [
        "directory",
        (dir) => {
          mkdirSync(join(dir, "sessions.json"));
          return Promise.resolve(() => {
            expect(lstatSync(join(dir, "sessions.json")).isDirectory()).toBe(true);
            return Promise.resolve();
          });
        },
        /is a directory, not a file/,
      ],
      [
        "socket",
        async (dir) => {
          const server = createServer();
          await new Promise<void>((resolve) => server.listen(join(dir, "sessions.json"), resolve));
          return async () => {
            expect(lstatSync(join(dir, "sessions.json")).isSocket()).toBe(true);
            await new Promise((resolve) => server.close(resolve));
          };
        },
        /is a socket, not a file/,
      ],
    ];
    for (const [, make, said] of cases) {
      const dir = testTempDir("acp-kit-state-");
      const check = await make(dir);
      const warnings: string[] = [];
      const store = new RecentSessions({ dir, warn: (m) => warnings.push(m) });
      await expect(store.all()).rejects.toThrow(SessionListUnusableError);
      await expect(store.all()).rejects.toThrow(said);
      expect(await store.list("a", "/p")).toEqual([]);
      await store.remember({ agent: "a", cwd: "/p", sessionId: "s1" });
      await store.remember({ agent: "a", cwd: "/p", sessionId: "s1" });
      await store.forget("a", "/p", "s1");
      // One warning, however often the list is used.
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(said);
      expect(warnings[0]).toContain("sessions are not remembered until it is moved away");
      expect(readdirSync(dir)).toEqual(["sessions.json"]);
      await check();
    }
    // The state directory's path runs through a file.
    const file = join(testTempDir("acp-kit-state-"), "not-a-dir");
    writeFileSync(file, "");
    const store = new RecentSessions({ dir: file });
    await expect(store.all()).rejects.toThrow(/cannot be opened \(ENOTDIR/);
  });

  it("takes over a lock left by a process that died", async () => {
    const dir = testTempDir("acp-kit-state-");
    const lock = join(dir, "sessions.json.lock");
    writeFileSync(lock, "");
    const { utimesSync } = await import("node:fs");
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const store = new RecentSessions({ dir, lockTimeoutMs: 1000 });
    await store.remember({ agent: "a", cwd: "/p", sessionId: "s1" });
    expect(await store.all()).toHaveLength(1);
    expect(existsSync(lock)).toBe(false);
  });

  it("warns instead of failing when the lock is held too long", async () => {
    const dir = testTempDir("acp-kit-state-");
    writeFileSync(join(dir, "sessions.json.lock"), "");
    const warnings: string[] = [];
    const store = new RecentSessions({ dir, lockTimeoutMs: 50, warn: (m) => warnings.push(m) });
    await store.remember({ agent: "a", cwd: "/p", sessionId: "s1" });
    expect(warnings[0]).toMatch(/could not save .* holds its lock/);
  });

  it("loses no change when two processes write at once", async () => {
    const dir = testTempDir("acp-kit-state-");
    const script = join(repoRoot, "test", "cli", "fixtures", "remember-many.ts");
    const writer = (tag: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", script, dir, tag, "90"], {
          cwd: repoRoot,
          stdio: ["ignore", "ignore", "pipe"],
        });
        let stderr = "";
        child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stderr }));
      });
    const results = await Promise.all([writer("x"), writer("y")]);
    expect(results).toEqual([
      { code: 0, stderr: "" },
      { code: 0, stderr: "" },
    ]);
    const ids = (await new RecentSessions({ dir }).all()).map((r) => r.sessionId);
    expect(ids).toHaveLength(180);
    expect(new Set(ids).size).toBe(180);
    expect(readdirSync(dir)).toEqual(["sessions.json"]);
  }, 60_000);
});

describe("findSession", () => {
  const record = (sessionId: string, name?: string) => ({
    agent: "a",
    cwd: "/p",
    sessionId,
    ...(name === undefined ? {} : { name }),
    createdAt: "",
    lastUsedAt: "",
  });
  const records = [record("abc-123", "work"), record("abd-456"), record("xyz")];

  it("finds an exact id, a name, or a unique start of an id (also among the agent's)", () => {
    expect(findSession("xyz", records)).toBe("xyz");
    expect(findSession("work", records)).toBe("abc-123");
    expect(findSession("abd", records)).toBe("abd-456");
    expect(findSession("qq", records, ["qq-789"])).toBe("qq-789");
    expect(findSession("nope", records)).toBeUndefined();
  });

  it("refuses a start that fits several ids", () => {
    expect(() => findSession("ab", records)).toThrow(AmbiguousSessionError);
  });
});
