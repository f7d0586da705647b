/**
 * Load and hostile input through `acp-kit trace`: a 30 KB line nested 5,000 levels deep
 * with a CR between tokens, both ways through a real agent process (`cat`-like echo), must
 * pass through byte for byte, be recorded (structured or raw), and never end the proxy.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTraceProxy } from "../../packages/cli/src/trace/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-load-trace-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An agent that echoes its stdin to its stdout, chunk by chunk, and exits at its end. */
const ECHO_AGENT = "process.stdin.pipe(process.stdout);";

/** A JSON-RPC notification whose params nest `depth` levels, with CRs between tokens. */
function deepLine(depth: number): string {
  const open = '{"a":\r['.repeat(depth);
  const close = "]}".repeat(depth);
  return `{"jsonrpc":"2.0",\r"method":"session/update","params":${open}1${close}}`;
}

describe("trace proxy under hostile lines", () => {
  it("survives a deep line with CRs, forwards it unchanged and records it", async () => {
    const line = deepLine(5000);
    expect(line.length).toBeGreaterThan(30_000);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const received: Buffer[] = [];
    stdout.on("data", (chunk: Buffer) => received.push(chunk));
    stderr.resume();
    const out = join(dir, "deep.ndjson");
    const result = runTraceProxy({
      command: process.execPath,
      args: ["-e", ECHO_AGENT],
      out,
      stdin,
      stdout,
      stderr,
      quiet: true,
    });
    const bytes = Buffer.from(`${line}\n${line}\n{"jsonrpc":"2.0","method":"x"}\n`, "utf8");
    stdin.write(bytes);
    stdin.end();
    const outcome = await result;
    expect(outcome.exitCode).toBe(0);
    expect(Buffer.concat(received).equals(bytes)).toBe(true);
    const records = (await readFile(out, "utf8"))
      .trimEnd()
      .split("\n")
      .map((r) => JSON.parse(r) as Record<string, unknown>);
    const lines = records.filter((r) => r.dir === "client→agent" || r.dir === "agent→client");
    const exit = records.at(-1) as { type: string; stats: { shed?: number } };
    expect(exit.type).toBe("exit");
    // Every line is recorded, or counted as shed when recording fell behind (a busy machine).
    expect(lines.length + (exit.stats.shed ?? 0)).toBe(6);
    for (const r of lines.filter(
      (l) => l.msg === undefined || (l.msg as { method?: string }).method !== "x",
    )) {
      // Structured (the same value) or raw (the same text, CRs kept).
      if (r.raw !== undefined) expect(r.raw).toBe(line);
      else expect((r.msg as { method?: string }).method).toBe("session/update");
    }
  });
});
