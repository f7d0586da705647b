import { describe, expect, it } from "vitest";
import { RequestError } from "../index.js";
import { SessionRegistry, sessionNotFound } from "./session-registry.js";

describe("SessionRegistry", () => {
  it("creates sessions with unique random hex ids and keeps their state", () => {
    const sessions = new SessionRegistry<{ id: string; turns: number }>();
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const { sessionId, state } = sessions.create((id) => ({ id, turns: 0 }));
      expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
      expect(state.id).toBe(sessionId);
      ids.add(sessionId);
    }
    expect(ids.size).toBe(50);
    expect(sessions.size).toBe(50);
    const [first] = ids;
    if (first === undefined) throw new Error("no session");
    sessions.get(first).turns += 1;
    expect(sessions.get(first).turns).toBe(1);
  });

  it("asks again when the id generator repeats an id in use", () => {
    const queue = ["a", "a", "b"];
    const sessions = new SessionRegistry<number>({ newId: () => queue.shift() ?? "z" });
    expect(sessions.create(() => 1).sessionId).toBe("a");
    expect(sessions.create(() => 2).sessionId).toBe("b");
    const stuck = new SessionRegistry<number>({ newId: () => "same" });
    stuck.create(() => 1);
    expect(() => stuck.create(() => 2)).toThrow(/repeating/);
  });

  it("answers unknown ids with -32002 and the session id", () => {
    const sessions = new SessionRegistry<string>();
    let error: unknown;
    try {
      sessions.get("missing");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).toErrorResponse()).toEqual({
      code: -32002,
      message: "Session not found: missing",
      data: { sessionId: "missing" },
    });
    expect(sessionNotFound("x").data).toEqual({ sessionId: "x" });
    expect(sessions.find("missing")).toBeUndefined();
  });

  it("stores client-chosen ids, and lists, finds and deletes sessions", () => {
    const sessions = new SessionRegistry<string | undefined>();
    sessions.set("loaded", "state");
    sessions.set("empty", undefined); // an undefined state is still a session
    expect(sessions.get("loaded")).toBe("state");
    expect(sessions.get("empty")).toBeUndefined();
    expect(sessions.has("empty")).toBe(true);
    expect([...sessions.entries()]).toEqual([
      ["loaded", "state"],
      ["empty", undefined],
    ]);
    expect(sessions.delete("loaded")).toBe(true);
    expect(sessions.delete("loaded")).toBe(false);
    expect(() => sessions.get("loaded")).toThrow("Session not found: loaded");
  });
});
