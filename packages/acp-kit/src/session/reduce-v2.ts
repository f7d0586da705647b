/**
 * The session reducer for ACP v2: `(state, v2 SessionUpdate) -> state`, pure and total,
 * into the same transcript model as v1's {@link reduceSession}, by v2's patch rules.
 *
 * @module
 */
import type {
  ContentChunk as V1ContentChunk,
  ContentBlock,
  UnknownSessionUpdate,
} from "../schema/types.gen.js";
import type * as V2 from "../schema/v2/types.gen.js";
import { applyChunk, echoTarget } from "./messages.js";
import { applyUnknown, reduceSession } from "./reduce.js";
import {
  threadItem,
  withState,
  type AgentTerminal,
  type MessageRole,
  type SessionActivity,
  type SessionState,
  type ThreadMessage,
  type ThreadToolCall,
} from "./state.js";
import { findToolCall } from "./tool-calls.js";
import { endTurn } from "./turns.js";
import { appendItem, findKeyed, replaceAt, replaceItem } from "./thread-ops.js";

type Draft<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A top-level `_meta` patch of an upsert: omitted or `null` changes nothing, `{}` is a
 * no-op, a key set to `null` is removed, any other key is set.
 */
function patchMeta(
  current: Record<string, unknown> | null | undefined,
  patch: Record<string, unknown> | null | undefined,
): Record<string, unknown> | undefined {
  if (patch === undefined || patch === null) return current ?? undefined;
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(next, key);
    else next[key] = value;
  }
  return Object.keys(next).length === 0 ? undefined : next;
}

/** `user_message`, `agent_message`, `agent_thought`: the message with that id gets the whole content. */
function upsertMessage(
  state: SessionState,
  role: MessageRole,
  update: { messageId: string; content?: readonly unknown[] | null },
): SessionState {
  const id = update.messageId;
  const at = findKeyed(
    state,
    `m\u0000${role}\u0000${id}`,
    (item) => item.type === "message" && item.role === role && item.messageId === id,
  );
  const found = threadItem(state, at);
  const content = (update.content ?? []) as readonly ContentBlock[];
  if (found?.type === "message") {
    // Left out: the content stays; `null` or `[]`: it is cleared; a list: it replaces.
    if (update.content === undefined) return state;
    return replaceItem(state, at, { ...found, content });
  }
  if (role === "user") {
    // The echo of the prompt this client just sent (recorded by `beginTurn`): it takes the
    // recorded message over, with the agent's id, instead of showing the prompt twice.
    const echo = echoTarget(state);
    const prompt = threadItem(state, echo);
    if (prompt?.type === "message")
      return replaceItem(state, echo, { ...prompt, messageId: id, content, origin: "agent" });
  }
  const message: ThreadMessage = {
    type: "message",
    role,
    messageId: id,
    content,
    origin: "agent",
  };
  return appendItem(state, message);
}

/**
 * A v2 `tool_call_update` on `call`: a field left out stays, `null` clears it (title `""`,
 * kind `other`, status `pending`, lists empty, the others removed), a value replaces it;
 * `_meta` patches by key.
 */
function patchToolCallV2(call: ThreadToolCall, patch: V2.ToolCallUpdate): ThreadToolCall {
  const next: Draft<ThreadToolCall> = { ...call };
  if (patch.title !== undefined) next.title = patch.title ?? "";
  if (patch.kind !== undefined) next.kind = (patch.kind ?? "other") as ThreadToolCall["kind"];
  if (patch.content !== undefined)
    next.content = (patch.content ?? []) as unknown as ThreadToolCall["content"];
  if (patch.locations !== undefined) next.locations = patch.locations ?? [];
  const opaque = ["name", "rawInput", "rawOutput"] as const;
  for (const key of opaque) {
    if (patch[key] === undefined) continue;
    if (patch[key] === null) Reflect.deleteProperty(next, key);
    else (next as Record<string, unknown>)[key] = patch[key];
  }
  const meta = patchMeta(call._meta, patch._meta);
  if (meta === undefined) Reflect.deleteProperty(next, "_meta");
  else next._meta = meta;
  if (patch.status !== undefined) {
    const status = (patch.status ?? "pending") as ThreadToolCall["status"];
    if (status !== call.status) {
      next.status = status;
      next.statusHistory = [...call.statusHistory, status];
    }
    if ((status as string) === "cancelled") next.cancelled = true;
  }
  return next;
}

/** `tool_call_update`: the first one for an id creates the call (v2 has no `tool_call`). */
function applyToolCallUpdateV2(state: SessionState, update: V2.ToolCallUpdate): SessionState {
  const at = findToolCall(state, update.toolCallId);
  const existing = threadItem(state, at);
  if (existing?.type === "tool_call")
    return replaceItem(state, at, patchToolCallV2(existing, update));
  const created: ThreadToolCall = {
    type: "tool_call",
    toolCallId: update.toolCallId,
    title: "",
    kind: "other",
    status: "pending",
    content: [],
    locations: [],
    statusHistory: ["pending"],
    placeholder: false,
    cancelled: false,
  };
  return appendItem(state, patchToolCallV2(created, update));
}

/** `tool_call_content_chunk`: one content item appended to the call (created when new). */
function applyToolCallContentChunk(
  state: SessionState,
  update: V2.ToolCallContentChunk,
): SessionState {
  // Only a call not seen yet is created first: an existing one is not copied twice per chunk.
  const known = findToolCall(state, update.toolCallId) >= 0;
  const created = known ? state : applyToolCallUpdateV2(state, { toolCallId: update.toolCallId });
  const at = findToolCall(created, update.toolCallId);
  const call = threadItem(created, at);
  if (call?.type !== "tool_call") return created;
  const item = update.content as unknown as ThreadToolCall["content"][number];
  return replaceItem(created, at, { ...call, content: [...call.content, item] });
}

/** `state_update`: the foreground activity; an idle with a stop reason ends the open turn. */
function applyStateUpdate(state: SessionState, update: V2.StateUpdate): SessionState {
  const fields = update as {
    state: string;
    stopReason?: unknown;
    error?: unknown;
    background?: readonly unknown[] | null;
  };
  const stopReason = typeof fields.stopReason === "string" ? fields.stopReason : null;
  const activity: SessionActivity = {
    state: fields.state,
    stopReason: fields.state === "idle" ? stopReason : null,
    error: fields.state === "idle" && stopReason === "error" ? (fields.error ?? null) : null,
    background: fields.background ?? state.activity?.background ?? null,
  };
  const next = withState(state, { activity });
  const open = next.turns.at(-1);
  if (fields.state !== "idle" || stopReason === null || open === undefined || open.ended)
    return next;
  // A v1 stop reason as such; `error` and newer ones end the turn without one.
  const known = ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"];
  return endTurn(next, known.includes(stopReason) ? (stopReason as "end_turn") : null);
}

function findTerminal(state: SessionState, terminalId: string): number {
  return state.terminals.findIndex((terminal) => terminal.terminalId === terminalId);
}

function emptyTerminal(terminalId: string): AgentTerminal {
  return {
    terminalId,
    command: null,
    cwd: null,
    output: [],
    exitStatus: null,
    size: null,
    cancellable: false,
    _meta: null,
  };
}

/** `terminal_update`: an upsert; `output` is a snapshot that replaces what was shown. */
function applyTerminalUpdate(state: SessionState, update: V2.TerminalUpdate): SessionState {
  const at = findTerminal(state, update.terminalId);
  const current = state.terminals[at] ?? emptyTerminal(update.terminalId);
  const next: Draft<AgentTerminal> = { ...current };
  if (update.command !== undefined) next.command = update.command;
  if (update.cwd !== undefined) next.cwd = update.cwd;
  if (update.output !== undefined) next.output = update.output === null ? [] : [update.output.data];
  if (update.exitStatus !== undefined) next.exitStatus = update.exitStatus;
  if (update.size !== undefined) next.size = update.size;
  if (update.capabilities !== undefined) next.cancellable = update.capabilities?.cancel != null;
  next._meta = patchMeta(current._meta, update._meta) ?? null;
  const terminals = at < 0 ? [...state.terminals, next] : replaceAt(state.terminals, at, next);
  return withState(state, { terminals });
}

/** `terminal_output_chunk`: bytes appended to the terminal's output (created when new). */
function applyTerminalOutput(state: SessionState, update: V2.TerminalOutputChunk): SessionState {
  const at = findTerminal(state, update.terminalId);
  const current = state.terminals[at] ?? emptyTerminal(update.terminalId);
  const next: AgentTerminal = { ...current, output: [...current.output, update.data] };
  const terminals = at < 0 ? [...state.terminals, next] : replaceAt(state.terminals, at, next);
  return withState(state, { terminals });
}

/**
 * The text of an agent terminal's output: its base64 pieces decoded as one UTF-8 stream
 * (a character split between two chunks is whole again).
 */
export function terminalOutputText(terminal: AgentTerminal): string {
  const decoder = new TextDecoder();
  let text = "";
  for (const piece of terminal.output) {
    let binary: string;
    try {
      binary = atob(piece);
    } catch {
      continue; // Not base64: nothing the terminal could show.
    }
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    text += decoder.decode(bytes, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * v2 has only `plan_update`s (by plan id, in `plans`); `plan`, the one plan a view shows,
 * is the items plan updated last, or, after a removal, the last items plan left.
 */
function withShownPlan(state: SessionState, update: V2.SessionUpdate): SessionState {
  const updated = (update as { plan?: { type?: unknown; entries?: unknown } }).plan;
  if (updated !== undefined) {
    if (updated.type !== "items" || !Array.isArray(updated.entries)) return state;
    return withState(state, { plan: updated.entries as SessionState["plan"] });
  }
  const left = state.plans.filter((plan) => plan.type === "items").at(-1);
  const plan = left?.type === "items" ? left.entries : null;
  return plan === state.plan ? state : withState(state, { plan });
}

/**
 * Folds one ACP v2 update into a session's state and returns the new state; `state` is
 * not modified. It never throws. v2's rules, into the transcript model v1 uses:
 *
 * - `user_message`, `agent_message`, `agent_thought`: the message with that id (of that
 *   role) gets the whole `content` (`null` or `[]` clear it; left out keeps it), or is
 *   appended. Chunks (`*_chunk`, each with its `messageId`) append to the message of the
 *   same role and id, as in v1.
 * - `tool_call_update`: the first one for an id creates the call (status `pending`, kind
 *   `other`, no title); then a field left out stays, `null` clears it, a value replaces
 *   it (lists replace whole); `_meta` patches by key (a `null` key is removed). A
 *   `cancelled` status marks the call cancelled. `tool_call_content_chunk` appends one
 *   content item.
 * - `state_update`: `activity` (state, stop reason and error of an idle, background work:
 *   an update without it keeps the last report). An `idle` with a stop reason ends the
 *   open turn (v1's stop reasons as such, `error` and newer ones as a failed turn); a
 *   repeated idle changes nothing more.
 * - `terminal_update` (an upsert; its `output` is a snapshot that replaces what was
 *   shown) and `terminal_output_chunk` (appends): `terminals`.
 * - `plan_update`, `plan_removed`: into `plans` as v1 folds them; `plan` (the one plan a
 *   view shows) is the items plan updated last, or the last one left after a removal.
 * - `available_commands_update`, `config_option_update`, `session_info_update`,
 *   `usage_update`, `notice`, `compaction_update`, `compaction_summary_chunk`: as v1 folds
 *   them (the shapes are the same).
 * - Any other kind: kept in `unknown`.
 */
export function reduceSessionV2(state: SessionState, update: V2.SessionUpdate): SessionState {
  const u = update as unknown as { sessionUpdate: string } & Record<string, unknown>;
  switch (u.sessionUpdate) {
    case "user_message":
      return upsertMessage(state, "user", update as V2.UserMessage);
    case "agent_message":
      return upsertMessage(state, "agent", update as V2.AgentMessage);
    case "agent_thought":
      return upsertMessage(state, "thought", update as V2.AgentThought);
    case "user_message_chunk":
      return applyChunk(state, "user", update as unknown as V1ContentChunk);
    case "agent_message_chunk":
      return applyChunk(state, "agent", update as unknown as V1ContentChunk);
    case "agent_thought_chunk":
      return applyChunk(state, "thought", update as unknown as V1ContentChunk);
    case "tool_call_update":
      return applyToolCallUpdateV2(state, update as V2.ToolCallUpdate);
    case "tool_call_content_chunk":
      return applyToolCallContentChunk(state, update as V2.ToolCallContentChunk);
    case "state_update":
      return applyStateUpdate(state, update as V2.StateUpdate);
    case "terminal_update":
      return applyTerminalUpdate(state, update as V2.TerminalUpdate);
    case "terminal_output_chunk":
      return applyTerminalOutput(state, update as V2.TerminalOutputChunk);
    case "config_option_update": {
      // The transcript model names an option by `id`, as v1 does; v2 calls it `configId`.
      const options = (update as { configOptions?: unknown }).configOptions;
      const configOptions = Array.isArray(options)
        ? options.map((option: Record<string, unknown>) => {
            const { configId, ...rest } = option;
            return configId === undefined ? option : { ...rest, id: configId };
          })
        : options;
      return reduceSession(state, {
        ...update,
        configOptions,
      } as unknown as Parameters<typeof reduceSession>[1]);
    }
    case "plan_update":
    case "plan_removed":
      return withShownPlan(
        reduceSession(state, update as unknown as Parameters<typeof reduceSession>[1]),
        update,
      );
    case "available_commands_update":
    case "session_info_update":
    case "usage_update":
    case "notice":
    case "compaction_update":
    case "compaction_summary_chunk":
      return reduceSession(state, update as unknown as Parameters<typeof reduceSession>[1]);
    default:
      // Never through v1's reducer: a name v1 knows (`tool_call`, `plan`) means nothing in v2.
      return applyUnknown(state, update as unknown as UnknownSessionUpdate);
  }
}
