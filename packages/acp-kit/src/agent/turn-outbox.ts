/**
 * {@link TurnOutbox}: the `session/update` notifications of one prompt turn, tracked so
 * the turn's answer goes out only after all of them.
 *
 * @module
 */
import type { Logger } from "../base/logger.js";
import type * as schema from "../schema/types.gen.js";

/** What a turn needs to send updates: implemented by {@link AgentSideConnection}. */
export interface UpdateSender {
  /** Sends one `session/update` notification. */
  sessionUpdate(params: schema.SessionNotification): Promise<void>;
}

/**
 * Sends a turn's updates and remembers the ones not yet queued.
 *
 * Ordering: `send` hands the notification to the connection synchronously, so updates go
 * out in call order even when nobody awaits them; {@link TurnOutbox.flush} waits for the
 * ones the connection has not yet accepted (a full output queue), so the prompt answer
 * cannot overtake them. Once closed, the outbox drops what it is given: nothing of a turn
 * may arrive after its answer.
 * @internal
 */
export class TurnOutbox {
  private readonly pending = new Set<Promise<void>>();
  private closed = false;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly sender: UpdateSender,
    private readonly sessionId: string,
    private readonly logger: Logger,
  ) {}

  /** True once the turn has been answered. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** The first send that failed, if any (e.g. an update that could not be serialised). */
  get firstFailure(): { error: unknown } | undefined {
    return this.failure;
  }

  /**
   * Sends an update. The promise settles when the connection has queued it; ignoring it
   * is safe (a failure is remembered and fails the turn).
   */
  send(update: schema.SessionUpdate): Promise<void> {
    if (this.closed) {
      this.logger.debug?.("Dropped an update sent after its prompt turn was answered", {
        sessionId: this.sessionId,
        sessionUpdate: update.sessionUpdate,
      });
      return Promise.resolve();
    }
    let sent: Promise<void>;
    try {
      sent = this.sender.sessionUpdate({ sessionId: this.sessionId, update });
    } catch (error) {
      sent = Promise.reject(error);
    }
    this.pending.add(sent);
    // Attaching handlers here also marks the promise handled: an ignored failure is not
    // an unhandled rejection, it is reported by the turn.
    void sent.then(
      () => this.pending.delete(sent),
      (error: unknown) => {
        this.pending.delete(sent);
        this.failure ??= { error };
      },
    );
    return sent;
  }

  /** Waits until every update sent so far (including ones sent while waiting) is queued. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Drops every later update. */
  close(): void {
    this.closed = true;
  }
}
