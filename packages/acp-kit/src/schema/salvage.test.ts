import { describe, expect, it } from "vitest";
import { rawPeer, tick } from "../../../../test/support/raw-peer.js";
import { ClientSideConnection, type SessionNotification } from "../index.js";
import { salvage } from "./salvage.js";
import { validate } from "./validate.js";
import { DEF_VALIDATORS } from "./validators.gen.js";

const V = DEF_VALIDATORS;

describe("strict validation", () => {
  it("applies to its own run only: the validators the engine calls stay lenient", () => {
    const future = { sessionId: "s", update: { sessionUpdate: "hologram", beams: 3 } };
    expect(validate("SessionNotification", future, { strict: true }).ok).toBe(false);
    // The connection calls the generated validators directly for its fast check.
    expect(V.SessionNotification(future, undefined)).toBe(true);
  });
});

describe("salvage (the reference decoder's leniency)", () => {
  it("drops invalid optional fields marked default-on-error, keeping the rest", () => {
    const value = {
      sessionId: "s",
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "Read",
        kind: "teleport",
        _meta: "oops",
      },
    };
    const out = salvage(V.SessionNotification, value);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.value).toEqual({
      sessionId: "s",
      update: { sessionUpdate: "tool_call", toolCallId: "t", title: "Read" },
    });
    expect(out.repaired.map((r) => r.path).sort()).toEqual(["/update/_meta", "/update/kind"]);
  });

  it("skips invalid items of lists marked skip-invalid-items", () => {
    const value = {
      sessionUpdate: "tool_call",
      toolCallId: "t",
      title: "Edit",
      content: [
        { type: "content", content: { type: "text", text: "ok 1" } },
        { type: "diff", path: 5, newText: "x" },
        { type: "content", content: { type: "text", text: "ok 2" } },
        { type: "diff", newText: "missing path" },
      ],
      locations: [{ path: "/a" }, { line: 3 }],
    };
    const out = salvage(V.ToolCall, value);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.value).toMatchObject({
      content: [
        { type: "content", content: { type: "text", text: "ok 1" } },
        { type: "content", content: { type: "text", text: "ok 2" } },
      ],
      locations: [{ path: "/a" }],
    });
  });

  it("resets null to an empty list or map where the schema says default-on-null", () => {
    const out = salvage(V.NewSessionRequest, {
      cwd: "/w",
      mcpServers: null,
      additionalDirectories: null,
    });
    expect(out).toMatchObject({
      ok: true,
      value: { cwd: "/w", mcpServers: [], additionalDirectories: [] },
    });
    const terminal = salvage(V.AuthMethod, {
      type: "terminal",
      id: "login",
      name: "Log in",
      env: null,
    });
    expect(terminal).toMatchObject({ ok: true, value: { env: {} } });
  });

  it("repairs long lists in one pass and gives up beyond its repair budget", () => {
    const item = (i: number) =>
      i % 2 === 0
        ? { type: "content", content: { type: "text", text: `ok ${i}` } }
        : { type: "diff", path: i };
    const big = {
      toolCallId: "t",
      title: "T",
      content: Array.from({ length: 9000 }, (_, i) => item(i)),
    };
    const out = salvage(V.ToolCall, big);
    expect(out.ok).toBe(true);
    if (out.ok) {
      expect((out.value as { content: unknown[] }).content).toHaveLength(4500);
      expect(out.repaired.at(-1)?.message).toMatch(/more repairs/);
    }
    const hostile = {
      toolCallId: "t",
      title: "T",
      content: Array.from({ length: 30000 }, () => 1),
    };
    expect(salvage(V.ToolCall, hostile).ok).toBe(false);
  });

  it("does not repair required fields", () => {
    const out = salvage(V.SessionNotification, {
      sessionId: "s",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: 1 } },
    });
    expect(out).toMatchObject({ ok: false, issues: [{ path: "/update/content/text" }] });
  });
});

describe("lenient connections", () => {
  const toolCallWithBadKind = {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: "s",
      update: { sessionUpdate: "tool_call", toolCallId: "t", title: "T", kind: 42 },
    },
  };

  it("deliver repaired notifications and warn about the repair (default)", async () => {
    const peer = rawPeer();
    const seen: SessionNotification[] = [];
    const warnings: string[] = [];
    new ClientSideConnection(
      () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: (n) => void seen.push(n),
      }),
      peer.stream,
      { logger: { warn: (m) => warnings.push(m) } },
    );
    await peer.write(toolCallWithBadKind);
    await tick(5);
    expect(seen).toEqual([
      { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "t", title: "T" } },
    ]);
    expect(warnings.some((w) => w.includes("Repaired"))).toBe(true);
  });

  it("with lenient: false, drop them instead", async () => {
    const peer = rawPeer();
    const seen: SessionNotification[] = [];
    new ClientSideConnection(
      () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: (n) => void seen.push(n),
      }),
      peer.stream,
      { lenient: false },
    );
    await peer.write(toolCallWithBadKind);
    await tick(5);
    expect(seen).toEqual([]);
  });
});
