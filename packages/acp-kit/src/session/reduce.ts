/**
 * The session reducer: `(state, SessionUpdate) -> state`, pure and total.
 *
 * @module
 */
import type {
  ConfigOptionUpdate,
  CurrentModeUpdate,
  SessionInfoUpdate,
  SessionNotification,
  SessionUpdate,
  UnknownSessionUpdate,
  UsageUpdate,
} from "../schema/types.gen.js";
import { applyChunk } from "./messages.js";
import { withModeFromOption } from "./settings.js";
import { emptySessionState, withState, type SessionState } from "./state.js";
import { applyToolCall, applyToolCallUpdate } from "./tool-calls.js";
import {
  applyCompactionChunk,
  applyCompactionUpdate,
  applyPlanRemoved,
  applyPlanUpdate,
  applySessionMessage,
  applySessionMessageChunk,
  applySubagentUpdate,
} from "./unstable.js";

/** `current_mode_update`; a `modeId` field (as in an example of the docs) is accepted too. */
function applyMode(state: SessionState, update: CurrentModeUpdate): SessionState {
  const lenient = update as { currentModeId?: unknown; modeId?: unknown };
  const id = typeof lenient.currentModeId === "string" ? lenient.currentModeId : lenient.modeId;
  return typeof id === "string" ? withState(state, { currentModeId: id }) : state;
}

/** `usage_update`: `used` and `size` are replaced; a missing or `null` `cost` keeps the last one. */
function applyUsage(state: SessionState, update: UsageUpdate): SessionState {
  const cost = update.cost ?? state.usage?.cost ?? null;
  return withState(state, { usage: { used: update.used, size: update.size, cost } });
}

/** `session_info_update`, tri-state: left out keeps, `null` clears, a string sets. */
function applyInfo(state: SessionState, update: SessionInfoUpdate): SessionState {
  const { info } = state;
  const meta = update._meta == null ? info._meta : { ...info._meta, ...update._meta };
  return withState(state, {
    info: {
      title: update.title === undefined ? info.title : update.title,
      updatedAt: update.updatedAt === undefined ? info.updatedAt : update.updatedAt,
      _meta: meta,
    },
  });
}

function applyConfig(state: SessionState, update: ConfigOptionUpdate): SessionState {
  return withModeFromOption(withState(state, { configOptions: update.configOptions }));
}

/**
 * How many `notice` and unknown updates a state keeps (the newest). Each update makes a new
 * state with a new list, so an unbounded list made a flood of them quadratic: 40,000
 * unknown updates took 10 s to fold.
 */
const MAX_KEPT_UPDATES = 1000;

/** `list` with `item` appended, the oldest dropped beyond {@link MAX_KEPT_UPDATES}. */
function appendKept<T>(list: readonly T[], item: T): readonly T[] {
  const start = list.length >= MAX_KEPT_UPDATES ? list.length - MAX_KEPT_UPDATES + 1 : 0;
  const next = list.slice(start);
  next.push(item);
  return next;
}

/** Keeps an update of a kind this version does not know in `unknown`. @internal */
export function applyUnknown(state: SessionState, update: UnknownSessionUpdate): SessionState {
  return withState(state, { unknown: appendKept(state.unknown, update) });
}

/**
 * Folds one update into a session's state and returns the new state; `state` is not
 * modified (unchanged parts are shared). It never throws and never depends on turns:
 * updates arriving before a `session/new` response or after a `session/prompt` response
 * are folded like any other.
 *
 * Message chunks (`user_message_chunk` → role `user`, `agent_message_chunk` → `agent`,
 * `agent_thought_chunk` → `thought`) are grouped into thread messages:
 *
 * 1. A chunk with a `messageId` is appended to the message of the same role and id,
 *    wherever it is in the thread (so interleaved messages with ids stay apart); when
 *    there is none, it starts a new message at the end.
 * 2. A chunk without one (`null` or left out) is appended to the last thread item when
 *    that is a message of the same role, without an id, built from updates, and inside the
 *    latest turn; otherwise it starts a new message. So a change of role, a tool call (or
 *    any other new thread item), a message with an id, or `beginTurn` ends an id-less
 *    message. Other updates (plan, usage, ...) do not.
 * 3. A user chunk that matches no message by rule 1 and arrives right after the prompt
 *    recorded by `beginTurn` (nothing else in between) is the agent's echo of that prompt:
 *    it replaces the recorded content and gives that message its id.
 *
 * Tool calls are merged by `toolCallId`:
 *
 * - `tool_call` with a new id appends a tool call with the protocol's defaults (`kind`
 *   `other`, `status` `pending`, empty `content` and `locations`). With an id already in
 *   the thread (a duplicate, or one first seen in a `tool_call_update`) it is merged like
 *   an update: the call keeps its place and history, fields it carries overwrite, fields
 *   it leaves out are not reset, and it is no longer a placeholder.
 * - `tool_call_update`: each field present and not `null` overwrites; `content` and
 *   `locations` replace the whole list (never appended); left out or `null` = unchanged.
 *   A status different from the current one is added to `statusHistory`. An update for
 *   an unknown id creates a placeholder call at the end of the thread (`placeholder:
 *   true`, title `""` unless sent), so nothing the agent reported is lost.
 *
 * The other kinds:
 *
 * - `plan`, `available_commands_update`, `config_option_update`: replace `plan`,
 *   `availableCommands`, `configOptions` wholesale.
 * - `current_mode_update`: sets `currentModeId` (a `modeId` field is accepted too).
 * - `usage_update`: replaces `usage`; without `cost` the last known cost is kept.
 * - `session_info_update`: tri-state patch of `info` (left out = unchanged, `null` =
 *   cleared, a string = set); its `_meta` is shallow-merged into `info._meta`.
 * - `notice`: appended to `notices` (the newest 1,000 are kept).
 * - `plan_update` / `plan_removed` (unstable): upsert / remove in `plans` by `planId`.
 * - `compaction_update` / `compaction_summary_chunk`: a `compaction` thread item by id
 *   (patched in place; chunks append to its summary).
 * - `session_message` / `session_message_chunk` (unstable): a `session_message` thread item
 *   by `messageId`, patched in place (left out = unchanged, `null` = cleared).
 * - `subagent_update` (unstable): upsert in `subagents` by child `sessionId`, same patch
 *   rules.
 * - Any other kind: appended, as received, to `unknown` (the newest 1,000 are kept).
 *
 * Adjacent plain text blocks of one message are joined into one text block. The `_meta`
 * of an update is kept for tool calls and session info only.
 */
export function reduceSession(state: SessionState, update: SessionUpdate): SessionState {
  switch (update.sessionUpdate) {
    case "user_message_chunk":
      return applyChunk(state, "user", update);
    case "agent_message_chunk":
      return applyChunk(state, "agent", update);
    case "agent_thought_chunk":
      return applyChunk(state, "thought", update);
    case "tool_call":
      return applyToolCall(state, update);
    case "tool_call_update":
      return applyToolCallUpdate(state, update);
    case "plan":
      return withState(state, { plan: update.entries });
    case "available_commands_update":
      return withState(state, { availableCommands: update.availableCommands });
    case "current_mode_update":
      return applyMode(state, update);
    case "config_option_update":
      return applyConfig(state, update);
    case "session_info_update":
      return applyInfo(state, update);
    case "usage_update":
      return applyUsage(state, update);
    case "notice": {
      const { sessionUpdate: _, ...notice } = update;
      return withState(state, { notices: appendKept(state.notices, notice) });
    }
    case "plan_update":
      return applyPlanUpdate(state, update);
    case "plan_removed":
      return applyPlanRemoved(state, update);
    case "compaction_update":
      return applyCompactionUpdate(state, update);
    case "compaction_summary_chunk":
      return applyCompactionChunk(state, update);
    case "subagent_update":
      return applySubagentUpdate(state, update);
    case "session_message":
      return applySessionMessage(state, update);
    case "session_message_chunk":
      return applySessionMessageChunk(state, update);
    default:
      return applyUnknown(state, update);
  }
}

/**
 * Folds a sequence of notifications, starting from `state` (or from an empty state for the
 * session of the first notification). Notifications for other sessions are skipped.
 */
export function foldSession(
  notifications: Iterable<SessionNotification>,
  state?: SessionState,
): SessionState | undefined {
  let current = state;
  for (const { sessionId, update } of notifications) {
    current ??= emptySessionState(sessionId);
    if (sessionId === current.sessionId) current = reduceSession(current, update);
  }
  return current;
}
