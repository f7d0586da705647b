import { describe, expect, it } from "vitest";
import { RecentSessions } from "./recent-sessions.js";
import { age, mergeSessions, resumeCommand, type SessionMemory } from "./session-memory.js";

const memory = (runArgs: string[]): SessionMemory => ({
  store: new RecentSessions({ dir: "/nonexistent" }),
  agent: "a",
  cwd: "/p",
  runArgs,
});

describe("resumeCommand", () => {
  it("puts --resume after a name and before `--`, quoting what the shell would split", () => {
    expect(resumeCommand(memory(["claude"]), "abc")).toBe("acp-kit run claude --resume abc");
    expect(resumeCommand(memory(["claude", "--cwd", "/my dir"]), "abc")).toBe(
      "acp-kit run claude --cwd '/my dir' --resume abc",
    );
    expect(resumeCommand(memory(["--", "node", "agent.js", "--it's"]), "abc")).toBe(
      "acp-kit run --resume abc -- node agent.js '--it'\\''s'",
    );
  });
});

describe("mergeSessions", () => {
  it("joins remembered and listed sessions by id, most recent first", () => {
    const merged = mergeSessions(
      [
        {
          agent: "a",
          cwd: "/p",
          sessionId: "s1",
          name: "work",
          createdAt: "2026-01-01T00:00:00Z",
          lastUsedAt: "2026-01-03T00:00:00Z",
        },
      ],
      [
        { sessionId: "s1", cwd: "/p", title: "From the agent", updatedAt: "2026-01-05T00:00:00Z" },
        { sessionId: "s2", cwd: "/p", title: null, updatedAt: "2026-01-04T00:00:00Z" },
        { sessionId: "s3", cwd: "/p" },
      ],
    );
    expect(merged).toEqual([
      {
        sessionId: "s1",
        cwd: "/p",
        name: "work",
        title: "From the agent",
        time: "2026-01-05T00:00:00Z",
      },
      { sessionId: "s2", cwd: "/p", time: "2026-01-04T00:00:00Z" },
      { sessionId: "s3", cwd: "/p" },
    ]);
  });
});

describe("age", () => {
  it("says how long ago, in a few characters", () => {
    const now = new Date("2026-01-10T12:00:00Z");
    expect(age("2026-01-10T11:59:30Z", now)).toBe("just now");
    expect(age("2026-01-10T11:15:00Z", now)).toBe("45 min ago");
    expect(age("2026-01-10T07:00:00Z", now)).toBe("5 h ago");
    expect(age("2026-01-09T11:00:00Z", now)).toBe("1 day ago");
    expect(age("2026-01-01T12:00:00Z", now)).toBe("9 days ago");
    expect(age(undefined, now)).toBe("");
    expect(age("not a date", now)).toBe("");
  });
});
