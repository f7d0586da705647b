/**
 * The JSON-RPC error codes the protocol uses, by name: shared by the transports (which
 * answer a malformed line with a parse error) and the engine.
 *
 * @module
 */

/** The error codes the protocol uses, by name. */
export const ErrorCodes = {
  /** The message was not valid JSON. */
  PARSE_ERROR: -32700,
  /** The message was JSON but not a valid JSON-RPC request. */
  INVALID_REQUEST: -32600,
  /** The method does not exist or is not implemented. */
  METHOD_NOT_FOUND: -32601,
  /** The params did not match the method's schema. */
  INVALID_PARAMS: -32602,
  /** The handler failed unexpectedly. */
  INTERNAL_ERROR: -32603,
  /** The request was cancelled (`$/cancel_request` or internal cancellation). */
  REQUEST_CANCELLED: -32800,
  /** The operation needs authentication first. */
  AUTH_REQUIRED: -32000,
  /** A referenced resource (such as a file) does not exist. */
  RESOURCE_NOT_FOUND: -32002,
} as const;
