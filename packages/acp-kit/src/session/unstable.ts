/**
 * Folding the update kinds of the protocol's unstable schema: `plan_update`,
 * `plan_removed`, `compaction_update`, `compaction_summary_chunk`, `subagent_update`,
 * `session_message` and `session_message_chunk`. (`notice` is in the reducer itself.)
 *
 * @module
 */
import type {
  CompactionSummaryChunk,
  CompactionUpdate,
  PlanRemoved,
  PlanUpdate,
  SessionMessage,
  SessionMessageChunk,
  SubagentUpdate,
} from "../schema/types.gen.js";
import {
  threadItem,
  withState,
  type SessionState,
  type SubagentState,
  type ThreadCompaction,
  type ThreadSessionMessage,
} from "./state.js";
import { appendBlock, appendItem, findKeyed, replaceAt, replaceItem } from "./thread-ops.js";

/** Tri-state patch of one field: left out keeps `current`, `null` clears, a value sets. */
function patched<T>(current: T | null, value: T | null | undefined): T | null {
  return value === undefined ? current : value;
}

/**
 * `plan_update`: the plan with this `planId` is replaced by the new content (kept in
 * place), or added at the end of `plans`.
 */
export function applyPlanUpdate(state: SessionState, update: PlanUpdate): SessionState {
  const { plan } = update;
  const at = state.plans.findIndex((p) => p.planId === plan.planId);
  const plans = at >= 0 ? replaceAt(state.plans, at, plan) : [...state.plans, plan];
  return withState(state, { plans });
}

/** `plan_removed`: the plan with this `planId` leaves `plans` (an unknown id changes nothing). */
export function applyPlanRemoved(state: SessionState, update: PlanRemoved): SessionState {
  if (!state.plans.some((p) => p.planId === update.planId)) return state;
  return withState(state, { plans: state.plans.filter((p) => p.planId !== update.planId) });
}

function findCompaction(state: SessionState, compactionId: string): number {
  return findKeyed(
    state,
    `c\u0000${compactionId}`,
    (item) => item.type === "compaction" && item.compactionId === compactionId,
  );
}

/**
 * `compaction_update`: creates a compaction entry at the end of the thread, or patches
 * the one with the same id: `status` is set; `summary` left out keeps it, `null` or `[]`
 * clears it, a list replaces it; `error` left out keeps it, `null` clears it.
 */
export function applyCompactionUpdate(state: SessionState, update: CompactionUpdate): SessionState {
  const at = findCompaction(state, update.compactionId);
  const found = threadItem(state, at);
  const current: ThreadCompaction =
    found?.type === "compaction"
      ? found
      : {
          type: "compaction",
          compactionId: update.compactionId,
          status: "",
          summary: [],
          error: null,
        };
  const next: ThreadCompaction = {
    ...current,
    status: update.status,
    summary: update.summary === undefined ? current.summary : (update.summary ?? []),
    error: patched(current.error, update.error),
  };
  return found === undefined ? appendItem(state, next) : replaceItem(state, at, next);
}

/**
 * `compaction_summary_chunk`: adds a block to the end of the compaction's summary; an
 * unseen id starts an `in_progress` compaction at the end of the thread.
 */
export function applyCompactionChunk(
  state: SessionState,
  update: CompactionSummaryChunk,
): SessionState {
  const at = findCompaction(state, update.compactionId);
  const found = threadItem(state, at);
  if (found?.type === "compaction") {
    return replaceItem(state, at, {
      ...found,
      summary: appendBlock(found.summary, update.content),
    });
  }
  return appendItem(state, {
    type: "compaction",
    compactionId: update.compactionId,
    status: "in_progress",
    summary: [update.content],
    error: null,
  });
}

function findSessionMessage(state: SessionState, messageId: string): number {
  return findKeyed(
    state,
    `s\u0000${messageId}`,
    (item) => item.type === "session_message" && item.messageId === messageId,
  );
}

function emptySessionMessage(messageId: string): ThreadSessionMessage {
  return {
    type: "session_message",
    messageId,
    senderSessionId: null,
    recipientSessionId: null,
    senderMessageId: null,
    recipientMessageId: null,
    content: [],
  };
}

/**
 * `session_message`: creates a message between sessions at the end of the thread, or
 * patches the one with the same id. Each field left out is kept, `null` clears it;
 * `content` `null` or `[]` clears the content, a non-empty list replaces it.
 */
export function applySessionMessage(state: SessionState, update: SessionMessage): SessionState {
  const at = findSessionMessage(state, update.messageId);
  const found = threadItem(state, at);
  const current = found?.type === "session_message" ? found : emptySessionMessage(update.messageId);
  const next: ThreadSessionMessage = {
    ...current,
    senderSessionId: patched(current.senderSessionId, update.senderSessionId),
    recipientSessionId: patched(current.recipientSessionId, update.recipientSessionId),
    senderMessageId: patched(current.senderMessageId, update.senderMessageId),
    recipientMessageId: patched(current.recipientMessageId, update.recipientMessageId),
    content: update.content === undefined ? current.content : (update.content ?? []),
  };
  return found === undefined ? appendItem(state, next) : replaceItem(state, at, next);
}

/**
 * `session_message_chunk`: adds a block to the end of the message between sessions with
 * this id; an unseen id starts one at the end of the thread.
 */
export function applySessionMessageChunk(
  state: SessionState,
  update: SessionMessageChunk,
): SessionState {
  const at = findSessionMessage(state, update.messageId);
  const found = threadItem(state, at);
  const current = found?.type === "session_message" ? found : emptySessionMessage(update.messageId);
  const next = { ...current, content: appendBlock(current.content, update.content) };
  return found === undefined ? appendItem(state, next) : replaceItem(state, at, next);
}

/**
 * `subagent_update`: announces a child session (added at the end of `subagents`) or
 * patches it: each field left out is kept, `null` clears it, a value replaces it.
 */
export function applySubagentUpdate(state: SessionState, update: SubagentUpdate): SessionState {
  const at = state.subagents.findIndex((s) => s.sessionId === update.sessionId);
  const current: SubagentState = state.subagents[at] ?? {
    sessionId: update.sessionId,
    title: null,
    description: null,
    capabilities: null,
    state: null,
    cwd: null,
    additionalDirectories: null,
  };
  const next: SubagentState = {
    sessionId: current.sessionId,
    title: patched(current.title, update.title),
    description: patched(current.description, update.description),
    capabilities: patched(current.capabilities, update.capabilities),
    state: patched(current.state, update.state),
    cwd: patched(current.cwd, update.cwd),
    additionalDirectories: patched(current.additionalDirectories, update.additionalDirectories),
  };
  const subagents = at >= 0 ? replaceAt(state.subagents, at, next) : [...state.subagents, next];
  return withState(state, { subagents });
}
