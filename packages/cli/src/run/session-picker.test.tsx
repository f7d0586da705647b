/**
 * The `run --resume` picker fed keys as terminals deliver them: several in one chunk. The
 * session opened is the one highlighted when Enter came; Esc leaves; the first row is a
 * new session.
 */
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../session-memory.js";
import { OpenSessionPicker, SessionPickerSlot, type SessionPick } from "./session-picker.js";
import { DOWN, renderWithKeys, terminal, UP } from "../../../../test/support/ink-terminal.js";

const hoursAgo = (h: number): string => new Date(Date.now() - h * 3_600_000).toISOString();
const entries: SessionEntry[] = [
  { sessionId: "s-1", title: "Fix the parser", cwd: "/p", time: hoursAgo(2) },
  { sessionId: "s-2", name: "review", cwd: "/p", time: hoursAgo(50) },
  { sessionId: "s-3", cwd: "/other" },
];

async function pickWith(...chunks: string[]): Promise<{ pick: SessionPick; output: string }> {
  const t = terminal();
  const slot = new SessionPickerSlot();
  const app = renderWithKeys(<OpenSessionPicker slot={slot} cwd="/p" />, {
    stdout: t.stdout,
    stdin: t.stdin,
    exitOnCtrlC: false,
    patchConsole: false,
    debug: true,
  });
  const picked = slot.pick(entries);
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const chunk of chunks) t.chunk(chunk);
  const pick = await picked;
  await new Promise((resolve) => setTimeout(resolve, 20));
  app.unmount();
  return { pick, output: t.output() };
}

describe("SessionPicker", () => {
  it("shows title or name or id, age, and another directory", async () => {
    const { output } = await pickWith("\u001b");
    expect(output).toContain("Resume a session (3 here)");
    // The most recent session is highlighted first.
    expect(output).toContain("  + New session");
    expect(output).toContain("❯ Fix the parser · 2 h ago");
    expect(output).toContain("Fix the parser · 2 h ago");
    expect(output).toContain("review · 2 days ago");
    expect(output).toContain("s-3 · /other");
  });

  it("opens the row highlighted when Enter comes, with every key in one chunk", async () => {
    expect((await pickWith(`${DOWN}\r`)).pick).toEqual({
      type: "session",
      sessionId: "s-2",
    });
    expect((await pickWith(`${DOWN}${DOWN}${DOWN}${UP}\r\r`)).pick).toEqual({
      type: "session",
      sessionId: "s-2",
    });
  });

  it("Enter opens the most recent session; the first row is a new session; Esc leaves", async () => {
    expect((await pickWith("\r")).pick).toEqual({ type: "session", sessionId: "s-1" });
    expect((await pickWith(`${UP}\r`)).pick).toEqual({ type: "new" });
    expect((await pickWith("\u001b")).pick).toEqual({ type: "leave" });
  });
});
