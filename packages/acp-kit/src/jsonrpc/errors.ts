/**
 * The two error families: {@link RequestError} travels on the wire as a JSON-RPC error;
 * {@link ConnectionError} is raised locally and never sent.
 *
 * @module
 */
import type { ErrorResponse, Result } from "../base/messages.js";
import { ErrorCodes } from "../base/error-codes.js";
import type { ValidationIssue } from "../base/validation.js";
import { isBranded, setBrand } from "./brand.js";

const REQUEST_ERROR = Symbol.for("acp-kit.RequestError");
const CONNECTION_ERROR = Symbol.for("acp-kit.ConnectionError");

function withDetail(base: string, detail: string | undefined): string {
  return detail !== undefined && detail !== "" ? `${base}: ${detail}` : base;
}

/**
 * An error that is, or will be, a JSON-RPC error response. Throw one from a handler to
 * answer with exactly that code, message and data; a request whose peer answered with an
 * error rejects with one.
 */
export class RequestError extends Error {
  /** The JSON-RPC error code. */
  code: number;
  /** Optional structured details sent as `error.data`. */
  data?: unknown;

  /**
   * Creates an error to answer or reject with.
   *
   * @param code - The JSON-RPC error code.
   * @param message - One short sentence.
   * @param data - Optional details, sent as `error.data`.
   */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RequestError";
    this.code = code;
    this.data = data;
  }

  /**
   * True for a `RequestError` of any copy of acp-kit loaded in this process (its ESM and
   * CJS builds, or another installed version), not only of this one.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(this, RequestError, REQUEST_ERROR, value);
  }

  /** `-32700`: the message was not valid JSON. */
  static parseError(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(
      ErrorCodes.PARSE_ERROR,
      withDetail("Parse error", additionalMessage),
      data,
    );
  }

  /** `-32600`: the message was not a valid request. */
  static invalidRequest(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(
      ErrorCodes.INVALID_REQUEST,
      withDetail("Invalid request", additionalMessage),
      data,
    );
  }

  /**
   * `-32601`: the method does not exist or is not implemented here. Worded as the
   * official SDK words it (`"Method not found": <method>`), with `data: { method }`.
   */
  static methodNotFound(method: string): RequestError {
    return new RequestError(ErrorCodes.METHOD_NOT_FOUND, `"Method not found": ${method}`, {
      method,
    });
  }

  /** `-32602`: the params are invalid. */
  static invalidParams(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(
      ErrorCodes.INVALID_PARAMS,
      withDetail("Invalid params", additionalMessage),
      data,
    );
  }

  /** `-32603`: something failed unexpectedly. */
  static internalError(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(
      ErrorCodes.INTERNAL_ERROR,
      withDetail("Internal error", additionalMessage),
      data,
    );
  }

  /** `-32800`: the request was cancelled. */
  static requestCancelled(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(
      ErrorCodes.REQUEST_CANCELLED,
      withDetail("Request cancelled", additionalMessage),
      data,
    );
  }

  /** `-32000`: authentication is required first. */
  static authRequired(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(
      ErrorCodes.AUTH_REQUIRED,
      withDetail("Authentication required", additionalMessage),
      data,
    );
  }

  /** `-32002`: a resource (such as a file) does not exist; `data.uri` names it when known. */
  static resourceNotFound(uri?: string): RequestError {
    return new RequestError(
      ErrorCodes.RESOURCE_NOT_FOUND,
      withDetail("Resource not found", uri),
      uri === undefined ? undefined : { uri },
    );
  }

  /** The peer asked for a protocol version this side does not support. */
  static unsupportedProtocolVersion(requested: number, supported: readonly number[]): RequestError {
    return new RequestError(-32022, "Unsupported protocol version", {
      requested,
      supported: [...supported],
    });
  }

  /** This error as the outcome part of a response. */
  toResult<T>(): Result<T> {
    return { error: this.toErrorResponse() };
  }

  /** This error as a JSON-RPC error object. */
  toErrorResponse(): ErrorResponse {
    const error: ErrorResponse = { code: this.code, message: this.message };
    if (this.data !== undefined) error.data = this.data;
    return error;
  }
}

setBrand(RequestError, REQUEST_ERROR);

/** Why a {@link ConnectionError} was raised. */
export type ConnectionErrorCode =
  /** The connection closed (or was closed) before the request was answered. */
  | "connection_closed"
  /** The request's `timeoutMs` passed without an answer. */
  | "timeout"
  /** The caller's `AbortSignal` aborted the request. */
  | "cancelled"
  /** A message was larger than the transport's limit and was discarded. */
  | "message_too_large"
  /** The peer's answer was not a valid response for the method. */
  | "invalid_response";

/**
 * A local error: raised by this library, never sent to the peer. `code` says why.
 */
export class ConnectionError extends Error {
  /** Why the error was raised. */
  readonly code: ConnectionErrorCode;
  /** For `invalid_response`: what was wrong with the answer. */
  readonly issues?: readonly ValidationIssue[];
  /** For an invalid result (`invalid_response`): the result as the peer sent it. */
  readonly received?: unknown;

  /**
   * Creates a local error.
   *
   * @param code - Why the error was raised.
   * @param message - A sentence saying what happened.
   * @param options - The underlying cause and, for invalid results, the issues found and
   *   the result received.
   */
  constructor(
    code: ConnectionErrorCode,
    message: string,
    options?: { cause?: unknown; issues?: readonly ValidationIssue[]; received?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ConnectionError";
    this.code = code;
    if (options?.issues !== undefined) this.issues = options.issues;
    if (options !== undefined && "received" in options) this.received = options.received;
  }

  /**
   * True for a `ConnectionError` of any copy of acp-kit loaded in this process (its ESM
   * and CJS builds, or another installed version), not only of this one.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(this, ConnectionError, CONNECTION_ERROR, value);
  }
}
setBrand(ConnectionError, CONNECTION_ERROR);

/** True for errors that mean "this was aborted" (DOM `AbortError`, `TimeoutError`, our own). */
export function isAbortError(error: unknown): boolean {
  if (error instanceof ConnectionError) return error.code === "cancelled";
  if (typeof error !== "object" || error === null) return false;
  const name = (error as { name?: unknown }).name;
  return name === "AbortError" || name === "TimeoutError";
}

/**
 * The cause of a `ConnectionError("message_too_large")`: an inbound message exceeded the
 * stream's `maxMessageBytes` and was dropped.
 */
export class MessageTooLargeError extends Error {
  /** The limit that was exceeded. */
  readonly maxMessageBytes: number;

  /**
   * Creates the error for a given limit.
   *
   * @param maxMessageBytes - The limit that was exceeded.
   */
  constructor(maxMessageBytes: number) {
    super(`Message exceeds the maximum size of ${maxMessageBytes} bytes`);
    this.name = "MessageTooLargeError";
    this.maxMessageBytes = maxMessageBytes;
  }
}
