/**
 * {@link McpCaller}: the agent side of MCP-over-ACP. It sends MCP requests to the servers
 * a client declared with `type: "acp"`, and routes their notifications back.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import { ConnectionError, RequestError } from "../jsonrpc/errors.js";
import type * as schema from "../schema/types.gen.js";
import {
  McpBindingErrorCodes,
  freshId,
  parseMcpOutcome,
  withMcpRequestMeta,
  type McpClientInfo,
  type McpOutcome,
} from "./binding.js";

/**
 * Where a caller sends its requests: the connection to the client (or proxy) that
 * provides the servers. v1 and v2 `AgentSideConnection` are one.
 */
export interface McpRequestSender {
  /** Sends one `mcp/message` request and resolves with its ACP result. */
  unstable_messageMcp(
    params: schema.MessageMcpRequest,
    options?: SendRequestOptions,
  ): Promise<schema.MessageMcpResponse>;
}

/** A notification the provider sent for a request in flight. */
export interface McpNotification {
  /** The MCP method, such as `notifications/progress`. */
  readonly method: string;
  /** The MCP params, when sent. */
  readonly params?: Record<string, unknown>;
  /** The envelope's own (outer) `_meta`, when sent. */
  readonly _meta?: Record<string, unknown>;
}

/** What every request of a caller carries in its inner `_meta`. */
export interface McpCallerOptions {
  /** The MCP client capabilities (default `{}`). */
  readonly clientCapabilities?: Record<string, unknown>;
  /** The MCP client info (sent only when given). */
  readonly clientInfo?: McpClientInfo;
}

/** Options of one request. */
export interface McpCallOptions {
  /**
   * The logical request id (default `mcp-request:<uuid>`). It must not be active for the
   * same server already; it stays the same across proxies.
   */
  readonly requestId?: string;
  /** Aborting it sends `$/cancel_request` and rejects the request. */
  readonly signal?: AbortSignal;
  /** Receives the request's notifications (progress, subscription events) until it settles. */
  readonly onNotification?: (notification: McpNotification) => void;
  /** The envelope's own (outer) `_meta`, apart from the MCP params' `_meta`. */
  readonly _meta?: Record<string, unknown>;
  /** Milliseconds to wait for the answer (the connection's default otherwise). */
  readonly timeoutMs?: number;
}

/**
 * Calls the MCP servers a client (or proxy) declared with `type: "acp"`. Create one per
 * connection and give the agent its {@link McpCaller.attach} handler, so that progress
 * notifications reach the request they belong to.
 *
 * A request resolves with the MCP outcome: `{ result }`, or `{ error }` for an MCP
 * error. It rejects with a {@link RequestError} for an ACP error: a failure of the
 * binding (`-33001` unknown server, `-33000` limit, `-32602` duplicate id, `-32800`
 * cancelled, `-33002` backend failure) or of the connection.
 *
 * ```ts
 * const mcp = new McpCaller({ clientInfo: { name: "my-agent", version: "1.0.0" } });
 * new AgentSideConnection((client) => ({ ...myAgent, unstable_messageMcp: mcp.attach(client) }), stream);
 * // in session/new:
 * for (const server of acpMcpServers(params)) {
 *   const tools = await mcp.request(server.serverId, "tools/list");
 * }
 * ```
 */
export class McpCaller {
  private readonly listeners = new Map<string, (notification: McpNotification) => void>();
  private sender: McpRequestSender | undefined;

  /**
   * Creates a caller.
   *
   * @param options - The client capabilities and info sent with every request.
   * @param sender - The connection to the client; or give it later to {@link McpCaller.attach}.
   */
  constructor(
    private readonly options: McpCallerOptions = {},
    sender?: McpRequestSender,
  ) {
    this.sender = sender;
  }

  /**
   * Sets the connection requests go to, and returns the `mcp/message` notification
   * handler to put in the agent as `unstable_messageMcp`.
   *
   * @param sender - The connection to the client (v1 or v2 `AgentSideConnection`).
   */
  attach(sender: McpRequestSender): McpCaller["handleNotification"] {
    this.sender = sender;
    return this.handleNotification;
  }

  /**
   * Sends one MCP request to a declared server and resolves with its MCP outcome. The
   * inner `_meta` MCP 2026-07-28 requires is added unless `params` carry it.
   *
   * @param serverId - The server's id, from its declaration.
   * @param method - The MCP method (`server/discover`, `tools/list`, `tools/call`, ...).
   * @param params - The MCP params.
   * @param options - The request id, cancellation, notifications and outer `_meta`.
   * @throws RequestError for an ACP error (see {@link McpCaller}).
   * @throws Error when no connection is attached, or `requestId` is active for that server.
   */
  async request(
    serverId: string,
    method: string,
    params?: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<McpOutcome> {
    const sender = this.sender;
    if (sender === undefined) throw new Error("McpCaller: no connection attached");
    const requestId = options.requestId ?? freshId("mcp-request");
    const key = routeKey(serverId, requestId);
    if (this.listeners.has(key))
      throw new Error(`MCP request ${requestId} is already active for server ${serverId}`);
    this.listeners.set(key, options.onNotification ?? ignore);
    try {
      const answer: unknown = await sendRequest(
        sender,
        {
          serverId,
          requestId,
          method,
          params: withMcpRequestMeta(params, this.options),
          ...(options._meta === undefined ? {} : { _meta: options._meta }),
        },
        {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        },
      );
      const outcome = parseMcpOutcome(answer);
      if (outcome === undefined) throw invalidCarrier(answer);
      return outcome;
    } finally {
      this.listeners.delete(key);
    }
  }

  /**
   * Routes one `mcp/message` notification to the request it belongs to, as the
   * connection's `unstable_messageMcp` handler; one for no request in flight is dropped.
   *
   * @param params - The notification's params.
   */
  readonly handleNotification = (params: schema.MessageMcpNotification): void => {
    const listener = this.listeners.get(routeKey(params.serverId, params.requestId));
    if (listener === undefined) return;
    listener({
      method: params.method,
      ...(params.params == null ? {} : { params: params.params }),
      ...(params._meta == null ? {} : { _meta: params._meta }),
    });
  };
}

/** Sends the request; a result that is no carrier fails as `-33002`, as the SDK's caller does. */
async function sendRequest(
  sender: McpRequestSender,
  params: schema.MessageMcpRequest,
  options: SendRequestOptions,
): Promise<unknown> {
  try {
    return await sender.unstable_messageMcp(params, options);
  } catch (error) {
    if (
      error instanceof ConnectionError &&
      error.code === "invalid_response" &&
      "received" in error
    )
      throw invalidCarrier(error.received);
    throw error;
  }
}

function invalidCarrier(response: unknown): RequestError {
  return new RequestError(
    McpBindingErrorCodes.BACKEND_FAILED,
    "Invalid MCP-over-ACP response carrier",
    { response },
  );
}

function ignore(): void {
  // A request nobody listens to drops its notifications.
}

function routeKey(serverId: string, requestId: string): string {
  return JSON.stringify([serverId, requestId]);
}
