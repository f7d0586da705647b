/**
 * {@link McpHttpBridge}: a loopback MCP HTTP endpoint that carries an agent's MCP requests
 * to servers declared with `type: "acp"`, for agents whose MCP client only takes URLs (or,
 * through the stdio shim, only commands).
 *
 * @module
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

import { RequestError } from "../../jsonrpc/errors.js";
import {
  MCP_META_CLIENT_CAPABILITIES,
  MCP_META_CLIENT_INFO,
  MCP_META_PROTOCOL_VERSION,
  MCP_PROTOCOL_VERSION,
  McpBindingErrorCodes,
  freshId,
  isAcpMcpServer,
  isJsonObject,
  type McpOutcome,
  type McpServerAcpDeclaration,
} from "../../mcp/binding.js";
import type { McpNotification } from "../../mcp/caller.js";
import type { McpProvider } from "../../mcp/provider.js";
import type * as schema from "../../schema/types.gen.js";
import {
  PARSE_ERROR,
  checkBody,
  isRefusal,
  parseJson,
  rewriteSubscriptionId,
  terminalStatus,
  type BodyRequest,
} from "./body.js";
import {
  BodyTooLarge,
  checkTransport,
  drain,
  jsonRpcError,
  readBody,
  sendJson,
  sendRefusal,
  serverRoute,
  serverToken,
  singleHeader,
  stripHeaderAnnotations,
  validRequestId,
  type JsonRpcId,
} from "./http-checks.js";

/** Options of one request the bridge forwards. */
export interface McpBridgeCallOptions {
  /** The logical request id (`mcp-http:<uuid>`). */
  readonly requestId: string;
  /** Aborts when the HTTP response closes early: send `$/cancel_request`. */
  readonly signal: AbortSignal;
  /** Receives the request's notifications (progress, subscription events). */
  readonly onNotification: (notification: McpNotification) => void;
}

/**
 * Where the bridge sends the MCP requests it receives: an `McpCaller` (an agent, or
 * a proxy stage, sending `mcp/message` to the client), or {@link mcpProviderTarget} (a
 * client serving its own {@link McpProvider} in process). It resolves with the MCP
 * outcome and rejects with a `RequestError` for a binding error.
 */
export interface McpBridgeTarget {
  /** Sends one MCP request to a declared server. */
  request(
    serverId: string,
    method: string,
    params: Record<string, unknown> | undefined,
    options: McpBridgeCallOptions,
  ): Promise<McpOutcome>;
}

/**
 * A bridge target that serves the requests with a provider in this process (no ACP
 * hop): for a client that bridges its own servers to an agent without `acp` support.
 *
 * @param provider - The provider the servers are registered on.
 */
export function mcpProviderTarget(provider: McpProvider): McpBridgeTarget {
  return {
    request: (serverId, method, params, { requestId, signal, onNotification }) =>
      provider.serve(
        { serverId, requestId, method, ...(params === undefined ? {} : { params }) },
        {
          signal,
          notify: (notification) => {
            onNotification({
              method: notification.method,
              ...(notification.params == null ? {} : { params: notification.params }),
              ...(notification._meta == null ? {} : { _meta: notification._meta }),
            });
          },
        },
      ),
  };
}

/** Limits and behaviour of an {@link McpHttpBridge}. */
export interface McpHttpBridgeOptions {
  /** HTTP requests in progress at once, per bridge (default 64); more get 429. */
  readonly maxActiveRequests?: number;
  /** The largest request body in bytes (default 1 MiB); larger ones get 413. */
  readonly maxRequestBodyBytes?: number;
  /** The most bytes an event stream may hold unsent (default 1 MiB) before it ends with `-33000`. */
  readonly maxBufferedResponseBytes?: number;
  /**
   * Serve MCP clients of the 2025 revisions too (default true): an `initialize` answered
   * from `server/discover`, then requests in an `Mcp-Session-Id` session. With false, the
   * bridge answers exactly as the official SDK's does (2026-07-28 only).
   */
  readonly legacyClients?: boolean;
  /** Milliseconds between `: keepalive` comments on event streams (default 15000). */
  readonly keepaliveMs?: number;
  /** Closes the bridge when it aborts (pass the connection's, so both close together). */
  readonly signal?: AbortSignal;
}

/** Where a shim entry runs the stdio shim: `command args... --url URL --token-env NAME`. */
export interface McpStdioShimCommand {
  /** The program, for example `acp-kit` or `process.execPath`. */
  readonly command: string;
  /** Arguments before the shim's own (`["mcp-shim"]` for `acp-kit`). */
  readonly args?: readonly string[];
}

/** The environment variable a stdio shim entry passes the bearer token in. */
export const MCP_SHIM_TOKEN_ENV = "ACP_KIT_MCP_BRIDGE_TOKEN";

/** The MCP revisions of the 2025 era the front end negotiates (the newest last). */
const LEGACY_REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/** How many 2025-era sessions a bridge remembers (the oldest are forgotten first). */
const MAX_SESSIONS = 1024;

interface LegacySession {
  readonly serverId: string;
  readonly clientInfo: unknown;
  /** The requests in flight, by JSON id, for `notifications/cancelled`. */
  readonly inFlight: Map<string, AbortController>;
}

interface Listener {
  readonly server: Server;
  readonly port: number;
}

/**
 * A loopback MCP endpoint per ACP connection: each `acp` declaration becomes an `http`
 * one (`http://127.0.0.1:<port>/mcp-<base64url(serverId)>` with a bearer token derived by
 * HMAC from a per-bridge secret), and each HTTP POST becomes one MCP request to the
 * {@link McpBridgeTarget}. MCP 2026-07-28 requests get exactly the answers of the official
 * SDK's bridge; MCP clients of the 2025 revisions get an `initialize`-based session on the
 * same listener (see docs/mcp.md, "The bridge").
 *
 * ```ts
 * const caller = new McpCaller({ clientInfo });
 * const bridge = new McpHttpBridge(caller, { signal: connectionClosed });
 * // in session/new:
 * const mcpServers = await bridge.adaptServers(params.mcpServers);
 * ```
 */
export class McpHttpBridge implements AsyncDisposable {
  private readonly secret = randomBytes(32);
  private readonly maxActiveRequests: number;
  private readonly maxRequestBodyBytes: number;
  private readonly maxBufferedResponseBytes: number;
  private readonly legacyClients: boolean;
  private readonly keepaliveMs: number;
  private readonly sessions = new Map<string, LegacySession>();
  private listening: Promise<Listener> | undefined;
  private active = 0;
  private closed = false;

  /**
   * Creates a bridge; it listens from the first {@link McpHttpBridge.start} or rewrite.
   *
   * @param target - Where the MCP requests go (an `McpCaller`, or {@link mcpProviderTarget}).
   * @param options - Limits, the 2025-era front end, and the signal that closes it.
   */
  constructor(
    private readonly target: McpBridgeTarget,
    options: McpHttpBridgeOptions = {},
  ) {
    this.maxActiveRequests = positiveInteger("maxActiveRequests", options.maxActiveRequests ?? 64);
    this.maxRequestBodyBytes = positiveInteger(
      "maxRequestBodyBytes",
      options.maxRequestBodyBytes ?? 1024 * 1024,
    );
    this.maxBufferedResponseBytes = positiveInteger(
      "maxBufferedResponseBytes",
      options.maxBufferedResponseBytes ?? 1024 * 1024,
    );
    this.legacyClients = options.legacyClients ?? true;
    this.keepaliveMs = positiveInteger("keepaliveMs", options.keepaliveMs ?? 15_000);
    const signal = options.signal;
    if (signal !== undefined) {
      if (signal.aborted) this.closed = true;
      else signal.addEventListener("abort", () => void this.close(), { once: true });
    }
  }

  /** Starts listening on `127.0.0.1` (a free port) if not yet, and resolves with the port. */
  async start(): Promise<number> {
    if (this.closed) throw new Error("The MCP bridge is closed");
    this.listening ??= this.listen();
    try {
      return (await this.listening).port;
    } catch (error) {
      this.listening = undefined;
      throw error;
    }
  }

  /** The endpoint of a server: its URL and bearer token. Starts the listener if needed. */
  async endpoint(serverId: string): Promise<{ readonly url: string; readonly token: string }> {
    const port = await this.start();
    return {
      url: `http://127.0.0.1:${port}/${serverRoute(serverId)}`,
      token: serverToken(this.secret, serverId).toString("base64url"),
    };
  }

  /**
   * The `http` declaration that serves an `acp` one through this bridge, with its name and
   * `_meta`.
   *
   * @param server - The `acp` declaration.
   */
  async toHttp(server: McpServerAcpDeclaration): Promise<schema.McpServerHttp & { type: "http" }> {
    const { url, token } = await this.endpoint(server.serverId);
    return {
      type: "http",
      name: server.name,
      url,
      headers: [{ name: "Authorization", value: `Bearer ${token}` }],
      ...(server._meta == null ? {} : { _meta: server._meta }),
    };
  }

  /**
   * The stdio declaration that serves an `acp` one through the stdio shim and this bridge:
   * `command args... --url URL --token-env ACP_KIT_MCP_BRIDGE_TOKEN`, the token in `env`
   * (never in the arguments).
   *
   * @param server - The `acp` declaration.
   * @param shim - How to run the shim (for example `{ command: "acp-kit", args: ["mcp-shim"] }`).
   */
  async toStdio(
    server: McpServerAcpDeclaration,
    shim: McpStdioShimCommand,
  ): Promise<schema.McpServerStdio> {
    const { url, token } = await this.endpoint(server.serverId);
    return {
      name: server.name,
      command: shim.command,
      args: [...(shim.args ?? []), "--url", url, "--token-env", MCP_SHIM_TOKEN_ENV],
      env: [{ name: MCP_SHIM_TOKEN_ENV, value: token }],
      ...(server._meta == null ? {} : { _meta: server._meta }),
    };
  }

  /**
   * `servers` with every `acp` entry replaced by one this bridge serves: an `http` entry,
   * or a stdio shim entry when `stdioShim` is given. Other entries are kept.
   *
   * @param servers - A session request's `mcpServers`.
   * @param stdioShim - Rewrite into stdio shim entries run by this command instead.
   */
  async adaptServers(
    servers: readonly schema.McpServer[],
    stdioShim?: McpStdioShimCommand,
  ): Promise<schema.McpServer[]> {
    return Promise.all(
      servers.map(async (server) => {
        if (!isAcpMcpServer(server)) return server;
        return stdioShim === undefined ? this.toHttp(server) : this.toStdio(server, stdioShim);
      }),
    );
  }

  /** Stops listening and drops every open HTTP connection (their requests are cancelled). */
  async close(): Promise<void> {
    this.closed = true;
    const listening = this.listening;
    this.listening = undefined;
    if (listening === undefined) return;
    const listener = await listening.catch(() => undefined);
    if (listener === undefined) return;
    await new Promise<void>((resolve) => {
      listener.server.close(() => {
        resolve();
      });
      listener.server.closeAllConnections();
    });
  }

  /** Same as {@link McpHttpBridge.close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async listen(): Promise<Listener> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) sendJson(res, 500, jsonRpcError(null, -33002, "MCP bridge failure"));
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    // Later errors (EMFILE on accept) must not crash the process.
    server.on("error", ignore);
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    if (this.closed) {
      server.close();
      throw new Error("The MCP bridge is closed");
    }
    return { server, port };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const checked = checkTransport(req, this.secret);
    const sessionHeader = this.legacyClients ? singleHeader(req, "mcp-session-id") : undefined;
    if ("refusal" in checked) {
      const { refusal } = checked;
      // A 2025-era session may end itself with DELETE; other methods stay refused.
      if (
        sessionHeader !== undefined &&
        refusal.status === 405 &&
        req.method === "DELETE" &&
        this.sessions.has(sessionHeader)
      ) {
        this.sessions.delete(sessionHeader);
        drain(req);
        res.writeHead(200).end();
        return;
      }
      drain(req);
      sendRefusal(res, refusal, null);
      return;
    }
    const { serverId } = checked;
    if (this.active >= this.maxActiveRequests) {
      drain(req);
      sendRefusal(
        res,
        {
          status: 429,
          code: McpBindingErrorCodes.RESOURCE_LIMIT_EXCEEDED,
          message: "Too many outstanding MCP responses",
        },
        null,
      );
      return;
    }
    this.active += 1;
    res.once("close", () => {
      this.active -= 1;
    });
    let body: string;
    try {
      body = await readBody(req, this.maxRequestBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        sendRefusal(
          res,
          {
            status: 413,
            code: McpBindingErrorCodes.RESOURCE_LIMIT_EXCEEDED,
            message: "Request body too large",
          },
          null,
        );
        drain(req);
      } else res.destroy();
      return;
    }
    const parsed = parseJson(body);
    if (sessionHeader !== undefined) {
      await this.handleSession(sessionHeader, serverId, parsed, res);
      return;
    }
    if (parsed === undefined) {
      sendRefusal(res, PARSE_ERROR, PARSE_ERROR.id);
      return;
    }
    if (this.legacyClients && isLegacyInitialize(parsed.value)) {
      await this.initializeSession(serverId, parsed.value, res);
      return;
    }
    const request = checkBody(parsed.value, req);
    if (isRefusal(request)) {
      sendRefusal(res, request, request.id);
      return;
    }
    await this.forward(serverId, request, res);
  }

  /** Answers a 2025-era `initialize` from `server/discover`, and opens a session. */
  private async initializeSession(
    serverId: string,
    message: LegacyInitialize,
    res: ServerResponse,
  ): Promise<void> {
    const requested = message.params.protocolVersion;
    const protocolVersion = LEGACY_REVISIONS.includes(requested)
      ? requested
      : (LEGACY_REVISIONS.at(-1) ?? requested);
    const clientInfo = message.params.clientInfo;
    const abandon = abandonOnClose(res);
    let outcome: McpOutcome;
    try {
      outcome = await this.target.request(
        serverId,
        "server/discover",
        { _meta: requestMeta(clientInfo) },
        { requestId: freshId("mcp-http"), signal: abandon.signal, onNotification: ignore },
      );
    } catch (error) {
      if (!abandon.signal.aborted) sendJson(res, 200, projectBindingError(error, message.id));
      return;
    }
    if (abandon.signal.aborted) return;
    let discovered: Record<string, unknown> = { capabilities: { tools: {} } };
    if ("error" in outcome) {
      if (outcome.error.code !== -32601) {
        sendJson(res, 200, { jsonrpc: "2.0", id: message.id, error: outcome.error });
        return;
      }
    } else if (isJsonObject(outcome.result)) discovered = outcome.result;
    const meta = isJsonObject(discovered._meta) ? discovered._meta : {};
    const serverInfo = meta["io.modelcontextprotocol/serverInfo"] ?? discovered.serverInfo;
    const result: Record<string, unknown> = {
      protocolVersion,
      capabilities: isJsonObject(discovered.capabilities) ? discovered.capabilities : {},
      serverInfo: isJsonObject(serverInfo)
        ? serverInfo
        : { name: "acp-kit-mcp-bridge", version: "1.0.0" },
    };
    if (typeof discovered.instructions === "string") result.instructions = discovered.instructions;
    const sessionId = randomUUID();
    this.sessions.set(sessionId, { serverId, clientInfo, inFlight: new Map() });
    for (const key of this.sessions.keys()) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      this.sessions.delete(key);
    }
    sendJson(res, 200, { jsonrpc: "2.0", id: message.id, result }, { "mcp-session-id": sessionId });
  }

  /** A POST in a 2025-era session: notifications and responses 202, requests forwarded. */
  private async handleSession(
    sessionId: string,
    serverId: string,
    parsed: { readonly value: unknown } | undefined,
    res: ServerResponse,
  ): Promise<void> {
    if (parsed === undefined) {
      sendRefusal(res, PARSE_ERROR, PARSE_ERROR.id);
      return;
    }
    const message = parsed.value;
    if (isLegacyInitialize(message)) {
      await this.initializeSession(serverId, message, res);
      return;
    }
    const session = this.sessions.get(sessionId);
    if (session?.serverId !== serverId) {
      sendJson(res, 404, jsonRpcError(null, -32001, "Session not found"));
      return;
    }
    if (
      !isJsonObject(message) ||
      message.jsonrpc !== "2.0" ||
      (message.id !== undefined && !validRequestId(message.id))
    ) {
      sendJson(res, 400, jsonRpcError(null, -32600, "Expected one JSON-RPC message"));
      return;
    }
    const id = message.id;
    if (id === undefined || Object.hasOwn(message, "result") || Object.hasOwn(message, "error")) {
      // Notifications (initialized, cancelled, ...) and answers: accepted, nothing to say;
      // a cancellation cancels its request over ACP.
      if (message.method === "notifications/cancelled" && isJsonObject(message.params))
        session.inFlight.get(JSON.stringify(message.params.requestId))?.abort();
      res.writeHead(202).end();
      return;
    }
    if (typeof message.method !== "string") {
      sendJson(res, 400, jsonRpcError(id, -32600, "Missing method"));
      return;
    }
    if (message.params !== undefined && !isJsonObject(message.params)) {
      sendJson(res, 200, jsonRpcError(id, -32602, "Parameters must be an object"));
      return;
    }
    if (message.method === "ping") {
      sendJson(res, 200, { jsonrpc: "2.0", id, result: {} });
      return;
    }
    const params = isJsonObject(message.params) ? message.params : {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const key = JSON.stringify(id);
    const cancel = new AbortController();
    session.inFlight.set(key, cancel);
    try {
      await this.forward(
        serverId,
        {
          id,
          method: message.method,
          params: { ...params, _meta: { ...meta, ...requestMeta(session.clientInfo) } },
        },
        res,
        cancel.signal,
      );
    } finally {
      if (session.inFlight.get(key) === cancel) session.inFlight.delete(key);
    }
  }

  /**
   * Sends one request through the target and answers it, as JSON or as an event stream.
   * `cancel` is given for a 2025-era session's request (answered in that revision's terms):
   * aborting it cancels the request and ends the response without an answer.
   */
  private async forward(
    serverId: string,
    request: BodyRequest,
    res: ServerResponse,
    cancel?: AbortSignal,
  ): Promise<void> {
    const legacy = cancel !== undefined;
    const requestId = freshId("mcp-http");
    const abandon = abandonOnClose(res);
    cancel?.addEventListener("abort", () => abandon.abort(), { once: true });
    let stream: EventStream | undefined;
    const onNotification = (notification: McpNotification): void => {
      if (abandon.signal.aborted) return;
      stream ??= new EventStream(res, this.keepaliveMs);
      const params =
        notification.params === undefined
          ? undefined
          : rewriteSubscriptionId(notification.params, requestId, request.id);
      stream.write({
        jsonrpc: "2.0",
        method: notification.method,
        ...(params === undefined ? {} : { params }),
      });
      if (res.writableLength > this.maxBufferedResponseBytes) {
        abandon.abort();
        stream.end(
          jsonRpcError(
            request.id,
            McpBindingErrorCodes.RESOURCE_LIMIT_EXCEEDED,
            "MCP notification buffer overflow",
          ),
        );
      }
    };
    let terminal: Record<string, unknown>;
    try {
      const outcome = await this.target.request(serverId, request.method, request.params, {
        requestId,
        signal: abandon.signal,
        onNotification,
      });
      terminal = legacy
        ? projectLegacyOutcome(outcome, request, requestId)
        : projectOutcome(outcome, request, requestId);
    } catch (error) {
      terminal = projectBindingError(error, request.id);
    }
    if (abandon.signal.aborted) {
      // Cancelled by the client's notification: no answer, but the response ends.
      if (cancel?.aborted === true && !res.writableEnded) {
        if (!res.headersSent) res.writeHead(204);
        res.end();
      }
      return;
    }
    if (stream !== undefined) stream.end(terminal);
    else sendJson(res, legacy ? 200 : terminalStatus(terminal), terminal);
  }
}

/** An abort controller that aborts when the response closes before it finished. */
function abandonOnClose(res: ServerResponse): AbortController {
  const abandon = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abandon.abort();
  });
  return abandon;
}

/** The inner `_meta` of a request the 2025-era front end forwards. */
function requestMeta(clientInfo: unknown): Record<string, unknown> {
  return {
    [MCP_META_PROTOCOL_VERSION]: MCP_PROTOCOL_VERSION,
    [MCP_META_CLIENT_CAPABILITIES]: {},
    ...(isJsonObject(clientInfo) ? { [MCP_META_CLIENT_INFO]: clientInfo } : {}),
  };
}

interface LegacyInitialize {
  readonly id: JsonRpcId;
  readonly params: { readonly protocolVersion: string; readonly clientInfo?: unknown };
}

/** An `initialize` request of a 2025-era client (no 2026-07-28 `_meta`). */
function isLegacyInitialize(value: unknown): value is LegacyInitialize {
  if (!isJsonObject(value) || value.method !== "initialize" || !validRequestId(value.id))
    return false;
  const params = value.params;
  if (!isJsonObject(params) || typeof params.protocolVersion !== "string") return false;
  const meta = params._meta;
  return !isJsonObject(meta) || typeof meta[MCP_META_PROTOCOL_VERSION] !== "string";
}

function projectOutcome(
  outcome: McpOutcome,
  request: BodyRequest,
  requestId: string,
): Record<string, unknown> {
  if ("error" in outcome) return { jsonrpc: "2.0", id: request.id, error: outcome.error };
  let result = outcome.result;
  if (request.method === "tools/list") result = stripHeaderAnnotations(result);
  if (isJsonObject(result)) result = rewriteSubscriptionId(result, requestId, request.id);
  return { jsonrpc: "2.0", id: request.id, result };
}

/** The 2026 fields a 2025-era client does not know. */
const RESULT_FIELDS_2026 = ["resultType", "ttlMs", "cacheScope"];

function projectLegacyOutcome(
  outcome: McpOutcome,
  request: BodyRequest,
  requestId: string,
): Record<string, unknown> {
  const projected = projectOutcome(outcome, request, requestId);
  const result = projected.result;
  if (!isJsonObject(result)) return projected;
  if (result.resultType === "input_required")
    return jsonRpcError(request.id, -32603, "input required");
  const stripped = Object.fromEntries(
    Object.entries(result).filter(([key]) => !RESULT_FIELDS_2026.includes(key)),
  );
  return { ...projected, result: stripped };
}

const BINDING_CODES: readonly number[] = [
  McpBindingErrorCodes.RESOURCE_LIMIT_EXCEEDED,
  McpBindingErrorCodes.SERVER_UNAVAILABLE,
  McpBindingErrorCodes.BACKEND_FAILED,
  McpBindingErrorCodes.REQUEST_CANCELLED,
];

function projectBindingError(error: unknown, id: JsonRpcId): Record<string, unknown> {
  if (!(error instanceof RequestError))
    return jsonRpcError(id, McpBindingErrorCodes.BACKEND_FAILED, "MCP binding failure");
  const code = BINDING_CODES.includes(error.code)
    ? error.code
    : McpBindingErrorCodes.BACKEND_FAILED;
  return jsonRpcError(id, code, error.message);
}

/** An event stream answer: `event: message` per message, keepalive comments between. */
class EventStream {
  private readonly keepalive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    keepaliveMs: number,
  ) {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    });
    this.keepalive = setInterval(() => res.write(": keepalive\n\n"), keepaliveMs);
    res.once("close", () => {
      clearInterval(this.keepalive);
    });
  }

  write(message: unknown): void {
    if (this.res.writableEnded) return;
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  end(message: unknown): void {
    this.write(message);
    clearInterval(this.keepalive);
    if (!this.res.writableEnded) this.res.end();
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive safe integer`);
  return value;
}

function ignore(): void {
  // Nothing to do.
}
