/**
 * The client probe: an agent a person configures in their editor as if it were a real
 * agent. On each prompt it exercises the client (files, terminals, permissions, every
 * update kind, the cancel rule) and answers with a conformance report, also written as
 * JSON to a file. It serves ACP v1 and v2 (`protocolRouter`): a v2 client gets the v2
 * probe (`./v2.ts`), and the report says which version the client chose.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { RequestError } from "../../jsonrpc/errors.js";
import type { Stream } from "../../base/messages.js";
import { agentStdioStream } from "../../node/agent-stdio.js";
import type { AgentSideConnection } from "../../peer/agent-side-connection.js";
import { protocolRouter } from "../../v2/protocol-router.js";
import type { Agent } from "../../peer/agent.js";
import { PROTOCOL_VERSION } from "../../peer/methods.js";
import type * as schema from "../../schema/types.gen.js";
import { VERSION } from "../../base/version.js";
import {
  DEFAULT_CLIENT_PROBE_TIMEOUTS,
  defaultProbeReportPath,
  errorText,
  quoter,
  type ClientProbeOptions,
  type ProbeContext,
} from "./context.js";
import { runProbe } from "./run.js";
import { ProbeAgentV2 } from "./v2.js";

export { defaultProbeReportPath, type ClientProbeOptions } from "./context.js";
import type { ConformanceReport } from "../conformance/report.js";
import { formatReportMarkdown } from "../conformance/report-format.js";

function optionsOf(currentValue: string): schema.SessionConfigOption[] {
  const options = [
    { value: "a", name: "A" },
    { value: "b", name: "B" },
  ];
  return [{ id: "probe-option", name: "Probe option", type: "select", currentValue, options }];
}

const MODES: schema.SessionModeState = {
  currentModeId: "probe",
  availableModes: [
    { id: "probe", name: "Probe" },
    { id: "probe-other", name: "Probe (other)" },
  ],
};

interface ProbeSession {
  readonly cwd: string;
  cancel: (() => void) | undefined;
}

/** The probe's {@link Agent}: see the module comment. */
export class ProbeAgent implements Agent {
  private init: schema.InitializeRequest | undefined;
  private sessionBeforeInitialize = false;
  private readonly sessions = new Map<string, ProbeSession>();

  /**
   * Creates the probe for one connection.
   *
   * @param connection - The connection to the client.
   * @param options - Report path, time limits, report callback.
   */
  constructor(
    private readonly connection: AgentSideConnection,
    private readonly options: ClientProbeOptions = {},
  ) {}

  /** Records what the client sent; answers version 1 with modest capabilities. */
  initialize(params: schema.InitializeRequest): schema.InitializeResponse {
    this.init ??= params;
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false, promptCapabilities: { embeddedContext: true } },
      authMethods: [],
      agentInfo: { name: "acp-kit-probe", title: "acp-kit client probe", version: VERSION },
    };
  }

  /** Nothing to authenticate. */
  authenticate(): void {
    // No authentication methods are advertised.
  }

  /** A session with modes and a config option (so that their updates are legal). */
  newSession(params: schema.NewSessionRequest): schema.NewSessionResponse {
    if (this.init === undefined) this.sessionBeforeInitialize = true;
    const sessionId = `probe-${randomBytes(6).toString("hex")}`;
    this.sessions.set(sessionId, { cwd: params.cwd, cancel: undefined });
    return { sessionId, modes: MODES, configOptions: optionsOf("a") };
  }

  /** Accepts any offered mode. */
  setSessionMode(): void {
    // The probe's modes change nothing.
  }

  /** Accepts the option's values. */
  setSessionConfigOption(
    params: schema.SetSessionConfigOptionRequest,
  ): schema.SetSessionConfigOptionResponse {
    return { configOptions: optionsOf(String(params.value)) };
  }

  /** Runs the probe and answers with its report. */
  async prompt(params: schema.PromptRequest): Promise<schema.PromptResponse> {
    const session = this.sessions.get(params.sessionId);
    if (session === undefined) throw RequestError.resourceNotFound(params.sessionId);
    const { sessionId } = params;
    const state = { cancelled: false };
    let markCancelled = (): void => undefined;
    const cancellation = new Promise<void>((resolve) => (markCancelled = resolve));
    session.cancel = () => {
      state.cancelled = true;
      markCancelled();
    };
    const send = (update: schema.SessionUpdate): Promise<void> =>
      this.connection.sessionUpdate({ sessionId, update });
    const context: ProbeContext = {
      connection: this.connection,
      sessionId,
      cwd: session.cwd,
      capabilities: this.init?.clientCapabilities ?? {},
      timeouts: { ...DEFAULT_CLIENT_PROBE_TIMEOUTS, ...this.options.timeouts },
      cancelled: () => state.cancelled,
      cancellation,
      send,
      say: (text) =>
        send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } }),
      quote: quoter(),
    };
    try {
      const probed = await runProbe(context, {
        init: this.init,
        sessionBeforeInitialize: this.sessionBeforeInitialize,
      });
      const report: ConformanceReport = { ...probed, agreedProtocolVersion: 1 };
      const path = this.options.reportPath ?? defaultProbeReportPath();
      const written = await mkdir(dirname(path), { recursive: true })
        .then(() => writeFile(path, `${JSON.stringify(report, null, 2)}\n`))
        .then(
          () => `The JSON report is in \`${path}\`.`,
          (error: unknown) =>
            `The JSON report could not be written to \`${path}\`: ${errorText(error)}`,
        );
      await context.say(`\n\n${formatReportMarkdown(report)}\n${written}\n`);
      this.options.onReport?.(report, written.startsWith("The JSON report is") ? path : undefined);
    } finally {
      session.cancel = undefined;
    }
    return { stopReason: state.cancelled ? "cancelled" : "end_turn" };
  }

  /** Notes the cancellation; the running probe skips its remaining steps and says so. */
  cancel(params: schema.CancelNotification): void {
    this.sessions.get(params.sessionId)?.cancel?.();
  }
}

/**
 * Runs the client probe as an agent over `stream` (default: this process's stdio, via
 * `agentStdioStream()`), until the client closes the connection.
 *
 * ```ts
 * // probe.ts, configured in the editor as the agent command `node probe.js`
 * await runClientProbe({ reportPath: "/tmp/client-report.json" });
 * ```
 */
export async function runClientProbe(
  options: ClientProbeOptions & { readonly stream?: Stream } = {},
): Promise<void> {
  const stream = options.stream ?? agentStdioStream();
  // Both versions: the client's initialize chooses (v2 when it asks for 2 or more).
  const routed = protocolRouter({
    v1: (client) => new ProbeAgent(client, options),
    v2: (client) => new ProbeAgentV2(client, options),
  }).connect(stream);
  await routed.closed;
}
