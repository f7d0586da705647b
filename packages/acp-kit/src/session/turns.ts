/**
 * What the client knows and the update stream does not carry: prompt turns, cancellation,
 * history loading and the setup responses of `session/new`, `session/load`,
 * `session/resume` and `session/fork`. All pure, like the reducer; all optional: the
 * reducer is correct without them.
 *
 * @module
 */
import type {
  ContentBlock,
  SessionConfigOption,
  SessionModeState,
  StopReason,
  Usage,
} from "../schema/types.gen.js";
import { withModeFromOption } from "./settings.js";
import { ThreadList } from "./thread-list.js";
import {
  threadData,
  threadItem,
  threadLength,
  threadSlice,
  withState,
  type SessionState,
  type SessionTurn,
  type ThreadItem,
} from "./state.js";
import { isUnfinished } from "./tool-calls.js";
import { replaceAt } from "./thread-ops.js";

/** What a session setup response (`session/new`, `load`, `resume`, `fork`) may carry. */
export interface SessionSetup {
  /** The modes and the current one. */
  modes?: SessionModeState | null;
  /** The config options. */
  configOptions?: SessionConfigOption[] | null;
}

/**
 * Starts a turn. With a `prompt` (the `session/prompt` blocks), it is recorded as a user
 * message (`origin: "client"`) at the end of the thread; if the agent then echoes the
 * prompt as user chunks before anything else, the echo replaces it. Without one, it only
 * marks the boundary: agent chunks without a message id no longer continue a message of
 * the previous turn.
 */
export function beginTurn(state: SessionState, prompt?: readonly ContentBlock[]): SessionState {
  const turn: SessionTurn = {
    prompt: prompt ?? null,
    threadStart: threadLength(state),
    ended: false,
    stopReason: null,
    cancelled: false,
    usage: null,
  };
  const { list } = threadData(state);
  const thread =
    prompt === undefined
      ? list
      : list.push({
          type: "message",
          role: "user",
          messageId: null,
          content: prompt,
          origin: "client",
        });
  return withState(state, { turns: [...state.turns, turn] }, thread);
}

/** Index of the latest turn not ended, or -1. */
function openTurn(state: SessionState): number {
  for (let i = state.turns.length - 1; i >= 0; i--) {
    if (state.turns[i]?.ended === false) return i;
  }
  return -1;
}

/** Marks the unfinished tool calls from `start` on as cancelled (client-local). */
function cancelToolCalls(thread: ThreadList<ThreadItem>, start: number): ThreadList<ThreadItem> {
  let result = thread;
  for (let i = start; i < thread.length; i++) {
    const item = thread.get(i);
    if (item?.type === "tool_call" && isUnfinished(item) && !item.cancelled) {
      result = result.set(i, { ...item, cancelled: true });
    }
  }
  return result;
}

/**
 * Marks the latest running turn cancelled (call it when sending `session/cancel`), and
 * every tool call of that turn that is not `completed` or `failed` as `cancelled`, as
 * the protocol asks clients to do in their own state. Without a running turn, nothing
 * changes.
 */
export function cancelTurn(state: SessionState): SessionState {
  const at = openTurn(state);
  const turn = state.turns[at];
  if (turn === undefined) return state;
  return withState(
    state,
    { turns: replaceAt(state.turns, at, { ...turn, cancelled: true }) },
    cancelToolCalls(threadData(state).list, turn.threadStart),
  );
}

/**
 * Ends the latest running turn with the `session/prompt` result (`null` when the request
 * failed). A `cancelled` stop reason also does what {@link cancelTurn} does. Updates
 * arriving later are still folded as usual. Without a running turn, nothing changes.
 */
export function endTurn(
  state: SessionState,
  stopReason: StopReason | null,
  usage?: Usage | null,
): SessionState {
  const base = stopReason === "cancelled" ? cancelTurn(state) : state;
  const at = openTurn(base);
  const turn = base.turns[at];
  if (turn === undefined) return state;
  const ended: SessionTurn = { ...turn, ended: true, stopReason, usage: usage ?? null };
  return withState(base, { turns: replaceAt(base.turns, at, ended) });
}

/**
 * Takes back the latest turn when the agent refused it before it began (`-32000`: a login
 * is needed, and the prompt will be sent again after it): the turn and the prompt's user
 * message go, so that the retry does not show the prompt twice. Only when nothing else
 * came in meanwhile; otherwise the turn ends as a failed one ({@link endTurn} with `null`).
 * @internal
 */
export function takeBackTurn(state: SessionState): SessionState {
  const at = state.turns.length - 1;
  const turn = state.turns[at];
  if (turn === undefined || turn.ended) return state;
  const added = threadLength(state) - turn.threadStart;
  const last = threadItem(state, turn.threadStart);
  const onlyThePrompt =
    turn.prompt === null
      ? added === 0
      : added === 1 && last?.type === "message" && last.origin === "client";
  if (!onlyThePrompt) return endTurn(state, null);
  const turns = state.turns.slice(0, at);
  if (added === 0) return withState(state, { turns });
  return withState(state, { turns }, ThreadList.from(threadSlice(state, 0, turn.threadStart)));
}

/**
 * Prepares for a `session/load`: the agent is about to replay the whole conversation, so
 * the conversation held so far (thread, plans, notices, turns, unknown updates) is
 * dropped, while the session settings (mode, commands, config options, usage, info,
 * subagents) are kept until the replay or the response replaces them. Sets `loading`
 * until {@link applySetup}.
 */
export function beginLoad(state: SessionState): SessionState {
  return withState(
    state,
    { plan: null, plans: [], notices: [], turns: [], unknown: [], loading: true },
    "new",
  );
}

/**
 * Folds a setup response: `modes` sets `currentModeId` and `availableModes`,
 * `configOptions` replaces the config options (each left out or `null`: unchanged).
 * Clears `loading`.
 */
export function applySetup(state: SessionState, response: SessionSetup): SessionState {
  const { modes, configOptions } = response;
  const next = withState(state, {
    currentModeId: modes?.currentModeId ?? state.currentModeId,
    availableModes: modes?.availableModes ?? state.availableModes,
    configOptions: configOptions ?? state.configOptions,
    loading: false,
  });
  // An answer with config options and no modes (`session/set_config_option`'s): the
  // modes follow the mode option. (With modes too, the agent said both itself.)
  return modes == null && configOptions != null ? withModeFromOption(next) : next;
}
