/**
 * The checks of an agent that agreed to ACP v2: the v2 `initialize` answer, sessions and
 * the baseline methods (`session/list`, `session/resume`, `session/close`), the prompt
 * lifecycle (`{messageId}`, the user-message echo, `running` → `idle`), cancellation,
 * and the validity and order of the upserts.
 *
 * @module
 */
import { VERSION } from "../../../base/version.js";
import { isPlainObject } from "../../../base/messages.js";
import { METHOD_SPECS as METHOD_SPECS_V2 } from "../../../schema/v2/methods.gen.js";
import type { MethodSpec } from "../../../schema/method-spec.js";
import { failed, inconclusive, passed, skipped, type CheckOutcome } from "../catalog.js";
import { sessionOf, updateKindOf, type WireLog, type WireRecord } from "../log.js";
import type { WireOutcome } from "../wire.js";
import { environmentOutcome } from "./sessions.js";
import {
  LONG_PROMPT,
  SHORT_PROMPT,
  activityOf,
  describe,
  exchangeOf,
  invalidBecauseV2,
  sleep,
  type CheckChannel,
  type RunContext,
} from "./support.js";
import { promptBlocks } from "./turns.js";

/** The v2 protocol version. */
export const V2 = 2;

/** The method table of v2 (for `method-names`). */
export const V2_METHOD_SPECS: readonly MethodSpec[] = METHOD_SPECS_V2;

/**
 * The `initialize` params the checker sends to ask for v2: the v2 fields (`info`,
 * `capabilities`) and, so that a v1-only agent can answer 1 on the same connection, the
 * v1 ones (`clientInfo`, `clientCapabilities` advertising nothing). Neither schema
 * forbids the other's fields.
 */
export function v2InitializeParams(dualShape: boolean): Record<string, unknown> {
  const info = { name: "acp-kit-check", title: "acp-kit conformance check", version: VERSION };
  return {
    protocolVersion: V2,
    info,
    capabilities: {},
    ...(dualShape
      ? {
          clientInfo: info,
          clientCapabilities: {
            fs: { readTextFile: false, writeTextFile: false },
            terminal: false,
          },
        }
      : {}),
  };
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** The `protocolVersion` of an `initialize` result, if any. */
export function agreedVersionOf(outcome: WireOutcome | undefined): unknown {
  return outcome?.kind === "result" ? record(outcome.result).protocolVersion : undefined;
}

/** Version negotiation: a v2 request is answered 2 or 1 (an older agent's newest). */
export function checkNegotiation(log: WireLog, outcome: WireOutcome): CheckOutcome {
  if (outcome.kind !== "result") {
    return failed(
      `initialize with protocolVersion 2 ${describe(outcome)}; an agent must answer with the ` +
        "version asked for or its newest one (1 for a v1-only agent), on the same connection",
      exchangeOf(log, outcome),
    );
  }
  const version = agreedVersionOf(outcome);
  if (version === V2) return passed(["The agent agreed to version 2."]);
  if (version === 1) return passed(["The agent answered version 1 (it does not speak v2)."]);
  return failed(
    `Asked for protocol version 2, the agent answered ${JSON.stringify(version)}; it must answer 2 or 1`,
    exchangeOf(log, outcome),
  );
}

/** The v2 `initialize` answer is valid (protocolVersion 2, `info`, capabilities). */
export function checkV2Initialize(log: WireLog, outcome: WireOutcome): CheckOutcome {
  if (outcome.kind !== "result")
    return failed(`initialize ${describe(outcome)}`, exchangeOf(log, outcome));
  const invalid = invalidBecauseV2("InitializeResponse", outcome.result);
  if (invalid !== undefined) {
    return failed(`The initialize result is ${invalid}`, exchangeOf(log, outcome));
  }
  const result = record(outcome.result);
  if (result.protocolVersion !== V2) {
    return failed(
      `Asked for version 2 on a v2 connection, the agent answered ${JSON.stringify(result.protocolVersion)}`,
      exchangeOf(log, outcome),
    );
  }
  const capabilities = record(result.capabilities);
  return passed(
    capabilities.session == null
      ? ["No capabilities.session: the agent offers no sessions, the session checks are skipped."]
      : [],
  );
}

/** `state_update` fields of a record, when it is one of `sessionId`. */
export function stateOf(
  rec: WireRecord,
  sessionId?: string,
): { readonly state: unknown; readonly stopReason: unknown } | undefined {
  if (updateKindOf(rec) !== "state_update") return undefined;
  if (rec.direction !== "in") return undefined;
  if (sessionId !== undefined && sessionOf(rec.message) !== sessionId) return undefined;
  const message = rec.message;
  const update = message?.type === "notification" ? record(record(message.params).update) : {};
  return { state: update.state, stopReason: update.stopReason };
}

/** A wait for a record of the log: {@link waitForRecord}. */
export interface RecordWait {
  /** The first matching record, or `undefined` after the time limit (or `stop()`). */
  readonly found: Promise<WireRecord | undefined>;
  /** Stops waiting (resolves `found` with `undefined` if nothing matched yet). */
  stop(): void;
}

/**
 * Waits for the first record from `fromSeq` on that passes `match` (looking at those
 * already logged first), at most `timeoutMs`.
 */
export function waitForRecord(
  log: WireLog,
  fromSeq: number,
  match: (rec: WireRecord) => boolean,
  timeoutMs: number,
): RecordWait {
  const already = log.records.find((rec) => rec.seq >= fromSeq && match(rec));
  if (already !== undefined) return { found: Promise.resolve(already), stop: () => undefined };
  let finish: (rec: WireRecord | undefined) => void = () => undefined;
  const found = new Promise<WireRecord | undefined>((resolve) => {
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const unsubscribe = log.subscribe((rec) => {
      if (rec.seq >= fromSeq && match(rec)) finish(rec);
    });
    finish = (rec) => {
      clearTimeout(timer);
      unsubscribe();
      resolve(rec);
    };
  });
  return { found, stop: () => finish(undefined) };
}

/** The idle `state_update` of `sessionId` on `connection`, from `fromSeq` on. */
function idleOf(connection: string, sessionId: string): (rec: WireRecord) => boolean {
  return (rec) => rec.connection === connection && stateOf(rec, sessionId)?.state === "idle";
}

/** `session/new` (v2 params) through `channel`; the id is registered with its client. */
export async function newSessionV2(
  context: RunContext,
  channel: CheckChannel,
): Promise<WireOutcome> {
  const outcome = await channel.request("session/new", { cwd: context.workdir });
  const id = outcome.kind === "result" ? record(outcome.result).sessionId : undefined;
  if (typeof id === "string") channel.client.sessions.add(id);
  return outcome;
}

/** What {@link checkV2SessionNew} produced besides its outcome. */
export interface CreatedV2Sessions {
  /** The outcome of the check. */
  readonly outcome: CheckOutcome;
  /** The valid session ids, in order. */
  readonly ids: readonly string[];
  /** True when `session/new` was answered `-32000`. */
  readonly authRequired: boolean;
}

/** Two `session/new` calls answer valid v2 results with two different ids. */
export async function checkV2SessionNew(
  context: RunContext,
  channel: CheckChannel,
): Promise<CreatedV2Sessions> {
  const first = await newSessionV2(context, channel);
  if (first.kind === "error" && first.error.code === -32000) {
    const login = environmentOutcome(context, first, false);
    if (login !== undefined) return { outcome: login, ids: [], authRequired: true };
  }
  const second = await newSessionV2(context, channel);
  const ids: string[] = [];
  for (const outcome of [first, second]) {
    const fail = (reason: string): CreatedV2Sessions => ({
      outcome: failed(reason, exchangeOf(context.log, outcome)),
      ids,
      authRequired: false,
    });
    if (outcome.kind !== "result") return fail(`session/new ${describe(outcome)}`);
    const invalid = invalidBecauseV2("NewSessionResponse", outcome.result);
    if (invalid !== undefined) return fail(`The session/new result is ${invalid}`);
    ids.push(String(record(outcome.result).sessionId));
  }
  if (ids[0] === ids[1]) {
    return {
      outcome: failed(`Two session/new calls answered the same sessionId ${String(ids[0])}`, [
        ...exchangeOf(context.log, first),
        ...exchangeOf(context.log, second),
      ]),
      ids: ids.slice(0, 1),
      authRequired: false,
    };
  }
  return { outcome: passed(), ids, authRequired: false };
}

/** The outcomes of {@link checkV2PromptTurn}. */
export interface V2Turn {
  /** `v2-prompt-turn`. */
  readonly outcome: CheckOutcome;
  /** `v2-stop-reason`. */
  readonly stopReason: CheckOutcome;
  /** Whether the turn ran against the model (false: login, network, timeout). */
  readonly live: boolean;
  /** Whether the turn was refused for a missing login (`-32000`). */
  readonly login: boolean;
}

function messageIdsEchoed(log: WireLog, connection: string, sessionId: string, from: number) {
  const ids = new Set<unknown>();
  for (const rec of log.between(connection, from, undefined, (r) => r.direction === "in")) {
    const kind = updateKindOf(rec);
    if (kind !== "user_message" && kind !== "user_message_chunk") continue;
    if (sessionOf(rec.message) !== sessionId) continue;
    const message = rec.message;
    const update = message?.type === "notification" ? record(record(message.params).update) : {};
    ids.add(update.messageId);
  }
  return ids;
}

/**
 * A prompt with a text block and a resource link: the answer is a valid `{messageId}`,
 * the agent echoes a `user_message` (or chunk) with that id, and reports `running` (or
 * `requires_action`) before the `idle` that ends the work. The idle's stop reason is
 * judged separately (a SHOULD).
 */
export async function checkV2PromptTurn(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
): Promise<V2Turn> {
  const { log } = context;
  const from = log.nextSeq;
  const idle = waitForRecord(log, from, idleOf(channel.name, sessionId), context.timeouts.promptMs);
  try {
    return await judgeV2PromptTurn(context, channel, sessionId, from, idle.found);
  } finally {
    idle.stop();
  }
}

/** The rest of {@link checkV2PromptTurn}: sends the prompt, waits for `idle`, judges. */
async function judgeV2PromptTurn(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
  from: number,
  idle: Promise<WireRecord | undefined>,
): Promise<V2Turn> {
  const { log } = context;
  const answer = await channel.request(
    "session/prompt",
    { sessionId, prompt: promptBlocks(context, SHORT_PROMPT) },
    context.timeouts.promptMs,
  );
  const notJudged = skipped("The turn did not end (see v2-prompt-turn)");
  const environment = environmentOutcome(context, answer, true);
  if (environment !== undefined) {
    const login = answer.kind === "error" && answer.error.code === -32000;
    return { outcome: environment, stopReason: notJudged, live: false, login };
  }
  const turnRecords = (r: WireRecord): boolean =>
    r.direction === "in" && sessionOf(r.message) === sessionId;
  if (answer.kind !== "result") {
    return {
      outcome: failed(
        `session/prompt with a text block and a resource_link ${describe(answer)}`,
        exchangeOf(log, answer, () => false),
      ),
      stopReason: notJudged,
      live: true,
      login: false,
    };
  }
  const invalid = invalidBecauseV2("PromptResponse", answer.result);
  if (invalid !== undefined) {
    return {
      outcome: failed(
        `The session/prompt result is ${invalid}`,
        exchangeOf(log, answer, () => false),
      ),
      stopReason: notJudged,
      live: true,
      login: false,
    };
  }
  const messageId = record(answer.result).messageId;
  const ended = await idle;
  if (ended === undefined) {
    const shown = log.excerpt(
      log.between(channel.name, from, undefined, (r) => r.seq === from || turnRecords(r)),
    );
    return {
      outcome: inconclusive(
        `No idle state_update for the session within ${context.timeouts.promptMs} ms of the prompt: a model that is offline or slow? An agent must report idle when its work ends`,
        shown,
      ),
      stopReason: notJudged,
      live: false,
      login: false,
    };
  }
  await sleep(context.timeouts.quietMs);
  const exchange = (): ReturnType<WireLog["excerpt"]> =>
    log.excerpt(
      log.between(
        channel.name,
        from,
        undefined,
        (r) => r.seq === from || r === answer.response || turnRecords(r),
      ),
    );
  const started = log.between(channel.name, from, ended.seq, (r) => {
    const state = stateOf(r, sessionId)?.state;
    return state === "running" || state === "requires_action";
  });
  if (started.length === 0) {
    return {
      outcome: failed(
        "The agent reported idle without reporting running (or requires_action) first; foreground work must be reported running when it starts",
        exchange(),
      ),
      stopReason: notJudged,
      live: true,
      login: false,
    };
  }
  if (!messageIdsEchoed(log, channel.name, sessionId, from).has(messageId)) {
    return {
      outcome: failed(
        `No user_message or user_message_chunk echoes the prompt's messageId ${JSON.stringify(messageId)}`,
        exchange(),
      ),
      stopReason: notJudged,
      live: true,
      login: false,
    };
  }
  const stop = stateOf(ended)?.stopReason;
  const stopOutcome =
    typeof stop === "string"
      ? passed([`The turn ended with stopReason "${stop}".`])
      : failed(
          "The idle state_update that ended the turn carries no stopReason",
          log.excerpt([ended]),
        );
  if (stop === "error") {
    const error = record(
      record(record(ended.message?.type === "notification" ? ended.message.params : {}).update)
        .error,
    );
    return {
      outcome: inconclusive(
        `The turn ended idle with stopReason "error" (${JSON.stringify(error.message ?? "")}): the agent's model or network, or its protocol?`,
        exchange(),
      ),
      stopReason: stopOutcome,
      live: false,
      login: false,
    };
  }
  return { outcome: passed(), stopReason: stopOutcome, live: true, login: false };
}

/** Every `session/update` on the v2 connections is valid and names a known session. */
export function checkV2SessionUpdates(
  log: WireLog,
  channels: readonly CheckChannel[],
): CheckOutcome {
  const sessions = new Map(channels.map((channel) => [channel.name, channel.client.sessions]));
  const problems: { record: WireRecord; problem: string }[] = [];
  let count = 0;
  for (const rec of log.records) {
    const message = rec.message;
    if (rec.direction !== "in" || !sessions.has(rec.connection)) continue;
    if (message?.type !== "notification" || message.method !== "session/update") continue;
    count++;
    const invalid = invalidBecauseV2("UpdateSessionNotification", message.params);
    const sessionId = sessionOf(message);
    if (invalid !== undefined) problems.push({ record: rec, problem: invalid });
    else if (sessionId !== undefined && sessions.get(rec.connection)?.has(sessionId) !== true) {
      problems.push({ record: rec, problem: `unknown sessionId ${sessionId}` });
    }
  }
  if (problems.length === 0) {
    return passed(count === 0 ? ["The agent sent no session/update at all."] : []);
  }
  return failed(
    `${problems.length} of ${count} session/update notification(s) are invalid; the first is ` +
      (problems[0]?.problem ?? ""),
    log.excerpt(problems.map((p) => p.record)),
  );
}

/**
 * The order of the upserts: a `tool_call_content_chunk` names a tool call a
 * `tool_call_update` created before it, a `terminal_output_chunk` a terminal a
 * `terminal_update` created before it (per session and connection).
 */
export function checkV2UpdateOrder(log: WireLog, connections: readonly string[]): CheckOutcome {
  const known = new Set<string>();
  const problems: { record: WireRecord; problem: string }[] = [];
  for (const rec of log.records) {
    if (rec.direction !== "in" || !connections.includes(rec.connection)) continue;
    const kind = updateKindOf(rec);
    if (kind === undefined || rec.message?.type !== "notification") continue;
    const update = record(record(rec.message.params).update);
    const scope = `${rec.connection}\u0000${sessionOf(rec.message) ?? ""}`;
    const toolKey = `${scope}\u0000tool\u0000${String(update.toolCallId)}`;
    const terminalKey = `${scope}\u0000terminal\u0000${String(update.terminalId)}`;
    if (kind === "tool_call_update") known.add(toolKey);
    else if (kind === "terminal_update") known.add(terminalKey);
    else if (kind === "tool_call_content_chunk" && !known.has(toolKey)) {
      problems.push({
        record: rec,
        problem: `tool_call_content_chunk for tool call ${JSON.stringify(update.toolCallId)} before any tool_call_update created it`,
      });
    } else if (kind === "terminal_output_chunk" && !known.has(terminalKey)) {
      problems.push({
        record: rec,
        problem: `terminal_output_chunk for terminal ${JSON.stringify(update.terminalId)} before any terminal_update created it`,
      });
    }
  }
  if (problems.length === 0) return passed();
  return failed(
    `${problems.length} chunk(s) name an unknown tool call or terminal; the first: ${problems[0]?.problem ?? ""}`,
    log.excerpt(problems.map((p) => p.record)),
  );
}

/** How a turn interrupted by the checker ended, in v2. */
interface V2Interrupted {
  /** The turn ended (idle) before the checker could interrupt it. */
  readonly early?: WireRecord;
  /** The prompt's answer, when it failed before the interruption. */
  readonly refused?: WireOutcome;
  /** The idle that ended the work after the interruption, if any came in time. */
  readonly idle?: WireRecord;
  /** Sequence number of the prompt request. */
  readonly promptSeq: number;
  /** Sequence number of the interrupting message. */
  readonly interruptSeq: number;
}

/**
 * Starts a long turn and interrupts it (`interrupt` sends the message and returns its
 * sequence number) at its first sign of activity, or after `cancelDelayMs`; the
 * session's permission requests are held meanwhile. Waits for the idle that follows.
 */
async function interruptV2Turn(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
  interrupt: () => number,
): Promise<V2Interrupted> {
  const { log } = context;
  channel.client.hold(sessionId);
  const activity = activityOf(log, channel.name, sessionId);
  const promptSeq = log.nextSeq;
  const idleMatch = idleOf(channel.name, sessionId);
  const startedIdle = waitForRecord(log, promptSeq, idleMatch, context.timeouts.promptMs);
  const prompt = channel.request(
    "session/prompt",
    { sessionId, prompt: promptBlocks(context, LONG_PROMPT) },
    context.timeouts.promptMs,
  );
  const refusal = prompt.then((answer) =>
    answer.kind === "result" ? new Promise<never>(() => undefined) : answer,
  );
  const first = await Promise.race([
    startedIdle.found.then((rec) => ({ idle: rec })),
    refusal.then((answer) => ({ refused: answer })),
    activity.seen.then(() => undefined),
    sleep(context.timeouts.cancelDelayMs).then(() => undefined),
  ]);
  activity.stop();
  startedIdle.stop();
  if (first !== undefined) {
    channel.client.release();
    if ("refused" in first) return { refused: first.refused, promptSeq, interruptSeq: log.nextSeq };
    return {
      ...(first.idle === undefined ? {} : { early: first.idle }),
      promptSeq,
      interruptSeq: log.nextSeq,
    };
  }
  const interruptSeq = interrupt();
  channel.client.release();
  const idle = await waitForRecord(log, interruptSeq, idleMatch, context.timeouts.cancelMs).found;
  // Let the prompt's own answer arrive (it may come after the idle).
  await Promise.race([prompt, sleep(context.timeouts.quietMs)]);
  return { ...(idle === undefined ? {} : { idle }), promptSeq, interruptSeq };
}

function judgeV2Cancelled(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
  turn: V2Interrupted,
  what: string,
): CheckOutcome {
  const { log } = context;
  const shown = (until?: number): ReturnType<WireLog["excerpt"]> =>
    log.excerpt(
      log.between(
        channel.name,
        turn.promptSeq,
        until,
        (r) =>
          r.seq === turn.promptSeq ||
          r.seq === turn.interruptSeq ||
          (r.seq >= turn.interruptSeq &&
            r.direction === "in" &&
            sessionOf(r.message) === sessionId) ||
          stateOf(r, sessionId) !== undefined,
      ),
    );
  if (turn.idle === undefined) {
    return failed(
      `No idle state_update within ${context.timeouts.cancelMs} ms after ${what}; the agent must end the foreground work idle with stopReason "cancelled"`,
      shown(),
    );
  }
  const stop = stateOf(turn.idle)?.stopReason;
  if (stop === "cancelled") return passed();
  const busyAfter = log.between(
    channel.name,
    turn.interruptSeq + 1,
    turn.idle.seq - 1,
    (r) => r.direction === "in" && sessionOf(r.message) === sessionId,
  );
  if (busyAfter.length === 0 && stop !== undefined && stop !== null) {
    return inconclusive(
      `After ${what} the work ended idle with stopReason ${JSON.stringify(stop)} at once, with no update in between: it may have ended before ${what} arrived`,
      shown(turn.idle.seq),
    );
  }
  return failed(
    `After ${what} the work ended idle with stopReason ${JSON.stringify(stop ?? null)}, not "cancelled"`,
    shown(turn.idle.seq),
  );
}

function earlyV2(context: RunContext, turn: V2Interrupted, what: string): CheckOutcome | undefined {
  if (turn.refused !== undefined) {
    const environment = environmentOutcome(context, turn.refused, true);
    if (environment !== undefined) return environment;
    return failed(
      `The long prompt ${describe(turn.refused)} before ${what} could be sent`,
      exchangeOf(context.log, turn.refused, () => false),
    );
  }
  if (turn.early !== undefined) {
    return inconclusive(
      `The work ended idle before ${what} could be sent, without any sign of activity first`,
      context.log.excerpt([turn.early]),
    );
  }
  return undefined;
}

/** `session/cancel` during a long turn ends the foreground work idle `cancelled`. */
export async function checkV2Cancel(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
): Promise<CheckOutcome> {
  const turn = await interruptV2Turn(
    context,
    channel,
    sessionId,
    () => channel.notify("session/cancel", { sessionId }).seq,
  );
  return (
    earlyV2(context, turn, "session/cancel") ??
    judgeV2Cancelled(context, channel, sessionId, turn, "session/cancel")
  );
}

/** Whether the agent advertised sessions (`capabilities.session`): the baseline methods. */
export function advertisesSessions(init: WireOutcome): boolean {
  return init.kind === "result" && record(record(init.result).capabilities).session != null;
}

/** Whether the agent advertised `capabilities.session.delete`. */
export function advertisesDelete(init: WireOutcome): boolean {
  if (init.kind !== "result") return false;
  return record(record(record(init.result).capabilities).session).delete != null;
}

/** `session/list` answers a valid v2 result; with `cwd`, only that directory's sessions. */
export async function checkV2SessionList(
  context: RunContext,
  channel: CheckChannel,
  known: readonly string[],
): Promise<CheckOutcome> {
  const all = await channel.request("session/list", {});
  const login = environmentOutcome(context, all, false);
  if (login !== undefined) return login;
  if (all.kind !== "result")
    return failed(`session/list ${describe(all)}`, exchangeOf(context.log, all));
  const invalid = invalidBecauseV2("ListSessionsResponse", all.result);
  if (invalid !== undefined)
    return failed(`The session/list result is ${invalid}`, exchangeOf(context.log, all));
  const filtered = await channel.request("session/list", { cwd: context.workdir });
  if (filtered.kind !== "result") {
    return failed(`session/list with cwd ${describe(filtered)}`, exchangeOf(context.log, filtered));
  }
  const invalidFiltered = invalidBecauseV2("ListSessionsResponse", filtered.result);
  if (invalidFiltered !== undefined) {
    return failed(
      `The session/list result is ${invalidFiltered}`,
      exchangeOf(context.log, filtered),
    );
  }
  const listedSessions = record(filtered.result).sessions;
  const sessions = (Array.isArray(listedSessions) ? listedSessions : []).map(record);
  const outside = sessions.filter((session) => session.cwd !== context.workdir);
  if (outside.length > 0) {
    return failed(
      `session/list with cwd ${context.workdir} returned ${outside.length} session(s) in another directory`,
      exchangeOf(context.log, filtered),
    );
  }
  const listed = new Set(sessions.map((session) => session.sessionId));
  const missing = known.filter((id) => !listed.has(id));
  return passed(
    missing.length > 0
      ? [`Sessions created in this run are not listed: ${missing.join(", ")}.`]
      : [],
  );
}

/** `session/resume` answers a valid result after a `state_update` snapshot for the session. */
export async function checkV2SessionResume(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
): Promise<CheckOutcome> {
  const outcome = await channel.request("session/resume", { sessionId, cwd: context.workdir });
  const login = environmentOutcome(context, outcome, false);
  if (login !== undefined) return login;
  if (outcome.kind !== "result") {
    return failed(`session/resume ${describe(outcome)}`, exchangeOf(context.log, outcome));
  }
  const invalid = invalidBecauseV2("ResumeSessionResponse", outcome.result);
  if (invalid !== undefined) {
    return failed(`The session/resume result is ${invalid}`, exchangeOf(context.log, outcome));
  }
  const snapshot = context.log.between(
    channel.name,
    outcome.request.seq,
    outcome.response.seq,
    (r) => stateOf(r, sessionId) !== undefined,
  );
  if (snapshot.length === 0) {
    return failed(
      "session/resume answered without a state_update for the session before its answer; the agent must send the current state first",
      exchangeOf(
        context.log,
        outcome,
        (r) => r.direction === "in" && sessionOf(r.message) === sessionId,
      ),
    );
  }
  return passed();
}

/**
 * `session/close` during a long turn: the work ends idle `cancelled` before the close is
 * answered, and the answer is a valid result.
 */
export async function checkV2SessionClose(
  context: RunContext,
  channel: CheckChannel,
): Promise<CheckOutcome> {
  const created = await newSessionV2(context, channel);
  const login = environmentOutcome(context, created, false);
  if (login !== undefined) return login;
  const sessionId = created.kind === "result" ? record(created.result).sessionId : undefined;
  if (typeof sessionId !== "string") return skipped(`session/new ${describe(created)}`);
  let close: Promise<WireOutcome> | undefined;
  const turn = await interruptV2Turn(context, channel, sessionId, () => {
    close = channel.request("session/close", { sessionId });
    return context.log.nextSeq - 1;
  });
  const closed = await (close ?? channel.request("session/close", { sessionId }));
  if (closed.kind !== "result") {
    return failed(`session/close ${describe(closed)}`, exchangeOf(context.log, closed));
  }
  const invalid = invalidBecauseV2("CloseSessionResponse", closed.result);
  if (invalid !== undefined) {
    return failed(`The session/close result is ${invalid}`, exchangeOf(context.log, closed));
  }
  const early = earlyV2(context, turn, "session/close");
  if (early !== undefined) {
    if (early.status === "fail") return early;
    return passed([`${early.reason ?? ""}: that close cancels a running turn is untested.`]);
  }
  const judged = judgeV2Cancelled(context, channel, sessionId, turn, "session/close");
  if (judged.status === "inconclusive") {
    return passed([`${judged.reason ?? ""}: that close cancels a running turn is untested.`]);
  }
  if (judged.status !== "pass") return judged;
  if (turn.idle !== undefined && turn.idle.seq > closed.response.seq) {
    return failed(
      'The idle state_update with stopReason "cancelled" came after the session/close answer; it must come before',
      exchangeOf(context.log, closed, (r) => stateOf(r, sessionId) !== undefined, turn.idle.seq),
    );
  }
  return passed();
}

/** `session/delete` answers; the session leaves `session/list`; deleting again succeeds. */
export async function checkV2SessionDelete(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
): Promise<CheckOutcome> {
  const outcome = await channel.request("session/delete", { sessionId });
  if (outcome.kind !== "result") {
    return failed(`session/delete ${describe(outcome)}`, exchangeOf(context.log, outcome));
  }
  const invalid = invalidBecauseV2("DeleteSessionResponse", outcome.result);
  if (invalid !== undefined) {
    return failed(`The session/delete result is ${invalid}`, exchangeOf(context.log, outcome));
  }
  const list = await channel.request("session/list", { cwd: context.workdir });
  const sessions = list.kind === "result" ? record(list.result).sessions : undefined;
  if (
    Array.isArray(sessions) &&
    sessions.some((session) => record(session).sessionId === sessionId)
  ) {
    return failed(
      `The deleted session ${sessionId} is still listed by session/list`,
      exchangeOf(context.log, list),
    );
  }
  const again = await channel.request("session/delete", { sessionId });
  // v2 clients treat -32002 (session not found) as a successful delete.
  const silent = again.kind === "result" || (again.kind === "error" && again.error.code === -32002);
  return passed(
    silent ? [] : [`Deleting it again ${describe(again)}; it SHOULD succeed silently (rule 70).`],
  );
}

/** Permission requests are valid v2 and name known sessions; no unadvertised elicitation. */
export function checkV2ClientRequests(log: WireLog, channel: CheckChannel): CheckOutcome {
  const { ungated, problems, calls } = channel.client;
  if (ungated.length > 0) {
    const methods = [
      ...new Set(ungated.map((r) => (r.message?.type === "request" ? r.message.method : ""))),
    ];
    return failed(
      `The agent called ${methods.join(", ")} although the client did not advertise it`,
      log.excerpt(ungated),
    );
  }
  if (problems.length > 0) {
    return failed(
      `${problems.length} malformed request(s); the first: ${problems[0]?.problem ?? ""}`,
      log.excerpt(problems.map((p) => p.record)),
    );
  }
  return passed(calls.length === 0 ? ["The agent sent no permission request."] : []);
}
