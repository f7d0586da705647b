/**
 * The shape of a session folded from its `session/update` stream: the thread (messages,
 * tool calls and other timeline entries, in order) and the session-level state (plan, mode,
 * commands, config options, usage, info).
 *
 * Everything is plain data (JSON-serialisable, `null` for "none") and read-only: the
 * reducer never mutates a state, it returns a new one that shares the unchanged parts.
 * The state also shares objects (content blocks, plan entries, ...) with the updates it was
 * built from; treat both as immutable.
 *
 * The thread is kept in a persistent list, so that folding an update costs the same in a
 * short thread and in one of 100,000 items. A state's `thread` array is built from it the
 * first time it is read (then kept): reading it is linear in the thread's length. To
 * follow a long thread update by update, use {@link threadLength}, {@link threadItem}
 * and {@link threadSlice}, which cost nothing of the sort.
 *
 * @module
 */
import type {
  AvailableCommand,
  ContentBlock,
  Cost,
  Notice,
  PlanEntry,
  PlanUpdateContent,
  SessionConfigOption,
  SessionMode,
  StateUpdate,
  StopReason,
  SubagentSessionCapabilities,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolKind,
  UnknownSessionUpdate,
  Usage,
} from "../schema/types.gen.js";
import { ThreadList } from "./thread-list.js";

/** Who a {@link ThreadMessage} is from: the user, the agent's reply, or the agent's reasoning. */
export type MessageRole = "user" | "agent" | "thought";

/**
 * A user, agent or thought message assembled from `*_message_chunk` / `agent_thought_chunk`
 * updates (see {@link reduceSession} for how chunks are grouped into messages).
 */
export interface ThreadMessage {
  /** Discriminator of {@link ThreadItem}. */
  readonly type: "message";
  /** `user_message_chunk` → `user`, `agent_message_chunk` → `agent`, `agent_thought_chunk` → `thought`. */
  readonly role: MessageRole;
  /** The agent's id for the message, or `null` when its chunks carried none. */
  readonly messageId: string | null;
  /**
   * The content blocks in arrival order. Adjacent plain text chunks (no `annotations`, no
   * `_meta`) are joined into one text block; any other block is kept as its own entry.
   */
  readonly content: readonly ContentBlock[];
  /**
   * `agent`: built from updates. `client`: the prompt recorded by `beginTurn`, not (yet)
   * echoed by the agent; an echo replaces it and turns it into an `agent` message.
   */
  readonly origin: "agent" | "client";
}

/** A tool call, created by `tool_call` (or a first `tool_call_update`) and patched in place. */
export interface ThreadToolCall {
  /** Discriminator of {@link ThreadItem}. */
  readonly type: "tool_call";
  /** Unique within the session. */
  readonly toolCallId: string;
  /** Human-readable description (`""` for a placeholder that never got one). */
  readonly title: string;
  /** Defaults to `other`. */
  readonly kind: ToolKind;
  /** Defaults to `pending`. */
  readonly status: ToolCallStatus;
  /** The latest content list (each update carrying `content` replaced it). */
  readonly content: readonly ToolCallContent[];
  /** The latest location list (each update carrying `locations` replaced it). */
  readonly locations: readonly ToolCallLocation[];
  /** Every status the call has had, oldest first, without repeats of the same status. */
  readonly statusHistory: readonly ToolCallStatus[];
  /** True when created by a `tool_call_update` for an id never announced by `tool_call`. */
  readonly placeholder: boolean;
  /**
   * Client-local: the turn the call belongs to was cancelled while the call was neither
   * `completed` nor `failed` (v1 has no `cancelled` status). Later updates still apply.
   */
  readonly cancelled: boolean;
  /** Programmatic tool name (unstable), when sent. */
  readonly name?: string;
  /** Raw tool input, when sent. */
  readonly rawInput?: unknown;
  /** Raw tool output, when sent. */
  readonly rawOutput?: unknown;
  /** The latest `_meta` sent with the call, when any. */
  readonly _meta?: Record<string, unknown>;
}

/** A context compaction at its place in the timeline (`compaction_update`, `compaction_summary_chunk`). */
export interface ThreadCompaction {
  /** Discriminator of {@link ThreadItem}. */
  readonly type: "compaction";
  /** The agent's id for this compaction. */
  readonly compactionId: string;
  /** `in_progress`, `completed`, `failed`, `cancelled` (or a newer value, kept as sent). */
  readonly status: string;
  /** The summary so far. */
  readonly summary: readonly ContentBlock[];
  /** Why it failed, when the agent said. */
  readonly error: string | null;
}

/** A message between sessions as it appears in this session's transcript (unstable). */
export interface ThreadSessionMessage {
  /** Discriminator of {@link ThreadItem}. */
  readonly type: "session_message";
  /** The message's id. */
  readonly messageId: string;
  /** The session that sent it, when known. */
  readonly senderSessionId: string | null;
  /** The session it was sent to, when known. */
  readonly recipientSessionId: string | null;
  /** Its id in the sender's transcript, when known. */
  readonly senderMessageId: string | null;
  /** Its id in the recipient's transcript, when known. */
  readonly recipientMessageId: string | null;
  /** The content so far. */
  readonly content: readonly ContentBlock[];
}

/** One entry of a session's thread, discriminated by `type`. */
export type ThreadItem = ThreadMessage | ThreadToolCall | ThreadCompaction | ThreadSessionMessage;

/** The last `usage_update`: context window use and cumulative cost. */
export interface SessionUsage {
  /** Tokens currently in the context. */
  readonly used: number;
  /** Size of the context window, in tokens. */
  readonly size: number;
  /** Cumulative session cost: the last one sent (an update without `cost` keeps it). */
  readonly cost: Cost | null;
}

/** Session metadata from `session_info_update`; `null` = not set (or cleared). */
export interface SessionInfoState {
  /** The session's title. */
  readonly title: string | null;
  /** ISO 8601 time of the last activity. */
  readonly updatedAt: string | null;
  /** Custom metadata: the `_meta` of every update, shallow-merged in order. */
  readonly _meta: Record<string, unknown> | null;
}

/** A child session announced by `subagent_update` (unstable); `null` = unknown or cleared. */
export interface SubagentState {
  /** The child session's id. */
  readonly sessionId: string;
  /** Display title. */
  readonly title: string | null;
  /** Display description. */
  readonly description: string | null;
  /** What the client may do to the child. */
  readonly capabilities: SubagentSessionCapabilities | null;
  /** The last snapshot of the child's foreground work. */
  readonly state: StateUpdate | null;
  /** The child's working directory. */
  readonly cwd: string | null;
  /** The child's additional directories. */
  readonly additionalDirectories: readonly string[] | null;
}

/** ACP v2: what a session is doing in the foreground, from its last `state_update`. */
export interface SessionActivity {
  /** `running`, `requires_action`, `idle`, or a state of a newer draft. */
  readonly state: string;
  /** With `idle`: why the foreground work ended, when the agent said (`end_turn`, `error`, ...). */
  readonly stopReason: string | null;
  /** With `idle` and the `error` stop reason: the error the agent reported. */
  readonly error: unknown;
  /**
   * Work running apart from the foreground (`{type: "terminal", terminalId}`,
   * `{type: "tool_call", toolCallId}`, ...), as last reported; `null` until the agent
   * reports it (an update without it keeps the last report).
   */
  readonly background: readonly unknown[] | null;
}

/** ACP v2: a terminal the agent runs and shows (display only). */
export interface AgentTerminal {
  readonly terminalId: string;
  readonly command: string | null;
  readonly cwd: string | null;
  /**
   * The output as base64 pieces, oldest first: the last snapshot (`terminal_update`'s
   * `output`) and the chunks after it. `terminalOutputText` (in `acp-kit/v2`) decodes them.
   */
  readonly output: readonly string[];
  /** Set once the process exited (`{exitCode?, signal?}`). */
  readonly exitStatus: {
    readonly exitCode?: number | null;
    readonly signal?: string | null;
  } | null;
  readonly size: { readonly cols: number; readonly rows: number } | null;
  /** Whether the client may send `terminal/cancel` for it. */
  readonly cancellable: boolean;
  readonly _meta: Record<string, unknown> | null;
}

/** A prompt turn, as told to the store by `beginTurn` / `endTurn` (optional bookkeeping). */
export interface SessionTurn {
  /** The prompt, when `beginTurn` was given one. */
  readonly prompt: readonly ContentBlock[] | null;
  /** Index in `thread` of the turn's first item (its prompt message, when recorded). */
  readonly threadStart: number;
  /** True once `endTurn` was called. Updates arriving later are still applied. */
  readonly ended: boolean;
  /** The `session/prompt` stop reason; `null` while running or when the request failed. */
  readonly stopReason: StopReason | null;
  /** True when the client cancelled the turn (`cancelTurn` or a `cancelled` stop reason). */
  readonly cancelled: boolean;
  /** End-of-turn token usage from the prompt response (unstable), when sent. */
  readonly usage: Usage | null;
}

/** Everything known about one session, folded from its updates. */
export interface SessionState {
  /** The session's id. */
  readonly sessionId: string;
  /** Messages, tool calls and other timeline entries, in order of first appearance. */
  readonly thread: readonly ThreadItem[];
  /** The current plan (`plan`, replaced wholesale); `null` until one is sent. */
  readonly plan: readonly PlanEntry[] | null;
  /** Plans by id from `plan_update` / `plan_removed` (unstable), in order of first appearance. */
  readonly plans: readonly PlanUpdateContent[];
  /** The current mode (`current_mode_update` or a session setup response). */
  readonly currentModeId: string | null;
  /** The modes offered, from a session setup response. */
  readonly availableModes: readonly SessionMode[] | null;
  /** Slash commands (`available_commands_update`, replaced wholesale). */
  readonly availableCommands: readonly AvailableCommand[] | null;
  /** Config options (`config_option_update` or a setup response, replaced wholesale). */
  readonly configOptions: readonly SessionConfigOption[] | null;
  /** The last `usage_update`. */
  readonly usage: SessionUsage | null;
  /** Title and last-activity time (`session_info_update`, tri-state patch). */
  readonly info: SessionInfoState;
  /** `notice` updates (live-only messages for the user), in order; the newest 1,000. */
  readonly notices: readonly Notice[];
  /** Child sessions from `subagent_update` (unstable), in order of first appearance. */
  readonly subagents: readonly SubagentState[];
  /**
   * ACP v2: the session's foreground activity from its last `state_update` (`null` until
   * one arrives, and always for v1 sessions).
   */
  readonly activity: SessionActivity | null;
  /** ACP v2: the agent's own terminals from `terminal_update` and `terminal_output_chunk`, in order of first appearance. */
  readonly terminals: readonly AgentTerminal[];
  /** Prompt turns, when the client reports them; empty otherwise. */
  readonly turns: readonly SessionTurn[];
  /** True between `beginLoad` and the load's setup response (history replay running). */
  readonly loading: boolean;
  /** Updates of kinds this version does not know, kept as received, in order; the newest 1,000. */
  readonly unknown: readonly UnknownSessionUpdate[];
}

/**
 * A state's thread as the reducers keep it: the persistent list, and where each item with
 * an id was last put (shared by every state derived from one another; see
 * {@link itemKey}).
 * @internal
 */
export interface ThreadData {
  /** The thread. */
  readonly list: ThreadList<ThreadItem>;
  /**
   * Index by {@link itemKey}, recorded whenever an item with an id is added or replaced in
   * any state sharing it: an id it lacks is in none of them, an index it gives is checked.
   */
  readonly keys: Map<string, number>;
}

/** The thread data of each state the reducers made (or looked at). */
const threads = new WeakMap<SessionState, ThreadData>();

/**
 * What identifies a thread item for the reducers' lookups by id (`undefined` for an item
 * without an id).
 * @internal
 */
export function itemKey(item: ThreadItem): string | undefined {
  switch (item.type) {
    case "tool_call":
      return `t\u0000${item.toolCallId}`;
    case "message":
      return item.messageId === null ? undefined : `m\u0000${item.role}\u0000${item.messageId}`;
    case "compaction":
      return `c\u0000${item.compactionId}`;
    case "session_message":
      return `s\u0000${item.messageId}`;
    default:
      return undefined;
  }
}

/** Thread data for `items`, with every id recorded. */
function dataOf(items: readonly ThreadItem[]): ThreadData {
  const keys = new Map<string, number>();
  items.forEach((item, index) => {
    const key = itemKey(item);
    if (key !== undefined) keys.set(key, index);
  });
  return { list: ThreadList.from(items), keys };
}

/**
 * The thread of `state` as the reducers keep it: the data it was made with, or, for a
 * state built elsewhere (by hand, from JSON), data built from its `thread` array once.
 * @internal
 */
export function threadData(state: SessionState): ThreadData {
  let data = threads.get(state);
  if (data === undefined) {
    data = dataOf(state.thread);
    threads.set(state, data);
  }
  return data;
}

/** The fields of a state but its thread. */
type StateFields = Omit<SessionState, "thread">;

/** A state of `fields` whose thread is `data`; its `thread` array is built on first read. */
function makeState(fields: StateFields, data: ThreadData): SessionState {
  let thread: readonly ThreadItem[] | undefined;
  const { sessionId, ...rest } = fields;
  // `sessionId` first and `thread` second, as they are declared (and printed in JSON).
  const state: SessionState = {
    sessionId,
    get thread(): readonly ThreadItem[] {
      thread ??= data.list.slice();
      return thread;
    },
    ...rest,
  };
  threads.set(state, data);
  return state;
}

/**
 * `state` with the fields of `patch` replaced and, when given, its thread replaced by
 * `list` (a list derived from the state's own: the index of ids is shared). `"new"`
 * starts an empty thread with an index of its own. The thread array is not read.
 * @internal
 */
export function withState(
  state: SessionState,
  patch: Partial<StateFields>,
  list?: ThreadList<ThreadItem> | "new",
): SessionState {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(state)) {
    if (key !== "thread") fields[key] = (state as unknown as Record<string, unknown>)[key];
  }
  const own = threadData(state);
  const data: ThreadData =
    list === "new"
      ? { list: ThreadList.empty(), keys: new Map() }
      : list === undefined
        ? own
        : { list, keys: own.keys };
  return makeState({ ...(fields as unknown as StateFields), ...patch }, data);
}

/** The number of items in a state's thread (`state.thread.length`, without building the array). */
export function threadLength(state: SessionState): number {
  return threadData(state).list.length;
}

/**
 * The thread item at `index` (`state.thread[index]`, without building the array), or
 * `undefined` outside the thread.
 */
export function threadItem(state: SessionState, index: number): ThreadItem | undefined {
  return threadData(state).list.get(index);
}

/**
 * The thread items from `start` to `end` (exclusive; default: to the end), like
 * `state.thread.slice(start, end)` for non-negative indices, in time proportional to the
 * items returned.
 */
export function threadSlice(state: SessionState, start = 0, end?: number): ThreadItem[] {
  return threadData(state).list.slice(start, end);
}

/** The state of a session nothing is known about yet. */
export function emptySessionState(sessionId: string): SessionState {
  return makeState(
    {
      sessionId,
      plan: null,
      plans: [],
      currentModeId: null,
      availableModes: null,
      availableCommands: null,
      configOptions: null,
      usage: null,
      info: { title: null, updatedAt: null, _meta: null },
      notices: [],
      subagents: [],
      activity: null,
      terminals: [],
      turns: [],
      loading: false,
      unknown: [],
    },
    { list: ThreadList.empty(), keys: new Map() },
  );
}
