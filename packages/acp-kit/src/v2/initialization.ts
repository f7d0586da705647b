/**
 * The initialization rules of an ACP v2 connection, as routers wrapped around each side's
 * implementation: nothing but `initialize` before it succeeded, a repeat only before any
 * other request, versions below 2 refused with `-32022`, `null` request ids refused.
 * The error answers are the official SDK's, word for word.
 *
 * @module
 */
import type { NotificationRoute, RequestRoute, Router } from "../jsonrpc/dispatch.js";
import { RequestError } from "../jsonrpc/errors.js";
import type { InboundRequestContext } from "../jsonrpc/inbound.js";
import { isPlainObject, isThenable } from "../base/messages.js";
import { runValidator } from "../base/validation.js";
import type * as schema from "../schema/v2/types.gen.js";
import { DEF_VALIDATORS } from "../schema/v2/validators.gen.js";

/** The protocol version of ACP v2. */
export const V2 = 2;

const NULL_ID_ERROR = RequestError.invalidRequest(
  undefined,
  "ACP v2 request IDs must be strings or integers",
);

/** The `-32600` a request gets before the connection is initialized. */
export function notInitialized(method: string): RequestError {
  return RequestError.invalidRequest(`ACP v2 connection must be initialized before '${method}'`);
}

/** A route that refuses every request with one error. */
class RefusingRoute implements RequestRoute {
  constructor(private readonly error: RequestError) {}

  handle(): never {
    throw this.error;
  }
}

/**
 * `tool_call/cancel` and `terminal/cancel` without a handler: nothing is cancellable, so
 * `-32602` (not `-32601`), as v2 says of an unknown or non-cancellable entity.
 */
class NothingCancellableRoute implements RequestRoute {
  constructor(
    private readonly key: string,
    private readonly label: string,
  ) {}

  handle(params: unknown): never {
    const id = isPlainObject(params) ? params[this.key] : undefined;
    throw RequestError.invalidParams(
      typeof id === "string" ? { [this.key]: id } : undefined,
      `the ${this.label} is unknown or not cancellable`,
    );
  }
}

const ENTITY_CANCEL_DEFAULTS: ReadonlyMap<string, RequestRoute> = new Map([
  ["tool_call/cancel", new NothingCancellableRoute("toolCallId", "tool call")],
  ["terminal/cancel", new NothingCancellableRoute("terminalId", "terminal")],
]);

type Phase = "uninitialized" | "initializing" | "initialized";

/** Reads `initialize.protocolVersion`, or throws the `-32602` the SDK answers. */
function requestedVersion(params: unknown): number {
  const version = isPlainObject(params) ? params.protocolVersion : undefined;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0 || version > 65535)
    throw RequestError.invalidParams({
      method: "initialize",
      issues: [
        {
          path: "/protocolVersion",
          message: "must be a protocol version (an integer from 0 to 65535)",
        },
      ],
    });
  return version;
}

/** `initialize` as the v2 agent side handles it: version rules first, then the handler. */
class InitializeRoute implements RequestRoute {
  constructor(
    private readonly guard: AgentInitialization,
    private readonly inner: RequestRoute | undefined,
  ) {}

  handle(params: unknown, context: InboundRequestContext): unknown {
    const guard = this.guard;
    const refusal = guard.beginError();
    if (refusal !== undefined) throw refusal;
    const version = requestedVersion(params);
    if (guard.phase === "initialized" && version < V2)
      throw RequestError.invalidRequest(
        undefined,
        `a repeated initialize must request protocol version ${V2} or later`,
      );
    if (version < V2) throw RequestError.unsupportedProtocolVersion(version, [V2]);
    let request = params as Record<string, unknown>;
    // A request written for a newer version: keep what v2 can read, and only the required
    // `info` gets a stand-in when it is missing or malformed.
    if (version > V2 && !DEF_VALIDATORS.Implementation(request.info, undefined))
      request = { ...request, info: { name: "unknown", version: "unknown" } };
    request = { ...request, protocolVersion: V2 };
    const checked = runValidator(DEF_VALIDATORS.InitializeRequest, request);
    if (!checked.ok)
      throw RequestError.invalidParams({ method: "initialize", issues: checked.issues });
    if (this.inner === undefined) throw RequestError.methodNotFound("initialize");
    guard.begin(request as schema.InitializeRequest);
    let result: unknown;
    try {
      result = this.inner.handle(request, context);
    } catch (error) {
      guard.failAttempt();
      throw error;
    }
    if (!isThenable(result)) return guard.complete(result);
    return Promise.resolve(result).then(
      (value) => guard.complete(value),
      (error: unknown) => {
        guard.failAttempt();
        throw error;
      },
    );
  }
}

/**
 * The agent side's initialization state and router: requests other than `initialize`
 * are refused `-32600` until one succeeded (they never wait), notifications before it
 * are ignored, and `initialize` may be repeated only before any other request.
 */
export class AgentInitialization implements Router {
  phase: Phase = "uninitialized";
  readonly invalidIdError = NULL_ID_ERROR;
  /** The last successful exchange. */
  exchange: { request: schema.InitializeRequest; response: schema.InitializeResponse } | undefined;
  private pending: schema.InitializeRequest | undefined;
  private otherRequestSeen = false;
  private initializeRoute: InitializeRoute | undefined;

  constructor(private readonly inner: Router) {}

  /** Why `initialize` cannot start now, if it cannot. */
  beginError(): RequestError | undefined {
    if (this.phase === "initializing")
      return RequestError.invalidRequest("ACP v2 initialize is already in progress");
    if (this.phase === "initialized" && this.otherRequestSeen)
      return RequestError.invalidRequest(
        "ACP v2 initialize must not be repeated after other requests",
      );
    return undefined;
  }

  begin(request: schema.InitializeRequest): void {
    this.phase = "initializing";
    this.pending = request;
  }

  complete(response: unknown): unknown {
    const answer = response as schema.InitializeResponse | undefined;
    if (answer?.protocolVersion !== V2) {
      this.failAttempt();
      throw RequestError.internalError(
        undefined,
        `the v2 initialize handler must answer protocolVersion ${V2}`,
      );
    }
    const request = this.pending;
    if (request === undefined)
      throw RequestError.invalidRequest("ACP v2 initialization is not in progress");
    this.exchange = { request, response: answer };
    this.pending = undefined;
    this.phase = "initialized";
    return answer;
  }

  failAttempt(): void {
    if (this.phase !== "initializing") return;
    this.phase = this.exchange === undefined ? "uninitialized" : "initialized";
    this.pending = undefined;
  }

  request(method: string): RequestRoute | undefined {
    if (method === "initialize")
      return (this.initializeRoute ??= new InitializeRoute(this, this.inner.request(method)));
    if (this.phase === "initialized") {
      this.otherRequestSeen = true;
      return this.inner.request(method) ?? ENTITY_CANCEL_DEFAULTS.get(method);
    }
    return new RefusingRoute(notInitialized(method));
  }

  notification(method: string): NotificationRoute | undefined {
    // Notifications before the first successful initialize are ignored.
    return this.exchange === undefined ? undefined : this.inner.notification(method);
  }
}

/** A request route that waits for the client's `initialize` to settle first. */
class WaitingRoute implements RequestRoute {
  readonly validate: RequestRoute["validate"];
  readonly optionalParams: boolean | undefined;

  constructor(
    private readonly guard: ClientInitialization,
    private readonly inner: RequestRoute,
    private readonly method: string,
  ) {
    this.validate = inner.validate;
    this.optionalParams = inner.optionalParams;
  }

  async handle(params: unknown, context: InboundRequestContext): Promise<unknown> {
    await this.guard.settled();
    if (this.guard.phase !== "initialized") throw notInitialized(this.method);
    return this.inner.handle(params, context);
  }
}

/**
 * A notification route that waits for the client's `initialize` to settle, then is
 * handled if it succeeded (dropped otherwise). It does not hold up later messages (the
 * `initialize` answer among them); notifications that wait are handled in order.
 */
class WaitingNotificationRoute implements NotificationRoute {
  readonly validate: NotificationRoute["validate"];
  readonly optionalParams: boolean | undefined;
  readonly concurrent = true;

  constructor(
    private readonly guard: ClientInitialization,
    private readonly inner: NotificationRoute,
  ) {
    this.validate = inner.validate;
    this.optionalParams = inner.optionalParams;
  }

  async handle(params: unknown): Promise<void> {
    await this.guard.settled();
    if (this.guard.phase === "initialized") await this.inner.handle(params);
  }
}

/**
 * The client side's initialization state and router: the agent's requests and
 * notifications wait for an `initialize` in flight (then are handled if it succeeded);
 * before any, requests are refused `-32600` and notifications ignored.
 */
export class ClientInitialization implements Router {
  phase: Phase = "uninitialized";
  readonly invalidIdError = NULL_ID_ERROR;
  private attempt: Promise<void> = Promise.resolve();
  private finish: (() => void) | undefined;

  constructor(private readonly inner: Router) {}

  begin(): void {
    if (this.phase === "initializing")
      throw RequestError.invalidRequest("ACP v2 initialize is already in progress");
    this.phase = "initializing";
    this.attempt = new Promise((resolve) => (this.finish = resolve));
  }

  end(succeeded: boolean, hadSucceeded: boolean): void {
    this.phase = succeeded || hadSucceeded ? "initialized" : "uninitialized";
    this.finish?.();
    this.finish = undefined;
  }

  settled(): Promise<void> {
    return this.attempt;
  }

  request(method: string): RequestRoute | undefined {
    const route = this.inner.request(method);
    if (this.phase === "initialized") return route;
    // A method without a handler too: refused -32600 before initialize, and answered only
    // once it settled (then -32601), as the official client does.
    if (this.phase === "initializing")
      return new WaitingRoute(
        this,
        route ?? new RefusingRoute(RequestError.methodNotFound(method)),
        method,
      );
    return new RefusingRoute(notInitialized(method));
  }

  notification(method: string): NotificationRoute | undefined {
    if (this.phase === "uninitialized") return undefined;
    const route = this.inner.notification(method);
    if (route === undefined || this.phase === "initialized") return route;
    return new WaitingNotificationRoute(this, route);
  }
}
