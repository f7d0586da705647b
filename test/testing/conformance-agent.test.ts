/**
 * The agent conformance checks, run against real processes: the example agent (all
 * must pass or be skipped because not advertised), a correct fixture agent (all pass),
 * and the same fixture broken one fault at a time (the check of that rule must fail,
 * the others still pass).
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentStartupError } from "../../packages/acp-kit/src/node/spawn/errors.js";
import {
  runAgentChecks,
  type AgentCheckOptions,
} from "../../packages/acp-kit/src/testing/conformance/agent.js";
import type {
  CheckStatus,
  ConformanceReport,
} from "../../packages/acp-kit/src/testing/conformance/report.js";
import {
  formatReport,
  formatReportMarkdown,
} from "../../packages/acp-kit/src/testing/conformance/report-format.js";
import type { Fault } from "./fixtures/agent-faulty-rpc.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
// Generous: the machine is shared; only the quiet windows are short, and the faults
// they must catch happen within a few milliseconds.
const timeouts: AgentCheckOptions["timeouts"] = {
  initializeMs: 30_000,
  requestMs: 15_000,
  promptMs: 30_000,
  cancelMs: 10_000,
  quietMs: 250,
  cancelDelayMs: 3_000,
};

let dir: string;
let fixture: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-kit-conformance-test-"));
  fixture = join(dir, "agent-faulty.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("fixtures/agent-faulty.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: fixture,
    logLevel: "silent",
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runFixture(...faults: Fault[]): Promise<ConformanceReport> {
  const args = [fixture, ...faults.map((fault) => `--fault=${fault}`)];
  return runAgentChecks({ command: process.execPath, args, timeouts });
}

function ids(report: ConformanceReport, status: CheckStatus): string[] {
  return report.checks.filter((check) => check.status === status).map((check) => check.id);
}

it(
  "the example agent passes, skipping only what it does not advertise",
  { timeout: 60_000 },
  async () => {
    const report = await runAgentChecks({
      command: process.execPath,
      args: ["--import", "tsx", "examples/agent.ts"],
      cwd: repoRoot,
      timeouts,
    });
    expect(ids(report, "fail"), formatReport(report)).toEqual([]);
    expect(ids(report, "skip")).toEqual([
      "session-list",
      "session-resume",
      "session-close",
      "session-delete",
    ]);
    for (const check of report.checks.filter((c) => c.status === "skip")) {
      expect(check.reason).toMatch(/^Not advertised/);
    }
    expect(report.ok).toBe(true);
    expect(report.subject).toMatchObject({
      kind: "agent",
      agentInfo: { name: "acp-kit-example-agent" },
      agentCapabilities: { loadSession: true },
    });
    expect(report.summary).toEqual({
      passed: 16,
      failed: 0,
      mustFailed: 0,
      warnings: 0,
      inconclusive: 0,
      skipped: 4,
      total: 20,
    });
  },
);

it("a correct agent advertising everything passes every check", { timeout: 60_000 }, async () => {
  const report = await runFixture();
  expect(ids(report, "fail"), formatReport(report)).toEqual([]);
  expect(ids(report, "skip")).toEqual([]);
  expect(report.ok).toBe(true);
  // Plain JSON: the report survives a round trip unchanged.
  expect(JSON.parse(JSON.stringify(report))).toEqual(report);
});

/** Each fault and the checks it must fail (no other check may fail). */
const FAULT_CASES: [Fault, string[]][] = [
  ["wrong-version", ["protocol-version"]],
  ["bad-capabilities", ["initialize-result"]],
  ["unknown-method-result", ["unknown-method", "unknown-extension-method"]],
  ["answers-notifications", ["notifications-unanswered", "response-ids"]],
  // Codex's adapter did this: the finding is notifications-unanswered, not stdout-purity.
  ["idless-notification-errors", ["notifications-unanswered"]],
  ["no-invalid-params", ["invalid-params"]],
  ["duplicate-session-ids", ["session-new"]],
  ["invalid-updates", ["session-updates"]],
  ["bad-stop-reason", ["prompt-turn"]],
  ["ignore-cancel", ["cancel"]],
  ["updates-after-cancel", ["cancel"]],
  ["stdout-junk", ["stdout-purity"]],
  ["load-no-replay", ["session-load"]],
  ["resume-replays", ["session-resume"]],
  ["list-ignores-cwd", ["session-list"]],
  ["close-no-cancel", ["session-close"]],
  ["delete-keeps", ["session-delete"]],
  ["fs-without-capability", ["client-capabilities"]],
  ["relative-fs-path", ["client-requests"]],
  ["custom-method", ["method-names"]],
];

describe.concurrent("each fault fails the check of its rule, and only that", () => {
  for (const [fault, expected] of FAULT_CASES) {
    it(fault, { timeout: 90_000 }, async () => {
      const report = await runFixture(fault);
      expect(ids(report, "fail"), formatReport(report)).toEqual(expected);
      expect(ids(report, "inconclusive")).toEqual([]);
      // Only a failed MUST sinks the verdict; invalid-params tests an unnumbered rule (SHOULD).
      const must = report.checks.filter((c) => c.status === "fail" && c.severity === "must");
      expect(report.ok).toBe(must.length === 0);
      expect(report.ok).toBe(fault === "no-invalid-params");
      for (const check of report.checks.filter((c) => c.status === "fail")) {
        expect(check.class).toBe(check.severity);
        expect(check.checklist).toBe(`docs/checklist.md#${check.id}`);
        expect(check.reason).toBeTruthy();
        expect(check.exchange.length, check.id).toBeGreaterThan(0);
        expect(check.rules.length + check.sections.length).toBeGreaterThan(0);
      }
    });
  }

  it(
    "stdout-junk: the failure warns that other stdout output can lose messages",
    {
      timeout: 90_000,
    },
    async () => {
      const report = await runFixture("stdout-junk");
      const purity = report.checks.find((check) => check.id === "stdout-purity");
      expect(purity?.status).toBe("fail");
      const warning = purity?.notes.find((note) => note.startsWith("Warning:"));
      expect(warning).toContain("lose protocol messages");
      expect(warning).toContain("Writable.toWeb(process.stdout)");
      expect(warning).toContain("agentStdioStream()");
      expect(formatReport(report)).toContain(`note: ${warning ?? ""}`);
    },
  );

  it(
    "sessionCwd: sessions run in the given directory, which is left as it was",
    { timeout: 90_000 },
    async () => {
      const sessionCwd = await mkdtemp(join(dir, "project-"));
      const report = await runAgentChecks({
        command: process.execPath,
        args: [fixture],
        timeouts,
        sessionCwd,
      });
      expect(ids(report, "fail"), formatReport(report)).toEqual([]);
      expect(await readdir(sessionCwd)).toEqual([]);
    },
  );

  it(
    "auth-required: session-new is inconclusive with the reason, the rest skipped, none fails",
    { timeout: 90_000 },
    async () => {
      const report = await runFixture("auth-required");
      expect(ids(report, "fail"), formatReport(report)).toEqual([]);
      // This fixture wants a login even before it checks the params of session/new.
      expect(ids(report, "inconclusive")).toEqual(["invalid-params", "session-new"]);
      expect(report.checks.find((c) => c.id === "session-new")?.reason).toMatch(
        /^session\/new answered -32000 \(authentication required\): "Authentication required"/,
      );
      const skips = report.checks.filter((check) => check.status === "skip");
      expect(skips.map((check) => check.id)).toEqual(
        expect.arrayContaining(["prompt-turn", "cancel", "session-load"]),
      );
      expect(report.checks.find((c) => c.id === "cancel")?.reason).toBe(
        "Needs a logged-in agent (see session-new)",
      );
      expect(report.ok).toBe(true);
    },
  );
});

it(
  "names the rule and shows the failing exchange in the text and Markdown reports",
  { timeout: 60_000 },
  async () => {
    const report = await runFixture("updates-after-cancel");
    const text = formatReport(report);
    expect(text).toMatch(/^FAIL MUST +cancel .*\[R100, R101, R102\]$/m);
    expect(text).toContain("      see docs/checklist.md#cancel");
    expect(text).toContain("2 session/update(s) for the cancelled turn arrived after its answer");
    expect(text).toMatch(/#\d+ main <- .*"stopReason":"cancelled"/);
    expect(text).toMatch(/#\d+ main <- .*"one more thing"/);
    expect(text).toContain(
      "19 passed, 1 failed (MUST), 0 warnings (SHOULD), 0 inconclusive, 0 skipped (20 checks): NOT CONFORMANT",
    );
    const markdown = formatReportMarkdown(report);
    expect(markdown).toContain("| ❌ fail (MUST) | `cancel` |");
    expect(markdown).toContain("### ❌ fail (MUST): `cancel`");
  },
);

it(
  "keeps going when the agent crashes, naming the exit and quoting stderr",
  { timeout: 60_000 },
  async () => {
    const report = await runFixture("crash-on-prompt");
    const prompt = report.checks.find((check) => check.id === "prompt-turn");
    expect(prompt?.status).toBe("fail");
    expect(prompt?.reason).toMatch(/the agent exited with code 3/);
    expect(report.stderrTail).toContain("faulty agent: crashing on purpose");
    // The checks after the crash are skipped with the reason, not failed for the same cause.
    expect(ids(report, "fail")).toEqual(["prompt-turn"]);
    expect(report.checks.find((check) => check.id === "session-list")?.reason).toMatch(
      /^The agent had stopped \(the agent exited with code 3\)/,
    );
    // What ran before the crash is still judged.
    expect(report.checks.find((check) => check.id === "session-new")?.status).toBe("pass");
    expect(report.checks.find((check) => check.id === "protocol-version")?.status).toBe("pass");
  },
);

it("rejects with an AgentStartupError when the agent cannot be started", async () => {
  await expect(
    runAgentChecks({ command: join(dir, "no-such-agent"), timeouts }),
  ).rejects.toBeInstanceOf(AgentStartupError);
});
