/**
 * The client probe, against our own clients: the `ClientToolkit` client of `connectAgent`
 * running the probe program (a user who presses Cancel when asked), the same client
 * without files and terminals (a user who picks options instead), and an in-memory
 * `TestClient` that breaks the cancel rule.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import { messageText, type RequestPermissionOutcome } from "../../packages/acp-kit/src/index.js";
import {
  connectAgent,
  type AgentSession,
  type ConnectAgentOptions,
} from "../../packages/acp-kit/src/node/index.js";
import { ProbeAgent } from "../../packages/acp-kit/src/testing/probe/agent.js";
import { PROBE_TOOL_CALLS } from "../../packages/acp-kit/src/testing/probe/interactive.js";
import type { ConformanceReport } from "../../packages/acp-kit/src/testing/conformance/report.js";
import { formatReport } from "../../packages/acp-kit/src/testing/conformance/report-format.js";
import { TestClient } from "../../packages/acp-kit/src/testing/test-client/client.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const probeMain = fileURLToPath(
  new URL("../../packages/acp-kit/src/testing/probe/main.ts", import.meta.url),
);
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-kit-probe-test-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Answers = Partial<
  Record<string, (session: AgentSession) => Promise<RequestPermissionOutcome | undefined>>
>;

/** Runs the probe program under connectAgent; permission requests are answered by `answers`. */
async function probeWith(
  answers: Answers,
  options: Partial<ConnectAgentOptions> = {},
): Promise<{ report: ConformanceReport; text: string; stopReason: string }> {
  const reportPath = join(dir, "out", "report.json");
  const holder: { session?: AgentSession } = {};
  await using agent = await connectAgent({
    command: process.execPath,
    args: ["--import", "tsx", probeMain, "--report", reportPath],
    cwd: repoRoot, // (where tsx resolves; the session itself runs in `dir`)
    permissions: {
      prompt: (request) => {
        const answer = answers[request.toolCall.toolCallId];
        if (answer === undefined || holder.session === undefined) return undefined;
        return answer(holder.session);
      },
    },
    ...options,
  });
  const session = await agent.newSession({ cwd: dir });
  holder.session = session;
  const { stopReason } = await session.prompt("Run the probe");
  const report = JSON.parse(await readFile(reportPath, "utf8")) as ConformanceReport;
  const text = session.state.thread
    .map((item) => (item.type === "message" && item.role === "agent" ? messageText(item) : ""))
    .join("");
  return { report, text, stopReason };
}

function statuses(report: ConformanceReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

const select = (optionId: string) => () =>
  Promise.resolve({ outcome: "selected" as const, optionId });

it(
  "a ClientToolkit client passes every client check when the user presses Cancel",
  { timeout: 60_000 },
  async () => {
    const { report, text, stopReason } = await probeWith({
      [PROBE_TOOL_CALLS.permission]: select("allow"),
      [PROBE_TOOL_CALLS.confirm]: select("yes"),
      // The user presses Cancel while the request is open; the broker answers it `cancelled`.
      [PROBE_TOOL_CALLS.cancel]: (session) =>
        new Promise((resolve) => {
          setTimeout(() => void session.cancel().then(() => resolve(undefined)), 50);
        }),
    });
    expect(
      Object.values(statuses(report)).every((s) => s === "pass"),
      formatReport(report),
    ).toBe(true);
    expect(report.kind).toBe("client");
    expect(report.subject).toMatchObject({
      kind: "client",
      clientInfo: { name: "acp-kit" },
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
    expect(stopReason).toBe("cancelled");
    // The Markdown report is the answer, and names the JSON file.
    expect(text).toContain("## acp-kit conformance report");
    expect(text).toContain("| ✅ pass | `permission-cancel` |");
    expect(text).toContain("report.json");
    // The temporary file was removed.
    expect((await readdir(dir)).filter((name) => name.startsWith(".acp-kit-probe"))).toEqual([]);
  },
);

it(
  "a client without files and terminals: those checks are skipped, not failed",
  { timeout: 60_000 },
  async () => {
    const { report, stopReason } = await probeWith(
      {
        [PROBE_TOOL_CALLS.permission]: select("reject"),
        [PROBE_TOOL_CALLS.confirm]: select("no"),
        [PROBE_TOOL_CALLS.cancel]: select("yes"), // chose an option instead of pressing Cancel
      },
      { files: false, terminals: false },
    );
    const byId = statuses(report);
    for (const id of [
      "fs-write",
      "fs-read",
      "fs-read-missing",
      "terminal-run",
      "terminal-kill",
      "terminal-output-limit",
    ]) {
      expect(byId[id], id).toBe("skip");
      expect(report.checks.find((c) => c.id === id)?.reason).toMatch(/^Not advertised/);
    }
    expect(byId.permission).toBe("pass");
    expect(byId["update-rendering"]).toBe("fail"); // the user said "no" (a SHOULD: report still ok)
    expect(byId["permission-cancel"]).toBe("skip");
    expect(report.checks.find((c) => c.id === "permission-cancel")?.reason).toMatch(
      /run the probe again/,
    );
    expect(report.ok).toBe(true);
    expect(stopReason).toBe("end_turn");
  },
);

it("fails a client that answers a pending permission request with an option after session/cancel", async () => {
  const reports: ConformanceReport[] = [];
  const client = new TestClient({ cwd: dir });
  client.connect(
    (connection) =>
      new ProbeAgent(connection, {
        reportPath: join(dir, "report.json"),
        onReport: (report) => reports.push(report),
      }),
  );
  client.permission = async (request) => {
    if (request.toolCall.toolCallId !== PROBE_TOOL_CALLS.cancel) return "yes";
    // Wrong: cancels the turn, then still answers the pending request with an option.
    await client.agent.cancel({ sessionId: request.sessionId });
    await new Promise((resolve) => setTimeout(resolve, 50));
    return "yes";
  };
  const { sessionId } = await client.newSession({ cwd: dir });
  const { stopReason } = await client.prompt(sessionId, "probe");
  expect(stopReason).toBe("cancelled");
  const report = reports[0]!;
  const byId = statuses(report);
  expect(byId["permission-cancel"], formatReport(report)).toBe("fail");
  const check = report.checks.find((c) => c.id === "permission-cancel")!;
  expect(check.rules).toEqual([98]);
  expect(check.exchange.length).toBeGreaterThan(0);
  // Files went through the in-memory map: written, read back, missing file -32002.
  expect(byId["fs-write"]).toBe("pass");
  expect(byId["fs-read"]).toBe("pass");
  expect(byId["fs-read-missing"]).toBe("pass");
  expect(byId["terminal-run"]).toBe("skip"); // the TestClient advertises no terminals here
  expect(client.requestsOf("fs/write_text_file")).toHaveLength(1);
  expect(client.textOf(sessionId)).toContain("❌ fail (MUST) | `permission-cancel`");
  await client.close();
});
