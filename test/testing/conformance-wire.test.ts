/**
 * The checker's own wire layer: line framing over raw bytes, message classification,
 * request outcomes, and the trimming of quoted exchanges.
 */
import { describe, expect, it } from "vitest";
import { WireLog, classifyMessage } from "../../packages/acp-kit/src/testing/conformance/log.js";
import {
  WireConnection,
  type InboundHandler,
} from "../../packages/acp-kit/src/testing/conformance/wire.js";
import {
  checkResponseIds,
  checkStdoutPurity,
} from "../../packages/acp-kit/src/testing/conformance/checks/wire.js";
import {
  CLIENT_CHECKS,
  checkResult,
  definitionOf,
  failed,
  inconclusive,
  passed,
  skipped,
} from "../../packages/acp-kit/src/testing/conformance/catalog.js";
import {
  REPORT_FORMAT,
  REPORT_FORMAT_VERSION,
  type ConformanceReport,
} from "../../packages/acp-kit/src/testing/conformance/report.js";
import {
  capabilityPaths,
  formatReport,
  formatReportMarkdown,
} from "../../packages/acp-kit/src/testing/conformance/report-format.js";

const encoder = new TextEncoder();

function connection(handler: InboundHandler = () => Promise.resolve({ result: {} })) {
  const log = new WireLog();
  const written: string[] = [];
  const wire = new WireConnection(
    "main",
    log,
    (line) => {
      written.push(line);
      return Promise.resolve();
    },
    handler,
  );
  return { log, wire, written };
}

describe("classifyMessage", () => {
  it.each([
    [{ jsonrpc: "2.0", id: 1, method: "m" }, "request"],
    [{ jsonrpc: "2.0", method: "m" }, "notification"],
    [{ jsonrpc: "2.0", id: "a", result: null }, "result"],
    [{ jsonrpc: "2.0", id: null, error: { code: -1, message: "x" } }, "error"],
  ])("%j is a %s", (value, type) => {
    expect(classifyMessage(value)).toMatchObject({ message: { type } });
  });

  it.each([
    [[{ jsonrpc: "2.0", method: "m" }], /batches/],
    [42, /not an object/],
    [{ id: 1, method: "m" }, /jsonrpc/],
    [{ jsonrpc: "2.0", id: 1, result: 1, error: { code: 1, message: "" } }, /exactly one/],
    [{ jsonrpc: "2.0", id: 1 }, /exactly one/],
    [{ jsonrpc: "2.0", id: 1.5, method: "m" }, /id/],
    [{ jsonrpc: "2.0", id: 1, error: { message: "no code" } }, /integer code/],
  ])("%j is not a message", (value, problem) => {
    const classified = classifyMessage(value);
    expect("problem" in classified && classified.problem).toMatch(problem);
  });
});

describe("WireConnection", () => {
  it("frames lines across chunks and flags what is not a message", () => {
    const { log, wire } = connection();
    wire.feed(encoder.encode('{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":'));
    wire.feed(encoder.encode('"2.0","method":"b"}\nBanner v1\n\n'));
    wire.feed(new Uint8Array([0xff, 0xfe, 0x0a]));
    wire.feed(encoder.encode('{"jsonrpc":"2.0","method":"c"}'));
    wire.end("done");
    const seen = log.records.map((r) => [
      r.message?.type ?? null,
      r.problem ?? null,
      r.blank ?? false,
    ]);
    expect(seen).toEqual([
      ["notification", null, false],
      ["notification", null, false],
      [null, "not JSON", false],
      [null, null, true],
      [null, "not valid UTF-8", false],
      ["notification", "the last line has no newline at its end", false],
    ]);
    const purity = checkStdoutPurity(log);
    expect(purity.status).toBe("fail");
    expect(purity.reason).toMatch(/^3 line\(s\)/);
    expect(purity.notes).toEqual([
      "1 empty line(s) on stdout (tolerated, but not messages).",
      // Other output on stdout can also cost protocol messages (Node 20's toWeb, item 14).
      expect.stringMatching(
        /^Warning: something besides the protocol writes to this agent's stdout/,
      ),
    ]);
  });

  it("settles requests with results, errors, time-outs and the connection's end", async () => {
    const { wire, written, log } = connection();
    const answered = wire.request("a", {}, 5_000);
    const failed = wire.request("b", {}, 5_000);
    const late = wire.request("c", {}, 10);
    const closed = wire.request("d", {}, 5_000);
    wire.feed(encoder.encode('{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n'));
    wire.feed(encoder.encode('{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}\n'));
    expect(await answered).toMatchObject({ kind: "result", result: { ok: true } });
    expect(await failed).toMatchObject({ kind: "error", error: { code: -32601 } });
    expect(await late).toMatchObject({ kind: "timeout", timeoutMs: 10 });
    // A late answer to a timed-out request is still a matching response.
    wire.feed(encoder.encode('{"jsonrpc":"2.0","id":3,"result":{}}\n'));
    wire.end("the agent exited with code 1");
    expect(await closed).toMatchObject({ kind: "closed", reason: "the agent exited with code 1" });
    expect(written[0]).toBe('{"jsonrpc":"2.0","id":1,"method":"a","params":{}}\n');
    expect(checkResponseIds(log).status).toBe("pass");
    wire.feed(encoder.encode('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
    expect(checkResponseIds(log).status).toBe("fail"); // a second answer
  });

  it("answers the agent's requests with the handler's answer", async () => {
    const { wire, written } = connection((request) =>
      Promise.resolve(
        request.method === "x"
          ? { result: { echo: request.params } }
          : { error: { code: -32601, message: "no" } },
      ),
    );
    wire.feed(encoder.encode('{"jsonrpc":"2.0","id":"r1","method":"x","params":[1]}\n'));
    wire.feed(encoder.encode('{"jsonrpc":"2.0","id":"r2","method":"y"}\n'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(written).toEqual([
      '{"jsonrpc":"2.0","id":"r1","result":{"echo":[1]}}\n',
      '{"jsonrpc":"2.0","id":"r2","error":{"code":-32601,"message":"no"}}\n',
    ]);
  });
});

describe("WireLog.excerpt", () => {
  it("trims long lines and cuts long exchanges in the middle", () => {
    const log = new WireLog();
    for (let i = 0; i < 30; i++)
      log.add({
        connection: "main",
        direction: i % 2 ? "in" : "out",
        line: `${i}:${"x".repeat(i === 0 ? 1000 : 3)}`,
      });
    const excerpt = log.excerpt(log.records);
    expect(excerpt).toHaveLength(14);
    expect(excerpt[6]).toEqual({ kind: "gap", omitted: 17 });
    expect(excerpt[0]).toMatchObject({ kind: "message", seq: 1, direction: "client->agent" });
    expect(excerpt[0]?.kind === "message" && excerpt[0].text).toMatch(/… \(1002 chars\)$/);
    expect(excerpt.at(-1)).toMatchObject({ seq: 30, direction: "agent->client" });
  });
});

describe("report formatting", () => {
  const report: ConformanceReport = {
    format: REPORT_FORMAT,
    formatVersion: REPORT_FORMAT_VERSION,
    kind: "client",
    protocolVersion: 1,
    tool: { name: "acp-kit", version: "0.0.0" },
    subject: {
      kind: "client",
      clientInfo: { name: "editor", version: "2.0" },
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: true },
    },
    checks: [
      checkResult(definitionOf(CLIENT_CHECKS, "client-info"), passed(["editor 2.0"])),
      checkResult(
        definitionOf(CLIENT_CHECKS, "fs-write"),
        skipped("Not advertised (fs.writeTextFile)"),
      ),
      checkResult(
        definitionOf(CLIENT_CHECKS, "permission-cancel"),
        failed("answered with an option", [
          { kind: "message", seq: 1, connection: "probe", direction: "agent->client", text: "{}" },
          { kind: "gap", omitted: 3 },
        ]),
      ),
      checkResult(definitionOf(CLIENT_CHECKS, "fs-read-missing"), failed("answered -32603")),
      checkResult(
        definitionOf(CLIENT_CHECKS, "terminal-run"),
        inconclusive("terminal/create did not answer within 10 ms"),
      ),
    ],
    summary: {
      passed: 1,
      failed: 2,
      mustFailed: 1,
      warnings: 1,
      inconclusive: 1,
      skipped: 1,
      total: 5,
    },
    ok: false,
    notes: ["Logged in with --auth token."],
  };

  it("renders text with statuses, rules, reasons, notes and the exchange", () => {
    expect(formatReport(report)).toBe(
      [
        "acp-kit conformance report (protocol v1, acp-kit 0.0.0)",
        "client: editor 2.0",
        "capabilities: fs.readTextFile, terminal",
        "",
        "PASS          client-info        The client identifies itself (clientInfo) (SHOULD) [R13]",
        "      note: editor 2.0",
        "SKIP          fs-write           fs/write_text_file creates a file (when advertised) [R115]",
        "      Not advertised (fs.writeTextFile)",
        "FAIL MUST     permission-cancel  Pending permission requests are answered `cancelled` on cancel [R98]",
        "      answered with an option",
        "      see docs/checklist.md#permission-cancel",
        "      exchange:",
        "        #1 probe <- {}",
        "        ... 3 more message(s) ...",
        "WARN SHOULD   fs-read-missing    Reading a missing file is an error (-32002) (SHOULD) [§3.16; §5]",
        "      answered -32603",
        "      see docs/checklist.md#fs-read-missing",
        "INCONCLUSIVE  terminal-run       terminal/create, output, wait_for_exit, release (when advertised) [R118, R123]",
        "      terminal/create did not answer within 10 ms",
        "      see docs/checklist.md#terminal-run",
        "",
        "note: Logged in with --auth token.",
        "",
        "1 passed, 1 failed (MUST), 1 warning (SHOULD), 1 inconclusive, 1 skipped (5 checks): NOT CONFORMANT",
        "",
      ].join("\n"),
    );
    const markdown = formatReportMarkdown(report);
    expect(markdown).toContain("| ⏭️ skip | `fs-write` |");
    expect(markdown).toContain("| ⚠️ warn (SHOULD) | `fs-read-missing` |");
    expect(markdown).toContain("| ❔ inconclusive | `terminal-run` |");
  });

  it("lists advertised capabilities as paths, marker objects included", () => {
    expect(
      capabilityPaths({
        loadSession: true,
        promptCapabilities: { image: false, embeddedContext: true },
        sessionCapabilities: { list: {}, close: null },
        _meta: { x: true },
      }),
    ).toEqual(["loadSession", "promptCapabilities.embeddedContext", "sessionCapabilities.list"]);
  });
});
