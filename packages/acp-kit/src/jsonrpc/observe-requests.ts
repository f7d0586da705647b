/**
 * {@link peerRequestObserver}: the requests a peer sends and the answers they get, as
 * pairs, from the messages a connection's `observe` sees.
 *
 * @module
 */
import {
  isJsonRpcId,
  isPlainObject,
  type ErrorResponse,
  type JsonRpcId,
} from "../base/messages.js";
import type { MessageObserver } from "./connection.js";

/** A request the peer sent, or the answer it got; see {@link peerRequestObserver}. */
export type PeerRequestEvent =
  | {
      readonly type: "request";
      readonly id: JsonRpcId;
      readonly method: string;
      readonly params: unknown;
    }
  | {
      readonly type: "response";
      readonly id: JsonRpcId;
      /** The method of the request answered. */
      readonly method: string;
      /** The params of the request answered. */
      readonly params: unknown;
      readonly result: unknown;
    }
  | {
      readonly type: "response";
      readonly id: JsonRpcId;
      readonly method: string;
      readonly params: unknown;
      readonly error: ErrorResponse;
    };

/**
 * A {@link MessageObserver} (for `observe` of a connection) that calls `listener` with
 * each request read from the peer (before it is handled) and with the answer written to
 * it, which names the request's method and params: a JSON-RPC response carries only the
 * id. Notifications, our own requests and the peer's answers to them are left out. An
 * answer to an id never seen (written before the observer was added) is left out too.
 *
 * @param listener - Gets each request, then its answer; must not throw.
 * @returns The observer to hand to `observe`.
 */
export function peerRequestObserver(listener: (event: PeerRequestEvent) => void): MessageObserver {
  // Ids are the peer's: each is answered once, then forgotten.
  const open = new Map<JsonRpcId, { method: string; params: unknown }>();
  return (direction, message) => {
    if (!isPlainObject(message) || !isJsonRpcId(message.id)) return;
    const { id } = message;
    if (direction === "in") {
      if (typeof message.method !== "string") return;
      open.set(id, { method: message.method, params: message.params });
      listener({ type: "request", id, method: message.method, params: message.params });
      return;
    }
    if ("method" in message) return;
    const request = open.get(id);
    if (request === undefined) return;
    open.delete(id);
    const error = errorOf(message.error);
    if (error !== undefined) listener({ type: "response", id, ...request, error });
    else listener({ type: "response", id, ...request, result: message.result });
  };
}

/** The error member of an error response, when `value` is one. */
function errorOf(value: unknown): ErrorResponse | undefined {
  if (!isPlainObject(value)) return undefined;
  const { code, message, data } = value;
  if (typeof code !== "number" || typeof message !== "string") return undefined;
  return data === undefined ? { code, message } : { code, message, data };
}
