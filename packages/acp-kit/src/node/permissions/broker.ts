/**
 * {@link PermissionBroker}: a client's `requestPermission`, made of policies, remembered
 * answers and an interactive prompt, that answers pending requests `cancelled` when the
 * client cancels the turn.
 *
 * @module
 */
import type { MaybePromise } from "../../base/messages.js";
import type { RequestContext } from "../../peer/agent.js";
import type {
  RequestPermissionOutcome,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "../../schema/types.gen.js";
import {
  cancelledResponse,
  decidePermission,
  type PermissionContext,
  type PolicyDecision,
  type PermissionPolicy,
  rememberedAnswers,
  safePermissionResponse,
} from "./policy.js";
import { PendingPermissions, type PendingPermission } from "./pending.js";
import { permissionMemoryKey } from "./subjects.js";

/** What a {@link PermissionPrompt} receives besides the request. */
export interface PermissionPromptInfo {
  /**
   * Aborts when the answer is no longer wanted: the session was cancelled
   * ({@link PermissionBroker.cancelSession}), the agent cancelled the request, the
   * connection closed, or another answer decided it. Dismiss the prompt then.
   */
  readonly signal: AbortSignal;
  /** The session's context, as the policies saw it. */
  readonly context: PermissionContext;
}

/**
 * The interactive fallback: ask the user. Return the outcome (an offered option, or
 * `cancelled`), or `undefined` to give the safe answer ({@link safePermissionResponse}).
 */
export type PermissionPrompt = (
  request: RequestPermissionRequest,
  info: PermissionPromptInfo,
) => MaybePromise<RequestPermissionOutcome | undefined>;

/** Options of {@link PermissionBroker}. */
export interface PermissionBrokerOptions {
  /**
   * The policies, in order (the first with an applicable opinion wins; see
   * {@link decidePermission}). Default `[rememberedAnswers()]`. Remembered answers are
   * consulted only where {@link rememberedAnswers} appears in the list: put it after
   * your deny rules so that they keep priority.
   */
  readonly policies?: readonly PermissionPolicy[];
  /** Asked when no policy decides. Without it, the safe answer is given. */
  readonly prompt?: PermissionPrompt;
  /** The cwd of sessions not registered with {@link PermissionBroker.trackSession}. */
  readonly cwd?: string;
}

/** Options of {@link PermissionBroker.cancelSession}. */
export interface CancelSessionOptions {
  /**
   * Until this settles (typically the cancelled `session/prompt` call), requests that
   * arrive for the session are answered `cancelled` at once: they raced the cancel.
   */
  readonly until?: PromiseLike<unknown>;
}

interface SessionState {
  cwd: string | undefined;
  readonly remembered: Map<string, PolicyDecision>;
  cancelling: number;
}

/**
 * Answers `session/request_permission` for a client: policies first, then the prompt,
 * then the safe answer. Remembers `*_always` answers per session, and answers every
 * pending request of a session `cancelled` when {@link cancelSession} is called.
 *
 * ```ts
 * const broker = new PermissionBroker({
 *   policies: [permissionRules(["deny edit .env", "allow edit src/**"]), rememberedAnswers()],
 *   prompt: (request, { signal }) => askUser(request, signal),
 * });
 * const agent = new ClientSideConnection(() => ({
 *   requestPermission: broker.requestPermission,
 *   sessionUpdate: render,
 * }), stream);
 * ```
 */
export class PermissionBroker {
  private readonly policies: readonly PermissionPolicy[];
  private readonly prompt: PermissionPrompt | undefined;
  private readonly defaultCwd: string | undefined;
  private readonly sessions = new Map<string, SessionState>();
  private readonly pending = new PendingPermissions();

  /**
   * Creates a broker with no sessions yet.
   *
   * @param options - Policies, prompt and default cwd.
   */
  constructor(options: PermissionBrokerOptions = {}) {
    this.policies = options.policies ?? [rememberedAnswers()];
    this.prompt = options.prompt;
    this.defaultCwd = options.cwd;
  }

  /**
   * The `Client.requestPermission` implementation (a bound function). An abort of
   * `context.signal` answers `cancelled`.
   */
  readonly requestPermission = (
    params: RequestPermissionRequest,
    context?: RequestContext,
  ): Promise<RequestPermissionResponse> => {
    // Looked up, not created: the agent chooses the session id, so a request alone must not
    // make the broker keep anything.
    const cancelling = this.sessions.get(params.sessionId)?.cancelling ?? 0;
    const signal = context?.signal;
    if (cancelling > 0 || signal?.aborted === true) {
      return Promise.resolve(cancelledResponse());
    }
    const decided = decidePermission(params, this.policies, this.contextOf(params.sessionId));
    // A policy's own answer is not remembered: the policy answers again next time, for
    // what it covers only (an "always" from a path rule must not cover every path).
    if (decided !== undefined) return Promise.resolve(decided);
    if (this.prompt === undefined) return Promise.resolve(safePermissionResponse(params));
    return this.ask(params, this.prompt, signal);
  };

  /** Sets the working directory of a session (relative path rules need it). */
  trackSession(sessionId: string, session: { readonly cwd?: string }): void {
    this.session(sessionId).cwd = session.cwd;
  }

  /**
   * Call when the client sends `session/cancel`: answers every pending permission request
   * of the session `cancelled` (their prompts' signals abort).
   *
   * @returns How many pending requests were answered.
   */
  cancelSession(sessionId: string, options: CancelSessionOptions = {}): number {
    const until = options.until;
    if (until !== undefined) {
      const state = this.session(sessionId);
      state.cancelling++;
      const done = (): void => {
        state.cancelling--;
      };
      Promise.resolve(until).then(done, done);
    }
    return this.pending.settleSession(sessionId, () => cancelledResponse(), "session cancelled");
  }

  /** Cancels the session's pending requests and forgets its cwd and remembered answers. */
  forgetSession(sessionId: string): void {
    this.cancelSession(sessionId);
    this.sessions.delete(sessionId);
  }

  /** The session's pending requests (those waiting for the prompt), oldest first. */
  pendingRequests(sessionId: string): RequestPermissionRequest[] {
    return this.pending.ofSession(sessionId).map((entry) => entry.request);
  }

  /** The session's remembered `*_always` answers, keyed by {@link permissionMemoryKey}. */
  remembered(sessionId: string): ReadonlyMap<string, PolicyDecision> {
    return new Map(this.sessions.get(sessionId)?.remembered);
  }

  private session(sessionId: string): SessionState {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = { cwd: this.defaultCwd, remembered: new Map(), cancelling: 0 };
      this.sessions.set(sessionId, state);
    }
    return state;
  }

  /** The policies' view of a session; an unknown one gets the defaults, and is not recorded. */
  private contextOf(sessionId: string): PermissionContext {
    const state = this.sessions.get(sessionId);
    if (state === undefined) return { sessionId, cwd: this.defaultCwd, remembered: new Map() };
    return { sessionId, cwd: state.cwd, remembered: state.remembered };
  }

  private ask(
    request: RequestPermissionRequest,
    prompt: PermissionPrompt,
    signal: AbortSignal | undefined,
  ): Promise<RequestPermissionResponse> {
    const entry = this.pending.add(request, signal);
    const context = this.contextOf(request.sessionId);
    Promise.resolve()
      .then(() => prompt(request, { signal: entry.signal, context }))
      .then(
        (outcome) => {
          const response = this.fromPrompt(request, outcome);
          if (entry.settle(response)) this.record(request, response);
        },
        (error: unknown) => entry.fail(error),
      );
    return entry.response;
  }

  private fromPrompt(
    request: RequestPermissionRequest,
    outcome: RequestPermissionOutcome | undefined,
  ): RequestPermissionResponse {
    if (outcome?.outcome === "cancelled") return cancelledResponse();
    if (outcome?.outcome === "selected") {
      const { optionId } = outcome;
      if (request.options.some((option) => option.optionId === optionId)) {
        return { outcome: { outcome: "selected", optionId } };
      }
    }
    return safePermissionResponse(request);
  }

  /** Remembers an `*_always` answer, then lets it decide the session's other pending requests. */
  private record(request: RequestPermissionRequest, response: RequestPermissionResponse): void {
    const { outcome } = response;
    if (outcome.outcome !== "selected") return;
    const kind = request.options.find((option) => option.optionId === outcome.optionId)?.kind;
    if (kind !== "allow_always" && kind !== "reject_always") return;
    const key = permissionMemoryKey(request.toolCall);
    if (key === undefined) return;
    // A person's answer (so bounded by people, not by what the agent sends) may start the
    // state of a session that was never tracked.
    this.session(request.sessionId).remembered.set(
      key,
      kind === "allow_always" ? "allow" : "reject",
    );
    this.redecidePending(request.sessionId);
  }

  private redecidePending(sessionId: string): void {
    const context = this.contextOf(sessionId);
    const decide = (entry: PendingPermission): RequestPermissionResponse | undefined =>
      decidePermission(entry.request, this.policies, context);
    this.pending.settleSession(sessionId, decide, "decided by a remembered answer");
  }
}
