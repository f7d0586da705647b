/**
 * Checks of session setup and lifecycle: `session/new`, and, when advertised,
 * `session/list`, `session/load`, `session/resume` and `session/delete`.
 *
 * @module
 */
import type { AgentCapabilities } from "../../../schema/types.gen.js";
import { failed, inconclusive, passed, skipped, type CheckOutcome } from "../catalog.js";
import { isTurnUpdate, updateKindOf } from "../log.js";
import type { WireOutcome } from "../wire.js";
import type { CheckChannel, RunContext } from "./support.js";
import {
  describe,
  environmentProblem,
  exchangeOf,
  invalidBecause,
  isAuthRequired,
  sleep,
} from "./support.js";

/** An inconclusive outcome for a request the environment answered (a login, the network). */
export function environmentOutcome(
  context: RunContext,
  outcome: WireOutcome,
  live: boolean,
): CheckOutcome | undefined {
  const problem = environmentProblem(outcome, live);
  return problem === undefined
    ? undefined
    : inconclusive(
        problem,
        exchangeOf(context.log, outcome, () => false),
      );
}

/** The skip reason of checks that need a session when `session/new` wants a login (said in full once, on `session-new`). */
export const LOGIN_NEEDED = "Needs a logged-in agent (see session-new)";

/** The skip reason of checks that need a live turn when the first one could not run (see `prompt-turn`). */
export const LIVE_TURN_NEEDED = "Needs a live turn (see prompt-turn)";

/** What {@link checkSessionNew} produced besides its outcome. */
export interface CreatedSessions {
  /** The outcome of the check. */
  readonly outcome: CheckOutcome;
  /** The valid session ids, in order. */
  readonly ids: readonly string[];
  /** True when `session/new` was answered `-32000`. */
  readonly authRequired: boolean;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** `session/new` through `channel` in the run's directory; the id is registered with its client. */
export async function newSession(context: RunContext, channel: CheckChannel): Promise<WireOutcome> {
  const outcome = await channel.request("session/new", { cwd: context.workdir, mcpServers: [] });
  const id = outcome.kind === "result" ? record(outcome.result).sessionId : undefined;
  if (typeof id === "string") channel.client.sessions.add(id);
  return outcome;
}

/** Two `session/new` calls answer valid results with two different ids. */
export async function checkSessionNew(
  context: RunContext,
  channel: CheckChannel,
): Promise<CreatedSessions> {
  const first = await newSession(context, channel);
  const login = isAuthRequired(first) ? environmentOutcome(context, first, false) : undefined;
  if (login !== undefined) return { outcome: login, ids: [], authRequired: true };
  const second = await newSession(context, channel);
  const ids: string[] = [];
  for (const outcome of [first, second]) {
    if (outcome.kind !== "result") {
      return {
        outcome: failed(`session/new ${describe(outcome)}`, exchangeOf(context.log, outcome)),
        ids,
        authRequired: false,
      };
    }
    const invalid = invalidBecause("NewSessionResponse", outcome.result);
    if (invalid !== undefined) {
      return {
        outcome: failed(`The session/new result is ${invalid}`, exchangeOf(context.log, outcome)),
        ids,
        authRequired: false,
      };
    }
    const options = record(outcome.result).configOptions;
    if (Array.isArray(options) && options.some((option) => record(option).type === "boolean")) {
      const reason =
        "configOptions has a boolean option although the client did not advertise session.configOptions.boolean";
      return {
        outcome: failed(reason, exchangeOf(context.log, outcome)),
        ids,
        authRequired: false,
      };
    }
    ids.push(String(record(outcome.result).sessionId));
  }
  if (ids[0] === ids[1]) {
    const shown = context.log.excerpt([
      first.request,
      ...("response" in first ? [first.response] : []),
      second.request,
      ...("response" in second ? [second.response] : []),
    ]);
    return {
      outcome: failed(
        `Two session/new calls answered the same sessionId ${JSON.stringify(ids[0])}`,
        shown,
      ),
      ids: ids.slice(0, 1),
      authRequired: false,
    };
  }
  return { outcome: passed(), ids, authRequired: false };
}

/** `session/list` answers a `sessions` array, and the `cwd` filter holds. */
export async function checkSessionList(
  context: RunContext,
  channel: CheckChannel,
  capabilities: AgentCapabilities,
  known: readonly string[],
): Promise<CheckOutcome> {
  if (capabilities.sessionCapabilities?.list == null)
    return skipped("Not advertised (sessionCapabilities.list)");
  const all = await channel.request("session/list", {});
  const login = environmentOutcome(context, all, false);
  if (login !== undefined) return login;
  if (all.kind !== "result")
    return failed(`session/list ${describe(all)}`, exchangeOf(context.log, all));
  const invalid = invalidBecause("ListSessionsResponse", all.result);
  if (invalid !== undefined)
    return failed(`The session/list result is ${invalid}`, exchangeOf(context.log, all));
  const filtered = await channel.request("session/list", { cwd: context.workdir });
  if (filtered.kind !== "result")
    return failed(`session/list with cwd ${describe(filtered)}`, exchangeOf(context.log, filtered));
  const invalidFiltered = invalidBecause("ListSessionsResponse", filtered.result);
  if (invalidFiltered !== undefined) {
    return failed(
      `The session/list result is ${invalidFiltered}`,
      exchangeOf(context.log, filtered),
    );
  }
  const sessions = record(filtered.result).sessions as Record<string, unknown>[];
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

/** `session/load` replays the conversation as updates, all before its answer. */
export async function checkSessionLoad(
  context: RunContext,
  channel: CheckChannel,
  capabilities: AgentCapabilities,
  sessionId: string | undefined,
): Promise<CheckOutcome> {
  if (capabilities.loadSession !== true) return skipped("Not advertised (loadSession)");
  if (sessionId === undefined) return skipped("No session with a completed prompt turn to load");
  const outcome = await channel.request("session/load", {
    sessionId,
    cwd: context.workdir,
    mcpServers: [],
  });
  if (outcome.kind !== "result")
    return failed(`session/load ${describe(outcome)}`, exchangeOf(context.log, outcome));
  const invalid = invalidBecause("LoadSessionResponse", outcome.result);
  if (invalid !== undefined)
    return failed(`The session/load result is ${invalid}`, exchangeOf(context.log, outcome));
  const replayed = context.log.between(
    channel.name,
    outcome.request.seq,
    outcome.response.seq,
    (r) => isTurnUpdate(r, sessionId),
  );
  await sleep(context.timeouts.quietMs);
  const late = context.log.between(channel.name, outcome.response.seq + 1, undefined, (r) =>
    isTurnUpdate(r, sessionId),
  );
  if (late.length > 0) {
    return failed(
      `${late.length} replayed update(s) arrived after the session/load answer; all must come before it`,
      exchangeOf(context.log, outcome, (r) => isTurnUpdate(r, sessionId), late.at(-1)?.seq),
    );
  }
  if (replayed.length === 0) {
    return failed(
      "session/load answered without replaying the conversation (no session/update before the answer)",
      exchangeOf(context.log, outcome),
    );
  }
  const kinds = new Set(replayed.map(updateKindOf));
  return passed(
    kinds.has("user_message_chunk")
      ? []
      : ["The replay has no user_message_chunk: is the user's prompt part of it?"],
  );
}

/** `session/resume` answers without replaying history first. */
export async function checkSessionResume(
  context: RunContext,
  channel: CheckChannel,
  capabilities: AgentCapabilities,
  sessionId: string | undefined,
): Promise<CheckOutcome> {
  if (capabilities.sessionCapabilities?.resume == null)
    return skipped("Not advertised (sessionCapabilities.resume)");
  if (sessionId === undefined) return skipped("No session to resume");
  const outcome = await channel.request("session/resume", {
    sessionId,
    cwd: context.workdir,
    mcpServers: [],
  });
  if (outcome.kind !== "result")
    return failed(`session/resume ${describe(outcome)}`, exchangeOf(context.log, outcome));
  const invalid = invalidBecause("ResumeSessionResponse", outcome.result);
  if (invalid !== undefined)
    return failed(`The session/resume result is ${invalid}`, exchangeOf(context.log, outcome));
  const replayed = context.log.between(
    channel.name,
    outcome.request.seq,
    outcome.response.seq,
    (r) => isTurnUpdate(r, sessionId),
  );
  if (replayed.length > 0) {
    return failed(
      `session/resume replayed ${replayed.length} history update(s) before answering; it must not`,
      exchangeOf(context.log, outcome),
    );
  }
  return passed();
}

/** `session/delete` answers, the session leaves `session/list`, deleting again succeeds. */
export async function checkSessionDelete(
  context: RunContext,
  channel: CheckChannel,
  capabilities: AgentCapabilities,
  sessionId: string | undefined,
): Promise<CheckOutcome> {
  const sessionCapabilities = capabilities.sessionCapabilities;
  if (sessionCapabilities?.delete == null)
    return skipped("Not advertised (sessionCapabilities.delete)");
  if (sessionId === undefined) return skipped("No session to delete");
  const outcome = await channel.request("session/delete", { sessionId });
  if (outcome.kind !== "result")
    return failed(`session/delete ${describe(outcome)}`, exchangeOf(context.log, outcome));
  const invalid = invalidBecause("DeleteSessionResponse", outcome.result);
  if (invalid !== undefined)
    return failed(`The session/delete result is ${invalid}`, exchangeOf(context.log, outcome));
  if (sessionCapabilities.list != null) {
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
  }
  const again = await channel.request("session/delete", { sessionId });
  return passed(
    again.kind === "result"
      ? []
      : [`Deleting it again ${describe(again)}; it SHOULD succeed silently (rule 70).`],
  );
}
