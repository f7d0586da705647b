/**
 * The trace proxy's parts: cutting lines from a byte stream, the bounded trace writer,
 * the byte pump's backpressure, default paths and exit statuses.
 */
import fc from "fast-check";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LineTap, type TappedLine } from "../../packages/cli/src/trace/line-tap.js";
import { pump } from "../../packages/cli/src/trace/pump.js";
import { TraceWriter } from "../../packages/cli/src/trace/trace-writer.js";
import { defaultTracePath, exitCodeOf, parseTrace } from "../../packages/cli/src/trace/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-trace-units-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function tap(chunks: readonly Uint8Array[], max: number): TappedLine[] {
  const lines: TappedLine[] = [];
  const lineTap = new LineTap(max, (line) => lines.push(line));
  for (const chunk of chunks) lineTap.push(chunk);
  lineTap.end();
  return lines;
}

const SAMPLE = Buffer.from(
  '{"a":1}\r\n\nzażółć 🎉\n' +
    "y".repeat(40) +
    "\n" +
    '{"id":7,"result":"' +
    "é".repeat(30) +
    '"}\ntail',
);

describe("LineTap", () => {
  it("cuts lines, drops CR before LF, keeps a last line without newline", () => {
    const lines = tap([SAMPLE], 1000);
    expect(lines.map((l) => l.text)).toEqual([
      '{"a":1}',
      "",
      "zażółć 🎉",
      "y".repeat(40),
      `{"id":7,"result":"${"é".repeat(30)}"}`,
      "tail",
    ]);
    expect(lines.every((l) => !l.truncated)).toBe(true);
    expect(lines[0]?.bytes).toBe(8);
  });

  it("truncates long lines at a character boundary and recovers their envelope", () => {
    const lines = tap([SAMPLE], 24);
    expect(lines[3]).toEqual({ text: "y".repeat(24), bytes: 40, truncated: true });
    const response = lines[4];
    expect(response?.truncated).toBe(true);
    expect(response?.bytes).toBe(Buffer.byteLength(`{"id":7,"result":"${"é".repeat(30)}"}`));
    expect(response?.text).toBe('{"id":7,"result":"ééé');
    expect(response?.envelope).toEqual({ id: 7, hasMethod: false, hasOutcome: true });
  });

  it("gives the same lines however the stream is split", () => {
    const whole = tap([SAMPLE], 24);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: SAMPLE.length - 1 }), { maxLength: 12 }),
        (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), SAMPLE.length];
          const chunks = points.slice(1).map((end, i) => SAMPLE.subarray(points[i], end));
          expect(tap(chunks, 24)).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("TraceWriter", () => {
  it("drops records when the file cannot keep up, and says how many", async () => {
    const path = join(dir, "sub", "dropped.ndjson");
    const warnings: string[] = [];
    const writer = new TraceWriter(path, {
      maxQueueChars: 100,
      warn: (m) => warnings.push(m),
      droppedRecord: (count) =>
        JSON.stringify({ type: "event", t: 0, at: "x", event: "dropped", count }),
    });
    for (let i = 0; i < 50; i++)
      writer.write(JSON.stringify({ type: "event", t: i, at: "x", event: "stdin-end" }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    writer.write(JSON.stringify({ type: "event", t: 99, at: "x", event: "stdin-end" }));
    await writer.close(5000);
    expect(warnings).toEqual([]);
    expect(writer.dropped).toBeGreaterThan(0);
    const trace = parseTrace(await readFile(path, "utf8"));
    const dropped = trace.records.filter((r) => r.type === "event" && r.event === "dropped");
    expect(dropped).toEqual([expect.objectContaining({ count: writer.dropped })]);
    expect(trace.records.length + writer.dropped).toBe(52);
  });

  it("warns once when the file cannot be opened, and discards the rest", async () => {
    const warnings: string[] = [];
    const writer = new TraceWriter("/dev/null/nope/trace.ndjson", {
      maxQueueChars: 1e6,
      warn: (m) => warnings.push(m),
      droppedRecord: () => "",
    });
    writer.write("{}");
    await new Promise((resolve) => setTimeout(resolve, 20));
    writer.write("{}");
    await writer.close(5000);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cannot write the trace file \/dev\/null\/nope\/trace\.ndjson/);
    expect(writer.broken).toBe(true);
  });
});

describe("pump", () => {
  it("forwards every byte in order and pauses the source while the sink is full", async () => {
    const source = new PassThrough();
    const received: Buffer[] = [];
    let sawPause = false;
    const sink = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, callback) {
        received.push(chunk);
        if (source.isPaused()) sawPause = true;
        setTimeout(callback, 1);
      },
    });
    const tapped: Buffer[] = [];
    const running = pump(source, sink, { tap: (c) => tapped.push(c), end: true });
    const sent: Buffer[] = [];
    for (let i = 0; i < 50; i++) {
      const chunk = Buffer.from(`chunk ${i} ${"z".repeat(i)}\n`);
      sent.push(chunk);
      source.write(chunk);
    }
    source.end();
    await running.done;
    await new Promise<void>((resolve) => sink.once("finish", resolve));
    expect(Buffer.concat(received).equals(Buffer.concat(sent))).toBe(true);
    expect(Buffer.concat(tapped).equals(Buffer.concat(sent))).toBe(true);
    expect(sawPause).toBe(true);
  });

  it("keeps draining the source once the sink is broken", async () => {
    const source = new PassThrough();
    const sink = new PassThrough();
    const tapped: Buffer[] = [];
    const running = pump(source, sink, { tap: (c) => tapped.push(c) });
    sink.destroy(new Error("EPIPE"));
    for (let i = 0; i < 100; i++) source.write(Buffer.alloc(1024, 1));
    source.end();
    await running.done;
    expect(Buffer.concat(tapped)).toHaveLength(100 * 1024);
  });
});

describe("defaults", () => {
  it("puts traces under the temporary directory, named by time and pid", () => {
    const path = defaultTracePath(new Date("2026-08-22T10:11:12.345Z"), 4242, "/tmp");
    expect(path).toBe("/tmp/acp-kit-traces/acp-trace-2026-08-22T10-11-12-345Z-4242.ndjson");
  });

  it("turns exits into shell exit statuses", () => {
    expect(exitCodeOf({ code: 3, signal: null })).toBe(3);
    expect(exitCodeOf({ code: null, signal: "SIGTERM" })).toBe(143);
    expect(exitCodeOf({ code: null, signal: "SIGKILL" })).toBe(137);
  });
});
