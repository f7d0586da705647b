/**
 * The open/closed state of a connection: `signal` aborts and `closed` resolves exactly
 * once, whatever closed it (input ended, input or output failed, or `close()`).
 *
 * @module
 */
import { ConnectionError } from "./errors.js";

/** Why a connection closed. */
export type CloseCause =
  /** `close()` was called. */
  | "closed_locally"
  /** The peer ended its output (for a child process: it exited or closed stdout). */
  | "input_ended"
  /** Reading failed. */
  | "input_failed"
  /** Writing failed (for a child process: its stdin is gone). */
  | "output_failed";

const DESCRIPTIONS: Record<CloseCause, string> = {
  closed_locally: "the connection was closed",
  input_ended: "the peer closed the connection",
  input_failed: "reading from the peer failed",
  output_failed: "writing to the peer failed",
};

/** Open/closed state, `signal` and `closed`. */
export class Lifecycle {
  private readonly controller = new AbortController();
  private resolveClosed!: () => void;
  /** Resolves once the connection is closed. Never rejects. */
  readonly closed: Promise<void> = new Promise<void>((resolve) => (this.resolveClosed = resolve));
  private closeError: ConnectionError | undefined;

  /** Aborts once the connection is closed; its `reason` is the close error. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once closed. */
  get isClosed(): boolean {
    return this.closeError !== undefined;
  }

  /** The error pending and later requests fail with, once closed. */
  get error(): ConnectionError | undefined {
    return this.closeError;
  }

  /**
   * Moves to closed (once) and returns the close error, or `undefined` if already closed.
   * `beforeSignal` runs after the state changes and before `signal` aborts, so that
   * pending work is failed before observers of the signal run.
   */
  close(
    cause: CloseCause,
    detail: unknown,
    beforeSignal: (error: ConnectionError) => void,
  ): ConnectionError | undefined {
    if (this.closeError !== undefined) return undefined;
    // A reason given to close() says best what happened (for example "the agent exited").
    const reason =
      cause === "closed_locally" && detail instanceof Error && detail.message !== ""
        ? detail.message
        : DESCRIPTIONS[cause];
    const message = `Connection closed: ${reason}`;
    const error = new ConnectionError(
      "connection_closed",
      message,
      detail === undefined ? undefined : { cause: detail },
    );
    this.closeError = error;
    beforeSignal(error);
    this.controller.abort(error);
    this.resolveClosed();
    return error;
  }
}
