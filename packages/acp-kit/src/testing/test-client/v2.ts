/**
 * The v2 side of a {@link TestClient}: v2 updates, folded with `reduceSessionV2`, and
 * prompt turns that end at the session's next `idle`.
 *
 * @module
 */
import { RequestError } from "../../jsonrpc/errors.js";
import type * as v2 from "../../schema/v2/types.gen.js";
import { reduceSessionV2 } from "../../session/reduce-v2.js";
import { emptySessionState, type SessionState } from "../../session/state.js";

/** A prompt sent and not yet ended by an `idle`. */
interface PendingTurn {
  readonly resolve: (idle: Record<string, unknown>) => void;
  readonly reject: (error: unknown) => void;
}

/** One v2 session as the test client sees it. */
interface V2Session {
  state: SessionState;
  readonly turns: PendingTurn[];
  /** True once a `running` (or `requires_action`) came after the last `idle`. */
  busy: boolean;
}

/** The v2 sessions of a test client. @internal */
export class V2Sessions {
  private readonly sessions = new Map<string, V2Session>();

  /** The session (created empty on first use). */
  get(sessionId: string): V2Session {
    let session = this.sessions.get(sessionId);
    if (session === undefined) {
      session = { state: emptySessionState(sessionId), turns: [], busy: false };
      this.sessions.set(sessionId, session);
    }
    return session;
  }

  /** True when the session got anything. */
  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Folds one update; an `idle` after work ends the oldest pending turn. */
  update(params: v2.UpdateSessionNotification): void {
    const session = this.get(params.sessionId);
    const update = params.update;
    session.state = reduceSessionV2(session.state, update);
    if (update.sessionUpdate !== "state_update") return;
    const state = (update as { state?: unknown }).state;
    if (state === "running" || state === "requires_action") session.busy = true;
    else if (state === "idle" && session.busy) {
      session.busy = false;
      session.turns.shift()?.resolve(update);
    }
  }

  /** Folds a session setup answer (its config options and slash commands). */
  setup(
    sessionId: string,
    response: {
      configOptions?: v2.SessionConfigOption[];
      availableCommands?: v2.AvailableCommand[];
    },
  ): void {
    const session = this.get(sessionId);
    if (response.configOptions !== undefined) {
      session.state = reduceSessionV2(session.state, {
        sessionUpdate: "config_option_update",
        configOptions: response.configOptions,
      });
    }
    if (response.availableCommands !== undefined) {
      session.state = reduceSessionV2(session.state, {
        sessionUpdate: "available_commands_update",
        availableCommands: response.availableCommands,
      });
    }
  }

  /** Forgets what a session showed (before a replay). */
  reset(sessionId: string): void {
    const session = this.get(sessionId);
    session.state = emptySessionState(sessionId);
    session.busy = false;
  }

  /**
   * One turn: sends the prompt with `send`, and resolves with the stop reason of the
   * `idle` that ends it (an `error` idle rejects with its error, as a v1 prompt would).
   */
  async turn(
    sessionId: string,
    send: () => Promise<v2.PromptResponse>,
  ): Promise<{ stopReason: string; messageId: string }> {
    const session = this.get(sessionId);
    let pending!: PendingTurn;
    const ended = new Promise<Record<string, unknown>>((resolve, reject) => {
      pending = { resolve, reject };
    });
    ended.catch(() => undefined);
    session.turns.push(pending);
    let response: v2.PromptResponse;
    try {
      response = await send();
    } catch (error) {
      const at = session.turns.indexOf(pending);
      if (at >= 0) session.turns.splice(at, 1);
      throw error;
    }
    const idle = await ended;
    const stopReason = typeof idle.stopReason === "string" ? idle.stopReason : "end_turn";
    if (stopReason === "error") {
      const error = (idle.error ?? {}) as { code?: number; message?: string; data?: unknown };
      throw new RequestError(error.code ?? -32603, error.message ?? "Internal error", error.data);
    }
    return { stopReason, messageId: response.messageId };
  }
}
