/**
 * The agent conformance checks in ACP v2, run against real processes: the scripted agent
 * speaking v2 (`--protocol 2` and `auto`, checked with `protocol: 2` and `"auto"`: all
 * pass), a v1-only agent checked with `"auto"` (negotiation passes, then the v1 checks),
 * an agent written with the official SDK's v2 `agent()` (all pass), and a fixture v2
 * agent written with acp-kit's v2 `AgentSideConnection`, broken one fault at a time (the
 * check of that rule fails, no other does).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  runAgentChecks,
  type AgentCheckOptions,
} from "../../packages/acp-kit/src/testing/conformance/agent.js";
import {
  AGENT_CHECKS,
  AGENT_CHECKS_V2,
} from "../../packages/acp-kit/src/testing/conformance/catalog.js";
import type {
  CheckStatus,
  ConformanceReport,
} from "../../packages/acp-kit/src/testing/conformance/report.js";
import { formatReport } from "../../packages/acp-kit/src/testing/conformance/report-format.js";
import { CHECKLIST_RULES } from "../../packages/acp-kit/src/testing/conformance/rules.js";
import type { V2Fault } from "./fixtures/agent-v2-faulty.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const conformant = join(repoRoot, "examples", "scenarios", "conformant.json");
const officialAgent = fileURLToPath(
  new URL("fixtures/official-v2-check-agent.mjs", import.meta.url),
);

// Generous: the machine is shared; only the quiet windows are short.
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
  dir = await mkdtemp(join(tmpdir(), "acp-kit-conformance-v2-"));
  fixture = join(dir, "agent-v2-faulty.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("fixtures/agent-v2-faulty.ts", import.meta.url))],
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

function ids(report: ConformanceReport, status: CheckStatus): string[] {
  return report.checks.filter((check) => check.status === status).map((check) => check.id);
}

function scripted(protocol: "1" | "2" | "auto"): Pick<AgentCheckOptions, "command" | "args"> {
  return {
    command: process.execPath,
    args: [scriptedAgent, "--no-delays", "--protocol", protocol, conformant],
  };
}

function expectAllPassV2(report: ConformanceReport): void {
  expect(ids(report, "fail"), formatReport(report)).toEqual([]);
  expect(ids(report, "inconclusive"), formatReport(report)).toEqual([]);
  expect(ids(report, "skip"), formatReport(report)).toEqual([]);
  expect(report.checks.map((check) => check.id)).toEqual(AGENT_CHECKS_V2.map((d) => d.id));
  expect(report).toMatchObject({ ok: true, protocolVersion: 2, agreedProtocolVersion: 2 });
}

describe("agents that speak v2 pass", () => {
  it("the scripted agent in v2, checked with protocol 2", { timeout: 60_000 }, async () => {
    const report = await runAgentChecks({ ...scripted("2"), protocol: 2, timeouts });
    expectAllPassV2(report);
    expect(report.subject).toMatchObject({
      kind: "agent",
      agentInfo: { name: "scripted-conformance" },
      agentCapabilitiesV2: { session: { delete: {} } },
    });
    // The turn used the client: a permission request in the v2 shape was answered.
    const permission = report.checks.find((check) => check.id === "v2-client-requests");
    expect(permission?.notes).toEqual([]);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it(
    "the scripted agent serving both versions, checked with auto",
    { timeout: 60_000 },
    async () => {
      const report = await runAgentChecks({ ...scripted("auto"), protocol: "auto", timeouts });
      expectAllPassV2(report);
    },
  );

  it(
    "an agent written with the official SDK's v2 agent() (differential)",
    { timeout: 60_000 },
    async () => {
      for (const protocol of [2, "auto"] as const) {
        const report = await runAgentChecks({
          command: process.execPath,
          args: [officialAgent],
          cwd: repoRoot,
          protocol,
          timeouts,
        });
        expectAllPassV2(report);
      }
    },
  );

  it("the fixture v2 agent without faults", { timeout: 60_000 }, async () => {
    const report = await runAgentChecks({
      command: process.execPath,
      args: [fixture],
      protocol: 2,
      timeouts,
    });
    expectAllPassV2(report);
  });
});

describe("negotiation with a v1-only agent", () => {
  it("auto: it answers 1, negotiation passes, the v1 checks run", { timeout: 60_000 }, async () => {
    const report = await runAgentChecks({ ...scripted("1"), protocol: "auto", timeouts });
    expect(ids(report, "fail"), formatReport(report)).toEqual([]);
    expect(report.checks.map((check) => check.id)).toEqual([
      "negotiation",
      ...AGENT_CHECKS.map((d) => d.id),
    ]);
    expect(report).toMatchObject({ ok: true, protocolVersion: 1, agreedProtocolVersion: 1 });
    expect(report.checks[0]?.notes).toEqual([
      "The agent answered version 1 (it does not speak v2).",
    ]);
  });

  it("protocol 2: negotiation passes, the v2 checks are skipped", { timeout: 60_000 }, async () => {
    const report = await runAgentChecks({ ...scripted("1"), protocol: 2, timeouts });
    expect(ids(report, "pass")).toEqual([
      "stdout-purity",
      "negotiation",
      "method-names",
      "response-ids",
    ]);
    expect(ids(report, "fail")).toEqual([]);
    const skippedReasons = new Set(
      report.checks.filter((check) => check.status === "skip").map((check) => check.reason),
    );
    expect([...skippedReasons]).toEqual([
      "The agent did not agree to version 2 (it answered 1; see negotiation)",
    ]);
    expect(report).toMatchObject({ ok: true, agreedProtocolVersion: 1 });
  });

  it("protocol 1 (the default) does not negotiate", { timeout: 60_000 }, async () => {
    const report = await runAgentChecks({ ...scripted("1"), timeouts });
    expect(report.checks.map((check) => check.id)).toEqual(AGENT_CHECKS.map((d) => d.id));
    expect(report.agreedProtocolVersion).toBeUndefined();
  });
});

/** Each fault and the checks it must fail (no other check may fail). */
const FAULT_CASES: [V2Fault, string[]][] = [
  ["initialize-error", ["negotiation"]],
  ["no-info", ["v2-initialize"]],
  ["same-session-id", ["v2-session-new"]],
  ["empty-prompt-response", ["v2-prompt-turn"]],
  ["no-echo", ["v2-prompt-turn"]],
  ["no-running", ["v2-prompt-turn"]],
  ["no-stop-reason", ["v2-stop-reason"]],
  ["invalid-update", ["v2-session-updates"]],
  ["chunk-before-create", ["v2-update-order"]],
  ["cancel-ignored", ["v2-cancel", "v2-session-close"]],
  ["no-list", ["v2-session-list"]],
  ["no-resume-snapshot", ["v2-session-resume"]],
  ["close-early", ["v2-session-close"]],
  ["bad-permission", ["v2-client-requests"]],
];

describe("a v2 agent broken one fault at a time fails that rule's check", () => {
  it.each(FAULT_CASES)("--fault=%s", { timeout: 60_000 }, async (fault, expected) => {
    const report = await runAgentChecks({
      command: process.execPath,
      args: [fixture, `--fault=${fault}`],
      protocol: 2,
      timeouts,
    });
    expect(ids(report, "fail"), formatReport(report)).toEqual(expected);
    expect(ids(report, "inconclusive"), formatReport(report)).toEqual([]);
    const must = report.checks.some((check) => check.class === "must");
    expect(report.ok).toBe(!must);
    for (const id of expected) {
      const check = report.checks.find((c) => c.id === id);
      expect(check?.reason, id).toBeTruthy();
      expect(check?.exchange.length ?? 0, id).toBeGreaterThan(0);
    }
  });

  it("a SHOULD fault leaves the verdict OK", { timeout: 60_000 }, async () => {
    const report = await runAgentChecks({
      command: process.execPath,
      args: [fixture, "--fault=no-stop-reason"],
      protocol: 2,
      timeouts,
    });
    expect(report.checks.find((c) => c.id === "v2-stop-reason")?.class).toBe("should");
    expect(report.ok).toBe(true);
  });
});

it("every rule a v2 check cites is in the checklist; unnumbered ones are SHOULDs", () => {
  for (const definition of AGENT_CHECKS_V2) {
    for (const rule of definition.rules) {
      expect(CHECKLIST_RULES.has(rule), `${definition.id}: R${rule}`).toBe(true);
    }
    if (definition.rules.length === 0) expect(definition.severity, definition.id).toBe("should");
  }
});
