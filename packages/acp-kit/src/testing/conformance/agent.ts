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
import { AGENT_CHECKS, checkResult, definitionOf, skipped, type CheckOutcome } from "./catalog.js";
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
}

/** Collects check outcomes; the report lists them in catalog order. */
export class CheckResults {
  private readonly outcomes = new Map<string, CheckOutcome>();
  /** Remarks about the whole run. */
  readonly notes: string[] = [];

  /**
   * Creates an empty collection.
   *
   * @param onCheck - Told about each result as it is set.
   */
  constructor(private readonly onCheck?: (result: CheckResult) => void) {}

  /** Sets a check's outcome (the first one set wins). */
  set(id: string, outcome: CheckOutcome): void {
    if (this.outcomes.has(id)) return;
    this.outcomes.set(id, outcome);
    this.onCheck?.(checkResult(definitionOf(AGENT_CHECKS, id), outcome));
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
    return AGENT_CHECKS.map((definition) =>
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
  const results = new CheckResults(options.onCheck);
  try {
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
    return report(options, results.list(), state, main.process.stderrTail(20), results.notes);
  } finally {
    await rm(given === undefined ? workdir : notesPath, { recursive: true, force: true });
  }
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
