/**
 * {@link runAgentChecks}: start an agent (as a real process) and run the conformance
 * battery against it, producing a {@link ConformanceReport}.
 *
 * @module
 */
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PROTOCOL_VERSION } from "../../peer/methods.js";
import type { AgentCapabilities, Implementation } from "../../schema/types.gen.js";
import type { AgentCapabilities as AgentCapabilitiesV2 } from "../../schema/v2/types.gen.js";
import { VERSION } from "../../base/version.js";
import { checkClientCapabilities, checkClientRequests } from "./checks/capabilities.js";
import {
  FUTURE_PROTOCOL_VERSION,
  checkProtocolVersion,
  initializeParams,
} from "./checks/initialize.js";
import { LIVE_TURN_NEEDED, LOGIN_NEEDED, newSession } from "./checks/sessions.js";
import {
  CheckChannel,
  DEFAULT_AGENT_CHECK_TIMEOUTS,
  SHORT_PROMPT,
  describe,
  environmentProblem,
  isAuthRequired,
  type AgentCheckTimeouts,
  type RunContext,
} from "./checks/support.js";
import { promptBlocks } from "./checks/turns.js";
import {
  checkMethodNames,
  checkResponseIds,
  checkSessionUpdates,
  checkStdoutPurity,
} from "./checks/wire.js";
import {
  AGENT_CHECKS,
  AGENT_CHECKS_V2,
  NEGOTIATION_CHECK,
  checkResult,
  definitionOf,
  skipped,
  type CheckDefinition,
  type CheckOutcome,
} from "./catalog.js";
import {
  V2_METHOD_SPECS,
  agreedVersionOf,
  checkNegotiation,
  checkV2ClientRequests,
  checkV2SessionUpdates,
  checkV2UpdateOrder,
  v2InitializeParams,
} from "./checks/v2.js";
import { runV2MainConnection } from "./v2-main.js";
import type { CheckerPermission } from "./client.js";
import { WireLog } from "./log.js";
import { logIn, logOut, runMainConnection, type MainState } from "./main.js";
import type { AgentCommand } from "./process.js";
import type { WireOutcome } from "./wire.js";
import {
  REPORT_FORMAT,
  REPORT_FORMAT_VERSION,
  reportOk,
  summarize,
  type CheckResult,
  type ConformanceReport,
} from "./report.js";

/** Options of {@link runAgentChecks}: the agent to start and how to check it. */
export interface AgentCheckOptions extends AgentCommand {
  /** Time limits; see {@link AgentCheckTimeouts} for the defaults. */
  readonly timeouts?: Partial<AgentCheckTimeouts>;
  /** How the checker answers permission requests (default `"reject"`: nothing gets changed). */
  readonly permission?: CheckerPermission;
  /**
   * The directory the sessions use as `cwd`. Default: a new temporary directory, removed
   * afterwards. When given, the checker adds a file `.acp-kit-check-notes.txt` there for
   * the prompts to link to (removed afterwards); files the agent writes through the
   * client are kept in memory, never written to disk.
   */
  readonly sessionCwd?: string;
  /** Called with each check's result as soon as it is decided (in execution order). */
  readonly onCheck?: (result: CheckResult) => void;
  /**
   * A login method (an id of the agent's `authMethods`) to log in with after each
   * `initialize`, so that the checks needing a session and a live turn can run. The
   * variables of an `env_var` method must be set in this process's environment (the
   * agent inherits them; `env` may set them too). Terminal methods are not run.
   */
  readonly auth?: string;
  /**
   * Which protocol version to check (default `1`). `"auto"`: first ask for v2 on a
   * connection of its own (check `negotiation`), then run the v2 checks if the agent
   * agreed to 2, the v1 checks if it answered 1 (or failed to negotiate). `2`: the v2
   * checks only (skipped when the agent does not agree to 2). `1`: the v1 checks, no
   * negotiation.
   */
  readonly protocol?: CheckProtocol;
}

/** Which protocol version `acp-kit check` checks: `1`, `2`, or `"auto"` (negotiated). */
export type CheckProtocol = 1 | 2 | "auto";

/** Collects check outcomes; the report lists them in catalog order. */
export class CheckResults {
  private readonly outcomes = new Map<string, CheckOutcome>();
  /** Remarks about the whole run. */
  readonly notes: string[] = [];

  /**
   * Creates an empty collection.
   *
   * @param onCheck - Told about each result as it is set.
   * @param catalog - The checks of the run, in report order.
   */
  constructor(
    private readonly onCheck?: (result: CheckResult) => void,
    private readonly catalog: readonly CheckDefinition[] = AGENT_CHECKS,
  ) {}

  /** Sets a check's outcome (the first one set wins). */
  set(id: string, outcome: CheckOutcome): void {
    if (this.outcomes.has(id)) return;
    this.outcomes.set(id, outcome);
    this.onCheck?.(checkResult(definitionOf(this.catalog, id), outcome));
  }

  /** Skips every check of `ids` not decided yet. */
  skipRest(ids: readonly string[], reason: string): void {
    for (const id of ids) this.set(id, skipped(reason));
  }

  /** Adds a remark about the whole run (once). */
  note(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
  }

  /** Every check in catalog order. */
  list(): CheckResult[] {
    return this.catalog.map((definition) =>
      checkResult(definition, this.outcomes.get(definition.id) ?? skipped("Not run")),
    );
  }
}

/** Runs a prompt turn on a connection that advertised nothing; says why not if it cannot. */
async function runBareConnection(
  context: RunContext,
  channel: CheckChannel,
): Promise<string | undefined> {
  const init = await channel.request(
    "initialize",
    initializeParams(PROTOCOL_VERSION, false),
    context.timeouts.initializeMs,
  );
  if (init.kind !== "result")
    return `On the connection without capabilities, initialize ${describe(init)}`;
  const loginFailed = await logIn(context, channel, init);
  try {
    return await bareTurn(context, channel);
  } finally {
    // Said on the main connection; here the login is only undone.
    await logOut(context, channel, init, loginFailed);
  }
}

/** The bare connection's session and prompt turn. */
async function bareTurn(context: RunContext, channel: CheckChannel): Promise<string | undefined> {
  const created = await newSession(context, channel);
  if (isAuthRequired(created)) return LOGIN_NEEDED;
  const sessionId =
    created.kind === "result" ? (created.result as { sessionId?: unknown }).sessionId : undefined;
  if (typeof sessionId !== "string")
    return `On the connection without capabilities, session/new ${describe(created)}`;
  const text = `${SHORT_PROMPT} Read the attached file first.`;
  const turn = await channel.request(
    "session/prompt",
    { sessionId, prompt: promptBlocks(context, text) },
    context.timeouts.promptMs,
  );
  return environmentProblem(turn, true) === undefined ? undefined : LIVE_TURN_NEEDED;
}

async function openChannel(
  name: string,
  context: RunContext,
  capable: boolean,
): Promise<CheckChannel | string> {
  try {
    return await CheckChannel.open(name, context, capable);
  } catch (error) {
    return `The agent could not be started a second time: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Starts the agent three times (a client advertising fs and terminals, one advertising
 * nothing, one asking for a future protocol version) and runs every agent check.
 * Checks that need a logged-in agent are skipped when `session/new` answers `-32000`.
 *
 * ```ts
 * const report = await runAgentChecks({ command: "node", args: ["my-agent.js"] });
 * console.log(formatReport(report));
 * process.exitCode = report.ok ? 0 : 1;
 * ```
 *
 * @throws AgentStartupError when the agent cannot be started at all.
 */
export async function runAgentChecks(options: AgentCheckOptions): Promise<ConformanceReport> {
  const given = options.sessionCwd;
  const workdir = await realpath(
    given === undefined ? await mkdtemp(join(tmpdir(), "acp-kit-check-")) : resolve(given),
  );
  const notesPath = join(workdir, given === undefined ? "notes.txt" : ".acp-kit-check-notes.txt");
  await writeFile(notesPath, "# Notes\n\nFirst line.\nSecond line.\n");
  const context: RunContext = {
    command: options,
    log: new WireLog(),
    timeouts: { ...DEFAULT_AGENT_CHECK_TIMEOUTS, ...options.timeouts },
    workdir,
    notesPath,
    permission: options.permission ?? "reject",
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    attributed: new Set(),
  };
  try {
    const protocol = options.protocol ?? 1;
    const negotiated = protocol === 1 ? undefined : await negotiate(context);
    if (protocol === 2 || (negotiated !== undefined && agreedVersionOf(negotiated) === 2)) {
      return await runV2(options, context, negotiated);
    }
    const results = new CheckResults(
      options.onCheck,
      negotiated === undefined ? AGENT_CHECKS : [NEGOTIATION_CHECK, ...AGENT_CHECKS],
    );
    if (negotiated !== undefined) {
      results.set("negotiation", checkNegotiation(context.log, negotiated));
    }
    const main = await CheckChannel.open("main", context, true);
    let state: MainState;
    try {
      state = await runMainConnection(context, main, results);
    } finally {
      await main.close();
    }
    const bare =
      state.live === false ? LIVE_TURN_NEEDED : await openChannel("bare", context, false);
    let bareSkipped: string | undefined = typeof bare === "string" ? bare : undefined;
    if (typeof bare !== "string") {
      try {
        bareSkipped = await runBareConnection(context, bare);
      } finally {
        await bare.close();
      }
    }
    const future = await openChannel("version", context, false);
    let futureInit: WireOutcome | undefined;
    if (typeof future !== "string") {
      try {
        futureInit = await future.request(
          "initialize",
          initializeParams(FUTURE_PROTOCOL_VERSION, false),
          context.timeouts.initializeMs,
        );
      } finally {
        await future.close();
      }
    }
    const { log } = context;
    const bareChannel = typeof bare === "string" ? undefined : bare;
    results.set("stdout-purity", checkStdoutPurity(log, context.attributed));
    results.set("protocol-version", checkProtocolVersion(log, state.init, futureInit));
    results.set(
      "session-updates",
      checkSessionUpdates(log, [main, ...(bareChannel ? [bareChannel] : [])]),
    );
    results.set(
      "client-capabilities",
      checkClientCapabilities(log, main, bareChannel, bareSkipped),
    );
    results.set("client-requests", checkClientRequests(log, main));
    results.set("method-names", checkMethodNames(log));
    results.set("response-ids", checkResponseIds(log));
    return {
      ...report(options, results.list(), state, main.process.stderrTail(20), results.notes),
      ...(negotiated === undefined ? {} : { agreedProtocolVersion: 1 }),
    };
  } finally {
    await rm(given === undefined ? workdir : notesPath, { recursive: true, force: true });
  }
}

/** Asks for v2 on a connection of its own (dual-shape `initialize`); resolves with the answer. */
async function negotiate(context: RunContext): Promise<WireOutcome> {
  const channel = await CheckChannel.open("negotiation", context, false);
  try {
    return await channel.request(
      "initialize",
      v2InitializeParams(true),
      context.timeouts.initializeMs,
    );
  } finally {
    await channel.close();
  }
}

/** The checks that need the v2 main connection (all but the whole-log ones). */
const V2_CONNECTION_CHECKS = AGENT_CHECKS_V2.map((definition) => definition.id).filter(
  (id) => !["stdout-purity", "negotiation", "method-names", "response-ids"].includes(id),
);

/** The v2 battery: negotiation, then (when the agent agreed to 2) the v2 main connection. */
async function runV2(
  options: AgentCheckOptions,
  context: RunContext,
  negotiated: WireOutcome | undefined,
): Promise<ConformanceReport> {
  const results = new CheckResults(options.onCheck, AGENT_CHECKS_V2);
  const { log } = context;
  const negotiation = negotiated ?? (await negotiate(context));
  results.set("negotiation", checkNegotiation(log, negotiation));
  const agreed = agreedVersionOf(negotiation);
  let init: WireOutcome | undefined;
  let stderrTail: string[] = [];
  if (agreed === 2) {
    const main = await CheckChannel.open("main", context, false, 2);
    try {
      init = await runV2MainConnection(context, main, results);
    } finally {
      await main.close();
    }
    stderrTail = main.process.stderrTail(20);
    results.set("v2-session-updates", checkV2SessionUpdates(log, [main]));
    results.set("v2-update-order", checkV2UpdateOrder(log, [main.name]));
    results.set("v2-client-requests", checkV2ClientRequests(log, main));
  } else {
    results.skipRest(
      V2_CONNECTION_CHECKS,
      `The agent did not agree to version 2 (it answered ${JSON.stringify(agreed ?? null)}; see negotiation)`,
    );
  }
  results.set("stdout-purity", checkStdoutPurity(log, context.attributed));
  results.set("method-names", checkMethodNames(log, V2_METHOD_SPECS));
  results.set("response-ids", checkResponseIds(log));
  const checks = results.list();
  const result =
    init?.kind === "result" && typeof init.result === "object" && init.result !== null
      ? (init.result as Record<string, unknown>)
      : {};
  const info = result.info as Implementation | undefined;
  const capabilities = result.capabilities as AgentCapabilitiesV2 | undefined;
  return {
    format: REPORT_FORMAT,
    formatVersion: REPORT_FORMAT_VERSION,
    kind: "agent",
    protocolVersion: 2,
    ...(typeof agreed === "number" ? { agreedProtocolVersion: agreed } : {}),
    tool: { name: "acp-kit", version: VERSION },
    subject: {
      kind: "agent",
      command: options.command,
      args: [...(options.args ?? [])],
      cwd: options.cwd ?? process.cwd(),
      ...(info == null ? {} : { agentInfo: info }),
      ...(capabilities == null ? {} : { agentCapabilitiesV2: capabilities }),
    },
    checks,
    summary: summarize(checks),
    ok: reportOk(checks),
    ...(results.notes.length > 0 ? { notes: [...results.notes] } : {}),
    stderrTail,
  };
}

function report(
  options: AgentCheckOptions,
  checks: CheckResult[],
  state: MainState,
  stderrTail: string[],
  notes: readonly string[],
): ConformanceReport {
  const result =
    state.init.kind === "result" && typeof state.init.result === "object"
      ? (state.init.result as Record<string, unknown>)
      : {};
  const agentInfo = result.agentInfo as Implementation | undefined;
  const agentCapabilities = result.agentCapabilities as AgentCapabilities | undefined;
  return {
    format: REPORT_FORMAT,
    formatVersion: REPORT_FORMAT_VERSION,
    kind: "agent",
    protocolVersion: PROTOCOL_VERSION,
    tool: { name: "acp-kit", version: VERSION },
    subject: {
      kind: "agent",
      command: options.command,
      args: [...(options.args ?? [])],
      cwd: options.cwd ?? process.cwd(),
      ...(agentInfo == null ? {} : { agentInfo }),
      ...(agentCapabilities == null ? {} : { agentCapabilities }),
    },
    checks,
    summary: summarize(checks),
    ok: reportOk(checks),
    ...(notes.length > 0 ? { notes: [...notes] } : {}),
    stderrTail,
  };
}
