/**
 * A JSON-RPC 2.0 connection over a {@link Transport} or a {@link Stream}. It knows nothing of ACP: methods are
 * routed by a {@link Router}, params and results are checked by the validators given.
 *
 * @module
 */
import {
  CANCEL_REQUEST_METHOD,
  Dispatcher,
  type DispatchHost,
  type DispatchOutcome,
  type Router,
} from "./dispatch.js";
import { ConnectionError, MessageTooLargeError } from "./errors.js";
import { Inbox, type InboxHost } from "./inbox.js";
import { Lifecycle, type CloseCause } from "./lifecycle.js";
import { silentLogger, type Logger } from "../base/logger.js";
import type { Stream } from "../base/messages.js";
import { STRICT_CHECK, type ValueCheck } from "../base/validation.js";
import { PendingRequest, PendingRequests, type ResultPolicy, type ResultShape } from "./pending.js";
import { transportFor } from "../transport/message-stream-transport.js";
import type { OversizedMessage, Transport, TransportSink } from "../transport/transport.js";

/** Options of a connection. */
export interface ConnectionOptions {
  /** Where problems that cannot be reported to a caller go. Default: silent. */
  readonly logger?: Logger;
  /**
   * A timeout applied to every outbound request that does not set its own, in ms.
   * Default: none (also for `0`, negative or infinite values).
   */
  readonly requestTimeoutMs?: number;
  /**
   * Decode inbound params and results like the protocol's reference implementation:
   * optional fields the schema marks as "default on error" are dropped when invalid, and
   * invalid items of lists marked "skip invalid items" are skipped, with a warning,
   * instead of rejecting the whole message. Default `true`; `false` rejects anything that
   * does not match the schema exactly. The repairs are the protocol's: the
   * `AgentSideConnection` and `ClientSideConnection` make them, a `JsonRpcConnection` built
   * directly repairs nothing.
   */
  readonly lenient?: boolean;
  /**
   * Whether the message of an `Error` a request handler throws is sent to the peer (as
   * `data.details` of the `-32603` answer), as the classic API does and as agents rely on
   * to explain failures. Default `true`; servers facing untrusted peers may turn it off,
   * and the answer then carries no details (the error is still logged locally).
   * A thrown `RequestError` is always sent as it is.
   */
  readonly exposeErrors?: boolean;
}

/**
 * {@link ConnectionOptions} as the protocol layer passes them: with what `lenient` means.
 * Not public: on a connection built without it, nothing is repaired.
 * @internal
 */
export interface EngineOptions extends ConnectionOptions {
  /** Says why params or a result failed their validator, or repairs them; used when `lenient`. */
  readonly lenientCheck?: ValueCheck;
}

/**
 * Sees one message read from (`"in"`) or written to (`"out"`) the peer; see
 * {@link JsonRpcConnection.observe}.
 */
export type MessageObserver = (direction: "in" | "out", message: unknown) => void;

/** Per-request options of an outbound request. */
export interface SendRequestOptions {
  /** Aborting it rejects the request at once and sends `$/cancel_request` to the peer. */
  readonly signal?: AbortSignal;
  /** The classic name of {@link SendRequestOptions.signal}; either works. */
  readonly cancellationSignal?: AbortSignal;
  /**
   * Milliseconds to wait for the answer; then the request rejects with a
   * `ConnectionError("timeout")` and `$/cancel_request` is sent. `Infinity` (or `0`) waits
   * for ever, even when the connection has a default `requestTimeoutMs`.
   */
  readonly timeoutMs?: number;
}

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * One of our sends waiting for the output to drain. Held sends go out in order when it
 * drained, or are handed to the transport when the connection closes (its close flushes
 * them; a held request is rejected by the close instead).
 */
interface HeldSend {
  /** Sends it now. */
  run(): void;
  /** The request id, for a held request. */
  readonly requestId?: number;
}

/** The longest delay timers support (about 24.8 days); longer ones would fire at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * A request timeout as a timer delay: `undefined` (none) for absent, infinite or
 * non-positive values, capped at {@link MAX_TIMEOUT_MS}.
 */
function timeoutOption(ms: number | undefined): number | undefined {
  if (ms === undefined || Number.isNaN(ms) || ms <= 0 || ms === Infinity) return undefined;
  return Math.min(ms, MAX_TIMEOUT_MS);
}

/** See the module comment. */
export class JsonRpcConnection {
  /** Where problems that cannot be reported to a caller go. */
  readonly logger: Logger;
  private readonly transport: Transport;
  private readonly lifecycle = new Lifecycle();
  private readonly pending = new PendingRequests();
  private readonly dispatcher: Dispatcher;
  private readonly inbox: Inbox;
  private readonly defaultTimeoutMs: number | undefined;
  private readonly policy: ResultPolicy;
  private nextId = 0;
  /** Set while our output is backed up: resolves when it drained. */
  private blocked: Promise<void> | undefined;
  /** Our own sends waiting for the output to drain, in order. */
  private held: HeldSend[] = [];
  private observers: readonly MessageObserver[] = [];

  /**
   * Starts a connection: reading begins at once (asynchronously).
   *
   * @param stream - What carries the messages: a {@link Transport} (such as what
   *   {@link ndJsonStream} returns), or any {@link Stream} of message objects.
   * @param router - How inbound requests and notifications are handled.
   * @param options - Logger and default request timeout.
   */
  constructor(stream: Stream | Transport, router: Router, options: ConnectionOptions = {}) {
    // Changed only under backpressure or at close, read for every message: made mutable
    // for V8 from the start (see `Lifecycle`'s constructor).
    this.blocked = undefined;
    this.held = [];
    this.logger = options.logger ?? silentLogger;
    this.defaultTimeoutMs = options.requestTimeoutMs;
    const check =
      (options.lenient ?? true)
        ? ((options as EngineOptions).lenientCheck ?? STRICT_CHECK)
        : STRICT_CHECK;
    this.policy = { check, logger: this.logger };
    const ports = new JsonRpcConnection.Ports(this, options.exposeErrors ?? true);
    this.dispatcher = new Dispatcher(ports, router);
    this.inbox = new Inbox(ports);
    const context = { logger: this.logger };
    this.transport = transportFor(stream, context);
    this.transport.start(ports, context);
  }

  /**
   * What the dispatcher, the inbox and the transport call back into. One class for all
   * connections, rather than closures made per connection: V8 specializes optimized code on
   * a closure while it is the only one of its kind, and throws that code away once a
   * second connection (or the first one's closing) breaks the assumption, so every new
   * connection would start on slow code again. (A class in the class body can reach the
   * connection's private members.)
   */
  private static readonly Ports = class implements DispatchHost, InboxHost, TransportSink {
    readonly logger: Logger;
    readonly check: ValueCheck;

    constructor(
      private readonly connection: JsonRpcConnection,
      readonly exposeErrors: boolean,
    ) {
      this.logger = connection.logger;
      this.check = connection.policy.check;
    }

    // DispatchHost and InboxHost

    send(message: object): boolean {
      return this.connection.trySend(message);
    }

    onResponse(message: Record<string, unknown>): void {
      this.connection.onResponse(message);
    }

    isClosed(): boolean {
      return this.connection.lifecycle.isClosed;
    }

    dispatch(message: unknown): DispatchOutcome {
      return this.connection.dispatcher.dispatch(message);
    }

    nextRequestId(): number {
      return this.connection.nextId;
    }

    isOutputBlocked(): boolean {
      return this.connection.blocked !== undefined;
    }

    // TransportSink

    message(message: unknown): void | Promise<void> {
      const connection = this.connection;
      if (connection.observers.length > 0) connection.notifyObservers("in", message);
      return connection.inbox.push(message);
    }

    endOfChunk(): void {
      this.connection.inbox.endOfChunk();
    }

    oversized({ envelope, maxBytes }: OversizedMessage): void {
      if (envelope.hasMethod || envelope.id === undefined) return;
      this.connection.pending
        .take(envelope.id)
        ?.fail(
          new ConnectionError(
            "message_too_large",
            "The peer's response exceeded the maximum message size and was dropped",
            { cause: new MessageTooLargeError(maxBytes) },
          ),
        );
    }

    closed(error: unknown, direction: "input" | "output"): void {
      const connection = this.connection;
      if (direction === "output") {
        connection.shutdown("output_failed", error);
        return;
      }
      // What arrived before the end is still delivered, then the connection closes.
      connection.inbox.finish(() =>
        connection.shutdown(error === undefined ? "input_ended" : "input_failed", error),
      );
    }
  };

  /** Aborts when the connection closes; `signal.reason` says why. */
  get signal(): AbortSignal {
    return this.lifecycle.signal;
  }

  /** Resolves when the connection closes. Never rejects. */
  get closed(): Promise<void> {
    return this.lifecycle.closed;
  }

  /** True once the connection is closed. */
  get isClosed(): boolean {
    return this.lifecycle.isClosed;
  }

  /**
   * Sends a request and waits for its answer.
   *
   * @param method - The method's wire name.
   * @param params - Its params (omitted on the wire when `undefined`).
   * @param options - Abort signal and timeout.
   * @param shape - How to validate and normalise the result.
   */
  request<T = unknown>(
    method: string,
    params?: unknown,
    options?: SendRequestOptions,
    shape?: ResultShape,
  ): Promise<T> {
    const closeError = this.lifecycle.error;
    if (closeError !== undefined) return Promise.reject(closeError);
    const signal = options?.signal ?? options?.cancellationSignal;
    if (signal?.aborted === true) {
      return Promise.reject(
        new ConnectionError("cancelled", `${method} was aborted before it was sent`, {
          cause: signal.reason,
        }),
      );
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const request = new PendingRequest(
        id,
        method,
        resolve as (v: unknown) => void,
        reject,
        shape,
        this.policy,
      );
      // Registered before sending: a send that fails closes the connection, which must
      // find this request to reject it.
      this.pending.add(request);
      const message = { jsonrpc: "2.0", id, method, params };
      if (this.blocked !== undefined || this.held.length > 0) {
        // Our output is backed up: the request waits (unserialised) until it drains.
        this.held.push({
          run: () => {
            if (!this.pending.has(id)) return; // aborted or timed out meanwhile
            try {
              void this.sendNow(message);
            } catch (error) {
              this.pending.take(id);
              request.fail(error);
            }
          },
          requestId: id,
        });
      } else {
        try {
          void this.sendNow(message);
        } catch (error) {
          this.pending.take(id);
          reject(error);
          return;
        }
      }
      // A send that failed and closed the connection has rejected the request already.
      if (this.lifecycle.isClosed) return;
      const timeoutMs = timeoutOption(options?.timeoutMs ?? this.defaultTimeoutMs);
      if (timeoutMs !== undefined) {
        request.timer = setTimeout(() => {
          this.abandon(
            id,
            new ConnectionError("timeout", `${method} got no answer within ${timeoutMs} ms`),
          );
        }, timeoutMs);
      }
      if (signal !== undefined) {
        request.signal = signal;
        request.onAbort = () => {
          this.abandon(
            id,
            new ConnectionError("cancelled", `${method} was aborted`, { cause: signal.reason }),
          );
        };
        signal.addEventListener("abort", request.onAbort, { once: true });
      }
    });
  }

  /**
   * Sends a notification. Resolves once it is queued (waiting only when the outgoing
   * queue is full). After the connection closed it is dropped and resolves: a
   * notification has no answer to wait for, and nothing is lost that could be retried.
   */
  notify(method: string, params?: unknown): Promise<void> {
    if (this.lifecycle.isClosed) {
      this.logger.debug?.("Dropped a notification: the connection is closed", { method });
      return RESOLVED;
    }
    const message = { jsonrpc: "2.0", method, params };
    if (this.blocked !== undefined || this.held.length > 0) {
      return new Promise<void>((resolve, reject) => {
        this.held.push({
          run: () => {
            try {
              void this.sendNow(message);
              resolve();
            } catch (error) {
              reject(error);
            }
          },
        });
      });
    }
    try {
      return this.sendNow(message) ?? RESOLVED;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Calls `listener` with every message read from or written to the peer, in order, from
   * now on (written: when handed to the transport; read: before it is handled). Meant for
   * logs, traces and tests; a listener must not throw (what it throws is logged) and must
   * not change the message. Costs nothing while no listener is registered.
   *
   * @param listener - Gets the direction (`"in"` or `"out"`) and the message.
   * @returns A function that removes the listener.
   */
  observe(listener: MessageObserver): () => void {
    this.observers = [...this.observers, listener];
    return () => {
      this.observers = this.observers.filter((l) => l !== listener);
    };
  }

  /** Hands a message to the transport and notes whether it asked us to wait. */
  private sendNow(message: object): void | Promise<void> {
    if (this.observers.length > 0) this.notifyObservers("out", message);
    const wait = this.transport.send(message);
    if (wait !== undefined) this.block(wait);
    return wait;
  }

  /** Our output is backed up until `wait` settles. */
  private block(wait: Promise<void>): void {
    if (this.blocked === wait) return;
    this.blocked = wait;
    const unblock = (): void => {
      if (this.blocked !== wait) return;
      this.blocked = undefined;
      // What the peer asked first goes first: its answers let it make progress too.
      this.inbox.resume();
      this.flushHeld();
    };
    wait.then(unblock, unblock);
  }

  /** Sends held sends in order until the output backs up again. */
  private flushHeld(): void {
    let i = 0;
    while (i < this.held.length && this.blocked === undefined && !this.lifecycle.isClosed) {
      this.held[i++]?.run();
    }
    this.held = this.lifecycle.isClosed ? [] : this.held.slice(i);
  }

  private notifyObservers(direction: "in" | "out", message: unknown): void {
    for (const listener of this.observers) {
      try {
        listener(direction, message);
      } catch (error) {
        this.logger.error?.("A message observer threw", { error });
      }
    }
  }

  /**
   * Closes the connection: pending requests reject, running handlers' signals abort,
   * `signal` aborts and `closed` resolves; queued output is flushed, then the output is
   * closed and the input released.
   */
  close(reason?: unknown): void {
    this.shutdown("closed_locally", reason);
  }

  private shutdown(cause: CloseCause, detail: unknown): void {
    const error = this.lifecycle.close(cause, detail, (closeError) => {
      this.inbox.clear();
      this.pending.failAll(closeError);
      // What waited for the output goes to the transport, whose close flushes it (a
      // notification awaited before `close()` is not lost); held requests reject above.
      const held = this.held;
      this.held = [];
      for (const send of held) {
        try {
          send.run();
        } catch (error) {
          this.logger.debug?.("A held message could not be sent at close", { error });
        }
      }
      this.dispatcher.abortAll(closeError);
    });
    if (error === undefined) return;
    if (cause !== "closed_locally") this.logger.debug?.(error.message, { cause: detail });
    this.transport
      .close()
      .catch((e: unknown) => this.logger.debug?.("Closing the transport failed", { error: e }));
  }

  /** Gives up on an outbound request locally and tells the peer it may stop working on it. */
  private abandon(id: number, error: ConnectionError): void {
    const request = this.pending.take(id);
    if (request === undefined) return;
    request.fail(error);
    // A request still held back never reached the peer: nothing to cancel there.
    const held = this.held.findIndex((send) => send.requestId === id);
    if (held >= 0) {
      this.held.splice(held, 1);
      return;
    }
    void this.notify(CANCEL_REQUEST_METHOD, { requestId: id });
  }

  private onResponse(message: Record<string, unknown>): void {
    const request = this.pending.take(message.id);
    if (request === undefined) {
      this.logger.debug?.("Ignored a response to an unknown or abandoned request", {
        id: message.id,
      });
      return;
    }
    request.settleWith(message);
  }

  /**
   * Sends an answer; false when it cannot be serialised. While our own sends are held,
   * the answer waits behind them: a response must not overtake the notifications its
   * handler sent before it (the updates of a prompt turn, before the turn's answer).
   */
  private trySend(message: object): boolean {
    try {
      if (this.held.length === 0) {
        void this.sendNow(message);
        return true;
      }
      JSON.stringify(message); // fails now, as it would when sent, so that the caller can fall back
      this.held.push({ run: () => void this.sendNow(message) });
      return true;
    } catch {
      return false;
    }
  }
}
