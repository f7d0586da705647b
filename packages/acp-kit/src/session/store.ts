/**
 * {@link SessionStore}: keeps the folded state of every session a client sees, and tells
 * listeners after each change.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import type { Client } from "../peer/client.js";
import type { ClientSideConnection } from "../peer/client-side-connection.js";
import type * as schema from "../schema/types.gen.js";
import type * as v2 from "../schema/v2/types.gen.js";
import { reduceSession } from "./reduce.js";
import { reduceSessionV2 } from "./reduce-v2.js";
import { emptySessionState, type SessionState } from "./state.js";
import {
  applySetup,
  beginLoad,
  beginTurn,
  cancelTurn,
  endTurn,
  takeBackTurn,
  type SessionSetup,
} from "./turns.js";
import { isAuthRequired } from "./auth.js";
import { wrapClient } from "./wrap-client.js";

/** What changed a session in a {@link SessionStore}. */
export type SessionChange =
  | { readonly type: "update"; readonly update: schema.SessionUpdate }
  | { readonly type: "update_v2"; readonly update: v2.SessionUpdate }
  | {
      readonly type:
        "begin_turn" | "end_turn" | "cancel_turn" | "take_back_turn" | "begin_load" | "setup";
    };

/** What a {@link SessionStoreListener} is told after each change. */
export interface SessionStoreEvent {
  /** The session that changed. */
  readonly sessionId: string;
  /** Its new state. */
  readonly state: SessionState;
  /** Its state before, or `undefined` when this change created it. */
  readonly previous: SessionState | undefined;
  /** What changed it. */
  readonly change: SessionChange;
}

/** A function called after each change of a {@link SessionStore}. */
export type SessionStoreListener = (event: SessionStoreEvent) => void;

/** Options of a {@link SessionStore}. */
export interface SessionStoreOptions {
  /**
   * Called when a listener throws; the other listeners are still called. Without it, the
   * first error is rethrown once every listener has been called (the change is kept).
   */
  onListenerError?: (error: unknown, event: SessionStoreEvent) => void;
}

/** The agent calls the store's helpers make: any {@link ClientSideConnection} has them. */
export type SessionAgent = Pick<
  ClientSideConnection,
  "newSession" | "loadSession" | "resumeSession" | "prompt" | "cancel"
>;

interface ListenerEntry {
  readonly listener: SessionStoreListener;
  readonly sessionId: string | undefined;
}

/**
 * The states of the sessions a client sees, folded with {@link reduceSession}.
 *
 * Feed it with {@link SessionStore.apply} or by wrapping your client
 * (`new ClientSideConnection((agent) => store.wrap(myClient), stream)`). A session's
 * state is created on the first update for its id, so updates sent before the
 * `session/new` response are kept; updates after a `session/prompt` response are folded
 * like any other. Turn bookkeeping (`beginTurn`/`endTurn`, or the `prompt` helper) is
 * optional.
 *
 * The request helpers here (`newSession`, `loadSession`, `resumeSession`, `prompt`,
 * `cancel`) only fold what they send and get. To send every session request with the
 * protocol's decisions made (auth required at any step, load or resume, time limits,
 * config option and mode answers folded too), use a `SessionClient` over this store.
 */
export class SessionStore {
  private readonly sessions = new Map<string, SessionState>();
  /** The sessions folded from a v2 agent's own updates. */
  private readonly followedInV2 = new Set<string>();
  private readonly listeners = new Set<ListenerEntry>();
  private readonly onListenerError: SessionStoreOptions["onListenerError"];

  /** Creates an empty store. */
  constructor(options: SessionStoreOptions = {}) {
    this.onListenerError = options.onListenerError;
  }

  /**
   * Folds one `session/update` into its session's state and returns the new state.
   *
   * A session followed in v2 ({@link SessionStore.applyV2}) takes from v1 only the
   * current mode (the modes a bridge emulates for a v2 agent): the rest of a v1 update
   * is what a bridge showed of a v2 update already folded, and is not folded twice.
   */
  apply(notification: schema.SessionNotification): SessionState {
    const { sessionId, update } = notification;
    // One look at a size on the hot path when no session is followed in v2 (the usual case).
    const held =
      this.followedInV2.size > 0 && this.followedInV2.has(sessionId)
        ? this.sessions.get(sessionId)
        : undefined;
    if (held !== undefined && update.sessionUpdate !== "current_mode_update") return held;
    return this.commit(sessionId, { type: "update", update }, (s) => reduceSession(s, update));
  }

  /**
   * Folds one ACP v2 `session/update` (with `reduceSessionV2`, into the same state model)
   * and returns the new state. From then on the session is followed in v2: see
   * {@link SessionStore.apply}. Feed it the agent's own v2 updates, for example those
   * `SpawnedAgent.observeV2Updates` hears when a bridge shows a v2 agent to a v1 client.
   */
  applyV2(notification: v2.UpdateSessionNotification): SessionState {
    const { sessionId, update } = notification;
    this.followedInV2.add(sessionId);
    return this.commit(sessionId, { type: "update_v2", update }, (s) => reduceSessionV2(s, update));
  }

  /** True when the session's updates are folded in v2 ({@link SessionStore.applyV2}). */
  followsInV2(sessionId: string): boolean {
    return this.followedInV2.has(sessionId);
  }

  /**
   * `client` with a `sessionUpdate` that first feeds this store, then calls the client's
   * own. Everything else is the client's, unchanged.
   */
  wrap<C extends Client>(client: C): C {
    return wrapClient(client, (params) => {
      this.apply(params);
    });
  }

  /** The state of a session, or `undefined` when the store has seen nothing of it. */
  get(sessionId: string): SessionState | undefined {
    return this.sessions.get(sessionId);
  }

  /** The ids of the sessions held, in order of first sight. */
  sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  /** Forgets a session (listeners are not told). True when it was held. */
  delete(sessionId: string): boolean {
    this.followedInV2.delete(sessionId);
    return this.sessions.delete(sessionId);
  }

  /**
   * Calls `listener` after each change (of the session `sessionId` only, when given).
   * Returns the function that unsubscribes it.
   */
  subscribe(listener: SessionStoreListener, sessionId?: string): () => void {
    const entry: ListenerEntry = { listener, sessionId };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** Starts a prompt turn, recording `prompt` as a user message when given (see `beginTurn`). */
  beginTurn(sessionId: string, prompt?: readonly schema.ContentBlock[]): SessionState {
    return this.commit(sessionId, { type: "begin_turn" }, (s) => beginTurn(s, prompt));
  }

  /** Ends the running turn with its stop reason (`null`: the request failed). */
  endTurn(
    sessionId: string,
    stopReason: schema.StopReason | null,
    usage?: schema.Usage | null,
  ): SessionState {
    return this.commit(sessionId, { type: "end_turn" }, (s) => endTurn(s, stopReason, usage));
  }

  /** Marks the running turn and its unfinished tool calls cancelled (client-local). */
  cancelTurn(sessionId: string): SessionState {
    return this.commit(sessionId, { type: "cancel_turn" }, cancelTurn);
  }

  /** Drops the conversation held for a session before a `session/load` replays it. */
  beginLoad(sessionId: string): SessionState {
    return this.commit(sessionId, { type: "begin_load" }, beginLoad);
  }

  /** Folds the modes and config options of a session setup response. */
  setup(sessionId: string, response: SessionSetup): SessionState {
    return this.commit(sessionId, { type: "setup" }, (s) => applySetup(s, response));
  }

  /** `session/new` through `agent`, then {@link SessionStore.setup} with the response. */
  async newSession(
    agent: SessionAgent,
    params: schema.NewSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.NewSessionResponse> {
    const response = await agent.newSession(params, options);
    this.setup(response.sessionId, response);
    return response;
  }

  /** {@link SessionStore.beginLoad}, `session/load` through `agent`, then `setup`. */
  async loadSession(
    agent: SessionAgent,
    params: schema.LoadSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.LoadSessionResponse> {
    this.beginLoad(params.sessionId);
    return this.settle(agent.loadSession(params, options), (response) =>
      this.setup(params.sessionId, response ?? {}),
    );
  }

  /** `session/resume` through `agent` (no replay), then `setup`. */
  async resumeSession(
    agent: SessionAgent,
    params: schema.ResumeSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ResumeSessionResponse> {
    const response = await agent.resumeSession(params, options);
    this.setup(params.sessionId, response);
    return response;
  }

  /**
   * One prompt turn through `agent`: `beginTurn` with the prompt, `session/prompt`, then
   * `endTurn` with the stop reason (or `null` if the request failed, rethrowing).
   */
  async prompt(
    agent: SessionAgent,
    params: schema.PromptRequest,
    options?: SendRequestOptions,
  ): Promise<schema.PromptResponse> {
    try {
      this.beginTurn(params.sessionId, params.prompt);
    } catch (error) {
      // A listener failed: the turn is not sent, so it ends at once.
      this.settleQuietly(() => this.endTurn(params.sessionId, null));
      throw error;
    }
    const sessionId = params.sessionId;
    return this.settle(
      agent.prompt(params, options),
      (response) => this.endTurn(sessionId, response?.stopReason ?? null, response?.usage),
      (error) => {
        // Refused for a login: the prompt is sent again after it, as a turn of its own.
        if (isAuthRequired(error)) this.commit(sessionId, { type: "take_back_turn" }, takeBackTurn);
        else this.endTurn(sessionId, null);
      },
    );
  }

  /**
   * Waits for `request`, then folds its outcome with `fold` (`undefined` when it failed).
   * A listener that throws while the outcome is folded does not hide it: the request's
   * own error is what rejects; after a success, the listener's error does.
   */
  private async settle<T>(
    request: Promise<T>,
    fold: (response: T | undefined) => void,
    failed: (error: unknown) => void = () => fold(undefined),
  ): Promise<T> {
    let response: T;
    try {
      response = await request;
    } catch (error) {
      this.settleQuietly(() => failed(error));
      throw error;
    }
    fold(response);
    return response;
  }

  /** Runs a change whose listeners' errors must not replace an error already on its way. */
  private settleQuietly(change: () => void): void {
    try {
      change();
    } catch {
      // The listener's error loses to the request's own (see `settle`).
    }
  }

  /** `cancelTurn`, then `session/cancel` through `agent`. */
  async cancel(agent: SessionAgent, params: schema.CancelNotification): Promise<void> {
    this.cancelTurn(params.sessionId);
    await agent.cancel(params);
  }

  private commit(
    sessionId: string,
    change: SessionChange,
    fold: (state: SessionState) => SessionState,
  ): SessionState {
    const previous = this.sessions.get(sessionId);
    const state = fold(previous ?? emptySessionState(sessionId));
    if (state === previous) return state;
    this.sessions.set(sessionId, state);
    this.notify({ sessionId, state, previous, change });
    return state;
  }

  private notify(event: SessionStoreEvent): void {
    let failure: { error: unknown } | undefined;
    for (const entry of [...this.listeners]) {
      if (!this.listeners.has(entry)) continue;
      if (entry.sessionId !== undefined && entry.sessionId !== event.sessionId) continue;
      try {
        entry.listener(event);
      } catch (error) {
        if (this.onListenerError !== undefined) this.onListenerError(error, event);
        else failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  }
}
