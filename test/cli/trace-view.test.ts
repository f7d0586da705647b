/**
 * `acp-kit trace view`: the text timeline of a recorded trace (colours off and on), and
 * the tolerant reader it is built on.
 */
import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTimeline,
  formatTrace,
  parseTrace,
  readTrace,
  viewTrace,
} from "../../packages/cli/src/trace/index.js";

const sample = fileURLToPath(new URL("./fixtures/trace-sample.ndjson", import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-trace-view-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The line of `text` that contains `needle`. */
/** The first line of the timeline (after the summary, which comes first) holding `needle`. */
function lineWith(text: string, needle: string): string {
  const lines = text.split("\n");
  const summaryEnd = lines.indexOf("");
  const line = lines.slice(summaryEnd + 1).find((l) => l.includes(needle));
  if (line === undefined) throw new Error(`no line contains ${needle}`);
  return line;
}

describe("viewTrace", () => {
  it("pairs requests with their responses and shows latencies", async () => {
    const view = await viewTrace(sample, { color: false });
    expect(view).not.toContain("\u001b[");
    expect(lineWith(view, 'session/prompt #2 "Refactor')).toMatch(
      /^\+30\.0ms\s+client→agent\s+session\/prompt #2 "Refactor.*← result in 1234\.5 ms \(stopReason: end_turn\)/,
    );
    expect(lineWith(view, "+1264.5ms")).toContain(
      "agent→client  session/prompt #2 result in 1234.5 ms  stopReason: end_turn",
    );
    // The agent's request #0 and the client's request #0 are different requests.
    expect(lineWith(view, "fs/read_text_file #0 /work")).toContain(
      "← result in 2.3 ms (5000 chars)",
    );
    expect(lineWith(view, "initialize #0 protocolVersion")).toContain("← result in 15.2 ms");
    // A truncated response still answers its request, by the id its envelope kept.
    expect(lineWith(view, "+2700.0ms")).toContain(
      "fs/read_text_file #1 [truncated, 3.0 MB] result in 100.0 ms",
    );
    expect(lineWith(view, "never answered")).toContain("← no response");
  });

  it("puts notifications on one line with their kind and a short summary", async () => {
    const view = await viewTrace(sample);
    expect(lineWith(view, "+40.0ms")).toMatch(
      /session\/update agent_message_chunk "Hello <script>/,
    );
    expect(lineWith(view, "+50.0ms")).toContain("session/update tool_call call_1 read pending");
    expect(lineWith(view, "+110.0ms")).toContain("tool_call_update call_1 completed");
    expect(lineWith(view, "+120.0ms")).toContain("plan 2 entries");
  });

  it("folds long payloads, flags errors, unparsed lines and stderr", async () => {
    const view = await viewTrace(sample, { foldBytes: 60 });
    expect(lineWith(view, "+102.3ms")).toMatch(
      /\{"content":"export const x = 1;\\nexport.{0,40}… \(\+5\.\d KB\)$/,
    );
    expect(lineWith(view, "+2012.0ms")).toContain(
      "session/prompt #3 ERROR in 12.0 ms Internal error: model <overloaded> (-32603)",
    );
    expect(lineWith(view, "+2500.0ms")).toContain('⚠ not JSON: "oops not json"');
    expect(lineWith(view, "+5.0ms")).toContain("agent-stderr  │ warming up");
    const full = await viewTrace(sample, { foldBytes: Infinity });
    expect(full).not.toContain("(+");
    expect(full.length).toBeGreaterThan(view.length + 5000);
    const hidden = await viewTrace(sample, { foldBytes: 0, stderr: false });
    expect(hidden).not.toContain("warming up");
    expect(hidden).not.toContain('{"sessionId"');
  });

  it("starts with a summary", async () => {
    const view = await viewTrace(sample);
    expect(view.startsWith("── summary ──")).toBe(true);
    const summary = view.slice(0, view.indexOf("\n\n"));
    expect(summary).toMatch(/duration\s+3\.15 s/);
    expect(summary).toMatch(/exit\s+the agent exited with code 0/);
    expect(summary).toMatch(/messages\s+7 client→agent, 10 agent→client, 1 stderr line/);
    expect(summary).toMatch(
      /client→agent\s+session\/prompt\s+request\s+3\s+avg 623\.3 ms, max 1234\.5 ms\s+1 error\s+1 unanswered/,
    );
    expect(summary).toMatch(/agent→client\s+session\/update\s+notification\s+4/);
    expect(summary).toMatch(
      /errors\s+1\n\s+\+2012\.0ms agent→client session\/prompt #3: Internal error: model <overloaded> \(-32603\)/,
    );
    expect(summary).toMatch(/unanswered\s+1\n\s+\+3000\.0ms client→agent session\/prompt #4/);
    expect(summary).toContain("1 unparsed line, 1 truncated line");
  });

  it("colours errors red and stderr dim when asked, and cuts lines to a width", async () => {
    const view = await viewTrace(sample, { color: true });
    expect(lineWith(view, "+2012.0ms")).toContain("\u001b[31m ERROR in 12.0 ms\u001b[0m");
    expect(lineWith(view, "warming up")).toContain("\u001b[2m│ warming up\u001b[0m");
    const narrow = await viewTrace(sample, { width: 60 });
    for (const line of narrow.split("\n")) expect(Array.from(line).length).toBeLessThanOrEqual(60);
    expect(lineWith(narrow, "+30.0ms")).toMatch(/…$/);
  });

  it("neutralises control characters from messages", () => {
    const trace = parseTrace(
      '{"t":1,"at":"x","dir":"client→agent","raw":"bell\\u0007 and \\u001b[31mred"}\n',
    );
    const view = formatTrace(trace, { summary: false });
    expect(view).not.toContain("\u001b");
    expect(view).not.toContain("\u0007");
  });
});

describe("readTrace", () => {
  it("tolerates a last line cut short, and reports it", async () => {
    const file = join(dir, "cut.ndjson");
    const whole = await readTrace(sample);
    const lines = (await import("node:fs/promises")).readFile(sample, "utf8");
    const text =
      (await lines).split("\n").slice(0, 6).join("\n") + '\n{"t":40,"at":"x","dir":"agent→cl';
    await writeFile(file, text);
    const trace = await readTrace(file);
    expect(trace.truncatedTail).toBe(true);
    expect(trace.records).toEqual(whole.records.slice(0, 6));
    expect(trace.exit).toBeUndefined();
    const view = formatTrace(trace);
    expect(view).toContain("not recorded (the trace is incomplete)");
    expect(view).toContain("the file's last line was cut short");
  });

  it("skips lines that are not records, and refuses files that are not traces", async () => {
    const trace = parseTrace(
      'not json\n{"t":1,"at":"x","dir":"sideways","msg":{}}\n{"t":2,"at":"x","dir":"client→agent","msg":{"jsonrpc":"2.0","method":"m"}}\n',
    );
    expect(trace.records).toHaveLength(1);
    expect(trace.problems.map((p) => [p.line, p.reason])).toEqual([
      [1, "not JSON"],
      [2, "unknown direction"],
    ]);
    const file = join(dir, "other.txt");
    await writeFile(file, "hello\nworld\n");
    await expect(readTrace(file)).rejects.toThrow(/is not an acp-kit trace/);
    await writeFile(file, "");
    expect((await readTrace(file)).records).toEqual([]);
  });

  it("pairs per direction and keeps duplicate ids in order", () => {
    const line = (t: number, dir: string, msg: object) =>
      JSON.stringify({ t, at: "x", dir, msg: { jsonrpc: "2.0", ...msg } });
    const trace = parseTrace(
      [
        line(1, "client→agent", { id: 1, method: "a" }),
        line(2, "agent→client", { id: 1, method: "b" }),
        line(3, "client→agent", { id: 1, method: "a" }),
        line(4, "client→agent", { id: 1, result: {} }),
        line(5, "agent→client", { id: 1, result: {} }),
        line(7, "agent→client", { id: 1, result: {} }),
        line(8, "agent→client", { id: 2, result: {} }),
      ].join("\n"),
    );
    const timeline = buildTimeline(trace);
    const pairs = timeline.entries.map((e) => [e.kind, e.method, e.partner, e.latencyMs]);
    expect(pairs).toEqual([
      ["request", "a", 4, 4],
      ["request", "b", 3, 2],
      ["request", "a", 5, 4],
      ["response", "b", 1, 2],
      ["response", "a", 0, 4],
      ["response", "a", 2, 4],
      ["response", undefined, undefined, undefined],
    ]);
    expect(timeline.orphans).toHaveLength(1);
    expect(timeline.unanswered).toHaveLength(0);
  });
});
