/**
 * Inbound dispatch: classifies each message, validates params, runs the handler and
 * sends exactly one answer to every request.
 *
 * The order of delivery is the inbox's business (see `inbox.ts`): this module handles one
 * message at a time and says whether it was a response, or a notification handler still
 * running that later messages should wait for. Request handlers run concurrently (a long
 * permission prompt must not stall the stream).
 *
 * @module
 */
import type { RawValidator, ValidationIssue, ValueCheck } from "../base/validation.js";
import { ErrorCodes } from "../base/error-codes.js";
import { RequestError, isAbortError } from "./errors.js";
import { InboundRequest, type InboundRequestContext } from "./inbound.js";
import type { Logger } from "../base/logger.js";
import { isJsonRpcId, isPlainObject, isThenable, type JsonRpcId } from "../base/messages.js";

/** The JSON-RPC method used to cancel a request (either direction). */
export const CANCEL_REQUEST_METHOD = "$/cancel_request";

/** {@link Dispatcher.dispatch} delivered a response to an outbound request. */
export const RESPONSE_DELIVERED: unique symbol = Symbol("response delivered");

/**
 * What dispatching one message did: nothing that matters for the next ones (`undefined`),
 * {@link RESPONSE_DELIVERED}, or the promise of a notification handler still running that
 * later messages wait for.
 */
export type DispatchOutcome = undefined | typeof RESPONSE_DELIVERED | Promise<void>;

/** How one inbound request method is handled. */
export interface RequestRoute {
  /** Validates params before the handler sees them; failures are answered `-32602`. */
  readonly validate?: RawValidator | undefined;
  /** When true, absent or `null` params are handled as `{}`. */
  readonly optionalParams?: boolean | undefined;
  /** Produces the result (or a promise of it); throw a `RequestError` to answer an error. */
  handle(params: unknown, context: InboundRequestContext): unknown;
}

/** How one inbound notification method is handled. */
export interface NotificationRoute {
  /** Validates params; invalid notifications are logged and dropped. */
  readonly validate?: RawValidator | undefined;
  /** When true, absent or `null` params are handled as `{}`. */
  readonly optionalParams?: boolean | undefined;
  /** Handles it; a returned promise holds up later messages until it settles. */
  handle(params: unknown): void | Promise<void>;
  /**
   * When true, a promise the handler returns does not hold up later messages (for a
   * notification whose handler may wait for what comes after it, like a cancellation).
   */
  readonly concurrent?: boolean | undefined;
}

/** Finds the handler for an inbound method. */
export interface Router {
  /** The route of a request method, or undefined (answered `-32601`). */
  request(method: string): RequestRoute | undefined;
  /** The route of a notification method, or undefined (ignored). */
  notification(method: string): NotificationRoute | undefined;
  /**
   * When set, requests whose id is `null` are refused with this error (answered with
   * `id: null`) instead of being handled, as are ids that are not JSON-RPC ids (with this
   * error in place of the engine's): JSON-RPC allows a `null` id, some protocols do not.
   */
  readonly invalidIdError?: RequestError | undefined;
}

/** What the dispatcher needs from its connection. */
export interface DispatchHost {
  readonly logger: Logger;
  /** Says why params failed their validator's fast pass, or repairs them (when lenient). */
  readonly check: ValueCheck;
  /** Sends a message; returns false when it could not be serialised. */
  send(message: object): boolean;
  /** Whether a handler's thrown `Error` message goes to the peer (`data.details`). */
  readonly exposeErrors: boolean;
  /** Settles an outbound request with a response message. */
  onResponse(message: Record<string, unknown>): void;
  /**
   * True once the connection is closed (answers are then dropped). A function, not a
   * getter: a getter in an object literal gives every host its own hidden class.
   */
  isClosed(): boolean;
}

/** A thrown value that should pass through as the JSON-RPC error it describes. */
function asRequestError(error: unknown): RequestError | undefined {
  if (error instanceof RequestError) return error;
  if (
    isPlainObject(error) ||
    (error instanceof Error && (error as { name?: string }).name === "RequestError")
  ) {
    const e = error as { code?: unknown; message?: unknown; data?: unknown; name?: unknown };
    if (e.name === "RequestError" && Number.isInteger(e.code) && typeof e.message === "string") {
      return new RequestError(e.code as number, e.message, e.data);
    }
  }
  return undefined;
}

/** The message of a thrown value, as the official SDK reads it (`undefined` when none). */
function errorDetails(error: unknown): string | undefined {
  if (error instanceof Error) return error.message;
  if (isPlainObject(error) && typeof error.message === "string") return error.message;
  return undefined;
}

/**
 * The `data` of the `-32603` answer to a handler's failure, shaped as the official SDK
 * shapes it: a message that is itself JSON is sent parsed, any other as `{ details }`,
 * none as `{}`.
 */
function internalErrorData(error: unknown): unknown {
  const details = errorDetails(error);
  if (details === undefined || details === "") return {};
  try {
    return JSON.parse(details) as unknown;
  } catch {
    return { details };
  }
}

/** See the module comment. */
export class Dispatcher {
  private readonly running = new Map<JsonRpcId, InboundRequest>();
  /**
   * Running requests whose id a later request reused (a peer's bug): still answered,
   * cancelled and aborted like the others.
   */
  private shadowed: InboundRequest[] = [];

  constructor(
    private readonly host: DispatchHost,
    private readonly router: Router,
  ) {
    // Replaced at close, read for every answer: made mutable for V8 from the start (see
    // `Lifecycle`'s constructor).
    this.shadowed = [];
  }

  /** Dispatches one inbound value; see {@link DispatchOutcome}. */
  dispatch(message: unknown): DispatchOutcome {
    if (this.host.isClosed()) return undefined;
    if (!isPlainObject(message)) {
      const batch = Array.isArray(message);
      this.host.logger.warn?.(
        batch
          ? "Received a JSON-RPC batch, which ACP does not use; answered -32600"
          : "Received a message that is not an object; answered -32600",
      );
      this.answerError(
        null,
        RequestError.invalidRequest(
          undefined,
          batch ? "JSON-RPC batches are not supported" : "a message must be an object",
        ),
      );
      return undefined;
    }
    const method = message.method;
    if (typeof method === "string") {
      if ("id" in message) {
        this.onRequest(message, method);
        return undefined;
      }
      return this.onNotification(message, method);
    }
    if (method === undefined && "id" in message && ("result" in message || "error" in message)) {
      this.host.onResponse(message);
      return RESPONSE_DELIVERED;
    }
    const id = isJsonRpcId(message.id) ? message.id : null;
    // It may have been meant as a request: answer it. Anything else cannot be answered.
    if ("id" in message || method !== undefined) {
      this.host.logger.warn?.("Received an invalid JSON-RPC message; answered -32600", { id });
      this.answerError(
        id,
        RequestError.invalidRequest(undefined, "not a valid request, notification or response"),
      );
    } else {
      this.host.logger.warn?.("Dropped an object that is not a JSON-RPC message");
    }
    return undefined;
  }

  /** Aborts every running handler (the connection closed). */
  abortAll(reason: unknown): void {
    for (const request of this.running.values()) request.abort(reason);
    for (const request of this.shadowed) request.abort(reason);
    this.running.clear();
    this.shadowed = [];
  }

  private onRequest(message: Record<string, unknown>, method: string): void {
    const id = message.id;
    if (!isJsonRpcId(id)) {
      this.answerError(
        null,
        this.router.invalidIdError ??
          RequestError.invalidRequest(undefined, "the id must be a string, an integer or null"),
      );
      return;
    }
    if (message.jsonrpc !== "2.0") {
      this.answerError(id, RequestError.invalidRequest(undefined, 'jsonrpc must be "2.0"'));
      return;
    }
    if (id === null && this.router.invalidIdError !== undefined) {
      this.answerError(null, this.router.invalidIdError);
      return;
    }
    const route = this.router.request(method);
    if (route === undefined) {
      this.host.logger.debug?.("Answered -32601 to an unknown or unimplemented method", {
        method,
        id,
      });
      this.answerError(id, RequestError.methodNotFound(method));
      return;
    }
    let params = message.params;
    if ((params === undefined || params === null) && route.optionalParams === true) params = {};
    const validate = route.validate;
    if (validate !== undefined && !validate(params, undefined)) {
      const checked = this.check(validate, params, method);
      if (!checked.ok) {
        this.host.logger.warn?.("Answered -32602 to a request with invalid params", {
          method,
          id,
          issues: checked.issues,
        });
        this.answerError(id, RequestError.invalidParams({ method, issues: checked.issues }));
        return;
      }
      params = checked.value;
    }
    const request = new InboundRequest(id, method);
    let result: unknown;
    try {
      result = route.handle(params, request);
    } catch (error) {
      this.finish(request, undefined, error, true);
      return;
    }
    if (isThenable(result)) {
      // Only a handler still running can be cancelled, and no `$/cancel_request` can be
      // read before this function returns: register it now.
      const earlier = this.running.get(id);
      if (earlier !== undefined) this.shadowed.push(earlier);
      this.running.set(id, request);
      result.then(
        (value) => this.finish(request, value, undefined, false),
        (error: unknown) => this.finish(request, undefined, error, true),
      );
    } else {
      this.finish(request, result, undefined, false);
    }
  }

  private onNotification(
    message: Record<string, unknown>,
    method: string,
  ): Promise<void> | undefined {
    if (method === CANCEL_REQUEST_METHOD) {
      this.onCancelRequest(message.params);
      return undefined;
    }
    const route = this.router.notification(method);
    if (route === undefined) {
      this.host.logger.debug?.("Ignored an unknown notification", { method });
      return undefined;
    }
    let params = message.params;
    if ((params === undefined || params === null) && route.optionalParams === true) params = {};
    const validate = route.validate;
    if (validate !== undefined && !validate(params, undefined)) {
      const checked = this.check(validate, params, method);
      if (!checked.ok) {
        this.host.logger.warn?.("Dropped a notification with invalid params", {
          method,
          issues: checked.issues,
        });
        return undefined;
      }
      params = checked.value;
    }
    let result: void | Promise<void>;
    try {
      result = route.handle(params);
    } catch (error) {
      this.host.logger.error?.("A notification handler threw", { method, error });
      return undefined;
    }
    if (!isThenable(result)) return undefined;
    const settled = Promise.resolve(result).then(undefined, (error: unknown) => {
      this.host.logger.error?.("A notification handler failed", { method, error });
    });
    return route.concurrent === true ? undefined : settled;
  }

  /** Explains (and, when lenient, repairs) params that failed the fast check. */
  private check(
    validate: RawValidator,
    params: unknown,
    method: string,
  ): { ok: true; value: unknown } | { ok: false; issues: readonly ValidationIssue[] } {
    const outcome = this.host.check.recheck(validate, params);
    if (!outcome.ok) return outcome;
    if (outcome.repaired.length > 0) {
      this.host.logger.warn?.("Repaired invalid optional parts of inbound params", {
        method,
        repaired: outcome.repaired,
      });
    }
    return { ok: true, value: outcome.value };
  }

  private onCancelRequest(params: unknown): void {
    if (!isPlainObject(params) || !isJsonRpcId(params.requestId)) {
      this.host.logger.debug?.("Ignored a malformed $/cancel_request");
      return;
    }
    const requestId = params.requestId;
    const request = this.running.get(requestId);
    if (request === undefined) return; // already answered, or never seen: ignore
    for (const r of [request, ...this.shadowed.filter((s) => s.id === requestId)]) {
      r.cancelRequested = true;
      r.abort(RequestError.requestCancelled());
    }
  }

  private finish(request: InboundRequest, value: unknown, error: unknown, failed: boolean): void {
    if (request.answered) return;
    request.answered = true;
    if (this.running.get(request.id) === request) {
      this.running.delete(request.id);
      if (this.shadowed.length > 0) {
        // The request this one shadowed is the running one for its id again.
        const earlier = this.shadowed.findLast((r) => r.id === request.id);
        if (earlier !== undefined) {
          this.shadowed = this.shadowed.filter((r) => r !== earlier);
          this.running.set(request.id, earlier);
        }
      }
    } else if (this.shadowed.length > 0) {
      this.shadowed = this.shadowed.filter((r) => r !== request);
    }
    if (this.host.isClosed()) {
      this.host.logger.debug?.("Dropped an answer: the connection is closed", {
        method: request.method,
        id: request.id,
      });
      return;
    }
    if (!failed) {
      const result = value === undefined ? null : value;
      if (this.host.send({ jsonrpc: "2.0", id: request.id, result })) return;
      this.host.logger.error?.("A handler returned a result that cannot be serialised", {
        method: request.method,
      });
      this.answerError(
        request.id,
        RequestError.internalError(undefined, "the result could not be serialised"),
      );
      return;
    }
    const requestError = asRequestError(error);
    if (requestError !== undefined) {
      this.answerError(request.id, requestError);
    } else if (request.cancelRequested || (request.isAborted && isAbortError(error))) {
      this.answerError(request.id, RequestError.requestCancelled());
    } else {
      this.host.logger.error?.("A request handler failed; answered -32603", {
        method: request.method,
        error,
      });
      this.answerError(
        request.id,
        new RequestError(
          ErrorCodes.INTERNAL_ERROR,
          "Internal error",
          this.host.exposeErrors ? internalErrorData(error) : undefined,
        ),
      );
    }
  }

  private answerError(id: JsonRpcId, error: RequestError): void {
    if (this.host.isClosed()) return;
    if (!this.host.send({ jsonrpc: "2.0", id, error: error.toErrorResponse() })) {
      // The error's data could not be serialised: send it without data.
      this.host.send({ jsonrpc: "2.0", id, error: { code: error.code, message: error.message } });
    }
  }
}
