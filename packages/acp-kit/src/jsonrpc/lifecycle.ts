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

/** The message of a reason: an `Error`'s message, or a string; `undefined` when empty. */
function reasonText(detail: unknown): string | undefined {
  const text =
    detail instanceof Error ? detail.message : typeof detail === "string" ? detail : undefined;
  return text === "" ? undefined : text;
}

/**
 * The message pending and later requests fail with. It carries the reason's message
 * (`Connection closed: reading from the peer failed: stream exploded`; for `close(reason)`,
 * `Connection closed: <reason>`), and without a reason it says `ACP connection closed`,
 * the classic text.
 */
function closeMessage(cause: CloseCause, detail: unknown): string {
  const reason = reasonText(detail);
  if (cause === "closed_locally") {
    return reason === undefined ? "ACP connection closed" : `Connection closed: ${reason}`;
  }
  if (reason === undefined) return `ACP connection closed: ${DESCRIPTIONS[cause]}`;
  return `Connection closed: ${DESCRIPTIONS[cause]}: ${reason}`;
}

/** Open/closed state, `signal` and `closed`. */
export class Lifecycle {
  private readonly controller = new AbortController();
  private resolveClosed!: () => void;
  /** Resolves once the connection is closed. Never rejects. */
  readonly closed: Promise<void> = new Promise<void>((resolve) => (this.resolveClosed = resolve));
  private closeError: ConnectionError | undefined;

  constructor() {
    // Written once more here, so that V8 treats the field as mutable from the first object
    // on. A field not written since its initializer counts as constant to optimized code,
    // which then depends on it: the first close anywhere in the process (which writes it)
    // threw away the request path's optimized code (`isClosed` is read on every message),
    // while the process's other connections were using it.
    this.closeError = undefined;
  }

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
    const message = closeMessage(cause, detail);
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
