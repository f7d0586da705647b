/**
 * A trace people read: chunks of one message folded into one row (expandable in HTML to
 * the raw messages), the summary first, the agent's colours stripped (terminal) or
 * rendered (HTML), and the client's own SIGTERM at the end taken as a normal end.
 */
import { describe, expect, it } from "vitest";
import { parseTrace } from "../../packages/cli/src/trace/read-trace.js";
import { ansiSpans, foldChunks, stripAnsi } from "../../packages/cli/src/trace/trace-fold.js";
import { renderTraceHtml } from "../../packages/cli/src/trace/trace-html.js";
import { buildTimeline } from "../../packages/cli/src/trace/trace-timeline.js";
import { formatTrace } from "../../packages/cli/src/trace/trace-view.js";

const ESC = String.fromCharCode(27);
const header = {
  type: "header",
  format: "acp-kit-trace",
  version: 1,
  t: 0,
  at: "2026-08-22T10:00:00.000Z",
  command: "node",
  args: ["agent.js"],
  cwd: "/work",
  pid: 42,
  proxyPid: 41,
  maxLineBytes: 1048576,
  recordStderr: true,
};
const stats = {
  messages: { "client→agent": 1, "agent→client": 6 },
  unparsed: { "client→agent": 0, "agent→client": 0 },
  blank: { "client→agent": 0, "agent→client": 0 },
  truncated: 0,
  stderrLines: 1,
  dropped: 0,
};
const line = (t: number, dir: string, msg: unknown) => ({ t, at: "x", dir, msg });
const chunk = (t: number, kind: string, text: string, messageId?: string) =>
  line(t, "agent→client", {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: "s1",
      update: {
        sessionUpdate: kind,
        content: { type: "text", text },
        ...(messageId === undefined ? {} : { messageId }),
      },
    },
  });

function trace(records: unknown[]): string {
  return [header, ...records].map((r) => JSON.stringify(r)).join("\n") + "\n";
}

const turn = [
  line(1, "client→agent", {
    jsonrpc: "2.0",
    id: 1,
    method: "session/prompt",
    params: { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] },
  }),
  chunk(2, "agent_thought_chunk", "Let me "),
  chunk(3, "agent_thought_chunk", "think."),
  chunk(4, "agent_message_chunk", "Hello, "),
  chunk(5, "agent_message_chunk", "wor"),
  chunk(6, "agent_message_chunk", "ld!"),
  chunk(7, "agent_message_chunk", "Another message", "m2"),
  {
    t: 7.5,
    at: "x",
    dir: "agent-stderr",
    text: `${ESC}[31merror:${ESC}[0m ${ESC}[1mdisk${ESC}[22m full`,
  },
  line(8, "agent→client", { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } }),
];

describe("folding chunks", () => {
  it("folds consecutive chunks of one message into one row; a new kind or message id starts another", () => {
    const timeline = buildTimeline(parseTrace(trace(turn)));
    const rows = foldChunks(timeline.entries);
    const summary = rows.map((r) =>
      r.kind === "entry" ? r.entry.kind : `${r.update}×${r.entries.length}:${r.text}`,
    );
    expect(summary).toEqual([
      "header",
      "request",
      "agent_thought_chunk×2:Let me think.",
      "agent_message_chunk×3:Hello, world!",
      "notification", // a chunk of another message, alone: a row of its own
      "stderr",
      "response",
    ]);
  });

  it("shows one line per message in the terminal view, after the summary", () => {
    const view = formatTrace(parseTrace(trace(turn)), { color: false });
    expect(view.startsWith("── summary ──")).toBe(true);
    const timeline = view.slice(view.indexOf("\n\n") + 2);
    expect(timeline).toContain(
      'session/update agent_message_chunk ×3 in 2.0 ms "Hello, world!" (13 B)',
    );
    expect(timeline).toContain('session/update agent_thought_chunk ×2 in 1.0 ms "Let me think."');
    expect(timeline.match(/agent_message_chunk/g)).toHaveLength(2);
    const unfolded = formatTrace(parseTrace(trace(turn)), { foldChunks: false, summary: false });
    expect(unfolded.match(/agent_message_chunk/g)).toHaveLength(4);
  });

  it("keeps a folded row expandable to its raw messages in HTML, with the summary first", () => {
    const html = renderTraceHtml(parseTrace(trace(turn)));
    expect(html.indexOf('id="summary"')).toBeLessThan(html.indexOf('id="timeline"'));
    const row =
      /<div class="row k-notification k-chunks[^"]*" id="e4-run"[\s\S]*?<\/details><\/div>/.exec(
        html,
      )?.[0] ?? "";
    expect(row).toContain("agent_message_chunk ×3");
    expect(row).toContain('<div class="chunk-text">Hello, world!</div>');
    expect(row).toContain("3 raw messages:");
    expect(row.match(/sessionUpdate/g)).toHaveLength(3);
  });
});

describe("the agent's colours in stderr", () => {
  it("are stripped in the terminal view", () => {
    const view = formatTrace(parseTrace(trace(turn)), { color: false });
    expect(view).toContain("│ error: disk full");
    expect(view).not.toContain("[31m");
    expect(stripAnsi(`${ESC}]0;title${String.fromCharCode(7)}a${ESC}[2Kb`)).toBe("ab");
  });

  it("are rendered in HTML as classes, with the text escaped", () => {
    const html = renderTraceHtml(parseTrace(trace(turn)));
    expect(html).toContain('<span class="fg-1">error:</span> <span class="bold">disk</span> full');
    expect(html).not.toContain("[31m");
    expect(ansiSpans(`${ESC}[38;5;200;1m<b>${ESC}[0m`)).toEqual([
      { text: "<b>", classes: ["bold"] },
    ]);
  });
});

describe("how the agent ended", () => {
  const ended = (events: unknown[], exit: { code: number | null; signal: string | null }) =>
    parseTrace(trace([...turn, ...events, { type: "exit", t: 20, at: "x", ...exit, stats }]));
  const signal = { type: "event", t: 10, at: "x", event: "signal", detail: "SIGTERM" };
  const terminate = { type: "event", t: 10.5, at: "x", event: "terminate", detail: "SIGTERM" };

  it("is a normal end when the client's SIGTERM ended it", () => {
    const trace1 = ended([signal, terminate], { code: null, signal: "SIGTERM" });
    const view = formatTrace(trace1, { color: true });
    expect(view).toContain("the agent ended by SIGTERM, as the client asked (a normal end)");
    expect(view).not.toMatch(new RegExp(`${ESC}\\[31m[^\\n]*SIGTERM`));
    const html = renderTraceHtml(trace1);
    expect(html).not.toMatch(/class="err">[^<]*SIGTERM/);
    expect(html).toContain("as the client asked (a normal end)");
    // Exiting 143 after the signal is the same.
    expect(formatTrace(ended([signal], { code: 143, signal: null }))).toContain(
      "as the client asked",
    );
  });

  it("is an error when nobody asked for it", () => {
    const view = formatTrace(ended([], { code: null, signal: "SIGTERM" }), { color: true });
    expect(view).toContain("the agent was killed by SIGTERM");
    expect(view).toMatch(new RegExp(`${ESC}\\[31mthe agent was killed by SIGTERM`));
    expect(formatTrace(ended([signal], { code: null, signal: "SIGKILL" }))).toContain(
      "the agent was killed by SIGKILL",
    );
  });
});
