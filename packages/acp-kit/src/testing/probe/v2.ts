/**
 * The client probe in ACP v2: the agent a v2 client gets from `acp-kit check-client`
 * (through `protocolRouter`). On the first prompt it answers `{messageId}`, echoes the
 * prompt, reports `running`, then checks the client as the v1 probe does where v2 has
 * the same feature: what it sent in `initialize`, a permission request in the v2 shape,
 * every v2 update kind with upserts and patches to fold (confirmed by the user), and a
 * permission request withdrawn with `$/cancel_request` after `session/cancel`. It ends
 * `idle` and says its report. v2 has no client files or terminals: those checks are not
 * part of a v2 report.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { isPlainObject } from "../../base/messages.js";
import { VERSION } from "../../base/version.js";
import { RequestError } from "../../jsonrpc/errors.js";
import { validateV2 } from "../../schema/v2/validate.js";
import type * as v2 from "../../schema/v2/types.gen.js";
import type { Agent } from "../../v2/agent.js";
import type { AgentSideConnection } from "../../v2/agent-side-connection.js";
import {
  CLIENT_CHECKS,
  checkResult,
  failed,
  passed,
  skipped,
  type CheckDefinition,
  type CheckOutcome,
} from "../conformance/catalog.js";
import {
  REPORT_FORMAT,
  REPORT_FORMAT_VERSION,
  reportOk,
  summarize,
  type ConformanceReport,
  type ExchangeEntry,
} from "../conformance/report.js";
import { formatReportMarkdown } from "../conformance/report-format.js";
import {
  DEFAULT_CLIENT_PROBE_TIMEOUTS,
  defaultProbeReportPath,
  errorText,
  quoter,
  type ClientProbeOptions,
} from "./context.js";
import { PROBE_TOOL_CALLS } from "./interactive.js";

/** The client checks of a v2 client: those of v1 that v2 has a feature for. */
export const CLIENT_CHECKS_V2: readonly CheckDefinition[] = CLIENT_CHECKS.filter(
  (definition) => !definition.id.startsWith("fs-") && !definition.id.startsWith("terminal-"),
);

/** How long the probe waits for the client's answer to a withdrawn permission request. */
const WITHDRAWN_ANSWER_MS = 10_000;

const YES_NO: v2.PermissionOption[] = [
  { optionId: "yes", name: "Yes", kind: "allow_once" },
  { optionId: "no", name: "No", kind: "reject_once" },
];

/** The question of the rendering step: what the user should see, folded. */
export const RENDERING_QUESTION_V2 =
  'Did all of these show up? A thought, the agent message "Upserted and appended." (its ' +
  'first text "Old text" replaced, then a chunk appended), a completed tool call "A tool ' +
  'call" with the output "tool output", a plan of exactly two entries ("First step", ' +
  '"Second step"; "Old step" replaced), the command /probe-help, the option "Probe option" ' +
  '= B, the title "acp-kit probe", usage 1234 of 200000 tokens (0.01 USD), and a terminal ' +
  '"echo probe" that printed "probe output" and exited 0.';

interface ProbeSessionV2 {
  readonly cwd: string;
  running: boolean;
  cancel: (() => void) | undefined;
}

/** One probe run in one session (v2). */
interface RunV2 {
  readonly connection: AgentSideConnection;
  readonly sessionId: string;
  readonly timeouts: typeof DEFAULT_CLIENT_PROBE_TIMEOUTS;
  readonly quote: (method: string, params: unknown, answer: unknown) => ExchangeEntry[];
  readonly send: (update: v2.SessionUpdate) => Promise<void>;
  readonly say: (text: string) => Promise<void>;
  cancelled(): boolean;
  readonly cancellation: Promise<void>;
}

function text(value: string): v2.ContentBlock {
  return { type: "text", text: value };
}

function configOptions(currentValue: string): v2.SessionConfigOption[] {
  return [
    {
      configId: "probe-option",
      name: "Probe option",
      type: "select",
      currentValue,
      options: [
        { value: "a", name: "A" },
        { value: "b", name: "B" },
      ],
    },
  ];
}

/** Every v2 update kind, with upserts and patches whose folded result the user checks. */
function everyKindV2(): v2.SessionUpdate[] {
  const message = randomUUID();
  const toolCallId = "probe-render";
  const plan = (entries: v2.PlanEntry[]): v2.SessionUpdate => ({
    sessionUpdate: "plan_update",
    plan: { type: "items", planId: "probe-plan", entries },
  });
  return [
    {
      sessionUpdate: "agent_thought_chunk",
      messageId: randomUUID(),
      content: text("(probe) a thought"),
    },
    { sessionUpdate: "agent_message", messageId: message, content: [text("\n\nOld text")] },
    { sessionUpdate: "agent_message", messageId: message, content: [text("\n\nUpserted ")] },
    {
      sessionUpdate: "agent_message_chunk",
      messageId: message,
      content: text("and appended.\n\n"),
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId,
      title: "A tool call",
      kind: "read",
      status: "in_progress",
    },
    {
      sessionUpdate: "tool_call_content_chunk",
      toolCallId,
      content: { type: "content", content: text("tool output") },
    },
    { sessionUpdate: "tool_call_update", toolCallId, status: "completed" },
    plan([{ content: "Old step", priority: "high", status: "pending" }]),
    plan([
      { content: "First step", priority: "high", status: "completed" },
      { content: "Second step", priority: "low", status: "in_progress" },
    ]),
    {
      sessionUpdate: "available_commands_update",
      availableCommands: [
        {
          type: "command",
          name: "probe-help",
          description: "A command of the acp-kit probe",
          input: { type: "text", hint: "anything" },
        },
      ],
    },
    { sessionUpdate: "config_option_update", configOptions: configOptions("b") },
    {
      sessionUpdate: "session_info_update",
      title: "acp-kit probe",
      updatedAt: new Date().toISOString(),
    },
    {
      sessionUpdate: "usage_update",
      used: 1234,
      size: 200000,
      cost: { amount: 0.01, currency: "USD" },
    },
    { sessionUpdate: "terminal_update", terminalId: "probe-terminal", command: "echo probe" },
    {
      sessionUpdate: "terminal_output_chunk",
      terminalId: "probe-terminal",
      data: Buffer.from("probe output\n").toString("base64"),
    },
    { sessionUpdate: "terminal_update", terminalId: "probe-terminal", exitStatus: { exitCode: 0 } },
  ];
}

async function attempt<T>(
  call: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Sends a permission request about a new tool call; reports `requires_action` meanwhile. */
async function ask(
  run: RunV2,
  toolCallId: string,
  title: string,
  options: v2.PermissionOption[],
  timeoutMs: number,
  signal?: AbortSignal,
) {
  await run.send({
    sessionUpdate: "tool_call_update",
    toolCallId,
    title,
    kind: "other",
    status: "pending",
  });
  await run.send({ sessionUpdate: "state_update", state: "requires_action" });
  const params: v2.RequestPermissionRequest = {
    sessionId: run.sessionId,
    title,
    subject: { type: "tool_call", toolCall: { toolCallId, title } },
    options,
  };
  const answer = await attempt(() =>
    run.connection.requestPermission(params, { timeoutMs, ...(signal ? { signal } : {}) }),
  );
  if (!run.cancelled()) await run.send({ sessionUpdate: "state_update", state: "running" });
  await run.send({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
  return { params, answer };
}

function outcomeOf(value: unknown): { outcome?: unknown; optionId?: unknown } {
  const outcome = isPlainObject(value) ? value.outcome : undefined;
  return isPlainObject(outcome) ? outcome : {};
}

async function probePermissionV2(run: RunV2): Promise<CheckOutcome> {
  const options: v2.PermissionOption[] = [
    { optionId: "allow", name: "Allow (nothing will happen)", kind: "allow_once" },
    { optionId: "reject", name: "Reject", kind: "reject_once" },
  ];
  const title = "acp-kit probe: a harmless permission request (choose any option)";
  const { params, answer } = await ask(
    run,
    PROBE_TOOL_CALLS.permission,
    title,
    options,
    run.timeouts.answerMs,
  );
  if (!answer.ok) {
    return failed(
      `session/request_permission failed: ${errorText(answer.error)}`,
      run.quote("session/request_permission", params, { error: errorText(answer.error) }),
    );
  }
  const valid = validateV2("RequestPermissionResponse", answer.value);
  if (!valid.ok) {
    return failed(
      `The answer is not a valid v2 RequestPermissionResponse: ${valid.issues[0]?.path ?? ""} ${valid.issues[0]?.message ?? ""}`,
      run.quote("session/request_permission", params, answer.value),
    );
  }
  const outcome = outcomeOf(answer.value);
  if (outcome.outcome === "cancelled") return passed(["Answered cancelled."]);
  if (!options.some((option) => option.optionId === outcome.optionId)) {
    return failed(
      `The answer selected ${JSON.stringify(outcome.optionId)}, which was not offered`,
      run.quote("session/request_permission", params, answer.value),
    );
  }
  return passed([`Answered with option "${String(outcome.optionId)}".`]);
}

async function probeRenderingV2(run: RunV2): Promise<CheckOutcome> {
  await run.say("\n\nNext, one `session/update` of every v2 kind, some patched or upserted:\n");
  for (const update of everyKindV2()) await run.send(update);
  await run.say(`\n\n${RENDERING_QUESTION_V2}\n`);
  const { answer } = await ask(
    run,
    PROBE_TOOL_CALLS.confirm,
    `acp-kit probe: ${RENDERING_QUESTION_V2}`,
    YES_NO,
    run.timeouts.answerMs,
  );
  if (!answer.ok) return skipped(`No answer to the question: ${errorText(answer.error)}`);
  const outcome = outcomeOf(answer.value);
  if (outcome.outcome === "cancelled") return skipped("The question was answered cancelled");
  if (outcome.optionId !== "yes")
    return failed("The user reported that some updates did not render");
  return passed([
    'Confirmed by choosing "Yes" (a client that approves automatically confirms without a human).',
  ]);
}

/**
 * The cancel step: the user presses Cancel while a permission request is pending; on
 * `session/cancel` the probe withdraws the request with `$/cancel_request`, and the
 * client must answer it with the `cancelled` outcome.
 */
async function probeCancelV2(run: RunV2): Promise<CheckOutcome> {
  await run.say(
    "\n\n**Last step: press Cancel (Stop) now**, while the permission request below is open. " +
      "Do not choose an option.\n",
  );
  const title = "acp-kit probe: press Cancel/Stop in your editor now (do not choose an option)";
  const withdraw = new AbortController();
  const seen: { id?: unknown; answer?: (message: Record<string, unknown>) => void } = {};
  const answered = new Promise<Record<string, unknown>>((resolve) => (seen.answer = resolve));
  const stop = run.connection.observe((direction, message) => {
    if (!isPlainObject(message)) return;
    const record = message;
    if (direction === "out" && record.method === "session/request_permission") {
      if (isPlainObject(record.params) && record.params.title === title) seen.id = record.id;
    } else if (direction === "in" && seen.id !== undefined && record.id === seen.id) {
      if (!("method" in record)) seen.answer?.(record);
    }
  });
  // On session/cancel the probe withdraws its request: $/cancel_request.
  void run.cancellation.then(() => withdraw.abort());
  const { params, answer } = await ask(
    run,
    PROBE_TOOL_CALLS.cancel,
    title,
    YES_NO,
    run.timeouts.cancelStepMs,
    withdraw.signal,
  );
  const cancelledFirst = run.cancelled();
  let response: Record<string, unknown> | undefined;
  if (answer.ok) response = { result: answer.value };
  else if (withdraw.signal.aborted) {
    response = await Promise.race([
      answered,
      new Promise<undefined>((resolve) =>
        setTimeout(() => resolve(undefined), WITHDRAWN_ANSWER_MS),
      ),
    ]);
  } else {
    stop();
    return skipped(`The request got no answer: ${errorText(answer.error)}`);
  }
  stop();
  if (response === undefined) {
    return cancelledFirst
      ? failed(
          `session/cancel arrived and the probe withdrew its permission request ($/cancel_request); the client did not answer it within ${WITHDRAWN_ANSWER_MS} ms`,
          run.quote("session/request_permission", params, "(no answer)"),
        )
      : skipped("The request got no answer");
  }
  if ("error" in response) {
    return cancelledFirst
      ? failed(
          "The withdrawn permission request was answered with an error; a v2 client answers it with the cancelled outcome",
          run.quote("session/request_permission", params, response),
        )
      : skipped(`The request got an error: ${JSON.stringify(response.error)}`);
  }
  const outcome = outcomeOf(response.result);
  if (outcome.outcome === "selected") {
    if (!cancelledFirst) {
      return skipped(
        "An option was chosen instead of pressing Cancel; run the probe again and press Cancel",
      );
    }
    return failed(
      `session/cancel arrived, yet the pending permission request was answered with option "${String(outcome.optionId)}" instead of cancelled`,
      run.quote("session/request_permission", params, response.result),
    );
  }
  if (!cancelledFirst) {
    await Promise.race([run.cancellation, new Promise((resolve) => setTimeout(resolve, 2000))]);
  }
  return passed(run.cancelled() ? [] : ["Answered cancelled, but no session/cancel followed."]);
}

/** The probe's v2 {@link Agent}: see the module comment. */
export class ProbeAgentV2 implements Agent {
  private init: v2.InitializeRequest | undefined;
  private readonly sessions = new Map<string, ProbeSessionV2>();

  /**
   * Creates the probe for one v2 connection.
   *
   * @param connection - The connection to the client.
   * @param options - Where the report goes, time limits, the report callback.
   */
  constructor(
    private readonly connection: AgentSideConnection,
    private readonly options: ClientProbeOptions = {},
  ) {}

  /** Records what the client sent; answers version 2 with sessions. */
  initialize(params: v2.InitializeRequest): v2.InitializeResponse {
    this.init ??= params;
    return {
      protocolVersion: 2,
      info: { name: "acp-kit-probe", title: "acp-kit client probe", version: VERSION },
      capabilities: { session: { prompt: { embeddedContext: {} } } },
    };
  }

  /** A session with a config option (so that its update is legal). */
  newSession(params: v2.NewSessionRequest): v2.NewSessionResponse {
    const sessionId = `probe-${randomUUID().slice(0, 12)}`;
    this.sessions.set(sessionId, { cwd: params.cwd, running: false, cancel: undefined });
    return { sessionId, configOptions: configOptions("a") };
  }

  /** The sessions of this connection. */
  listSessions(params: v2.ListSessionsRequest): v2.ListSessionsResponse {
    const sessions = [...this.sessions].filter(
      ([, s]) => params.cwd == null || s.cwd === params.cwd,
    );
    return { sessions: sessions.map(([sessionId, s]) => ({ sessionId, cwd: s.cwd })) };
  }

  /** Resumes a session of this connection: a state snapshot, then the answer. */
  async resumeSession(params: v2.ResumeSessionRequest): Promise<v2.ResumeSessionResponse> {
    const session = this.sessions.get(params.sessionId);
    if (session === undefined) throw RequestError.resourceNotFound(params.sessionId);
    await this.connection.sessionUpdate({
      sessionId: params.sessionId,
      update: session.running
        ? { sessionUpdate: "state_update", state: "running" }
        : { sessionUpdate: "state_update", state: "idle" },
    });
    return {};
  }

  /** Cancels the running probe, forgets the session. */
  closeSession(params: v2.CloseSessionRequest): v2.CloseSessionResponse {
    this.sessions.get(params.sessionId)?.cancel?.();
    this.sessions.delete(params.sessionId);
    return {};
  }

  /** The option accepts its values. */
  setSessionConfigOption(
    params: v2.SetSessionConfigOptionRequest,
  ): v2.SetSessionConfigOptionResponse {
    return { configOptions: configOptions(String(params.value)) };
  }

  /** Inserts the prompt (echoed), starts the probe, answers `{messageId}` at once. */
  async prompt(params: v2.PromptRequest): Promise<v2.PromptResponse> {
    const session = this.sessions.get(params.sessionId);
    if (session === undefined) throw RequestError.resourceNotFound(params.sessionId);
    if (session.running)
      throw RequestError.invalidRequest(undefined, "The probe is already running in this session");
    const messageId = randomUUID();
    await this.connection.sessionUpdate({
      sessionId: params.sessionId,
      update: { sessionUpdate: "user_message", messageId, content: params.prompt },
    });
    session.running = true;
    void this.run(params.sessionId, session);
    return { messageId };
  }

  /** Notes the cancellation; the running probe skips its remaining steps. */
  cancel(params: v2.CancelSessionNotification): void {
    this.sessions.get(params.sessionId)?.cancel?.();
  }

  private async run(sessionId: string, session: ProbeSessionV2): Promise<void> {
    const state = { cancelled: false };
    let markCancelled = (): void => undefined;
    const cancellation = new Promise<void>((resolve) => (markCancelled = resolve));
    session.cancel = () => {
      state.cancelled = true;
      markCancelled();
    };
    const send = (update: v2.SessionUpdate): Promise<void> =>
      this.connection.sessionUpdate({ sessionId, update }).catch(() => undefined);
    const reply = randomUUID();
    const run: RunV2 = {
      connection: this.connection,
      sessionId,
      timeouts: { ...DEFAULT_CLIENT_PROBE_TIMEOUTS, ...this.options.timeouts },
      quote: quoter(),
      send,
      say: (value) =>
        send({ sessionUpdate: "agent_message_chunk", messageId: reply, content: text(value) }),
      cancelled: () => state.cancelled,
      cancellation,
    };
    try {
      await send({ sessionUpdate: "state_update", state: "running" });
      const report = await this.probe(run);
      const path = this.options.reportPath ?? defaultProbeReportPath();
      const written = await mkdir(dirname(path), { recursive: true })
        .then(() => writeFile(path, `${JSON.stringify(report, null, 2)}\n`))
        .then(
          () => `The JSON report is in \`${path}\`.`,
          (error: unknown) =>
            `The JSON report could not be written to \`${path}\`: ${errorText(error)}`,
        );
      await run.say(`\n\n${formatReportMarkdown(report)}\n${written}\n`);
      this.options.onReport?.(report, written.startsWith("The JSON report is") ? path : undefined);
      await this.idle(sessionId, session, state.cancelled ? "cancelled" : "end_turn");
    } catch (error) {
      // The prompt was answered already: a failure after insertion is an idle "error".
      await this.idle(sessionId, session, "error", errorText(error));
    }
  }

  private async idle(
    sessionId: string,
    session: ProbeSessionV2,
    stopReason: "cancelled" | "end_turn" | "error",
    message?: string,
  ): Promise<void> {
    session.cancel = undefined;
    session.running = false;
    const update: v2.SessionUpdate =
      stopReason === "error"
        ? {
            sessionUpdate: "state_update",
            state: "idle",
            stopReason,
            error: { code: -32603, message: message ?? "The probe failed" },
          }
        : { sessionUpdate: "state_update", state: "idle", stopReason };
    await this.connection.sessionUpdate({ sessionId, update }).catch(() => undefined);
  }

  private async probe(run: RunV2): Promise<ConformanceReport> {
    const init = this.init;
    const outcomes = new Map<string, CheckOutcome>([
      ["client-initialize", checkInitializeV2(init)],
      [
        "client-info",
        init?.info == null
          ? failed("initialize carried no info")
          : passed([`${init.info.name} ${init.info.version}`]),
      ],
    ]);
    const live = (): boolean => !run.cancelled();
    await run.say(
      "**acp-kit client probe (ACP v2)**: this agent checks the client it runs in. It will ask " +
        "for permission twice, show one update of every kind and, at the end, ask you to press Cancel.\n",
    );
    if (live()) outcomes.set("permission", await probePermissionV2(run));
    if (live()) outcomes.set("update-rendering", await probeRenderingV2(run));
    if (live()) outcomes.set("permission-cancel", await probeCancelV2(run));
    const notRun = skipped("The turn was cancelled before this step");
    const checks = CLIENT_CHECKS_V2.map((definition) =>
      checkResult(definition, outcomes.get(definition.id) ?? notRun),
    );
    return {
      format: REPORT_FORMAT,
      formatVersion: REPORT_FORMAT_VERSION,
      kind: "client",
      protocolVersion: 2,
      agreedProtocolVersion: 2,
      tool: { name: "acp-kit", version: VERSION },
      subject: {
        kind: "client",
        ...(init?.info == null ? {} : { clientInfo: init.info }),
        ...(init?.capabilities == null ? {} : { clientCapabilitiesV2: init.capabilities }),
        ...(init === undefined ? {} : { requestedProtocolVersion: init.protocolVersion }),
      },
      checks,
      summary: summarize(checks),
      ok: reportOk(checks),
    };
  }
}

function checkInitializeV2(init: v2.InitializeRequest | undefined): CheckOutcome {
  if (init === undefined) return failed("No initialize arrived before the prompt");
  const valid = validateV2("InitializeRequest", init);
  if (!valid.ok) {
    return failed(
      `initialize is not a valid v2 InitializeRequest: ${valid.issues[0]?.path ?? ""} ${valid.issues[0]?.message ?? ""}`,
    );
  }
  const notes: string[] = [];
  if (init.protocolVersion !== 2)
    notes.push(`The client asked for version ${init.protocolVersion}; the probe answered 2.`);
  if (init.capabilities == null)
    notes.push("No capabilities: clients SHOULD declare them (rule 20).");
  return passed(notes);
}
