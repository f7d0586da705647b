/**
 * Deep and huge values in every kind of session update, through the session reducer, the
 * plain transcript (`run --plain`) and the live view's model and item views: nothing may
 * throw, and nothing may take long.
 */
import { PassThrough, Writable } from "node:stream";
import { render } from "ink";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { PlainTranscript } from "../../packages/cli/src/run/plain-transcript.js";
import { ToolCallView } from "../../packages/cli/src/run/tool-call-view.js";
import { UiModel } from "../../packages/cli/src/run/ui-model.js";
import type { SessionUpdate } from "../../packages/acp-kit/src/schema/types.gen.js";
import { SessionStore } from "../../packages/acp-kit/src/session/store.js";

/** An object nested `depth` levels (built without recursion). */
function deep(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { end: true };
  for (let i = 0; i < depth; i++) value = { a: [value] };
  return value;
}

const DEEP = deep(20_000);
const HUGE = "x".repeat(2_000_000);

/** One update of every kind, each carrying a deep `_meta` and a huge string. */
function hostileUpdates(): SessionUpdate[] {
  const _meta = { deep: DEEP, huge: HUGE };
  const text = { type: "text" as const, text: HUGE, _meta };
  return [
    { sessionUpdate: "user_message_chunk", content: text, _meta },
    { sessionUpdate: "agent_message_chunk", content: text, _meta },
    { sessionUpdate: "agent_thought_chunk", content: text, _meta },
    {
      sessionUpdate: "tool_call",
      toolCallId: "t1",
      title: HUGE,
      rawInput: DEEP,
      rawOutput: DEEP,
      content: [{ type: "content", content: text }],
      locations: [{ path: HUGE, _meta }],
      _meta,
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      status: "completed",
      rawOutput: DEEP,
      _meta,
    },
    {
      sessionUpdate: "plan",
      entries: [{ content: HUGE, priority: "high", status: "pending", _meta }],
      _meta,
    },
    {
      sessionUpdate: "plan",
      entries: [{ content: "changed", priority: "high", status: "in_progress", _meta }],
      _meta,
    },
    {
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "x", description: HUGE, _meta }],
      _meta,
    },
    { sessionUpdate: "current_mode_update", currentModeId: HUGE, _meta },
    {
      sessionUpdate: "config_option_update",
      configOptions: [
        {
          id: "o",
          name: HUGE,
          type: "select",
          currentValue: "a",
          options: [{ value: "a", name: "A", _meta }],
          _meta,
        },
      ],
      _meta,
    },
    { sessionUpdate: "session_info_update", title: HUGE, _meta },
    { sessionUpdate: "usage_update", used: 1, size: 2, _meta },
    { sessionUpdate: "some_future_kind", payload: DEEP, _meta } as unknown as SessionUpdate,
  ];
}

describe("deep and huge values in every update", () => {
  it("pass through the reducer, the plain transcript and the live view's model", () => {
    let printed = 0;
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        printed += chunk.length;
        done();
      },
    });
    const transcript = new PlainTranscript(out);
    const ui = new UiModel();
    const store = new SessionStore();
    store.subscribe(transcript.update);
    store.subscribe((event) => {
      ui.settle(event.sessionId, event.state, event.state.thread.length, event.state.plan);
    });
    const start = performance.now();
    for (const update of hostileUpdates()) store.apply({ sessionId: "s", update });
    expect(performance.now() - start).toBeLessThan(5000);
    expect(printed).toBeGreaterThan(3 * HUGE.length);
    const plans = ui.transcript.filter((e) => e.kind === "plan");
    expect(plans).toHaveLength(2);
  });

  it("draw in the live view's tool call view", async () => {
    const store = new SessionStore();
    let state;
    for (const update of hostileUpdates()) state = store.apply({ sessionId: "s", update });
    const call = state?.thread.find((item) => item.type === "tool_call");
    expect(call?.type).toBe("tool_call");
    if (call?.type !== "tool_call") return;
    const stdout = Object.assign(new PassThrough(), { columns: 80, rows: 24, isTTY: false });
    stdout.resume();
    const errors: unknown[] = [];
    const instance = render(
      createElement(ToolCallView, { call, terminals: new Map(), expanded: true }),
      {
        stdout: stdout as unknown as NodeJS.WriteStream,
        debug: true,
        patchConsole: false,
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    instance.unmount();
    await instance.waitUntilExit().catch((error: unknown) => errors.push(error));
    expect(errors).toEqual([]);
  });
});
