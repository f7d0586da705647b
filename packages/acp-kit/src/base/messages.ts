/**
 * JSON-RPC 2.0 message shapes.
 *
 * @module
 */

/** A JSON-RPC request id: a string, an integer, or (discouraged) `null`. */
export type JsonRpcId = string | number | null;

/** A request: expects exactly one response with the same `id`. */
export type AnyRequest = {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: unknown;
};

/** A notification: a message without `id`, never answered. */
export type AnyNotification = {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
};

/** The error member of an error response. */
export type ErrorResponse = {
  code: number;
  message: string;
  data?: unknown;
};

/** The outcome part of a response: a result or an error. */
export type Result<T> = { result: T } | { error: ErrorResponse };

/** A response to a request. */
export type AnyResponse = {
  jsonrpc: "2.0";
  id: JsonRpcId;
} & Result<unknown>;

/** Any JSON-RPC 2.0 message. */
export type AnyMessage = AnyRequest | AnyResponse | AnyNotification;

/** A value that may or may not be wrapped in a promise. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * A bidirectional stream of JSON-RPC messages: what a connection reads from and writes
 * to. {@link ndJsonStream} makes one from a pair of byte streams.
 */
export type Stream = {
  writable: WritableStream<AnyMessage>;
  readable: ReadableStream<AnyMessage>;
};

/** True for a non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `value` is a valid JSON-RPC id (string, integer or null). */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || Number.isInteger(value);
}

/** True for a promise or any other object with a `then` method. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
