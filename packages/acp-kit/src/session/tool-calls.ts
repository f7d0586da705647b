/**
 * Folding `tool_call` and `tool_call_update` into thread tool calls, merged by
 * `toolCallId`.
 *
 * @module
 */
import type { ToolCall, ToolCallUpdate } from "../schema/types.gen.js";
import { threadItem, type SessionState, type ThreadToolCall } from "./state.js";
import { appendItem, findKeyed, isSet, replaceItem } from "./thread-ops.js";

type Draft = { -readonly [K in keyof ThreadToolCall]: ThreadToolCall[K] };

/** The fields both `tool_call` and `tool_call_update` may carry, all optional. */
type ToolCallPatch = Omit<ToolCallUpdate, "toolCallId"> & { sessionUpdate?: string };

/** The thread index of the tool call with this id (-1 when there is none). @internal */
export function findToolCall(state: SessionState, toolCallId: string): number {
  return findKeyed(
    state,
    `t\u0000${toolCallId}`,
    (item) => item.type === "tool_call" && item.toolCallId === toolCallId,
  );
}

/**
 * `call` with the fields `patch` carries: each field that is present and not `null`
 * overwrites (`content` and `locations` replace the whole list, they are never appended);
 * a field left out or `null` leaves it unchanged (v1 has no way to clear a field). A new
 * status different from the current one is added to `statusHistory`.
 */
export function patchToolCall(call: ThreadToolCall, patch: ToolCallPatch): ThreadToolCall {
  const next: Draft = { ...call };
  if (isSet(patch.title)) next.title = patch.title;
  if (isSet(patch.kind)) next.kind = patch.kind;
  if (isSet(patch.content)) next.content = patch.content;
  if (isSet(patch.locations)) next.locations = patch.locations;
  if (isSet(patch.name)) next.name = patch.name;
  if (isSet(patch.rawInput)) next.rawInput = patch.rawInput;
  if (isSet(patch.rawOutput)) next.rawOutput = patch.rawOutput;
  if (isSet(patch._meta)) next._meta = patch._meta;
  if (isSet(patch.status) && patch.status !== call.status) {
    next.status = patch.status;
    next.statusHistory = [...call.statusHistory, patch.status];
  }
  return next;
}

/** A tool call with the defaults of the protocol, then the fields of `patch`. */
function newToolCall(toolCallId: string, patch: ToolCallPatch, placeholder: boolean) {
  const status = isSet(patch.status) ? patch.status : "pending";
  const base: ThreadToolCall = {
    type: "tool_call",
    toolCallId,
    title: "",
    kind: "other",
    status,
    content: [],
    locations: [],
    statusHistory: [status],
    placeholder,
    cancelled: false,
  };
  return patchToolCall(base, patch);
}

/**
 * The tool call a `session/request_permission` is about, as the thread knows it with the
 * request's fields on top; a call the thread does not have yet is built from the request
 * alone (a placeholder, with the protocol's defaults).
 */
export function toolCallInQuestion(
  state: SessionState | undefined,
  request: ToolCallUpdate,
): ThreadToolCall {
  const { toolCallId, ...patch } = request;
  const index = state === undefined ? -1 : findToolCall(state, toolCallId);
  const known = index < 0 || state === undefined ? undefined : threadItem(state, index);
  return known?.type === "tool_call"
    ? patchToolCall(known, patch)
    : newToolCall(toolCallId, patch, true);
}

/**
 * Applies a `tool_call`. A new id appends a tool call to the thread with the protocol's
 * defaults (`kind: "other"`, `status: "pending"`, empty `content` and `locations`).
 *
 * A `tool_call` for an id already in the thread (a duplicate, or one announced earlier by
 * a `tool_call_update`) is merged into that call like an update: the fields it carries
 * overwrite, the call keeps its place in the thread and its status history, and it is no
 * longer a placeholder. Fields it leaves out are not reset to their defaults.
 */
export function applyToolCall(state: SessionState, update: ToolCall): SessionState {
  const { toolCallId, ...fields } = update;
  const at = findToolCall(state, toolCallId);
  const existing = threadItem(state, at);
  if (existing?.type === "tool_call") {
    return replaceItem(state, at, { ...patchToolCall(existing, fields), placeholder: false });
  }
  return appendItem(state, newToolCall(toolCallId, fields, false));
}

/**
 * Applies a `tool_call_update` (see {@link patchToolCall}). An update for an id not in
 * the thread creates a placeholder tool call at the end of the thread from what the
 * update carries (title `""` unless sent, `placeholder: true`), so that nothing the agent
 * reported is lost; a later `tool_call` with that id fills it in.
 */
export function applyToolCallUpdate(state: SessionState, update: ToolCallUpdate): SessionState {
  const { toolCallId, ...fields } = update;
  const at = findToolCall(state, toolCallId);
  const existing = threadItem(state, at);
  if (existing?.type === "tool_call") {
    return replaceItem(state, at, patchToolCall(existing, fields));
  }
  return appendItem(state, newToolCall(toolCallId, fields, true));
}

/** True for a tool call that has not reached `completed` or `failed`. */
export function isUnfinished(call: ThreadToolCall): boolean {
  return call.status !== "completed" && call.status !== "failed";
}
