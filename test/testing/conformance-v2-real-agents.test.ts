/**
 * `runAgentChecks` with `protocol: "auto"` against the two published ACP v2 agents
 * (`@agentclientprotocol/codex-acp`, `@agentclientprotocol/claude-agent-acp`), offline
 * against the fake model of `test/support/real-agents.ts`: both agree to version 2 and
 * pass every v2 check. When this process is root, the agents run as `nobody` (through
 * `setpriv`): claude refuses to run as root.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgentChecks } from "../../packages/acp-kit/src/testing/conformance/agent.js";
import { AGENT_CHECKS_V2 } from "../../packages/acp-kit/src/testing/conformance/catalog.js";
import { LONG_PROMPT } from "../../packages/acp-kit/src/testing/conformance/checks/support.js";
import { formatReport } from "../../packages/acp-kit/src/testing/conformance/report-format.js";
import {
  agentEntry,
  HELD_TURN_MARKER,
  nonRootUser,
  sealedHome,
  startFakeModelServer,
  type FakeModelServer,
  type RealAgentKind,
} from "../support/real-agents.js";

let model: FakeModelServer;

/**
 * Checks that did not pass. The fake model holds the checker's long turn open
 * (`HELD_TURN_MARKER`), so the cancel and close checks see a turn that can only end by
 * their interruption: every check must pass, and none may call its point untested.
 */
function unexpected(report: Awaited<ReturnType<typeof runAgentChecks>>) {
  return report.checks.filter(
    (c) => c.status !== "pass" || c.notes.some((note) => note.includes("untested")),
  );
}

beforeAll(async () => {
  model = await startFakeModelServer();
});

afterAll(async () => {
  await model.close();
});

async function check(kind: RealAgentKind, env: Record<string, string>, auth?: string) {
  const owner = nonRootUser();
  const home = sealedHome(kind, { model, env, ...(owner === undefined ? {} : { owner }) });
  const entry = [process.execPath, agentEntry(kind)];
  try {
    return await runAgentChecks({
      command: owner === undefined ? process.execPath : "setpriv",
      args:
        owner === undefined
          ? entry.slice(1)
          : [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--clear-groups", ...entry],
      env: home.env,
      cwd: home.home,
      sessionCwd: home.workspace,
      protocol: "auto",
      ...(auth === undefined ? {} : { auth }),
      timeouts: {
        initializeMs: 60_000,
        requestMs: 30_000,
        promptMs: 60_000,
        cancelMs: 15_000,
        quietMs: 500,
        cancelDelayMs: 3_000,
      },
    });
  } finally {
    home.remove();
  }
}

it("the fake model holds the checker's long prompt open", () => {
  // Under load the cancel may reach the agent before its model request: the hold cannot
  // be asserted per run, but the marker must stay part of the prompt the checker sends.
  expect(LONG_PROMPT).toContain(HELD_TURN_MARKER);
});

describe("the real v2 agents, offline, pass the v2 checks", () => {
  it("codex-acp (logged in with --auth api-key)", { timeout: 180_000 }, async () => {
    const report = await check("codex", { OPENAI_API_KEY: "sk-fake-acp-kit" }, "api-key");
    expect(unexpected(report), formatReport(report)).toEqual([]);
    expect(report.checks.map((c) => c.id)).toEqual(AGENT_CHECKS_V2.map((d) => d.id));
    expect(report).toMatchObject({ ok: true, agreedProtocolVersion: 2 });
    expect(report.notes).toEqual(["Logged in with --auth api-key."]);
  });

  it("claude-agent-acp", { timeout: 180_000 }, async () => {
    const report = await check("claude", { ANTHROPIC_API_KEY: "sk-fake-acp-kit" });
    expect(unexpected(report), formatReport(report)).toEqual([]);
    expect(report).toMatchObject({ ok: true, agreedProtocolVersion: 2 });
  });
});
