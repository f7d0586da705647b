/**
 * Load and hostile input through `acp-kit trace`: a 30 KB line nested 5,000 levels deep
 * with a CR between tokens, both ways through a real agent process (`cat`-like echo), must
 * pass through byte for byte, be recorded (structured or raw), and never end the proxy.
 * And `acp-kit trace view` (text and HTML) shows a trace of messages nested 100,000 levels
 * deep in every place a message can hold a value.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  formatTrace,
  parseTrace,
  renderTraceHtml,
  runTraceProxy,
} from "../../packages/cli/src/trace/index.js";

const cli = new URL("../../packages/cli/dist/cli.js", import.meta.url).pathname;

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

/** `{"a":[` ... `1` ... `]}` nested `depth` levels: JSON.parse reads it, JSON.stringify cannot. */
function deepJson(depth: number, open = '{"a":[', close = "]}"): string {
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
}

/** A trace whose messages carry a value nested `depth` levels in every place they can. */
function deepTrace(depth: number): string {
  const deep = deepJson(depth);
  const header = JSON.stringify({
    type: "header",
    format: "acp-kit-trace",
    version: 1,
    t: 0,
    at: "2026-01-01T00:00:00.000Z",
    command: "agent",
    args: [],
    cwd: "/",
    pid: 1,
    proxyPid: 2,
    maxLineBytes: 1e9,
    recordStderr: true,
  });
  const line = (t: number, dir: string, msg: string): string =>
    `{"t":${t},"at":"2026-01-01T00:00:00.000Z","dir":"${dir}","msg":${msg}}`;
  const c2a = "client→agent";
  const a2c = "agent→client";
  return [
    header,
    line(1, c2a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${deep}}`),
    line(2, a2c, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":${deep}}}`),
    line(3, c2a, `{"jsonrpc":"2.0","id":2,"method":"x/y","params":{"a":1}}`),
    line(4, a2c, `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"m","data":${deep}}}`),
    line(5, c2a, `{"jsonrpc":"2.0","id":3,"method":"x/z","params":{"a":1}}`),
    line(6, a2c, `{"jsonrpc":"2.0","id":3,"error":${deepJson(depth, "[", "]")}}`),
    line(
      7,
      a2c,
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",` +
        `"update":{"sessionUpdate":"tool_call","toolCallId":"t","rawInput":${deep}}}}`,
    ),
    line(8, a2c, `{"jsonrpc":"2.0","method":"vendor/deep","params":${deep}}`),
    line(9, a2c, deepJson(depth, "[", "]")),
    line(10, a2c, `{"jsonrpc":"2.0","id":${deep},"result":1}`),
    `{"type":"exit","t":11,"at":"2026-01-01T00:00:00.000Z","code":0,"signal":null,` +
      `"stats":{"dropped":0}}`,
    "",
  ].join("\n");
}

describe("trace view of messages nested 100,000 levels", () => {
  const DEPTH = 100_000;
  const text = deepTrace(DEPTH);

  it("prints the timeline, folded and in full", () => {
    const trace = parseTrace(text);
    expect(trace.problems).toEqual([]);
    const view = formatTrace(trace);
    const deepStart = '{"a":[{"a":[{"a":[';
    expect(view).toContain(`initialize #1 protocolVersion undefined  ← result in 1.0 ms`);
    expect(view).toContain(`(protocolVersion ${'{"a":['.repeat(10)}…)`);
    // The error's data, said as its JSON's first characters.
    expect(view).toMatch(/x\/y #2 ERROR in 1\.0 ms m: \{"a":\[\{"a":\[.*… \(-32000\)/);
    expect(view).toMatch(/x\/z #3 ERROR in 1\.0 ms \[\[\[\[\[.*…/);
    expect(view).toContain("session/update tool_call t");
    // The payload folded, with what was left out.
    const kb = ((deepJson(DEPTH).length - 120) / 1024).toFixed(1);
    expect(view).toContain(`vendor/deep  ${deepStart}`);
    expect(view).toContain(`… (+${kb} KB)`);
    expect(view).toContain("⚠ not JSON-RPC:  [[[[[[");
    // In full: the deep value written whole.
    const full = formatTrace(trace, { foldBytes: Infinity });
    expect(full).toContain(`vendor/deep  ${deepJson(DEPTH)}`);
  });

  it("renders the HTML page with deep values elided", () => {
    const html = renderTraceHtml(parseTrace(text));
    expect(html).toContain("</html>");
    expect(html).toContain("… (nested too deep)");
    // 100 levels shown, indented; the page stays small.
    expect(html.length).toBeLessThan(5_000_000);
    expect(html).toContain(`${" ".repeat(2 * 100)}{… (nested too deep)}`);
  });

  it("skips header, event and exit records with deep values where text belongs", () => {
    const deepArray = deepJson(DEPTH, "[", "]");
    const at = '"at":"2026-01-01T00:00:00.000Z"';
    const crafted = [
      text.trimEnd(),
      `{"type":${deepArray},"t":12,${at}}`,
      `{"type":"event","t":12,${at},"event":"signal","detail":${deepArray}}`,
      `{"type":"event","t":12,${at},"event":${deepArray}}`,
      `{"type":"header","format":"acp-kit-trace","version":1,"t":0,${at},"command":"x",` +
        `"args":${deepArray},"cwd":"/","pid":1}`,
      `{"type":"exit","t":13,${at},"code":null,"signal":${deepArray},"stats":{}}`,
      `{"type":"exit","t":13,${at},"code":0,"signal":null,"stats":{"dropped":${deepArray}}}`,
      "",
    ].join("\n");
    const trace = parseTrace(crafted);
    expect(trace.problems.map((p) => p.reason)).toEqual([
      `unknown record type ${"[".repeat(60)}…`,
      "an event record whose detail is not valid",
      "an event record whose event is not valid",
      "a header record whose args is not valid",
      "an exit record whose signal is not valid",
      "an exit record whose stats is not valid",
    ]);
    expect(formatTrace(trace)).toContain("an exit record whose stats is not valid");
    expect(renderTraceHtml(trace)).toContain("</html>");
  });

  it("runs as the built CLI: text and --html", async () => {
    if (!existsSync(cli)) throw new Error("Build first (npm run build): the test runs dist/cli.js");
    const file = join(dir, "deep-view.ndjson");
    await writeFile(file, text);
    const run = (args: string[]) =>
      spawnSync(process.execPath, [cli, "trace", "view", ...args, file], {
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      });
    const view = run([]);
    expect(view.stderr).toBe("");
    expect(view.status).toBe(0);
    expect(view.stdout).toContain("vendor/deep");
    const html = join(dir, "deep-view.html");
    const page = run(["--html", html]);
    expect(page.stderr).toBe("");
    expect(page.status).toBe(0);
    expect(await readFile(html, "utf8")).toContain("… (nested too deep)");
  });
});
