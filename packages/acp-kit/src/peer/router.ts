/**
 * Builds the JSON-RPC router of one side from the protocol's method table and a user
 * implementation (an {@link Agent} or a {@link Client}).
 *
 * @module
 */
import type { NotificationRoute, RequestRoute, Router } from "../jsonrpc/dispatch.js";
import { RequestError } from "../jsonrpc/errors.js";
import type { InboundRequestContext } from "../jsonrpc/inbound.js";
import { isThenable } from "../base/messages.js";
import type { MethodHandler, MethodSpec } from "../schema/method-spec.js";
import type { RawValidator } from "../base/validation.js";
import { LEGACY_METHOD_SPECS, METHOD_SPECS } from "../schema/methods.gen.js";

type Implementation = Record<string, unknown>;

/** v1's method table with the methods classic releases still speak. */
export const V1_SPECS: readonly MethodSpec[] = [...METHOD_SPECS, ...LEGACY_METHOD_SPECS];
type Handler = (this: unknown, ...args: unknown[]) => unknown;

function extParams(params: unknown): Record<string, unknown> {
  return params === undefined || params === null ? {} : (params as Record<string, unknown>);
}

/** A result for a method whose result has required fields: a missing one is a handler bug. */
function requireResult(method: string, value: unknown): unknown {
  if (value === undefined || value === null) {
    throw RequestError.internalError(undefined, `the ${method} handler returned no result`);
  }
  return value;
}

/** A result for a method whose result may be empty. */
function orEmpty(value: unknown): unknown {
  return value ?? {};
}

// Routes and routers are classes, not object literals with closures: each connection builds
// its own, and methods on a shared prototype keep the calls into them monomorphic, so the
// optimized dispatch of one connection still fits the next.

/** A request method routed to the implementation's handler. */
class HandlerRequestRoute implements RequestRoute {
  readonly validate: RawValidator;
  readonly optionalParams: boolean | undefined;

  constructor(
    private readonly spec: MethodSpec,
    private readonly impl: Implementation,
    private readonly fn: Handler,
  ) {
    this.validate = spec.validateParams;
    this.optionalParams = spec.optionalParams;
  }

  handle(params: unknown, context: InboundRequestContext): unknown {
    const result = this.fn.call(this.impl, params, context);
    if (isThenable(result)) return result.then((value) => this.finish(value));
    return this.finish(result);
  }

  private finish(value: unknown): unknown {
    return this.spec.emptyResult ? orEmpty(value) : requireResult(this.spec.method, value);
  }
}

/** Requests of methods outside the protocol, routed to `extMethod`. */
class ExtRequestRoute implements RequestRoute {
  constructor(
    private readonly impl: Implementation,
    private readonly fn: Handler,
  ) {}

  handle(params: unknown, context: InboundRequestContext): unknown {
    const result = this.fn.call(this.impl, context.method, extParams(params), context);
    return isThenable(result) ? result.then(orEmpty) : orEmpty(result);
  }
}

/**
 * Notifications whose handlers may wait for what comes after them: an agent's `cancel`
 * may wait for the cancelled turn to end, which waits for answers still on their way.
 */
const CONCURRENT_NOTIFICATIONS: ReadonlySet<string> = new Set(["session/cancel"]);

/** A notification method routed to the implementation's handler. */
class HandlerNotificationRoute implements NotificationRoute {
  readonly validate: RawValidator;
  readonly optionalParams: boolean | undefined;
  readonly concurrent: boolean;

  constructor(
    spec: MethodSpec,
    private readonly impl: Implementation,
    private readonly fn: Handler,
  ) {
    this.validate = spec.validateParams;
    this.optionalParams = spec.optionalParams;
    this.concurrent = CONCURRENT_NOTIFICATIONS.has(spec.method);
  }

  handle(params: unknown): void | Promise<void> {
    return this.fn.call(this.impl, params) as void | Promise<void>;
  }
}

/** A notification of a method outside the protocol, routed to `extNotification`. */
class ExtNotificationRoute implements NotificationRoute {
  constructor(
    private readonly impl: Implementation,
    private readonly fn: Handler,
    private readonly method: string,
  ) {}

  handle(params: unknown): void | Promise<void> {
    return this.fn.call(this.impl, this.method, extParams(params)) as void | Promise<void>;
  }
}

/** The routes of one side's implementation. */
class ImplementationRouter implements Router {
  constructor(
    private readonly requests: ReadonlyMap<string, RequestRoute>,
    private readonly notifications: ReadonlyMap<string, NotificationRoute>,
    private readonly known: ReadonlySet<string>,
    private readonly impl: Implementation,
    private readonly extRequest: RequestRoute | undefined,
    private readonly extNotification: Handler | undefined,
  ) {}

  request(method: string): RequestRoute | undefined {
    return this.requests.get(method) ?? (this.known.has(method) ? undefined : this.extRequest);
  }

  notification(method: string): NotificationRoute | undefined {
    const route = this.notifications.get(method);
    if (route !== undefined || this.known.has(method) || this.extNotification === undefined)
      return route;
    return new ExtNotificationRoute(this.impl, this.extNotification, method);
  }
}

/**
 * The router for the side `side`: protocol methods go to the implementation's methods
 * named in `handlerNames`, or failing that to the first one present of their classic
 * names in `classicNames` (validated first); other methods go to `extMethod` /
 * `extNotification`; a protocol method the implementation lacks is answered `-32601`
 * (requests) or ignored (notifications). Methods dropped from the protocol that classic
 * releases still speak ({@link LEGACY_METHOD_SPECS}) are routed by their classic names.
 * `specs` is the method table (v1's by default; `acp-kit/v2` passes v2's).
 */
export function buildRouter(
  side: Exclude<MethodHandler, "both">,
  impl: object,
  handlerNames: Readonly<Record<string, string>>,
  classicNames: Readonly<Record<string, readonly string[]>> = {},
  specs: readonly MethodSpec[] = V1_SPECS,
): Router {
  const target = impl as Implementation;
  const requests = new Map<string, RequestRoute>();
  const notifications = new Map<string, NotificationRoute>();
  const known = new Set<string>();
  for (const spec of specs) {
    if (spec.handledBy !== side) continue;
    known.add(spec.method);
    const name = handlerNames[spec.method];
    const names = [...(name === undefined ? [] : [name]), ...(classicNames[spec.method] ?? [])];
    if (names.length === 0) throw new Error(`No handler name for ${side} method ${spec.method}`);
    const fn = names.map((n) => target[n]).find((f) => typeof f === "function");
    if (fn === undefined) continue;
    if (spec.kind === "request")
      requests.set(spec.method, new HandlerRequestRoute(spec, target, fn as Handler));
    else notifications.set(spec.method, new HandlerNotificationRoute(spec, target, fn as Handler));
  }
  const extMethod = target.extMethod;
  const extNotification = target.extNotification;
  return new ImplementationRouter(
    requests,
    notifications,
    known,
    target,
    typeof extMethod === "function" ? new ExtRequestRoute(target, extMethod as Handler) : undefined,
    typeof extNotification === "function" ? (extNotification as Handler) : undefined,
  );
}

/**
 * The specs of the methods the *other* side handles, by wire name (for outbound calls),
 * from `specs` (by default v1's, the legacy ones included).
 */
export function outboundSpecs(
  peerSide: Exclude<MethodHandler, "both">,
  kind: MethodSpec["kind"],
  specs: readonly MethodSpec[] = V1_SPECS,
): Map<string, MethodSpec> {
  const map = new Map<string, MethodSpec>();
  for (const spec of specs) {
    if (spec.handledBy === peerSide && spec.kind === kind) map.set(spec.method, spec);
  }
  return map;
}
