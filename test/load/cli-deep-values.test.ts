/**
 * Deep and huge values in every kind of session update, through the session reducer, the
 * plain transcript (`run --plain`) and the live view's model and item views: nothing may
 * throw, and nothing may take long. And `prompt --json` (the built CLI) writes every event
 * of a real agent process, however deep.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
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

const DEEP = deep(100_000);
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

/** An agent that answers a prompt with a tool call whose input nests 100,000 levels. */
const DEEP_AGENT = `
const deep = '{"a":['.repeat(100000) + "1" + "]}".repeat(100000);
const send = (s) => process.stdout.write(s + "\\n");
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  const answer = (result) => send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
  if (m.method === "initialize") answer({ protocolVersion: 1, agentCapabilities: {} });
  else if (m.method === "session/new") answer({ sessionId: "s1" });
  else if (m.method === "session/prompt") {
    send('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":' +
      '{"sessionUpdate":"tool_call","toolCallId":"t1","title":"deep","rawInput":' + deep + '}}}');
    answer({ stopReason: "end_turn" });
  } else if (m.id !== undefined) answer({});
});
`;

describe("prompt --json with a value nested 100,000 levels", () => {
  it("writes the update's event whole", () => {
    const cli = new URL("../../packages/cli/dist/cli.js", import.meta.url).pathname;
    if (!existsSync(cli)) throw new Error("Build first (npm run build): the test runs dist/cli.js");
    const result = spawnSync(
      process.execPath,
      [cli, "prompt", "--json", "hi", "--", process.execPath, "-e", DEEP_AGENT],
      { encoding: "utf8", timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; update?: Record<string, unknown> });
    expect(events.map((e) => e.type)).toEqual(["initialize", "session", "update", "stop"]);
    const update = events[2]?.update;
    expect(update?.toolCallId).toBe("t1");
    let depth = 0;
    for (let v = update?.rawInput; typeof v === "object" && v !== null; depth++) {
      v = Array.isArray(v) ? v[0] : (v as Record<string, unknown>).a;
    }
    expect(depth).toBe(200_000);
  });
});
