/**
 * Builds the JSON-RPC router of one side from the protocol's method table and a user
 * implementation (an {@link Agent} or a {@link Client}).
 *
 * @module
 */
import type { NotificationRoute, RequestRoute, Router } from "../jsonrpc/dispatch.js";
import { RequestError } from "../jsonrpc/errors.js";
import type { InboundRequestContext } from "../jsonrpc/inbound.js";
import { isThenable } from "../jsonrpc/messages.js";
import type { MethodHandler, MethodSpec } from "../schema/method-spec.js";
import { LEGACY_METHOD_SPECS, METHOD_SPECS } from "../schema/methods.gen.js";

type Implementation = Record<string, unknown>;
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

function requestRoute(spec: MethodSpec, impl: Implementation, fn: Handler): RequestRoute {
  const method = spec.method;
  const finish = spec.emptyResult
    ? (value: unknown): unknown => value ?? {}
    : (value: unknown): unknown => requireResult(method, value);
  return {
    validate: spec.validateParams,
    optionalParams: spec.optionalParams,
    handle(params, context) {
      const result = fn.call(impl, params, context);
      return isThenable(result) ? result.then(finish) : finish(result);
    },
  };
}

/**
 * Notifications whose handlers may wait for what comes after them: an agent's `cancel`
 * may wait for the cancelled turn to end, which waits for answers still on their way.
 */
const CONCURRENT_NOTIFICATIONS: ReadonlySet<string> = new Set(["session/cancel"]);

function notificationRoute(spec: MethodSpec, impl: Implementation, fn: Handler): NotificationRoute {
  return {
    validate: spec.validateParams,
    optionalParams: spec.optionalParams,
    concurrent: CONCURRENT_NOTIFICATIONS.has(spec.method),
    handle: (params) => fn.call(impl, params) as void | Promise<void>,
  };
}

/**
 * The router for the side `side`: protocol methods go to the implementation's methods
 * named in `handlerNames`, or failing that to the first one present of their classic
 * names in `classicNames` (validated first); other methods go to `extMethod` /
 * `extNotification`; a protocol method the implementation lacks is answered `-32601`
 * (requests) or ignored (notifications). Methods dropped from the protocol that classic
 * releases still speak ({@link LEGACY_METHOD_SPECS}) are routed by their classic names.
 */
export function buildRouter(
  side: Exclude<MethodHandler, "both">,
  impl: object,
  handlerNames: Readonly<Record<string, string>>,
  classicNames: Readonly<Record<string, readonly string[]>> = {},
): Router {
  const target = impl as Implementation;
  const requests = new Map<string, RequestRoute>();
  const notifications = new Map<string, NotificationRoute>();
  const known = new Set<string>();
  for (const spec of [...METHOD_SPECS, ...LEGACY_METHOD_SPECS]) {
    if (spec.handledBy !== side) continue;
    known.add(spec.method);
    const name = handlerNames[spec.method];
    const names = [...(name === undefined ? [] : [name]), ...(classicNames[spec.method] ?? [])];
    if (names.length === 0) throw new Error(`No handler name for ${side} method ${spec.method}`);
    const fn = names.map((n) => target[n]).find((f) => typeof f === "function");
    if (fn === undefined) continue;
    if (spec.kind === "request")
      requests.set(spec.method, requestRoute(spec, target, fn as Handler));
    else notifications.set(spec.method, notificationRoute(spec, target, fn as Handler));
  }

  const extMethod = target.extMethod;
  const extRequest: RequestRoute | undefined =
    typeof extMethod === "function"
      ? {
          handle(params: unknown, context: InboundRequestContext) {
            const result = (extMethod as Handler).call(
              target,
              context.method,
              extParams(params),
              context,
            );
            const finish = (value: unknown): unknown => value ?? {};
            return isThenable(result) ? result.then(finish) : finish(result);
          },
        }
      : undefined;
  const extNotification = target.extNotification;

  return {
    request(method) {
      return requests.get(method) ?? (known.has(method) ? undefined : extRequest);
    },
    notification(method) {
      const route = notifications.get(method);
      if (route !== undefined || known.has(method) || typeof extNotification !== "function")
        return route;
      return {
        handle: (params) =>
          (extNotification as Handler).call(
            target,
            method,
            extParams(params),
          ) as void | Promise<void>,
      };
    },
  };
}

/**
 * The specs of the methods the *other* side handles, by wire name (for outbound calls),
 * the legacy ones included.
 */
export function outboundSpecs(
  peerSide: Exclude<MethodHandler, "both">,
  kind: MethodSpec["kind"],
): Map<string, MethodSpec> {
  const map = new Map<string, MethodSpec>();
  for (const spec of [...METHOD_SPECS, ...LEGACY_METHOD_SPECS]) {
    if (spec.handledBy === peerSide && spec.kind === kind) map.set(spec.method, spec);
  }
  return map;
}
