/**
 * The trace views describe ACP v2 traffic readably: the new update kinds, the turn's
 * state, terminals decoded, the v2 requests and answers.
 */
import { describe, expect, it } from "vitest";
import { describeEntry } from "../../packages/cli/src/trace/message-summary.js";
import type { TimelineEntry } from "../../packages/cli/src/trace/trace-timeline.js";

function entry(
  kind: "request" | "notification" | "response",
  method: string,
  payload: unknown,
): TimelineEntry {
  return {
    index: 0,
    record: {} as TimelineEntry["record"],
    kind: kind,
    t: 0,
    dir: "agent→client",
    method,
    id: kind === "notification" ? undefined : 1,
    payload,
    error: undefined,
    truncated: false,
    partner: undefined,
    latencyMs: undefined,
  };
}

const update = (u: Record<string, unknown>) =>
  describeEntry(entry("notification", "session/update", { sessionId: "s", update: u }));

describe("trace descriptions of v2 traffic", () => {
  it("describes the v2 update kinds", () => {
    expect(
      update({
        sessionUpdate: "agent_message",
        messageId: "m1",
        content: [
          { type: "text", text: "Hello" },
          { type: "text", text: "!" },
        ],
      }),
    ).toBe('agent_message m1 "Hello" +1 blocks');
    expect(update({ sessionUpdate: "user_message", messageId: "u1", content: null })).toBe(
      "user_message u1 (cleared)",
    );
    expect(
      update({
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "end_turn",
        background: [],
      }),
    ).toBe("state_update idle end_turn background 0");
    expect(
      update({
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "error",
        error: { code: -32000, message: "Authentication required" },
      }),
    ).toBe('state_update idle error -32000 "Authentication required"');
    expect(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        name: "read_file",
        kind: "read",
        status: "in_progress",
      }),
    ).toBe('tool_call_update t1 read in_progress "read_file"');
    expect(
      update({
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t1",
        content: { type: "content", content: { type: "text", text: "body" } },
      }),
    ).toBe('tool_call_content_chunk t1 "body"');
    expect(
      update({
        sessionUpdate: "terminal_update",
        terminalId: "term",
        command: "npm test",
        exitStatus: { exitCode: 0 },
      }),
    ).toBe('terminal_update term "npm test" exited 0');
    expect(
      update({
        sessionUpdate: "terminal_output_chunk",
        terminalId: "term",
        data: Buffer.from("ok ✅\n").toString("base64"),
      }),
    ).toBe('terminal_output_chunk term "ok ✅ "');
    expect(
      update({
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "p", entries: [{}, {}] },
      }),
    ).toBe("plan_update p 2 entries");
  });

  it("describes the v2 requests and answers", () => {
    expect(
      describeEntry(entry("request", "initialize", { protocolVersion: 2, info: { name: "zed" } })),
    ).toBe("protocolVersion 2 zed");
    expect(
      describeEntry(
        entry("response", "initialize", {
          protocolVersion: 2,
          info: { name: "codex", version: "2.6.0" },
        }),
      ),
    ).toBe("protocolVersion 2 codex 2.6.0");
    expect(describeEntry(entry("response", "session/prompt", { messageId: "u1" }))).toBe(
      "messageId u1",
    );
    expect(describeEntry(entry("request", "auth/login", { methodId: "api-key" }))).toBe("api-key");
    expect(
      describeEntry(
        entry("request", "session/resume", {
          sessionId: "s",
          cwd: "/",
          replayFrom: { type: "start" },
        }),
      ),
    ).toBe("s replay from start");
    expect(
      describeEntry(entry("request", "tool_call/cancel", { sessionId: "s", toolCallId: "t1" })),
    ).toBe("t1");
    expect(
      describeEntry(
        entry("request", "session/request_permission", {
          sessionId: "s",
          title: "Run npm test",
          subject: { type: "command" },
          options: [{}],
        }),
      ),
    ).toBe('"Run npm test" command 1 option');
  });
});
