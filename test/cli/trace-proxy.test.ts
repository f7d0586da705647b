/**
 * The trace proxy in-process (injected stdio), with a real agent process behind it and a
 * real ClientSideConnection in front: byte transparency, what is recorded, and how runs end.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, RequestError } from "../../packages/acp-kit/src/index.js";
import {
  readTrace,
  runTraceProxy,
  viewTrace,
  type TraceEventRecord,
  type TraceProxyOptions,
  type TraceProxyResult,
  type TraceRecord,
} from "../../packages/cli/src/trace/index.js";
import { processAlive } from "../../packages/acp-kit/src/node/process-group.js";
import {
  agentFixture,
  connectTappedClient,
  expectedLines,
  normalizeTruncated,
  readBytes,
  recordedLines,
  rejection,
  text,
  waitFor,
  type TappedClient,
} from "./fixtures/trace-harness.js";

let dir: string;
let runs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-trace-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  readonly client: TappedClient;
  readonly result: Promise<TraceProxyResult>;
  readonly out: string;
  readonly teeIn: string;
  readonly teeOut: string;
  stderr(): string;
}

function start(agentArgs: string[] = [], options: Partial<TraceProxyOptions> = {}): Run {
  runs++;
  const out = join(dir, `trace-${runs}.ndjson`);
  const teeIn = join(dir, `in-${runs}.bin`);
  const teeOut = join(dir, `out-${runs}.bin`);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let stderrText = "";
  stderr.on("data", (chunk: Buffer) => (stderrText += chunk.toString("utf8")));
  const result = runTraceProxy({
    command: process.execPath,
    args: [agentFixture, "--tee-in", teeIn, "--tee-out", teeOut, ...agentArgs],
    out,
    stdin,
    stdout,
    stderr,
    ...options,
  });
  return {
    client: connectTappedClient(stdin, stdout),
    result,
    out,
    teeIn,
    teeOut,
    stderr: () => stderrText,
  };
}

async function initialized(client: TappedClient): Promise<string> {
  await client.connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await client.connection.newSession({ cwd: dir, mcpServers: [] });
  return sessionId;
}

function stderrTexts(records: readonly TraceRecord[]): string[] {
  return records.flatMap((r) => (r.type === undefined && r.dir === "agent-stderr" ? [r.text] : []));
}

function events(records: readonly { type?: string }[]): TraceEventRecord[] {
  return records.filter((r): r is TraceEventRecord => r.type === "event");
}

describe("runTraceProxy", () => {
  it("passes every byte through unchanged and records every line in order", async () => {
    const maxLineBytes = 64 * 1024;
    const run = start([], { maxLineBytes, stdinGraceMs: 20_000 });
    const { client } = run;
    const sessionId = await initialized(client);
    const prompt = (words: string) =>
      client.connection.prompt({ sessionId, prompt: [text(words)] });

    expect((await prompt("hello")).stopReason).toBe("end_turn");
    expect((await prompt("ask")).stopReason).toBe("end_turn");
    const failure = await rejection(prompt("fail"));
    expect(failure).toBeInstanceOf(RequestError);
    expect((failure as RequestError).code).toBe(-32603);
    expect((await prompt("odd")).stopReason).toBe("end_turn");
    expect((await prompt("big 200000")).stopReason).toBe("end_turn");
    expect((await prompt("stderr")).stopReason).toBe("end_turn");

    // Odd bytes from the client side: CRLF, blank lines, not JSON, a character split
    // across writes, a message over the recording limit.
    await client.writeRaw('{"jsonrpc":"2.0","method":"x/crlf","params":{}}\r\n');
    await client.writeRaw("\n\r\n  \n");
    await client.writeRaw("definitely not json\n");
    const split = Buffer.from('{"jsonrpc":"2.0","method":"x/utf8","params":{"s":"żółw 🐢 end"}}\n');
    const cut = split.indexOf(Buffer.from("🐢")) + 1;
    await client.writeRaw(split.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await client.writeRaw(split.subarray(cut));
    const blob = "é".repeat(600_000);
    await client.writeRaw(`{"jsonrpc":"2.0","method":"x/big","params":{"blob":"${blob}"}}\n`);
    expect((await prompt("hello")).stopReason).toBe("end_turn");

    client.end();
    const result = await run.result;
    expect(result).toMatchObject({ code: 0, signal: null, exitCode: 0, traceWritten: true });

    // (a) byte transparency, both ways.
    const sent = Buffer.concat(client.sent);
    const received = Buffer.concat(client.received);
    expect((await readBytes(run.teeIn)).equals(sent)).toBe(true);
    expect((await readBytes(run.teeOut)).equals(received)).toBe(true);
    expect(received.includes(Buffer.from("this is not json {\n"))).toBe(true);
    expect(received.includes(Buffer.from('crlf line"}}}}\r\n\n'))).toBe(true);
    expect(client.updates.some((u) => JSON.stringify(u).includes("世界 🎉 done"))).toBe(true);

    // (b) the records are the lines, in order, with their directions.
    const trace = await readTrace(run.out);
    expect(trace.problems).toEqual([]);
    expect(trace.header).toMatchObject({
      type: "header",
      command: process.execPath,
      args: expect.arrayContaining([agentFixture]) as unknown,
      pid: expect.any(Number) as unknown,
      maxLineBytes,
    });
    for (const [dirName, bytes] of [
      ["client→agent", sent],
      ["agent→client", received],
    ] as const) {
      const recorded = recordedLines(trace.records, dirName);
      const expected = normalizeTruncated(expectedLines(bytes, maxLineBytes), recorded);
      expect(recorded).toEqual(expected);
    }
    const recordedTimes = trace.records.map((r) => r.t);
    expect(recordedTimes).toEqual([...recordedTimes].sort((a, b) => a - b));
    const truncated = trace.records.filter((r) => r.type === undefined && r.truncated === true);
    expect(truncated).toHaveLength(2);
    expect(truncated[0]).toMatchObject({ dir: "agent→client", envelope: { hasMethod: true } });
    expect(truncated[1]).toMatchObject({ dir: "client→agent", envelope: { hasMethod: true } });

    const stderrLines = stderrTexts(trace.records);
    expect(stderrLines).toEqual(["first stderr line", "second half"]);
    expect(run.stderr()).toContain("first stderr line\nsecond half\r\n");
    expect(run.stderr()).toContain(`acp-kit trace: recording to ${run.out}`);
    expect(events(trace.records).map((e) => e.event)).toEqual(["stdin-end"]);
    expect(trace.exit).toMatchObject({ code: 0, signal: null });
    expect(trace.exit?.stats.truncated).toBe(2);
    expect(trace.exit?.stats.blank["client→agent"]).toBe(3);
    expect(trace.exit?.stats.blank["agent→client"]).toBe(1);

    const view = await viewTrace(run.out, { color: false });
    expect(view).toMatch(/client→agent\s+initialize #0 protocolVersion 1 +← result in \d+\.\d ms/);
    expect(view).toContain('session/request_permission #"perm-1"');
    expect(view).toContain("session/prompt #4 ERROR in");
    expect(view).toContain('⚠ not JSON: "definitely not json"');
  });

  it("exits with the agent's exit code once it exits after stdin ends", async () => {
    const run = start(["--exit-code", "5"], { stdinGraceMs: 20_000 });
    await initialized(run.client);
    run.client.end();
    const result = await run.result;
    expect(result).toMatchObject({ code: 5, signal: null, exitCode: 5 });
    const trace = await readTrace(run.out);
    expect(trace.exit).toMatchObject({ code: 5, signal: null });
    expect(events(trace.records).map((e) => e.event)).toEqual(["stdin-end"]);
  });

  it("ends an agent that outlives its stdin after the grace period", async () => {
    const run = start(["--linger"], { stdinGraceMs: 300, killGraceMs: 5000 });
    await initialized(run.client);
    run.client.end();
    const result = await run.result;
    expect(result).toMatchObject({ code: null, signal: "SIGTERM", exitCode: 143 });
    const trace = await readTrace(run.out);
    expect(events(trace.records).map((e) => [e.event, e.detail])).toEqual([
      ["stdin-end", undefined],
      ["grace-expired", undefined],
      ["terminate", "SIGTERM"],
    ]);
    expect(trace.exit).toMatchObject({ code: null, signal: "SIGTERM" });
  });

  it("kills an agent that ignores SIGTERM", async () => {
    const run = start(["--linger", "--ignore-term"], { stdinGraceMs: 200, killGraceMs: 300 });
    await initialized(run.client);
    run.client.end();
    const result = await run.result;
    expect(result).toMatchObject({ signal: "SIGKILL", exitCode: 137 });
    const trace = await readTrace(run.out);
    const sent = events(trace.records).filter((e) => e.event === "terminate");
    expect(sent.map((e) => e.detail)).toEqual(["SIGTERM", "SIGKILL"]);
  });

  it("reports an agent that crashes mid-request, stderr included", async () => {
    const run = start();
    const sessionId = await initialized(run.client);
    const error = await rejection(
      run.client.connection.prompt({ sessionId, prompt: [text("crash")] }),
    );
    expect(error).toBeInstanceOf(Error);
    const result = await run.result;
    expect(result).toMatchObject({ code: 3, exitCode: 3 });
    expect(run.stderr()).toContain("about to crash\n");
    const trace = await readTrace(run.out);
    expect(stderrTexts(trace.records)).toContain("about to crash");
    expect(trace.exit).toMatchObject({ code: 3 });
    const view = await viewTrace(run.out);
    expect(view).toMatch(/session\/prompt #2 "crash"\s+← no response/);
    expect(view).toMatch(/unanswered\s+1/);
  });

  it("ends what the agent left running in its group", async () => {
    const run = start(["--grandchild"], { stdinGraceMs: 20_000 });
    await waitFor(() => /grandchild \d+/.test(run.stderr()), 20_000, "the grandchild");
    const pid = Number(/grandchild (\d+)/.exec(run.stderr())?.[1]);
    expect(processAlive(pid)).toBe(true);
    await initialized(run.client);
    run.client.end();
    expect((await run.result).code).toBe(0);
    await waitFor(() => !processAlive(pid), 10_000, "the grandchild to be gone");
  });

  it("fails like a shell when the agent cannot start, and says why", async () => {
    const out = join(dir, "missing.ndjson");
    const stderr = new PassThrough();
    let said = "";
    stderr.on("data", (chunk: Buffer) => (said += chunk.toString()));
    const result = await runTraceProxy({
      command: join(dir, "no-such-agent"),
      out,
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr,
    });
    expect(result).toMatchObject({ exitCode: 127, signal: null });
    expect(result.error).toBeInstanceOf(Error);
    expect(said).toContain("acp-kit trace: cannot start");
    const trace = await readTrace(out);
    expect(trace.header?.pid).toBeNull();
    expect(trace.exit?.error).toContain("cannot start");
    expect(trace.exit?.error).toContain("command not found");

    const elsewhere = await runTraceProxy({
      command: process.execPath,
      cwd: join(dir, "no-such-dir"),
      out: join(dir, "missing-cwd.ndjson"),
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      quiet: true,
    });
    expect(elsewhere.exitCode).toBe(127);
    expect(elsewhere.error).toBeInstanceOf(Error);
    const other = await readTrace(join(dir, "missing-cwd.ndjson"));
    expect(other.exit?.error).toMatch(/working directory ".*no-such-dir" does not exist/);
  });

  it("keeps proxying when the trace file cannot be written, warning once", async () => {
    const run = start([], { out: "/dev/null/not-a-dir/trace.ndjson" });
    const sessionId = await initialized(run.client);
    await run.client.connection.prompt({ sessionId, prompt: [text("hello")] });
    run.client.end();
    const result = await run.result;
    expect(result).toMatchObject({ code: 0, traceWritten: false });
    expect(run.stderr().match(/cannot write the trace file/g)).toHaveLength(1);
    expect((await readBytes(run.teeOut)).equals(Buffer.concat(run.client.received))).toBe(true);
  });
});
