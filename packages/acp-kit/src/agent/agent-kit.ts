/**
 * {@link AgentKit}: sessions and prompt turns for an {@link Agent}: it implements
 * `prompt` and `cancel` around the agent's own turn function.
 *
 * @module
 */
import { ErrorCodes } from "../base/error-codes.js";
import { RequestError } from "../jsonrpc/errors.js";
import { silentLogger, type Logger } from "../base/logger.js";
import type { RequestContext } from "../peer/agent.js";
import type * as schema from "../schema/types.gen.js";
import { IdSource } from "./ids.js";
import { PromptTurn, type TurnConnection } from "./prompt-turn.js";
import { SessionRegistry } from "./session-registry.js";
import { TurnOutbox } from "./turn-outbox.js";

/** What the kit needs of the connection: a subset of {@link AgentSideConnection}. */
export type KitConnection = TurnConnection & {
  /** Aborts when the connection closes. */
  readonly signal: AbortSignal;
};

/**
 * What a turn function returns: a stop reason, a full `PromptResponse`, or nothing
 * (`end_turn`).
 */
export type TurnResult = schema.StopReason | schema.PromptResponse | void;

/**
 * The agent's code for one prompt turn: an async function. (It is typed as returning a
 * promise only, not "a result or a promise": with that union TypeScript would widen the
 * `"end_turn"` an async arrow returns to `string`. At run time a plain value is accepted.)
 */
export type TurnFunction<S> = (turn: PromptTurn<S>) => Promise<TurnResult>;

/**
 * What a `session/prompt` does while the session already runs a turn:
 * - `"cancel"` (default): the running turn is cancelled as by `session/cancel` (it answers
 *   `cancelled`); the new turn starts after that answer has been sent.
 * - `"reject"`: the new prompt is answered `-32600` with `data: { sessionId }`.
 *
 * Either way, a prompt arriving while the previous turn is already cancelled and winding
 * down waits for it (clients commonly send `session/cancel` then at once a new prompt):
 * a session's turns never overlap, and its prompts are answered in arrival order.
 */
export type ConcurrentPromptPolicy = "cancel" | "reject";

/** Options of an {@link AgentKit}. */
export interface AgentKitOptions {
  /** A second prompt on a busy session. Default `"cancel"`. */
  readonly concurrentPrompts?: ConcurrentPromptPolicy;
  /** Makes session ids. Default: 32 random hex characters. */
  readonly newSessionId?: () => string;
  /** Where the kit reports what it drops. Default: silent. */
  readonly logger?: Logger;
}

interface RunningTurn {
  readonly controller: AbortController;
  /** Settles once the turn's answer is decided and its updates are queued. */
  readonly done: Promise<void>;
}

/**
 * Sessions and prompt turns for an agent. Create one per connection and let your
 * {@link Agent}'s `prompt` and `cancel` delegate to it:
 *
 * ```ts
 * class MyAgent implements Agent {
 *   private readonly kit: AgentKit<{ cwd: string }>;
 *   constructor(connection: AgentSideConnection) {
 *     this.kit = new AgentKit(connection);
 *   }
 *   newSession(params: NewSessionRequest) {
 *     return { sessionId: this.kit.sessions.create(() => ({ cwd: params.cwd })).sessionId };
 *   }
 *   prompt(params: PromptRequest, context?: RequestContext) {
 *     return this.kit.prompt(params, context, async (turn) => {
 *       await turn.text("Hello!");
 *       return "end_turn";
 *     });
 *   }
 *   cancel(params: CancelNotification) {
 *     this.kit.cancel(params);
 *   }
 *   // initialize, authenticate, ...
 * }
 * ```
 *
 * The kit answers an unknown session with `-32002` and a cancelled turn with
 * `stopReason: "cancelled"`, whatever the turn function then returns or throws, after
 * every update the turn sent. A tool call still `pending` or `in_progress` when a turn
 * ends otherwise (returns or throws) is marked `failed`.
 */
export class AgentKit<S = unknown> {
  /** The sessions and their state. */
  readonly sessions: SessionRegistry<S>;
  private readonly running = new Map<string, RunningTurn>();
  private readonly ids = new IdSource();
  private readonly policy: ConcurrentPromptPolicy;
  private readonly logger: Logger;

  /**
   * Creates a kit for one connection.
   *
   * @param connection - The agent's connection (usually the `AgentSideConnection`).
   * @param options - Concurrent prompt policy, session ids, logger.
   */
  constructor(
    private readonly connection: KitConnection,
    options?: AgentKitOptions,
  ) {
    this.sessions = new SessionRegistry<S>(
      options?.newSessionId === undefined ? undefined : { newId: options.newSessionId },
    );
    this.policy = options?.concurrentPrompts ?? "cancel";
    this.logger = options?.logger ?? silentLogger;
  }

  /**
   * Runs a prompt turn (`session/prompt`): call it from your agent's `prompt`.
   *
   * @param params - The prompt request.
   * @param context - The handler context; its signal (`$/cancel_request`, connection
   *   closed) cancels the turn too.
   * @param run - Your turn: stream updates through `turn`, return why it ended.
   * @throws RequestError `-32002` for an unknown session; `-32600` for a busy session
   *   under the `"reject"` policy; whatever `run` throws when the turn was not cancelled.
   */
  async prompt(
    params: schema.PromptRequest,
    context: RequestContext | undefined,
    run: TurnFunction<S>,
  ): Promise<schema.PromptResponse> {
    const sessionId = params.sessionId;
    const session = this.sessions.get(sessionId);
    const previous = this.running.get(sessionId);
    if (previous !== undefined && !previous.controller.signal.aborted && this.policy === "reject") {
      throw new RequestError(
        ErrorCodes.INVALID_REQUEST,
        `Session ${sessionId} is already running a prompt turn`,
        { sessionId },
      );
    }
    const controller = new AbortController();
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const slot: RunningTurn = { controller, done };
    this.running.set(sessionId, slot);
    previous?.controller.abort(cancellation("A newer prompt superseded the turn"));
    const unlink = linkAbort(controller, context?.signal, this.connection.signal);
    try {
      if (previous !== undefined) {
        // Turns of a session never overlap, and answer in order: wait for the previous
        // one (even when this one is cancelled meanwhile), then let its answer go out (it
        // is sent a few microtasks after its function returns) before going on.
        await previous.done;
        await nextTask();
      }
      if (controller.signal.aborted) return { stopReason: "cancelled" };
      const outbox = new TurnOutbox(this.connection, sessionId, this.logger);
      const turn = new PromptTurn<S>({
        connection: this.connection,
        params,
        session,
        signal: controller.signal,
        outbox,
        ids: this.ids,
      });
      return await this.runTurn(turn, outbox, run);
    } finally {
      unlink();
      if (this.running.get(sessionId) === slot) this.running.delete(sessionId);
      finished();
    }
  }

  /**
   * Cancels the session's running turn (`session/cancel`): call it from your agent's
   * `cancel`. Does nothing when no turn runs or the session is unknown.
   *
   * @param params - The notification's params.
   */
  cancel(params: schema.CancelNotification): void {
    this.running
      .get(params.sessionId)
      ?.controller.abort(cancellation("The client cancelled the turn"));
  }

  /**
   * True while a prompt turn runs in the session.
   *
   * @param sessionId - The session's id.
   */
  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  /**
   * Ends a session (for `session/close`, `session/delete`): cancels its running turn,
   * waits until that turn has answered, and forgets the session. True when it existed.
   *
   * @param sessionId - The session's id.
   */
  async closeSession(sessionId: string): Promise<boolean> {
    const turn = this.running.get(sessionId);
    if (turn !== undefined) {
      turn.controller.abort(cancellation("The session was closed"));
      await turn.done;
    }
    return this.sessions.delete(sessionId);
  }

  private async runTurn(
    turn: PromptTurn<S>,
    outbox: TurnOutbox,
    run: TurnFunction<S>,
  ): Promise<schema.PromptResponse> {
    let outcome: { ok: true; value: TurnResult } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await run(turn) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (!turn.cancelled) {
      for (const call of turn.toolCalls) if (!call.isFinished) void call.fail();
    }
    await outbox.flush();
    outbox.close();
    if (turn.cancelled) {
      if (!outcome.ok) {
        this.logger.debug?.("A cancelled prompt turn threw; answered cancelled", {
          sessionId: turn.sessionId,
          error: outcome.error,
        });
      }
      return { stopReason: "cancelled" };
    }
    if (!outcome.ok) throw outcome.error;
    const failure = outbox.firstFailure;
    if (failure !== undefined) throw failure.error;
    return toResponse(outcome.value);
  }
}

function toResponse(result: TurnResult): schema.PromptResponse {
  if (result === undefined) return { stopReason: "end_turn" };
  return typeof result === "string" ? { stopReason: result } : result;
}

/** An abort reason that `isAbortError` and `signal.throwIfAborted()` callers recognise. */
function cancellation(message: string): DOMException {
  return new DOMException(message, "AbortError");
}

/** Aborts `controller` when either signal aborts; returns the unlinking function. */
function linkAbort(
  controller: AbortController,
  request: AbortSignal | undefined,
  connection: AbortSignal,
): () => void {
  const sources: [AbortSignal | undefined, string][] = [
    [request, "The client cancelled the prompt request"],
    [connection, "The connection closed"],
  ];
  const unlinks: (() => void)[] = [];
  for (const [signal, message] of sources) {
    if (signal === undefined) continue;
    const onAbort = (): void => controller.abort(cancellation(message));
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    unlinks.push(() => signal.removeEventListener("abort", onAbort));
  }
  return () => {
    for (const unlink of unlinks) unlink();
  };
}

function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
