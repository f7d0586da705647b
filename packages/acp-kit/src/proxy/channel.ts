/**
 * Channels: one direction of conversation on a link, with requests, notifications and
 * cancellation, whatever the wire does underneath. A link is one JSON-RPC connection
 * (one id space, so each hop numbers its own requests); a link to or from a proxy
 * carries two channels, the proxy's predecessor's messages as they are and its
 * successor's wrapped in the dialect's envelope.
 *
 * @module
 */
import type { Logger } from "../base/logger.js";
import { isPlainObject, type Stream } from "../base/messages.js";
import { JsonRpcConnection, type MessageObserver } from "../jsonrpc/connection.js";
import type { NotificationRoute, RequestRoute, Router } from "../jsonrpc/dispatch.js";
import { RequestError } from "../jsonrpc/errors.js";
import type { InboundRequestContext } from "../jsonrpc/inbound.js";
import type { Transport } from "../transport/transport.js";
import {
  dialectInitializeName,
  initializeDialect,
  isProxyInitialize,
  proxyInitialize,
  unwrap,
  withoutProxyFlag,
  wrap,
  type ProxyDialect,
} from "./dialect.js";

/** What a {@link Channel} does with what arrives on it. */
export interface ChannelHandlers {
  /** Answers a request (throw a `RequestError` to answer an error). */
  request(method: string, params: unknown, signal: AbortSignal): unknown;
  /** Takes a notification; a returned promise holds up what arrives after it. */
  notification(method: string, params: unknown): void | Promise<void>;
}

/**
 * One side of a conversation: send requests and notifications to the peer, and handle
 * what the peer sends. What arrives before {@link Channel.serve} waits for it, in order.
 */
export interface Channel {
  /**
   * Sends a request; resolves with its result, rejects with the peer's `RequestError`.
   * Aborting `signal` sends `$/cancel_request` on this hop.
   */
  request(method: string, params: unknown, signal?: AbortSignal): Promise<unknown>;
  /** Sends a notification (resolves once it is on its way). */
  notify(method: string, params: unknown): Promise<void>;
  /** Sets what handles the requests and notifications that arrive on this channel. */
  serve(handlers: ChannelHandlers): void;
}

/** Where the handlers of a channel are, once set; what arrives before waits. */
class Slot {
  private handlers: ChannelHandlers | undefined;
  private waiting: ((handlers: ChannelHandlers) => void)[] = [];

  set(handlers: ChannelHandlers): void {
    this.handlers = handlers;
    for (const wake of this.waiting.splice(0)) wake(handlers);
  }

  request(method: string, params: unknown, signal: AbortSignal): unknown {
    const handlers = this.handlers;
    if (handlers !== undefined) return handlers.request(method, params, signal);
    return new Promise<ChannelHandlers>((resolve) => this.waiting.push(resolve)).then((h) =>
      h.request(method, params, signal),
    );
  }

  notification(method: string, params: unknown): void | Promise<void> {
    const handlers = this.handlers;
    if (handlers !== undefined) return handlers.notification(method, params);
    return new Promise<ChannelHandlers>((resolve) => this.waiting.push(resolve)).then((h) =>
      h.notification(method, params),
    );
  }
}

/** What an inbound message is, for the link that reads it. */
interface Routed {
  readonly slot: Slot;
  readonly method: string;
  readonly params: unknown;
  /** Changes the result before it is answered. */
  readonly answer?: (result: unknown) => unknown;
}

/** Options of a link. */
export interface LinkOptions {
  /** Where the connection's problems go. */
  readonly logger?: Logger;
  /** Sees every message read from or written to this link. */
  readonly observe?: MessageObserver;
}

/** The routes of a link: every method to `route`, which says which channel takes it. */
function routerOf(route: (method: string, params: unknown) => Routed): Router {
  return {
    request(method: string): RequestRoute {
      return {
        handle: (params: unknown, context: InboundRequestContext): unknown => {
          const routed = route(method, params);
          const result = routed.slot.request(routed.method, routed.params, context.signal);
          const answer = routed.answer;
          if (answer === undefined) return result;
          return Promise.resolve(result).then(answer);
        },
      };
    },
    notification(method: string): NotificationRoute {
      return {
        handle: (params: unknown): void | Promise<void> => {
          let routed: Routed;
          try {
            routed = route(method, params);
          } catch {
            return; // A notification that cannot be routed is dropped (there is no answer).
          }
          return routed.slot.notification(routed.method, routed.params);
        },
      };
    },
  };
}

/** A channel whose sends go through `connection`, shaped by `send`. */
function channelOf(
  connection: JsonRpcConnection,
  slot: Slot,
  shape: {
    request?: (method: string, params: unknown) => { method: string; params: unknown };
    notification?: (method: string, params: unknown) => { method: string; params: unknown };
    result?: (method: string, result: unknown) => unknown;
  } = {},
): Channel {
  return {
    async request(method, params, signal) {
      const out = shape.request?.(method, params) ?? { method, params };
      const result = await connection.request(
        out.method,
        out.params,
        signal === undefined ? undefined : { signal },
      );
      return shape.result === undefined ? result : shape.result(method, result);
    },
    notify(method, params) {
      const out = shape.notification?.(method, params) ?? { method, params };
      return connection.notify(out.method, out.params);
    },
    serve(handlers) {
      slot.set(handlers);
    },
  };
}

/** One JSON-RPC connection and the channels it carries. */
export interface Link {
  /** The connection (close it to end the link). */
  readonly connection: JsonRpcConnection;
  /** The messages as they are: the whole conversation of a plain link. */
  readonly plain: Channel;
}

/** A link to or from a proxy: its predecessor's messages plain, its successor's wrapped. */
export interface ProxyLink extends Link {
  /** The proxy's successor's messages, in the dialect's envelope on the wire. */
  readonly wrapped: Channel;
  /** The dialect in use (for a proxy, learnt from how it was initialized). */
  readonly dialect: ProxyDialect;
}

/**
 * A plain link: messages as they are. With `stripProxyFlag`, an `initialize` sent on it
 * loses thinkwell's `_meta.proxy` (a conductor's link to its agent).
 */
export function plainLink(
  stream: Stream | Transport,
  options: LinkOptions & { readonly stripProxyFlag?: boolean } = {},
): Link {
  const slot = new Slot();
  const connection = new JsonRpcConnection(
    stream,
    routerOf((method, params) => ({ slot, method, params })),
    options.logger === undefined ? {} : { logger: options.logger },
  );
  if (options.observe !== undefined) connection.observe(options.observe);
  const strip = options.stripProxyFlag === true;
  return {
    connection,
    plain: channelOf(connection, slot, {
      request: (method, params) => ({
        method,
        params: strip && method === "initialize" ? withoutProxyFlag(params) : params,
      }),
    }),
  };
}

/**
 * A conductor's link to one of its proxies: `plain` carries what the proxy's predecessor
 * says (an `initialize` sent on it is the dialect's proxy initialization, and a thinkwell
 * proxy must accept it), `wrapped` what its successor says, in envelopes.
 */
export function linkToProxy(
  stream: Stream | Transport,
  dialect: ProxyDialect,
  options: LinkOptions = {},
): ProxyLink {
  const plainSlot = new Slot();
  const wrappedSlot = new Slot();
  const connection = new JsonRpcConnection(
    stream,
    routerOf((method, params) => {
      const inner = unwrap(method, params);
      if (inner === undefined) return { slot: plainSlot, method, params };
      if (isProxyInitialize(inner.method)) {
        throw RequestError.invalidRequest(
          { method: inner.method },
          `A proxy forwards initialize to its successor, never ${inner.method}`,
        );
      }
      return { slot: wrappedSlot, method: inner.method, params: inner.params };
    }),
    options.logger === undefined ? {} : { logger: options.logger },
  );
  if (options.observe !== undefined) connection.observe(options.observe);
  return {
    connection,
    dialect,
    plain: channelOf(connection, plainSlot, {
      request: (method, params) =>
        method === "initialize" ? proxyInitialize(dialect, params) : { method, params },
      result: (method, result) => {
        if (method !== "initialize" || dialect !== "thinkwell") return result;
        const meta = isPlainObject(result) ? result._meta : undefined;
        if (!isPlainObject(meta) || meta.proxy !== true) {
          throw RequestError.invalidRequest(
            { expected: dialectInitializeName(dialect) },
            "Proxy component did not accept proxy capability",
          );
        }
        return withoutProxyFlag(result);
      },
    }),
    wrapped: channelOf(connection, wrappedSlot, {
      request: (method, params) => wrap(dialect, "request", method, params),
      notification: (method, params) => wrap(dialect, "notification", method, params),
    }),
  };
}

/**
 * A proxy's link to its conductor: `plain` carries its predecessor's messages (the
 * dialect's initialization arrives on it as `initialize`), `wrapped` its successor's. The
 * dialect is learnt from the initialization and used for every envelope sent; envelopes
 * of any dialect are read.
 */
export function linkAsProxy(
  stream: Stream | Transport,
  options: LinkOptions & { readonly dialect?: ProxyDialect } = {},
): ProxyLink {
  const plainSlot = new Slot();
  const wrappedSlot = new Slot();
  let dialect: ProxyDialect = options.dialect ?? "rust";
  const connection = new JsonRpcConnection(
    stream,
    routerOf((method, params) => {
      const inner = unwrap(method, params);
      if (inner !== undefined)
        return { slot: wrappedSlot, method: inner.method, params: inner.params };
      const init = initializeDialect(method, params);
      if (init !== undefined) {
        dialect = init;
        if (init !== "thinkwell") return { slot: plainSlot, method: "initialize", params };
        // Answered as thinkwell's conductor requires; the flag is not the proxy's to see.
        return {
          slot: plainSlot,
          method: "initialize",
          params: withoutProxyFlag(params),
          answer: (result) => {
            const given = isPlainObject(result) ? result : {};
            const meta = isPlainObject(given._meta) ? given._meta : {};
            return { ...given, _meta: { ...meta, proxy: true } };
          },
        };
      }
      if (method === "initialize") {
        throw RequestError.invalidRequest(
          undefined,
          "This is a proxy: it needs a conductor, which initializes it with " +
            "_proxy/initialize (or proxy/initialize, or initialize with _meta.proxy); " +
            "run it standalone to give it an agent of its own",
        );
      }
      return { slot: plainSlot, method, params };
    }),
    options.logger === undefined ? {} : { logger: options.logger },
  );
  if (options.observe !== undefined) connection.observe(options.observe);
  return {
    connection,
    get dialect() {
      return dialect;
    },
    plain: channelOf(connection, plainSlot),
    wrapped: channelOf(connection, wrappedSlot, {
      request: (method, params) =>
        wrap(
          dialect,
          "request",
          method,
          // Thinkwell's later proxies learn their role from the flag: it is kept.
          method === "initialize" && dialect === "thinkwell"
            ? proxyInitialize(dialect, params).params
            : params,
        ),
      notification: (method, params) => wrap(dialect, "notification", method, params),
    }),
  };
}

/**
 * Joins two channels: what arrives on one is sent on the other (requests with their
 * cancellation, notifications in order). `a` faces `b`'s way and `b` faces `a`'s.
 */
export function pipeChannels(a: Channel, b: Channel): void {
  a.serve({
    request: (method, params, signal) => b.request(method, params, signal),
    notification: (method, params) => b.notify(method, params),
  });
  b.serve({
    request: (method, params, signal) => a.request(method, params, signal),
    notification: (method, params) => a.notify(method, params),
  });
}
