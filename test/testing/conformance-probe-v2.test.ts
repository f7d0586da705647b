/**
 * `acp-kit check-client` in ACP v2: the probe program (a real child process, serving both
 * versions through `protocolRouter`; also as `acp-kit check-client`) against acp-kit's
 * v2 `ClientSideConnection`, its `TestClient` (`protocol: "auto"`) and the official SDK's
 * v2 `client()`: the client asks for v2, the probe checks it
 * as a v2 client (initialize, a permission request in the v2 shape, every v2 update kind,
 * a permission request withdrawn with `$/cancel_request` after `session/cancel`) and
 * reports the version the client chose. A client that answers the withdrawn request with
 * an option instead of `cancelled` fails `permission-cancel`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as official from "@agentclientprotocol/sdk/experimental/v2";
import { afterEach, beforeEach, expect, it } from "vitest";
import { PROBE_TOOL_CALLS } from "../../packages/acp-kit/src/testing/probe/interactive.js";
import type { ConformanceReport } from "../../packages/acp-kit/src/testing/conformance/report.js";
import { formatReport } from "../../packages/acp-kit/src/testing/conformance/report-format.js";
import { TestClient } from "../../packages/acp-kit/src/testing/test-client/client.js";
import {
  ClientSideConnection,
  ndJsonStream,
  validateV2,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type UpdateSessionNotification,
} from "../../packages/acp-kit/src/v2/index.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const probeMain = fileURLToPath(
  new URL("../../packages/acp-kit/src/testing/probe/main.ts", import.meta.url),
);
let dir: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-kit-probe-v2-test-"));
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill();
  await rm(dir, { recursive: true, force: true });
});

const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");

/** How the probe is started: its program from the sources, or `acp-kit check-client`. */
type ProbeCommand = "program" | "cli";

function startProbe(reportPath: string, command: ProbeCommand = "program") {
  const args =
    command === "cli"
      ? [cli, "check-client", "--report", reportPath]
      : ["--import", "tsx", probeMain, "--report", reportPath];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  const output = Writable.toWeb(child.stdin) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>;
  return { output, input };
}

function statuses(report: ConformanceReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

/** How the user answers the cancel step: press Cancel, or (wrongly) keep an option. */
type CancelBehaviour = "cancelled" | "select-anyway";

/** Drives the probe with acp-kit's v2 ClientSideConnection; resolves with the report. */
async function probeWithAcpKit(cancel: CancelBehaviour, command: ProbeCommand = "program") {
  const reportPath = join(dir, "report.json");
  const { output, input } = startProbe(reportPath, command);
  const invalid: string[] = [];
  let sessionId = "";
  let idle: (stop: unknown) => void = () => undefined;
  const ended = new Promise<unknown>((resolve) => (idle = resolve));
  const connection: ClientSideConnection = new ClientSideConnection(
    () => ({
      sessionUpdate: (params: UpdateSessionNotification) => {
        const update = params.update as {
          sessionUpdate: string;
          state?: string;
          stopReason?: unknown;
        };
        if (update.sessionUpdate === "state_update" && update.state === "idle")
          idle(update.stopReason);
      },
      requestPermission: async (
        params: RequestPermissionRequest,
        context,
      ): Promise<RequestPermissionResponse> => {
        const subject = params.subject as { toolCall?: { toolCallId?: string } } | undefined;
        const toolCallId = subject?.toolCall?.toolCallId;
        if (toolCallId === PROBE_TOOL_CALLS.cancel) {
          // The user presses Cancel: session/cancel; the probe withdraws the request.
          await connection.cancel({ sessionId });
          await new Promise((resolve) => context?.signal.addEventListener("abort", resolve));
          return cancel === "cancelled"
            ? { outcome: { outcome: "cancelled" } }
            : { outcome: { outcome: "selected", optionId: "yes" } };
        }
        return {
          outcome: {
            outcome: "selected",
            optionId: toolCallId === PROBE_TOOL_CALLS.permission ? "allow" : "yes",
          },
        };
      },
    }),
    ndJsonStream(output, input),
  );
  // Every update the probe sends, as it crossed the wire, is valid v2.
  connection.observe((direction, message) => {
    const raw = message as { method?: unknown; params?: unknown };
    if (direction !== "in" || raw.method !== "session/update") return;
    if (!validateV2("UpdateSessionNotification", raw.params).ok) {
      invalid.push(JSON.stringify(raw.params));
    }
  });
  const init = await connection.initialize({
    protocolVersion: 2,
    info: { name: "probe-test-client", version: "1.0.0" },
    capabilities: {},
  });
  expect(init).toMatchObject({ protocolVersion: 2, info: { name: "acp-kit-probe" } });
  ({ sessionId } = await connection.newSession({ cwd: dir }));
  const answer = await connection.prompt({ sessionId, prompt: [{ type: "text", text: "probe" }] });
  expect(answer.messageId).toEqual(expect.any(String));
  const stopReason = await ended;
  const report = JSON.parse(await readFile(reportPath, "utf8")) as ConformanceReport;
  connection.close();
  return { report, stopReason, invalid };
}

it(
  "acp-kit's v2 ClientSideConnection passes every v2 client check",
  { timeout: 60_000 },
  async () => {
    const { report, stopReason, invalid } = await probeWithAcpKit("cancelled");
    expect(invalid).toEqual([]); // every update the probe sent is valid v2
    expect(statuses(report), formatReport(report)).toEqual({
      "client-initialize": "pass",
      "client-info": "pass",
      permission: "pass",
      "update-rendering": "pass",
      "permission-cancel": "pass",
    });
    expect(report).toMatchObject({
      kind: "client",
      ok: true,
      protocolVersion: 2,
      agreedProtocolVersion: 2,
      subject: { clientInfo: { name: "probe-test-client" }, requestedProtocolVersion: 2 },
    });
    expect(stopReason).toBe("cancelled");
  },
);

it(
  "acp-kit check-client (the built CLI) reports the v2 client too",
  { timeout: 60_000 },
  async () => {
    const { report, stopReason } = await probeWithAcpKit("cancelled", "cli");
    expect(report).toMatchObject({ ok: true, agreedProtocolVersion: 2 });
    expect(report.checks).toHaveLength(5);
    expect(stopReason).toBe("cancelled");
  },
);

it(
  "a client that answers the withdrawn request with an option fails permission-cancel",
  { timeout: 60_000 },
  async () => {
    const { report } = await probeWithAcpKit("select-anyway");
    expect(statuses(report)["permission-cancel"], formatReport(report)).toBe("fail");
    expect(report.ok).toBe(false);
  },
);

it(
  "acp-kit's TestClient with protocol auto negotiates v2 and passes",
  { timeout: 60_000 },
  async () => {
    const reportPath = join(dir, "report.json");
    const { output, input } = startProbe(reportPath);
    const session = { id: "" };
    const client: TestClient = new TestClient({
      protocol: "auto",
      cwd: dir,
      permission: (request) => {
        const subject = (request as { subject?: { toolCall?: { toolCallId?: string } } }).subject;
        const toolCallId = subject?.toolCall?.toolCallId;
        if (toolCallId === PROBE_TOOL_CALLS.cancel) {
          // The user presses Cancel: TestClient answers its pending requests cancelled
          // (this one is pending once the callback returned: hence the microtask).
          queueMicrotask(() => void client.cancel(session.id));
          return new Promise<never>(() => undefined);
        }
        return toolCallId === PROBE_TOOL_CALLS.permission ? "allow" : "yes";
      },
    });
    try {
      expect(await client.open(ndJsonStream(output, input))).toBe(2);
      session.id = (await client.newSessionV2()).sessionId;
      await client.prompt(session.id, "probe");
      const report = JSON.parse(await readFile(reportPath, "utf8")) as ConformanceReport;
      expect(statuses(report), formatReport(report)).toEqual({
        "client-initialize": "pass",
        "client-info": "pass",
        permission: "pass",
        "update-rendering": "pass",
        "permission-cancel": "pass",
      });
      expect(report).toMatchObject({ ok: true, agreedProtocolVersion: 2 });
    } finally {
      await client.close();
    }
  },
);

it("the official SDK's v2 client() passes too (differential)", { timeout: 60_000 }, async () => {
  const reportPath = join(dir, "report.json");
  const { output, input } = startProbe(reportPath);
  let cancelSent: () => void = () => undefined;
  const client = official
    .client()
    .onRequest("session/request_permission", async (ctx) => {
      const subject = ctx.params.subject as { toolCall?: { toolCallId?: string } } | undefined;
      const toolCallId = subject?.toolCall?.toolCallId;
      if (toolCallId === PROBE_TOOL_CALLS.cancel) {
        cancelSent();
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        return { outcome: { outcome: "cancelled" } };
      }
      const optionId = toolCallId === PROBE_TOOL_CALLS.permission ? "allow" : "yes";
      return { outcome: { outcome: "selected", optionId } };
    })
    .connect(official.ndJsonStream(output, input));
  let report: ConformanceReport;
  try {
    await client.agent.request("initialize", {
      protocolVersion: 2,
      info: { name: "official-v2-client", version: "2.4.0" },
      capabilities: {},
    });
    const session = await client.agent.buildSession(dir).start();
    cancelSent = () => void client.agent.notify("session/cancel", { sessionId: session.sessionId });
    await session.prompt("probe");
    await session.readTextUntilIdle();
    report = JSON.parse(await readFile(reportPath, "utf8")) as ConformanceReport;
  } finally {
    client.close();
  }
  expect(statuses(report), formatReport(report)).toEqual({
    "client-initialize": "pass",
    "client-info": "pass",
    permission: "pass",
    "update-rendering": "pass",
    "permission-cancel": "pass",
  });
  expect(report).toMatchObject({
    ok: true,
    agreedProtocolVersion: 2,
    subject: { clientInfo: { name: "official-v2-client" } },
  });
});
