/**
 * {@link SessionRegistry}: an agent's sessions by id, with per-session state.
 *
 * @module
 */
import { ErrorCodes } from "../base/error-codes.js";
import { RequestError } from "../jsonrpc/errors.js";
import { randomHex } from "./ids.js";

/**
 * The error an agent answers for a session id it does not know: `-32002` (resource not
 * found) with `data: { sessionId }`. The protocol mandates no code for this case; this
 * one names the missing thing, as it does for missing files.
 *
 * @param sessionId - The unknown id.
 */
export function sessionNotFound(sessionId: string): RequestError {
  return new RequestError(ErrorCodes.RESOURCE_NOT_FOUND, `Session not found: ${sessionId}`, {
    sessionId,
  });
}

/** A session made by {@link SessionRegistry.create}. */
export interface SessionEntry<S> {
  /** The new session's id, to answer `session/new` with. */
  readonly sessionId: string;
  /** The state made for it. */
  readonly state: S;
}

/** Options of a {@link SessionRegistry}. */
export interface SessionRegistryOptions {
  /**
   * Makes a new session id. Default: 32 random hex characters (128 bits) from
   * `crypto.getRandomValues`. An id already in use is never handed out: the registry asks
   * again.
   */
  readonly newId?: () => string;
}

/**
 * An agent's sessions: makes unique ids, keeps one state `S` per session, and answers
 * unknown ids with {@link sessionNotFound} (`-32002`).
 *
 * ```ts
 * const sessions = new SessionRegistry<{ cwd: string }>();
 * // session/new
 * const { sessionId } = sessions.create(() => ({ cwd: params.cwd }));
 * // any later request naming the session
 * const { cwd } = sessions.get(params.sessionId); // throws -32002 when unknown
 * ```
 */
export class SessionRegistry<S> {
  private readonly states = new Map<string, S>();
  private readonly newId: () => string;

  /**
   * Creates an empty registry.
   *
   * @param options - How to make session ids.
   */
  constructor(options?: SessionRegistryOptions) {
    this.newId = options?.newId ?? (() => randomHex(16));
  }

  /**
   * Creates a session with a fresh id (for `session/new`, `session/fork`).
   *
   * @param init - Makes the session's state; it receives the new id.
   */
  create(init: (sessionId: string) => S): SessionEntry<S> {
    let sessionId = this.newId();
    for (let attempt = 1; this.states.has(sessionId); attempt++) {
      if (attempt >= 100) throw new Error("The session id generator keeps repeating itself");
      sessionId = this.newId();
    }
    const state = init(sessionId);
    this.states.set(sessionId, state);
    return { sessionId, state };
  }

  /**
   * Stores the state of a session whose id the client chose or already knows (for
   * `session/load`, `session/resume`), replacing any state it had.
   *
   * @param sessionId - The session's id.
   * @param state - Its state.
   */
  set(sessionId: string, state: S): void {
    this.states.set(sessionId, state);
  }

  /**
   * The state of a session.
   *
   * @param sessionId - The id the client sent.
   * @throws RequestError `-32002` with `data: { sessionId }` when there is no such session.
   */
  get(sessionId: string): S {
    const state = this.states.get(sessionId);
    if (state === undefined && !this.states.has(sessionId)) throw sessionNotFound(sessionId);
    return state as S;
  }

  /**
   * The state of a session, or `undefined` when there is none.
   *
   * @param sessionId - The session's id.
   */
  find(sessionId: string): S | undefined {
    return this.states.get(sessionId);
  }

  /**
   * True when the session exists.
   *
   * @param sessionId - The session's id.
   */
  has(sessionId: string): boolean {
    return this.states.has(sessionId);
  }

  /**
   * Forgets a session; true when it existed. (A running turn is not stopped: use
   * {@link AgentKit.closeSession} for that.)
   *
   * @param sessionId - The session's id.
   */
  delete(sessionId: string): boolean {
    return this.states.delete(sessionId);
  }

  /** How many sessions there are. */
  get size(): number {
    return this.states.size;
  }

  /** Every session as `[sessionId, state]`, oldest first (for `session/list`). */
  entries(): IterableIterator<[string, S]> {
    return this.states.entries();
  }
}
