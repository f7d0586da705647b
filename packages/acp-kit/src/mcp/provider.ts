/**
 * {@link McpProvider}: the provider side of MCP-over-ACP, for clients and proxies. It
 * holds the MCP servers registered on one ACP connection and answers the agent's
 * `mcp/message` requests for them.
 *
 * @module
 */
import type { MaybePromise } from "../base/messages.js";
import { RequestError } from "../jsonrpc/errors.js";
import type * as schema from "../schema/types.gen.js";
import {
  MCP_META_CLIENT_CAPABILITIES,
  MCP_META_CLIENT_INFO,
  MCP_META_PROTOCOL_VERSION,
  MCP_PROTOCOL_VERSION,
  McpBindingErrorCodes,
  McpProtocolError,
  freshId,
  isJsonObject,
  validOutgoingOutcome,
  type McpOutcome,
  type McpServerAcpDeclaration,
} from "./binding.js";

/**
 * Where a provider sends the notifications of a request (progress, subscription events):
 * the connection to the agent. v1 and v2 `ClientSideConnection` are one (and so is the
 * `Agent` a v1 `ClientSideConnection` hands its `toClient`).
 */
export interface McpNotificationSink {
  /** Sends one `mcp/message` notification to the agent (absent: notifications are dropped). */
  unstable_messageMcp?(params: schema.MessageMcpNotification): MaybePromise<void>;
}

/** What a server handler receives for one MCP request. */
export interface McpRequestContext {
  /** The server the request is for. */
  readonly serverId: string;
  /** The caller's logical request id (also the inner MCP request id). */
  readonly requestId: string;
  /** The MCP method, such as `tools/call` or `server/discover`. */
  readonly method: string;
  /** The MCP params, inner `_meta` included (`null` and absent are both `undefined`). */
  readonly params: Record<string, unknown> | undefined;
  /** The MCP revision from the inner `_meta` (always {@link MCP_PROTOCOL_VERSION}). */
  readonly protocolVersion: string;
  /** The caller's MCP client capabilities from the inner `_meta`. */
  readonly clientCapabilities: Record<string, unknown>;
  /** The caller's MCP client info from the inner `_meta`, when sent. */
  readonly clientInfo: unknown;
  /** The envelope's own (outer) `_meta`, when sent. */
  readonly envelopeMeta: Record<string, unknown> | undefined;
  /**
   * Aborts when the caller cancels the request (`$/cancel_request`), the registration is
   * disposed, or the connection closes. A handler that then fails is answered `-32800`.
   */
  readonly signal: AbortSignal;
  /**
   * Sends an MCP notification tied to this request (for example
   * `notifications/progress`); dropped once the request is answered.
   */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
}

/**
 * Answers one MCP request: return the outcome (`{ result }` or `{ error }`), or throw an
 * {@link McpProtocolError} for an MCP error. Any other failure is answered with the outer
 * `-33002` (or `-32800` once the request was cancelled).
 */
export type McpRequestHandler = (context: McpRequestContext) => MaybePromise<McpOutcome>;

/** How to register an MCP server on a provider. */
export interface McpServerOptions {
  /** The server's name, as declared in `mcpServers`. */
  readonly name: string;
  /** Answers the server's requests (see {@link fromFetchHandler} for an MCP SDK server). */
  readonly handler: McpRequestHandler;
  /**
   * The server id (default `<name>:<uuid>`). It is used once per connection: an id
   * registered before, disposed or not, is refused.
   */
  readonly serverId?: string;
  /** Requests active at once before the next is refused with `-33000` (default 64). */
  readonly maxActiveRequests?: number;
}

/** The default of {@link McpServerOptions.maxActiveRequests}. */
export const DEFAULT_MAX_ACTIVE_MCP_REQUESTS = 64;

/** How {@link McpProvider.serve} reports a request's notifications. */
export interface McpServeOptions {
  /** Aborts the request (as `$/cancel_request` does). */
  readonly signal?: AbortSignal;
  /**
   * Receives the request's notifications (default: sent to the attached connection as
   * `mcp/message` notifications).
   */
  readonly notify?: (notification: schema.MessageMcpNotification) => MaybePromise<void>;
}

interface ActiveRequest {
  readonly settled: Promise<unknown>;
}

interface Registered {
  readonly serverId: string;
  readonly handler: McpRequestHandler;
  readonly maxActiveRequests: number;
  readonly active: Map<string, ActiveRequest>;
  readonly disposed: AbortController;
}

/** A failure found by the binding itself, answered `-33002` with no data. */
class InvalidOutcome extends Error {}

/**
 * The MCP servers registered on one ACP connection, served over `mcp/message`. Create one
 * per connection, give the connection its {@link McpProvider.attach} handler, and
 * register servers; a server answers as soon as it is registered, so an agent may call it
 * before it answers the `session/new` that declares it.
 *
 * ```ts
 * const mcp = new McpProvider();
 * const agent = new ClientSideConnection(
 *   (agent) => ({ ...myClient, unstable_messageMcp: mcp.attach(agent) }),
 *   stream,
 * );
 * const tools = mcp.register({ name: "tools", handler });
 * await agent.newSession({ cwd, mcpServers: [tools.declaration] });
 * ```
 */
export class McpProvider {
  private readonly servers = new Map<string, Registered>();
  private readonly usedIds = new Set<string>();
  private sink: McpNotificationSink | undefined;

  /**
   * Creates a provider with no servers.
   *
   * @param sink - The connection to the agent; or give it later to {@link McpProvider.attach}.
   */
  constructor(sink?: McpNotificationSink) {
    this.sink = sink;
  }

  /**
   * Sets the connection that notifications go to, and returns the `mcp/message` request
   * handler to put in the client as `unstable_messageMcp`.
   *
   * @param sink - The connection to the agent (v1 or v2 `ClientSideConnection`).
   */
  attach(sink: McpNotificationSink): McpProvider["handleRequest"] {
    this.sink = sink;
    return this.handleRequest;
  }

  /**
   * Registers an MCP server. It serves requests at once; put its
   * {@link McpServerRegistration.declaration} in a session's `mcpServers`.
   *
   * @param options - Its name, handler and optional id and limit.
   * @throws Error when the id was registered before on this provider.
   * @throws RangeError when `maxActiveRequests` is not a positive integer.
   */
  register(options: McpServerOptions): McpServerRegistration {
    const serverId = options.serverId ?? freshId(options.name);
    if (this.usedIds.has(serverId))
      throw new Error(`MCP server id ${serverId} was already registered on this connection`);
    const maxActiveRequests = options.maxActiveRequests ?? DEFAULT_MAX_ACTIVE_MCP_REQUESTS;
    if (!Number.isInteger(maxActiveRequests) || maxActiveRequests < 1)
      throw new RangeError("maxActiveRequests must be a positive integer");
    this.usedIds.add(serverId);
    const entry: Registered = {
      serverId,
      handler: options.handler,
      maxActiveRequests,
      active: new Map(),
      disposed: new AbortController(),
    };
    this.servers.set(serverId, entry);
    return new McpServerRegistration(options.name, serverId, async () => {
      if (this.servers.get(serverId) !== entry) return;
      this.servers.delete(serverId);
      entry.disposed.abort(new Error(`MCP server ${serverId} was disposed`));
      await Promise.allSettled([...entry.active.values()].map((request) => request.settled));
    });
  }

  /** True while a server is registered (and not disposed) under `serverId`. */
  has(serverId: string): boolean {
    return this.servers.has(serverId);
  }

  /** The ids of the servers registered now, in registration order. */
  get serverIds(): string[] {
    return [...this.servers.keys()];
  }

  /**
   * Answers one `mcp/message` request, as the connection's `unstable_messageMcp` handler:
   * resolves with the MCP outcome, rejects with a {@link RequestError} carrying the
   * binding's outer code.
   *
   * @param params - The request's params.
   * @param context - The request's context (its `signal` cancels the request).
   */
  readonly handleRequest = (
    params: schema.MessageMcpRequest,
    context?: { readonly signal?: AbortSignal },
  ): Promise<McpOutcome> => this.serve(params, { signal: context?.signal });

  /**
   * Serves one MCP request in process, with the same checks, limits and errors as over
   * the wire: for a bridge or a proxy that received the request some other way.
   *
   * @param params - The request, as an `mcp/message` envelope.
   * @param options - Its cancellation signal, and where its notifications go.
   */
  async serve(
    params: schema.MessageMcpRequest,
    options: McpServeOptions = {},
  ): Promise<McpOutcome> {
    const { serverId, requestId } = params;
    const server = this.servers.get(serverId);
    if (server === undefined)
      throw new RequestError(
        McpBindingErrorCodes.SERVER_UNAVAILABLE,
        "MCP server registration unavailable",
        { serverId },
      );
    if (server.active.has(requestId))
      throw RequestError.invalidParams({ serverId, requestId }, "duplicate active MCP request ID");
    if (server.active.size >= server.maxActiveRequests)
      throw new RequestError(
        McpBindingErrorCodes.RESOURCE_LIMIT_EXCEEDED,
        "MCP-over-ACP active request limit exceeded",
        { serverId },
      );
    const { signal, unlink } = linkedSignal(server.disposed.signal, options.signal);
    const state = { done: false };
    const send =
      options.notify ??
      ((notification: schema.MessageMcpNotification) =>
        this.sink?.unstable_messageMcp?.(notification));
    const settled = this.run(server, params, signal, state, send);
    server.active.set(requestId, { settled });
    try {
      return await settled;
    } catch (error) {
      throw outerError(error, signal);
    } finally {
      state.done = true;
      unlink();
      server.active.delete(requestId);
    }
  }

  private async run(
    server: Registered,
    params: schema.MessageMcpRequest,
    signal: AbortSignal,
    state: { done: boolean },
    send: (notification: schema.MessageMcpNotification) => MaybePromise<void>,
  ): Promise<McpOutcome> {
    // Let the request count as active before anything of it runs.
    await Promise.resolve();
    const inner = params.params ?? undefined;
    const meta = isJsonObject(inner?._meta) ? inner._meta : undefined;
    const protocolVersion = meta?.[MCP_META_PROTOCOL_VERSION];
    const clientCapabilities = meta?.[MCP_META_CLIENT_CAPABILITIES];
    if (typeof protocolVersion !== "string")
      return invalidInnerParams(`missing ${MCP_META_PROTOCOL_VERSION} in params._meta`);
    if (protocolVersion !== MCP_PROTOCOL_VERSION)
      return {
        error: {
          code: -32022,
          message: "Unsupported protocol version",
          data: { supported: [MCP_PROTOCOL_VERSION], requested: protocolVersion },
        },
      };
    if (!isJsonObject(clientCapabilities))
      return invalidInnerParams(`missing ${MCP_META_CLIENT_CAPABILITIES} in params._meta`);
    if (signal.aborted) throw signal.reason;
    const { serverId, requestId } = params;
    let outcome: unknown;
    try {
      outcome = await server.handler({
        serverId,
        requestId,
        method: params.method,
        params: inner,
        protocolVersion,
        clientCapabilities,
        clientInfo: meta?.[MCP_META_CLIENT_INFO],
        envelopeMeta: params._meta ?? undefined,
        signal,
        async notify(method, notificationParams) {
          if (state.done) return;
          await send({
            serverId,
            requestId,
            method,
            ...(notificationParams === undefined ? {} : { params: notificationParams }),
          });
        },
      });
    } catch (error) {
      if (!(error instanceof McpProtocolError)) throw error;
      outcome = { error: error.toMcpError() };
    }
    const valid = validOutgoingOutcome(outcome);
    if (valid === undefined)
      throw new InvalidOutcome(
        "MCP server handler produced an invalid outcome: expected exactly one of a defined `result` or an `error` with an integer `code` and string `message`",
      );
    return valid;
  }
}

/** A signal that aborts with the first of `sources` to abort, and how to let go of them. */
function linkedSignal(...sources: (AbortSignal | undefined)[]): {
  signal: AbortSignal;
  unlink: () => void;
} {
  const controller = new AbortController();
  const links: (() => void)[] = [];
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      continue;
    }
    const onAbort = (): void => controller.abort(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    links.push(() => source.removeEventListener("abort", onAbort));
  }
  return { signal: controller.signal, unlink: () => links.forEach((unlink) => unlink()) };
}

function invalidInnerParams(message: string): McpOutcome {
  return { error: { code: -32602, message: `Invalid params: ${message}` } };
}

/** The outer ACP error a failed request is answered with. */
function outerError(error: unknown, signal: AbortSignal): RequestError {
  if (
    signal.aborted ||
    (error instanceof RequestError && error.code === McpBindingErrorCodes.REQUEST_CANCELLED)
  )
    return RequestError.requestCancelled();
  if (error instanceof InvalidOutcome)
    return new RequestError(McpBindingErrorCodes.BACKEND_FAILED, error.message);
  // A handler's own ACP error never poses as a binding error.
  return new RequestError(McpBindingErrorCodes.BACKEND_FAILED, "MCP server handler failed", {
    details: error instanceof Error ? error.message : String(error),
    ...(error instanceof RequestError ? { code: error.code } : {}),
  });
}

/** One MCP server registered on a provider: its declaration, and how to remove it. */
export class McpServerRegistration {
  /**
   * Wraps a registration (made by {@link McpProvider.register}).
   *
   * @param name - The server's name.
   * @param serverId - Its id, unique on the connection.
   * @param release - Removes it.
   */
  constructor(
    readonly name: string,
    readonly serverId: string,
    private readonly release: () => Promise<void>,
  ) {}

  /** The entry to put in a session's `mcpServers`: `{ type: "acp", name, serverId }`. */
  get declaration(): McpServerAcpDeclaration {
    return { type: "acp", name: this.name, serverId: this.serverId };
  }

  /**
   * Removes the server: later requests are answered `-33001`, requests in flight are
   * aborted (a handler that then fails is answered `-32800`). Resolves once their
   * handlers have settled. The id is never registered again on this provider.
   */
  dispose(): Promise<void> {
    return this.release();
  }

  /** The same as {@link McpServerRegistration.dispose}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
