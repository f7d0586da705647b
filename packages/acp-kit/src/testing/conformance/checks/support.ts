/**
 * What the agent checks share: the run context, one agent connection ("channel"), and
 * helpers to describe outcomes, validate values and quote exchanges.
 *
 * @module
 */
import { errorDataText } from "../../../jsonrpc/error-text.js";
import { validate } from "../../../schema/validate.js";
import type { ValidatedType } from "../../../schema/validators.gen.js";
import { validateV2 } from "../../../schema/v2/validate.js";
import type { ValidatedType as ValidatedTypeV2 } from "../../../schema/v2/validators.gen.js";
import { CheckerClient, type CheckerPermission } from "../client.js";
import { sessionOf, type WireLog, type WireRecord } from "../log.js";
import { AgentProcess, type AgentCommand } from "../process.js";
import type { WireOutcome } from "../wire.js";
import type { ExchangeEntry } from "../report.js";

/** Time limits of an agent check run, in milliseconds. */
export interface AgentCheckTimeouts {
  /** For the `initialize` answer (the first start through `npx` can be slow). */
  readonly initializeMs: number;
  /** For ordinary requests (`session/new`, unknown methods, ...). */
  readonly requestMs: number;
  /** For a whole prompt turn. */
  readonly promptMs: number;
  /** For the `cancelled` answer once `session/cancel` (or `session/close`) was sent. */
  readonly cancelMs: number;
  /** How long to watch for stray messages after an answer (late updates, replies to notifications). */
  readonly quietMs: number;
  /** When a turn shows no activity, how long to wait before cancelling anyway. */
  readonly cancelDelayMs: number;
}

/** Defaults suited to real agents backed by a model. */
export const DEFAULT_AGENT_CHECK_TIMEOUTS: AgentCheckTimeouts = {
  initializeMs: 60_000,
  requestMs: 30_000,
  promptMs: 180_000,
  cancelMs: 10_000,
  quietMs: 1_000,
  cancelDelayMs: 3_000,
};

/** Everything the checks of one run share. */
export interface RunContext {
  /** The agent to start. */
  readonly command: AgentCommand;
  /** The wire log of every connection. */
  readonly log: WireLog;
  /** The time limits. */
  readonly timeouts: AgentCheckTimeouts;
  /** The temporary directory used as the sessions' cwd. */
  readonly workdir: string;
  /** A file in it that prompts link to. */
  readonly notesPath: string;
  /** How permission requests are answered. */
  readonly permission: CheckerPermission;
  /**
   * The authentication method to log in with after each `initialize`, if any; its
   * environment variables come from the checker's own environment.
   */
  readonly auth?: string;
  /**
   * Sequence numbers of invalid lines a specific check has claimed as its finding
   * (answers to notifications without an id): `stdout-purity` does not count them again.
   */
  readonly attributed: Set<number>;
}

/** One agent process of a run, with the checker's client on it. */
export class CheckChannel {
  private constructor(
    readonly name: string,
    readonly process: AgentProcess,
    readonly client: CheckerClient,
    private readonly context: RunContext,
  ) {}

  /**
   * Starts the agent; `capable` says whether this connection advertises fs and terminals
   * (v1), `protocol` which version the checker's client answers the agent's requests in.
   */
  static async open(
    name: string,
    context: RunContext,
    capable: boolean,
    protocol: 1 | 2 = 1,
  ): Promise<CheckChannel> {
    const client = new CheckerClient(capable, context.workdir, context.permission, protocol);
    const process = await AgentProcess.start(context.command, name, context.log, client.handle);
    return new CheckChannel(name, process, client, context);
  }

  /** Sends a request; the time limit defaults to `requestMs`. */
  request(
    method: string,
    params: unknown,
    timeoutMs = this.context.timeouts.requestMs,
  ): Promise<WireOutcome> {
    return this.process.wire.request(method, params, timeoutMs);
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): WireRecord {
    return this.process.wire.notify(method, params);
  }

  /** Stops the agent process. */
  close(): Promise<void> {
    return this.process.close();
  }
}

/** Says in words how a request ended. */
export function describe(outcome: WireOutcome): string {
  switch (outcome.kind) {
    case "result": {
      const text = JSON.stringify(outcome.result) as string | undefined;
      return `answered with a result: ${text?.slice(0, 200) ?? "undefined"}`;
    }
    case "error":
      return `answered with error ${outcome.error.code}: ${agentMessage(outcome.error)}`;
    case "timeout":
      return `did not answer within ${outcome.timeoutMs} ms`;
    case "closed":
      return `did not answer: ${outcome.reason}`;
  }
}

/**
 * The agent's own words in an error: its message, and what `data` says (`details`,
 * `message`, a string, or a short JSON), quoted.
 */
export function agentMessage(error: { readonly message: string; readonly data?: unknown }): string {
  const detail = errorDataText(error.data);
  const message = JSON.stringify(error.message);
  return detail === undefined || detail === error.message
    ? message
    : `${message} (data: ${JSON.stringify(detail)})`;
}

/** True when the request was answered `-32000` (authentication required). */
export function isAuthRequired(outcome: WireOutcome): boolean {
  return outcome.kind === "error" && outcome.error.code === -32000;
}

/** Words in an agent's error that point at the network or a missing credential. */
const ENVIRONMENT_WORDS =
  /\b(network|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|getaddrinfo|fetch failed|socket hang up|stream disconnected|error sending request|connection (?:refused|reset|error|closed)|offline|timed? ?out|api[ _-]?key|not logged in|unauthori[sz]ed|authenticat\w*|credentials?|401|403)\b/i;

/**
 * Why an answer says more about the environment than about the agent's conformance
 * (a missing login, a network error, an offline model's timeout), or `undefined`.
 * `live` marks a request that needs the model (a prompt turn): only then is a timeout
 * or an error mentioning the network put down to the environment.
 */
export function environmentProblem(outcome: WireOutcome, live: boolean): string | undefined {
  const method = outcome.request.message?.type === "request" ? outcome.request.message.method : "";
  if (isAuthRequired(outcome) && outcome.kind === "error") {
    return `${method} answered -32000 (authentication required): ${agentMessage(outcome.error)}. Log in (acp-kit check --auth METHOD) and run again`;
  }
  if (!live) return undefined;
  if (outcome.kind === "timeout") {
    return `${method} did not end within ${outcome.timeoutMs} ms: a model that is offline or slow? Check the agent's network and login, or raise the time limit`;
  }
  if (outcome.kind === "error") {
    const text = `${outcome.error.message} ${(JSON.stringify(outcome.error.data) as string | undefined) ?? ""}`;
    if (ENVIRONMENT_WORDS.test(text)) {
      return `${method} answered error ${outcome.error.code}: ${agentMessage(outcome.error)}; this looks like the agent's network or login, not its protocol`;
    }
  }
  return undefined;
}

/** Why `value` is not a valid `type`, or `undefined` when it is. */
export function invalidBecause(type: ValidatedType, value: unknown): string | undefined {
  const result = validate(type, value);
  if (result.ok) return undefined;
  const issues = result.issues.slice(0, 3).map((issue) => `${issue.path || "/"} ${issue.message}`);
  return `not a valid ${type}: ${issues.join("; ")}`;
}

/** Why `value` is not a valid ACP v2 `type`, or `undefined` when it is. */
export function invalidBecauseV2(type: ValidatedTypeV2, value: unknown): string | undefined {
  const result = validateV2(type, value);
  if (result.ok) return undefined;
  const issues = result.issues.slice(0, 3).map((issue) => `${issue.path || "/"} ${issue.message}`);
  return `not a valid v2 ${type}: ${issues.join("; ")}`;
}

/**
 * The exchange of a request: from the request to its response (or to now), on its
 * connection. `keep` narrows the messages in between; the request and response stay.
 */
export function exchangeOf(
  log: WireLog,
  outcome: WireOutcome,
  keep: (record: WireRecord) => boolean = () => true,
  extraUntil?: number,
): ExchangeEntry[] {
  const { request } = outcome;
  const end = "response" in outcome ? outcome.response.seq : Number.MAX_SAFE_INTEGER;
  const until = Math.max(end, extraUntil ?? 0);
  const records = log.between(request.connection, request.seq, until, (record) => {
    return (
      record === request || ("response" in outcome && record === outcome.response) || keep(record)
    );
  });
  return log.excerpt(records);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves at the first message the agent sends about `sessionId` on `connection` (an
 * update or a request) from now on. `stop()` releases the subscription.
 */
export function activityOf(
  log: WireLog,
  connection: string,
  sessionId: string,
): { readonly seen: Promise<void>; stop(): void } {
  let stop = (): void => undefined;
  const seen = new Promise<void>((resolve) => {
    const unsubscribe = log.subscribe((record) => {
      if (record.connection !== connection || record.direction !== "in") return;
      if (sessionOf(record.message) !== sessionId) return;
      unsubscribe();
      resolve();
    });
    stop = () => {
      unsubscribe();
    };
  });
  return { seen, stop: () => stop() };
}

/** The text of a prompt likely to keep an agent busy for a while (so it can be cancelled). */
export const LONG_PROMPT =
  "This is an automated ACP conformance check (acp-kit check). Please write a long, " +
  "detailed answer: count slowly from 1 to 300, one number per line, with a short " +
  "sentence about each number. Take your time. Do not run commands or edit files.";

/** The text of an ordinary prompt. */
export const SHORT_PROMPT =
  "This is an automated ACP conformance check (acp-kit check). Please answer with one " +
  "short sentence about the attached file. Do not run commands or edit files.";
