/**
 * The body rules of the loopback MCP bridge for MCP 2026-07-28 requests (the SDK
 * bridge's, in its order), and the mapping of outcomes to HTTP answers.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";

import {
  MCP_META_CLIENT_CAPABILITIES,
  MCP_META_PROTOCOL_VERSION,
  MCP_PROTOCOL_VERSION,
  isJsonObject,
} from "../../mcp/binding.js";
import {
  matchesMirror,
  singleHeader,
  validRequestId,
  type JsonRpcId,
  type Refusal,
} from "./http-checks.js";

/** Inner `_meta` key MCP uses to correlate subscription events and results. */
const MCP_META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** One JSON-RPC request read from a body. */
export interface BodyRequest {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
}

/** A body the bridge refuses, with the id to answer with (`null`: none). */
export interface BodyRefusal extends Refusal {
  readonly id: JsonRpcId | null;
}

/** The parsed JSON of a body, or `undefined` when it is not JSON. */
export function parseJson(body: string): { readonly value: unknown } | undefined {
  try {
    return { value: JSON.parse(body) as unknown };
  } catch {
    return undefined;
  }
}

/** The parse error answer. */
export const PARSE_ERROR: BodyRefusal = {
  status: 400,
  id: null,
  code: -32700,
  message: "Parse error",
};

/**
 * Checks one MCP 2026-07-28 request body against the request's headers: exactly one
 * request, object params, the `_meta` the revision requires, and the mirrored headers.
 */
export function checkBody(value: unknown, req: IncomingMessage): BodyRequest | BodyRefusal {
  const object = isJsonObject(value) ? value : undefined;
  const rawId = object?.id;
  const id = validRequestId(rawId) ? rawId : null;
  const reject = (code: number, message: string, status = 400, data?: unknown): BodyRefusal => ({
    status,
    id,
    code,
    message,
    ...(data === undefined ? {} : { data }),
  });
  if (
    object?.jsonrpc !== "2.0" ||
    Object.hasOwn(object, "result") ||
    Object.hasOwn(object, "error") ||
    id === null
  )
    return reject(
      -32600,
      "Expected one JSON-RPC request; batches, notifications and client responses are unsupported",
    );
  const method = object.method;
  if (typeof method !== "string") return reject(-32600, "Missing method");
  if (object.params !== undefined && !isJsonObject(object.params))
    return reject(-32602, "Parameters must be an object");
  const params = isJsonObject(object.params) ? object.params : undefined;
  const meta = isJsonObject(params?._meta) ? params._meta : undefined;
  const metadataVersion = meta?.[MCP_META_PROTOCOL_VERSION];
  if (typeof metadataVersion !== "string")
    return reject(-32602, `params._meta must contain ${MCP_META_PROTOCOL_VERSION} as a string`);
  const version = singleHeader(req, "mcp-protocol-version");
  if (version !== metadataVersion)
    return reject(-32020, "HeaderMismatch: MCP-Protocol-Version does not match params._meta");
  if (version !== MCP_PROTOCOL_VERSION)
    return reject(-32022, "Unsupported protocol version", 400, {
      supported: [MCP_PROTOCOL_VERSION],
      requested: version,
    });
  if (!isJsonObject(meta?.[MCP_META_CLIENT_CAPABILITIES]))
    return reject(-32602, `params._meta must contain ${MCP_META_CLIENT_CAPABILITIES} as an object`);
  if (singleHeader(req, "mcp-method") !== method)
    return reject(-32020, "HeaderMismatch: Mcp-Method does not match method");
  if (method === "tools/call" || method === "prompts/get" || method === "resources/read") {
    const name = method === "resources/read" ? params?.uri : params?.name;
    if (typeof name !== "string") return reject(-32602, "Missing params.name or params.uri");
    if (!matchesMirror(singleHeader(req, "mcp-name"), name))
      return reject(-32020, "HeaderMismatch: Mcp-Name does not match request");
  }
  if (Object.keys(req.headers).some((key) => key.startsWith("mcp-param-")))
    return reject(-32020, "HeaderMismatch: Mcp-Param headers are not supported by this adapter");
  if (method === "initialize" || method.startsWith("notifications/"))
    return reject(-32601, "Method not found", 404);
  return { id, method, params };
}

/** True when the parse found a refusal. */
export function isRefusal(value: BodyRequest | BodyRefusal): value is BodyRefusal {
  return "status" in value;
}

/**
 * `payload` with a subscription id naming the logical request replaced by the HTTP
 * request's id, so the HTTP client sees its own id.
 */
export function rewriteSubscriptionId(
  payload: Record<string, unknown>,
  requestId: string,
  httpId: JsonRpcId,
): Record<string, unknown> {
  const meta = payload._meta;
  if (!isJsonObject(meta) || meta[MCP_META_SUBSCRIPTION_ID] !== requestId) return payload;
  return { ...payload, _meta: { ...meta, [MCP_META_SUBSCRIPTION_ID]: httpId } };
}

/** The HTTP status of a final JSON answer: client errors 400, unknown method 404, else 200. */
export function terminalStatus(terminal: Record<string, unknown>): number {
  const error = terminal.error;
  const code = isJsonObject(error) ? error.code : undefined;
  switch (code) {
    case -32020:
    case -32021:
    case -32022:
    case -32602:
      return 400;
    case -32601:
      return 404;
    default:
      return 200;
  }
}
