/**
 * Inbound requests being handled, and how they are cancelled.
 *
 * Abort machinery is allocated only when a handler actually reads `signal`: most
 * requests never look at it, and a streaming connection handles many of them.
 *
 * @module
 */
import type { JsonRpcId } from "../base/messages.js";

/** What a request handler knows about the request it is answering. */
export interface InboundRequestContext {
  /** The request's JSON-RPC id. */
  readonly id: JsonRpcId;
  /** The request's method. */
  readonly method: string;
  /**
   * Aborts when the peer sends `$/cancel_request` for this request or the connection
   * closes. A handler that then fails is answered `-32800` (request cancelled).
   */
  readonly signal: AbortSignal;
}

/** One inbound request from arrival to its single answer. */
export class InboundRequest implements InboundRequestContext {
  /** One request kept alive for V8's sake: see {@link PendingRequest.shapeKeeper}. */
  static readonly shapeKeeper: InboundRequest = new InboundRequest(0, "");

  /** Set once the answer has been sent (or dropped because the connection closed). */
  answered = false;
  /** Set when the peer cancelled this request with `$/cancel_request`. */
  cancelRequested = false;
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  constructor(
    readonly id: JsonRpcId,
    readonly method: string,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** True once the request was aborted (cancelled or connection closed). */
  get isAborted(): boolean {
    return this.aborted;
  }

  /** Aborts the handler's signal (once). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
