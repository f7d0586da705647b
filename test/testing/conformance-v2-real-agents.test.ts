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
import { formatReport } from "../../packages/acp-kit/src/testing/conformance/report-format.js";
import {
  agentEntry,
  nonRootUser,
  sealedHome,
  startFakeModelServer,
  type FakeModelServer,
  type RealAgentKind,
} from "../support/real-agents.js";

let model: FakeModelServer;

/**
 * The fake model answers at once: a turn may end before the checker's cancel (or close)
 * reaches the agent, which those checks report inconclusive (a race), never failed.
 */
const RACY = new Set(["v2-cancel", "v2-session-close"]);

function unexpected(report: Awaited<ReturnType<typeof runAgentChecks>>) {
  return report.checks.filter(
    (c) => c.status !== "pass" && !(RACY.has(c.id) && c.status === "inconclusive"),
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
