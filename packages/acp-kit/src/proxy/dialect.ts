/**
 * The three ways a conductor and its proxies speak (the proxy-chains drafts differ in
 * method names): how a proxy is initialized and how a message to or from its successor
 * is wrapped.
 *
 * @module
 */
import { isPlainObject } from "../base/messages.js";

/**
 * A dialect of the proxy-chains protocol (a draft; the names are not settled):
 *
 * - `"rust"`: the Rust SDK's conductor (`_proxy/initialize`, `_proxy/successor` with
 *   `{ method, params, _meta? }`), the deployed reference and acp-kit's default;
 * - `"rfd"`: the proxy-chains RFD (`proxy/initialize`, `proxy/successor` with
 *   `{ method, params, meta? }`);
 * - `"thinkwell"`: `@thinkwell/conductor` (`initialize` with `_meta.proxy: true`, answered
 *   with `_meta.proxy: true`; `_proxy/successor/request` and `_proxy/successor/notification`
 *   with `{ method, params }`).
 */
export type ProxyDialect = "rust" | "rfd" | "thinkwell";

/** Every dialect, in the order they are tried when reading. */
export const PROXY_DIALECTS: readonly ProxyDialect[] = ["rust", "rfd", "thinkwell"];

interface DialectNames {
  /** The request that initializes a proxy (`undefined`: `initialize` with `_meta.proxy`). */
  readonly initialize: string | undefined;
  /** The envelope's method for a request to or from the successor. */
  readonly request: string;
  /** The envelope's method for a notification to or from the successor. */
  readonly notification: string;
}

const NAMES: Readonly<Record<ProxyDialect, DialectNames>> = {
  rust: {
    initialize: "_proxy/initialize",
    request: "_proxy/successor",
    notification: "_proxy/successor",
  },
  rfd: {
    initialize: "proxy/initialize",
    request: "proxy/successor",
    notification: "proxy/successor",
  },
  thinkwell: {
    initialize: undefined,
    request: "_proxy/successor/request",
    notification: "_proxy/successor/notification",
  },
};

/** The methods that initialize a proxy, by name, with their dialect. */
const INIT_METHODS: ReadonlyMap<string, ProxyDialect> = new Map([
  ["_proxy/initialize", "rust"],
  ["proxy/initialize", "rfd"],
]);

/** The envelope methods of every dialect. */
const ENVELOPE_METHODS: ReadonlyMap<string, ProxyDialect> = new Map([
  ["_proxy/successor", "rust"],
  ["proxy/successor", "rfd"],
  ["_proxy/successor/request", "thinkwell"],
  ["_proxy/successor/notification", "thinkwell"],
]);

/** The method that initializes a proxy in `dialect`, and its params. */
export function proxyInitialize(
  dialect: ProxyDialect,
  params: unknown,
): { method: string; params: unknown } {
  const method = NAMES[dialect].initialize;
  if (method !== undefined) return { method, params };
  const given = isPlainObject(params) ? params : {};
  const meta = isPlainObject(given._meta) ? given._meta : {};
  return { method: "initialize", params: { ...given, _meta: { ...meta, proxy: true } } };
}

/**
 * The dialect of an inbound request that initializes a proxy, or `undefined` when it is
 * not one (a plain `initialize` without `_meta.proxy` is not).
 */
export function initializeDialect(method: string, params: unknown): ProxyDialect | undefined {
  const named = INIT_METHODS.get(method);
  if (named !== undefined) return named;
  if (method !== "initialize" || !isPlainObject(params)) return undefined;
  const meta = params._meta;
  return isPlainObject(meta) && meta.proxy === true ? "thinkwell" : undefined;
}

/** True for any dialect's method that initializes a proxy (never forwarded as is). */
export function isProxyInitialize(method: string): boolean {
  return INIT_METHODS.has(method);
}

/** `params` without `_meta.proxy` (the thinkwell flag), `_meta` dropped when it empties. */
export function withoutProxyFlag(params: unknown): unknown {
  if (!isPlainObject(params) || !isPlainObject(params._meta) || !("proxy" in params._meta))
    return params;
  const { proxy: _flag, ...meta } = params._meta;
  const { _meta: _old, ...rest } = params;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}

/** A message to or from the successor, as an envelope of `dialect`. */
export function wrap(
  dialect: ProxyDialect,
  kind: "request" | "notification",
  method: string,
  params: unknown,
): { method: string; params: Record<string, unknown> } {
  // The inner message's `_meta` stays inside its params; the envelope adds none of its own.
  const envelope: Record<string, unknown> = { method };
  if (params !== undefined) envelope.params = params;
  return { method: NAMES[dialect][kind], params: envelope };
}

/** What an envelope carried: the inner method and params, and the dialect it was in. */
export interface Unwrapped {
  readonly dialect: ProxyDialect;
  readonly method: string;
  readonly params: unknown;
}

/**
 * The message inside an envelope of any dialect, or `undefined` when `method` is not an
 * envelope method. Throws a `TypeError` when the envelope has no inner method.
 */
export function unwrap(method: string, params: unknown): Unwrapped | undefined {
  const dialect = ENVELOPE_METHODS.get(method);
  if (dialect === undefined) return undefined;
  if (!isPlainObject(params) || typeof params.method !== "string" || params.method === "") {
    throw new TypeError(`${method} needs params { method, params }`);
  }
  return { dialect, method: params.method, params: params.params };
}

/** The dialect's name for the error text of a proxy that refused to be one. */
export function dialectInitializeName(dialect: ProxyDialect): string {
  return NAMES[dialect].initialize ?? "initialize with _meta.proxy";
}
