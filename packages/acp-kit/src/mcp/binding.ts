/**
 * The MCP-over-ACP binding's wire facts: the method, the MCP revision it carries, the
 * inner `_meta` keys, the outer error codes, and the helpers both sides share (outcome
 * parsing, request metadata, finding `acp` declarations).
 *
 * @module
 */
import { isBranded, setBrand } from "../jsonrpc/brand.js";
import type * as schema from "../schema/types.gen.js";

/** The ACP method carrying MCP requests (agent to provider) and their notifications. */
export const MCP_MESSAGE_METHOD = "mcp/message";

/** The one MCP revision the binding carries (MCP 2026-07-28). */
export const MCP_PROTOCOL_VERSION = "2026-07-28";

/** Inner `params._meta` key naming the request's MCP revision (required). */
export const MCP_META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

/** Inner `params._meta` key holding the caller's MCP client capabilities (required). */
export const MCP_META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** Inner `params._meta` key holding the caller's MCP client info (optional). */
export const MCP_META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

/**
 * The outer ACP error codes of the binding: failures of the binding itself. An MCP
 * server's own errors never use them; they travel inside a successful answer.
 */
export const McpBindingErrorCodes = {
  /** `-32602`: a malformed envelope, or a `requestId` already active for that server. */
  INVALID_PARAMS: -32602,
  /** `-32800`: the request was cancelled (by the caller, or the registration was disposed). */
  REQUEST_CANCELLED: -32800,
  /** `-33000`: a limit was reached (the server's active requests). */
  RESOURCE_LIMIT_EXCEEDED: -33000,
  /** `-33001`: no server is registered under that `serverId` (never was, or disposed). */
  SERVER_UNAVAILABLE: -33001,
  /** `-33002`: the server failed without an MCP outcome, or gave an invalid one. */
  BACKEND_FAILED: -33002,
} as const;

/**
 * What a successful `mcp/message` answer carries: exactly one of an MCP `result` (any
 * JSON value, `null` included) or an MCP `error`. An MCP error is not an ACP error.
 */
export type McpOutcome = schema.MessageMcpResponse;

/** An MCP error object, as it travels inside an {@link McpOutcome}. */
export type McpErrorObject = schema.McpError;

/** A declaration of an MCP server reached over ACP (`type: "acp"` in `mcpServers`). */
export type McpServerAcpDeclaration = schema.McpServerAcp & { type: "acp" };

/** The caller's MCP client identity, sent in each request's inner `_meta`. */
export interface McpClientInfo {
  /** The client's name. */
  name: string;
  /** The client's version. */
  version: string;
  /** Other fields of MCP's `Implementation`. */
  [key: string]: unknown;
}

const MCP_PROTOCOL_ERROR = Symbol.for("acp-kit.McpProtocolError");

/**
 * An MCP error for a server handler to throw: the provider answers it inside a
 * successful `mcp/message` result (`{ error: { code, message, data } }`), never as an
 * outer ACP error.
 */
export class McpProtocolError extends Error {
  /** The MCP error code. */
  readonly code: number;
  /** Optional details, sent as `error.data`. */
  readonly data?: unknown;

  /**
   * Creates an MCP error.
   *
   * @param code - The MCP (JSON-RPC) error code.
   * @param message - One short sentence.
   * @param data - Optional details.
   */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "McpProtocolError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }

  /**
   * True for an `McpProtocolError` of any copy of acp-kit loaded in this process, not
   * only of this one.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(this, McpProtocolError, MCP_PROTOCOL_ERROR, value);
  }

  /** The MCP error object this error stands for. */
  toMcpError(): McpErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
setBrand(McpProtocolError, MCP_PROTOCOL_ERROR);

/** True for a JSON object (not `null`, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The MCP transports an agent advertises, read from its `initialize` answer: v1
 * `agentCapabilities.mcpCapabilities` or v2 `capabilities.session.mcp` (a marker object
 * per transport).
 *
 * @param initializeResponse - The agent's `initialize` answer (v1 or v2).
 */
export function agentMcpTransports(initializeResponse: unknown): {
  readonly acp: boolean;
  readonly http: boolean;
} {
  const answer = isJsonObject(initializeResponse) ? initializeResponse : {};
  const v1 = isJsonObject(answer.agentCapabilities) ? answer.agentCapabilities : {};
  const v1Mcp = isJsonObject(v1.mcpCapabilities) ? v1.mcpCapabilities : {};
  const v2 = isJsonObject(answer.capabilities) ? answer.capabilities : {};
  const v2Session = isJsonObject(v2.session) ? v2.session : {};
  const v2Mcp = isJsonObject(v2Session.mcp) ? v2Session.mcp : {};
  const has = (name: string): boolean =>
    v1Mcp[name] === true ||
    (v2Mcp[name] !== undefined && v2Mcp[name] !== null && v2Mcp[name] !== false);
  return { acp: has("acp"), http: has("http") };
}

function isMcpError(value: unknown): value is McpErrorObject {
  return isJsonObject(value) && Number.isInteger(value.code) && typeof value.message === "string";
}

/**
 * Reads a received `mcp/message` answer as an {@link McpOutcome}: `result` wins when both
 * are present; `undefined` when it carries neither a `result` nor a valid `error`.
 *
 * @param value - The ACP result of an `mcp/message` request.
 */
export function parseMcpOutcome(value: unknown): McpOutcome | undefined {
  if (!isJsonObject(value)) return undefined;
  const meta = value._meta;
  const carrier = isJsonObject(meta) ? { _meta: meta } : {};
  if (Object.hasOwn(value, "result")) return { result: value.result, ...carrier };
  if (isMcpError(value.error)) return { error: value.error, ...carrier };
  return undefined;
}

/**
 * The outcome to send, when `outcome` is one the binding allows a sender to send: exactly
 * one of a defined `result` or a valid `error`.
 */
export function validOutgoingOutcome(outcome: unknown): McpOutcome | undefined {
  if (!isJsonObject(outcome)) return undefined;
  const hasResult = Object.hasOwn(outcome, "result");
  if (hasResult === Object.hasOwn(outcome, "error")) return undefined;
  if (hasResult ? outcome.result === undefined : !isMcpError(outcome.error)) return undefined;
  return parseMcpOutcome(outcome);
}

/** What a caller puts in every request's inner `_meta` unless the params already do. */
export interface McpRequestMetaOptions {
  /** The MCP client capabilities (default `{}`). */
  readonly clientCapabilities?: Record<string, unknown>;
  /** The MCP client info (sent only when given). */
  readonly clientInfo?: McpClientInfo;
}

/**
 * `params` with the inner `_meta` MCP 2026-07-28 requires of every request (the protocol
 * version and the client capabilities, and the client info when given), keeping any
 * value the params already carry.
 *
 * @param params - The MCP request's params (`undefined` or `null`: none).
 * @param options - The client capabilities and info to add.
 */
export function withMcpRequestMeta(
  params: Record<string, unknown> | null | undefined,
  options: McpRequestMetaOptions = {},
): Record<string, unknown> {
  const base = params ?? {};
  const meta: Record<string, unknown> = isJsonObject(base._meta) ? { ...base._meta } : {};
  if (!Object.hasOwn(meta, MCP_META_PROTOCOL_VERSION))
    meta[MCP_META_PROTOCOL_VERSION] = MCP_PROTOCOL_VERSION;
  if (!Object.hasOwn(meta, MCP_META_CLIENT_CAPABILITIES))
    meta[MCP_META_CLIENT_CAPABILITIES] = options.clientCapabilities ?? {};
  if (options.clientInfo !== undefined && !Object.hasOwn(meta, MCP_META_CLIENT_INFO))
    meta[MCP_META_CLIENT_INFO] = options.clientInfo;
  return { ...base, _meta: meta };
}

/**
 * True for an `mcpServers` entry that declares an MCP server reached over ACP
 * (`{ type: "acp", name, serverId }`).
 *
 * @param server - One entry of `mcpServers`.
 */
export function isAcpMcpServer(server: unknown): server is McpServerAcpDeclaration {
  return (
    isJsonObject(server) &&
    server.type === "acp" &&
    typeof server.name === "string" &&
    typeof server.serverId === "string"
  );
}

/**
 * The MCP servers reached over ACP that `session/new`, `session/load`, `session/resume` or
 * `session/fork` params declare, in their order.
 *
 * @param params - The session request's params (anything with `mcpServers`).
 */
export function acpMcpServers(params: {
  readonly mcpServers?: readonly unknown[] | null;
}): McpServerAcpDeclaration[] {
  return (params.mcpServers ?? []).filter(isAcpMcpServer);
}

/** A fresh id `<prefix>:<uuid>`, the shape the official SDK uses for ids it picks. */
export function freshId(prefix: string): string {
  return `${prefix}:${globalThis.crypto.randomUUID()}`;
}
