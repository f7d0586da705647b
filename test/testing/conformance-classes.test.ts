/**
 * The classes of `acp-kit check` results (MUST, SHOULD, INCONCLUSIVE), against the
 * scripted agent with scenarios that mimic real agents: a login asked for at the first
 * prompt, an offline model's network error, a real bug with its reason in `data`, a
 * login required at `session/new` (with and without `--auth`).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  runAgentChecks,
  type AgentCheckOptions,
} from "../../packages/acp-kit/src/testing/conformance/agent.js";
import type { ConformanceReport } from "../../packages/acp-kit/src/testing/conformance/report.js";
import { formatReport } from "../../packages/acp-kit/src/testing/conformance/report-format.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const agentMain = join(repoRoot, "packages/acp-kit/src/testing/scripted/agent-main.ts");
const scenario = (name: string): string =>
  fileURLToPath(new URL(`fixtures/check/${name}`, import.meta.url));
const timeouts: AgentCheckOptions["timeouts"] = {
  initializeMs: 30_000,
  requestMs: 15_000,
  promptMs: 30_000,
  cancelMs: 10_000,
  quietMs: 250,
  cancelDelayMs: 3_000,
};

let dir: string;
let needsLogin: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-kit-check-classes-"));
  // The conformant scenario behind a login: `token` (agent) or `key` (an env_var method).
  const conformant = JSON.parse(
    await readFile(join(repoRoot, "examples/scenarios/conformant.json"), "utf8"),
  ) as { agent: Record<string, unknown> };
  conformant.agent.requiresAuth = true;
  conformant.agent.authMethods = [
    { id: "token", name: "Use a token" },
    { id: "key", name: "API key", type: "env_var", vars: [{ name: "ACP_KIT_CHECK_TEST_KEY" }] },
  ];
  needsLogin = join(dir, "needs-login.json");
  await writeFile(needsLogin, JSON.stringify(conformant));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function check(file: string, extra: Partial<AgentCheckOptions> = {}): Promise<ConformanceReport> {
  return runAgentChecks({
    command: process.execPath,
    args: ["--import", "tsx", agentMain, "--no-delays", file],
    cwd: repoRoot,
    timeouts,
    ...extra,
  });
}

function byClass(report: ConformanceReport, kind: string): string[] {
  return report.checks.filter((c) => c.class === kind).map((c) => c.id);
}

function result(report: ConformanceReport, id: string): ConformanceReport["checks"][number] {
  const found = report.checks.find((c) => c.id === id);
  if (found === undefined) throw new Error(`no check ${id}`);
  return found;
}

describe.concurrent("check classes", { timeout: 120_000 }, () => {
  it("-32000 at session/prompt: prompt-turn is INCONCLUSIVE, blamed on the prompt, said once", async () => {
    const report = await check(scenario("auth-at-prompt.json"));
    const text = formatReport(report);
    expect(byClass(report, "must"), text).toEqual([]);
    expect(byClass(report, "inconclusive")).toEqual(["prompt-turn"]);
    expect(result(report, "session-new").status).toBe("pass");
    const prompt = result(report, "prompt-turn");
    expect(prompt.reason).toMatch(/^session\/prompt answered -32000/);
    expect(prompt.reason).toContain(
      '"Authentication required" (data: "Claude Code process exited with code 1")',
    );
    expect(prompt.checklist).toBe("docs/checklist.md#prompt-turn");
    // The request and the agent's answer are quoted.
    expect(prompt.exchange.map((e) => (e.kind === "message" ? e.direction : "gap"))).toEqual([
      "client->agent",
      "agent->client",
    ]);
    // The live-turn checks are skipped with a short pointer, not the long reason again.
    for (const id of ["cancel", "session-load", "session-close", "client-capabilities"]) {
      expect(result(report, id).reason, id).toBe("Needs a live turn (see prompt-turn)");
    }
    expect(text.match(/Claude Code process exited/g)).toHaveLength(2); // reason + exchange
    expect(report.notes).toEqual([
      "The agent wants a login at the first prompt (session/prompt answered -32000): the checks that need a live turn were not run. " +
        "Its login methods: claude-login (agent). Run again with --auth METHOD.",
    ]);
    expect(report.ok).toBe(true);
    expect(text).toMatch(/INCONCLUSIVE +prompt-turn/);
    expect(text).toMatch(/1 inconclusive, \d+ skipped \(20 checks\): OK so far/);
  });

  it("a network error at the prompt is INCONCLUSIVE, quoting data.message", async () => {
    const report = await check(scenario("network-error.json"));
    expect(byClass(report, "must"), formatReport(report)).toEqual([]);
    expect(byClass(report, "inconclusive")).toEqual(["prompt-turn"]);
    expect(result(report, "prompt-turn").reason).toContain(
      'answered error -32603: "Internal error" (data: "stream disconnected before completion',
    );
    expect(report.summary).toMatchObject({ inconclusive: 1, mustFailed: 0 });
  });

  it("a prompt that does not end within promptMs is INCONCLUSIVE (an offline model)", async () => {
    const report = await check(scenario("prompt-hangs.json"), {
      timeouts: { ...timeouts, promptMs: 2_000 },
    });
    expect(byClass(report, "must"), formatReport(report)).toEqual([]);
    expect(byClass(report, "inconclusive")).toEqual(["prompt-turn"]);
    expect(result(report, "prompt-turn").reason).toMatch(
      /^session\/prompt did not end within 2000 ms: a model that is offline or slow\?/,
    );
    expect(result(report, "cancel").reason).toBe("Needs a live turn (see prompt-turn)");
  });

  it("a real error at the prompt fails MUST, with the agent's own reason", async () => {
    const report = await check(scenario("prompt-error.json"));
    expect(byClass(report, "must"), formatReport(report)).toEqual(["prompt-turn"]);
    expect(result(report, "prompt-turn").reason).toContain(
      `(data: "TypeError: cannot read properties of undefined (reading 'uri')")`,
    );
    expect(report.ok).toBe(false);
  });

  it("-32000 at session/new without --auth: session-new INCONCLUSIVE, the rest skipped once", async () => {
    const report = await check(needsLogin);
    const text = formatReport(report);
    expect(byClass(report, "must"), text).toEqual([]);
    expect(byClass(report, "inconclusive")).toEqual(["session-new"]);
    expect(result(report, "session-new").reason).toMatch(/^session\/new answered -32000/);
    for (const id of ["prompt-turn", "cancel", "session-list", "session-delete"]) {
      expect(result(report, id).reason, id).toBe("Needs a logged-in agent (see session-new)");
    }
    expect(report.notes?.join("\n")).toMatch(
      /login methods: token \(agent\), key \(env_var: ACP_KIT_CHECK_TEST_KEY\)\. Run again with --auth METHOD/,
    );
    expect(report.ok).toBe(true);
  });

  it("--auth token logs in first and runs every check", async () => {
    const report = await check(needsLogin, { auth: "token" });
    expect(byClass(report, "pass"), formatReport(report)).toHaveLength(20);
    expect(report.notes).toEqual([
      "Logged in with --auth token.",
      "The agent cannot log out (no auth.logout): a login it stored with --auth token stays after the check.",
    ]);
    expect(report.ok).toBe(true);
  });

  it("--auth with an env_var method wants its variables, then logs in", async () => {
    const without = await check(needsLogin, {
      auth: "key",
      env: { ACP_KIT_CHECK_TEST_KEY: undefined },
    });
    expect(without.notes?.[0]).toBe(
      "--auth key: set ACP_KIT_CHECK_TEST_KEY in the environment (the agent inherits it)",
    );
    expect(byClass(without, "inconclusive")).toEqual(["session-new"]);
    const withKey = await check(needsLogin, {
      auth: "key",
      env: { ACP_KIT_CHECK_TEST_KEY: "secret" },
    });
    expect(byClass(withKey, "pass"), formatReport(withKey)).toHaveLength(20);
  });
});
