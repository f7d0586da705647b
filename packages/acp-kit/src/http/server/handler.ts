/**
 * The runtime-neutral server core: Fetch API `Request` in, `Response` out.
 *
 * @module
 */
import type { AnyMessage } from "../../base/messages.js";
import {
  DEFAULT_KEEP_ALIVE_MS,
  EVENT_STREAM_MIME_TYPE,
  HEADER_CONNECTION_ID,
  HEADER_LAST_EVENT_ID,
  HEADER_SESSION_ID,
  JSON_MIME_TYPE,
  TRANSPORT_META_KEY,
  methodRequiresSessionHeader,
  type TransportAdvertisement,
} from "../shared/wire.js";
import { originChecker } from "./auth.js";
import {
  ConnectionClosedError,
  InitializeTimeoutError,
  ServedConnection,
  initializeFailure,
  idKey,
  paramsSessionId,
  type ConnectionLimits,
  type Route,
} from "./connection.js";
import type {
  AcpHttpHandlerOptions,
  AcpPrincipal,
  AcpServerEvent,
  ConnectionCloseReason,
} from "./options.js";
import type { StreamEntry, StreamLease } from "./outbound-stream.js";
import {
  WebSocketSession,
  type AcpSocket,
  type AcpSocketEvents,
  type ServerContext,
} from "./websocket.js";

/** Default of {@link AcpHttpHandlerOptions.maxBodyBytes}: 16 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Default of {@link AcpHttpHandlerOptions.maxBufferedBytesPerStream}: 64 MiB. */
export const DEFAULT_MAX_BUFFERED_BYTES_PER_STREAM = 64 * 1024 * 1024;
/** Default of {@link AcpHttpHandlerOptions.maxStreamsPerConnection}. */
export const DEFAULT_MAX_STREAMS_PER_CONNECTION = 1024;
/** Default of {@link AcpHttpHandlerOptions.maxInboundBytesPerConnection}: 16 MiB. */
export const DEFAULT_MAX_INBOUND_BYTES_PER_CONNECTION = 16 * 1024 * 1024;
/** Seconds a POST refused for {@link AcpHttpHandlerOptions.maxInboundBytesPerConnection} asks the client to wait (`Retry-After`). */
const INBOUND_RETRY_AFTER_SECONDS = 1;

/** Outcome of {@link AcpHttpHandler.prepareWebSocket}. */
export type AcpWebSocketUpgrade =
  | {
      readonly ok: false;
      /** Send this instead of upgrading. */
      readonly response: Response;
    }
  | {
      readonly ok: true;
      /** Put this in the 101 response's `Acp-Connection-Id` header. */
      readonly connectionId: string;
      /** Call with the accepted socket; feed its events into what it returns. */
      accept(socket: AcpSocket): AcpSocketEvents;
      /** Call when the upgrade failed after all. */
      reject(): void;
    };

/** The server returned by {@link createAcpHttpHandler}. */
export interface AcpHttpHandler {
  /** Serves one Streamable HTTP request (POST / GET / DELETE). */
  handle(request: Request): Promise<Response>;
  /** Checks a WebSocket upgrade request (Origin, authentication, limits) before accepting it. */
  prepareWebSocket(request: Request): Promise<AcpWebSocketUpgrade>;
  /** Ends every connection (reason `"server-close"`). */
  close(): Promise<void>;
  /** Open connections. */
  readonly connectionCount: number;
  /** The largest accepted body or frame, in bytes (adapters enforce it while reading). */
  readonly maxBodyBytes: number;
}

function text(body: string, status: number, headers?: Record<string, string>): Response {
  return new Response(body, { status, headers: { "Content-Type": "text/plain", ...headers } });
}

function json(value: unknown, status: number, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "Content-Type": JSON_MIME_TYPE, ...headers },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Replay retention per stream. The fastest agent measured (small updates, as fast as the
 * connection takes them) wrote 336,520 messages, 56.5 MB, into a connection that swallowed
 * them for 5 s (a silent outage), over WebSocket and HTTP alike; 1,000 messages covered
 * 15 ms of it. The window keeps a silent outage's output until the keep-alives tell
 * (3 × 15 s); the byte limit bounds a flood, with room for an agent twice as fast.
 */
const DEFAULT_RETENTION_MESSAGES = 1000;
const DEFAULT_RETENTION_WINDOW_SECONDS = 60;
const DEFAULT_RETENTION_BYTES = 128 * 1024 * 1024;

function positive(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (Number.isNaN(resolved) || resolved < 0) {
    throw new RangeError(`${name} must be a non-negative number`);
  }
  return resolved;
}

class BodyTooLargeError extends Error {}

/** Reads a request body as text, refusing more than `limit` bytes. */
async function readBody(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError();
  const body = request.body;
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      void reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Adds the transport advertisement to an initialize response. */
function advertise(message: AnyMessage, advertisement: TransportAdvertisement): AnyMessage {
  const record = message as unknown as Record<string, unknown>;
  const result = record.result;
  if (!isRecord(result)) return message;
  const meta = isRecord(result._meta) ? result._meta : {};
  return {
    ...record,
    result: { ...result, _meta: { ...meta, [TRANSPORT_META_KEY]: advertisement } },
  } as unknown as AnyMessage;
}

const encoder = new TextEncoder();
/** Largest SSE chunk assembled from queued messages, in UTF-16 units. */
const SSE_CHUNK_CHARS = 64 * 1024;

/** The SSE body delivering a stream through `lease`. */
function sseBody(
  lease: StreamLease,
  withIds: boolean,
  keepAliveMs: number,
): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setInterval> | undefined;
  let done = false;
  const stop = (): void => {
    done = true;
    if (timer !== undefined) clearInterval(timer);
    lease.release();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // An initial comment makes proxies and clients see the stream open at once.
        controller.enqueue(encoder.encode(":\n\n"));
        if (keepAliveMs > 0) {
          timer = setInterval(() => {
            if (done) return;
            try {
              controller.enqueue(encoder.encode(": keep-alive\n\n"));
            } catch {
              stop();
            }
          }, keepAliveMs);
        }
      },
      async pull(controller) {
        const entry = await lease.next();
        if (done) return;
        if (entry === undefined) {
          stop();
          try {
            controller.close();
          } catch {
            // cancelled meanwhile
          }
          return;
        }
        // Whatever else is queued already goes out in the same chunk (fewer socket writes).
        let frames = "";
        for (let next: StreamEntry | undefined = entry; next !== undefined;) {
          frames += withIds
            ? `id: ${next.cursor}\ndata: ${next.text}\n\n`
            : `data: ${next.text}\n\n`;
          next = frames.length < SSE_CHUNK_CHARS ? lease.poll() : undefined;
        }
        controller.enqueue(encoder.encode(frames));
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Creates the ACP Streamable HTTP + WebSocket server core. Pass `handle` to any Fetch-style
 * server, or use `createAcpNodeServer` / `attachAcpHandler` for Node's `http`
 * with WebSocket.
 *
 * @example
 * ```ts
 * const handler = createAcpHttpHandler({
 *   agent: (stream) => new AgentSideConnection((conn) => new MyAgent(conn), stream),
 * });
 * ```
 */
export function createAcpHttpHandler(options: AcpHttpHandlerOptions): AcpHttpHandler {
  const checkOrigin = originChecker(options.allowedOrigins);
  const maxBodyBytes = positive(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, "maxBodyBytes");
  const keepAliveMs = positive(options.keepAliveMs, DEFAULT_KEEP_ALIVE_MS, "keepAliveMs");
  const resumableOptions =
    options.resumable === true ? {} : options.resumable === false ? undefined : options.resumable;
  const retention =
    resumableOptions === undefined
      ? undefined
      : {
          messages: positive(
            resumableOptions.retentionMessages,
            DEFAULT_RETENTION_MESSAGES,
            "retentionMessages",
          ),
          windowSeconds: positive(
            resumableOptions.retentionWindowSeconds,
            DEFAULT_RETENTION_WINDOW_SECONDS,
            "retentionWindowSeconds",
          ),
          bytes: positive(
            resumableOptions.retentionBytes,
            DEFAULT_RETENTION_BYTES,
            "retentionBytes",
          ),
          seconds: positive(resumableOptions.retentionSeconds, 300, "retentionSeconds"),
        };
  const limits: ConnectionLimits = {
    maxBufferedBytesPerStream: positive(
      options.maxBufferedBytesPerStream,
      DEFAULT_MAX_BUFFERED_BYTES_PER_STREAM,
      "maxBufferedBytesPerStream",
    ),
    maxInboundBytesPerConnection: positive(
      options.maxInboundBytesPerConnection,
      DEFAULT_MAX_INBOUND_BYTES_PER_CONNECTION,
      "maxInboundBytesPerConnection",
    ),
    maxOutputStallMs: positive(options.maxOutputStallMs, 60_000, "maxOutputStallMs"),
    maxStreamsPerConnection: positive(
      options.maxStreamsPerConnection,
      DEFAULT_MAX_STREAMS_PER_CONNECTION,
      "maxStreamsPerConnection",
    ),
    idleTimeoutMs: positive(options.idleTimeoutMs, 0, "idleTimeoutMs"),
    retention:
      retention === undefined
        ? undefined
        : {
            messages: retention.messages,
            windowMs: retention.windowSeconds * 1000,
            bytes: retention.bytes,
          },
  };
  const maxPerPrincipal = positive(
    options.maxConnectionsPerPrincipal,
    Number.POSITIVE_INFINITY,
    "maxConnectionsPerPrincipal",
  );
  const initializeTimeoutMs = positive(options.initializeTimeoutMs, 30_000, "initializeTimeoutMs");
  const firstMessageTimeoutMs = positive(
    options.firstMessageTimeoutMs,
    10_000,
    "firstMessageTimeoutMs",
  );
  const advertisement: TransportAdvertisement = {
    keepAliveMs,
    ...(retention === undefined
      ? {}
      : {
          resumable: {
            retentionMessages: retention.messages,
            retentionWindowSeconds: retention.windowSeconds,
            retentionBytes: retention.bytes,
            retentionSeconds: retention.seconds,
          },
        }),
  };

  const connections = new Map<string, ServedConnection>();
  const perPrincipal = new Map<string, number>();
  const socketOwners = new Map<string, WebSocketSession>();
  /** Accepted sockets that have not sent `initialize` or `stream/resume` yet. */
  const unboundSockets = new Set<WebSocketSession>();

  const log = (event: AcpServerEvent): void => {
    if (options.logger === undefined) return;
    try {
      options.logger(event);
    } catch {
      // a failing logger must not break serving
    }
  };

  const principalKey = (principal: AcpPrincipal | undefined): string => principal?.id ?? "";

  const onClose = (connection: ServedConnection, reason: ConnectionCloseReason): void => {
    if (connections.get(connection.id) === connection) connections.delete(connection.id);
    context.releaseSlot(connection.principal);
    log({
      type: "connection-close",
      connectionId: connection.id,
      transport: connection.transport,
      reason,
      ...(connection.principal === undefined ? {} : { principalId: connection.principal.id }),
    });
    try {
      options.onConnectionClose?.({
        connectionId: connection.id,
        principal: connection.principal,
        transport: connection.transport,
        reason,
      });
    } catch {
      // the hook's failure is its own
    }
  };

  const context: ServerContext = {
    advertisement,
    resumable: retention !== undefined,
    retentionMs: (retention?.seconds ?? 0) * 1000,
    keepAliveMs,
    maxBufferedBytes: limits.maxBufferedBytesPerStream,
    maxOutputStallMs: limits.maxOutputStallMs,
    maxInboundBytes: limits.maxInboundBytesPerConnection,
    maxBodyBytes,
    firstMessageTimeoutMs,
    socketOwners,
    unboundSockets,
    log,
    reserveSlot(principal) {
      const key = principalKey(principal);
      const count = perPrincipal.get(key) ?? 0;
      if (count >= maxPerPrincipal) return false;
      perPrincipal.set(key, count + 1);
      return true;
    },
    releaseSlot(principal) {
      const key = principalKey(principal);
      const count = (perPrincipal.get(key) ?? 1) - 1;
      if (count <= 0) perPrincipal.delete(key);
      else perPrincipal.set(key, count);
    },
    openConnection(transport, principal, id, reserved = false) {
      if (!reserved && !context.reserveSlot(principal)) return "limit";
      const connection = new ServedConnection({
        id: id ?? globalThis.crypto.randomUUID(),
        transport,
        principal,
        limits,
        onClose,
      });
      connections.set(connection.id, connection);
      log({
        type: "connection-open",
        connectionId: connection.id,
        transport,
        ...(principal === undefined ? {} : { principalId: principal.id }),
      });
      let started: unknown;
      try {
        started = options.agent(connection.createAgentStream(), {
          connectionId: connection.id,
          principal,
          transport,
          signal: connection.signal,
        });
      } catch {
        log({ type: "agent-error", connectionId: connection.id, reason: "agent factory threw" });
        connection.close("initialize-failed");
        return connection;
      }
      if (isRecord(started) && started.closed instanceof Promise) {
        (started.closed as Promise<unknown>).then(
          () => connection.close("agent-exit"),
          () => connection.close("agent-exit"),
        );
      }
      return connection;
    },
    lookup(id, principal) {
      const connection = connections.get(id);
      if (connection === undefined || connection.closed) return undefined;
      if (principalKey(connection.principal) !== principalKey(principal)) return undefined;
      return connection;
    },
    async initialize(connection, message, size, signal) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = (): void => connection.close("initialize-failed");
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const answer = connection.initialize(message, size, (m) => advertise(m, advertisement));
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new InitializeTimeoutError()), initializeTimeoutMs);
        });
        return await Promise.race([answer, timeout]);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };

  const reject = (
    request: Request,
    status: number,
    reason: string,
    response?: Response,
  ): Response => {
    log({ type: "request-rejected", httpMethod: request.method, status, reason });
    return response ?? text(reason, status);
  };

  /** Origin and authentication; a principal or the response to send. */
  const admit = async (
    request: Request,
  ): Promise<{ principal: AcpPrincipal | undefined } | { response: Response }> => {
    if (!checkOrigin(request.headers.get("Origin"))) {
      return { response: reject(request, 403, "Origin not allowed") };
    }
    if (options.authenticate === undefined) return { principal: undefined };
    let result;
    try {
      result = await options.authenticate(request);
    } catch {
      return { response: reject(request, 500, "Authentication failed") };
    }
    if (result instanceof Response) {
      return { response: reject(request, result.status, "Authentication rejected", result) };
    }
    if (result === null || result === undefined || typeof result.id !== "string") {
      return { response: reject(request, 401, "Unauthorized") };
    }
    return { principal: result };
  };

  const handleInitialize = async (
    request: Request,
    message: AnyMessage,
    size: number,
    principal: AcpPrincipal | undefined,
  ): Promise<Response> => {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== "string" && typeof id !== "number") {
      return reject(request, 400, "Initialize request must include an ID");
    }
    const connection = context.openConnection("http", principal);
    if (connection === "limit") return reject(request, 429, "Too many connections");
    try {
      const answer = await context.initialize(
        connection,
        message as AnyMessage & { id: string | number },
        size,
        request.signal,
      );
      if (connection.closed) throw new ConnectionClosedError();
      return json(answer, 200, { [HEADER_CONNECTION_ID]: connection.id });
    } catch (error) {
      connection.close("initialize-failed");
      const failure = initializeFailure(error);
      log({ type: "agent-error", connectionId: connection.id, reason: failure.logReason });
      return json({ jsonrpc: "2.0", id, error: failure.error }, 500);
    }
  };

  const handlePost = async (
    request: Request,
    principal: AcpPrincipal | undefined,
  ): Promise<Response> => {
    const contentType = request.headers.get("Content-Type");
    if (contentType?.split(";", 1)[0]?.trim().toLowerCase() !== JSON_MIME_TYPE) {
      return reject(request, 415, "Unsupported Media Type");
    }
    let bodyText: string;
    try {
      bodyText = await readBody(request, maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return reject(request, 413, "Payload Too Large");
      return reject(request, 400, "Unreadable body");
    }
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      return reject(request, 400, "Invalid JSON");
    }
    if (Array.isArray(body)) {
      log({ type: "request-rejected", httpMethod: "POST", status: 501, reason: "batch" });
      return json(
        {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "JSON-RPC batches are not supported" },
        },
        501,
      );
    }
    if (!isRecord(body)) return reject(request, 400, "Invalid JSON-RPC message");
    const message = body as unknown as AnyMessage;
    const connectionId = request.headers.get(HEADER_CONNECTION_ID);
    const isInitialize = body.method === "initialize" && "id" in body;
    if (isInitialize) {
      if (connectionId !== null) {
        return reject(request, 400, "Initialize not allowed on existing connection");
      }
      return handleInitialize(request, message, bodyText.length, principal);
    }
    if (connectionId === null) return reject(request, 400, "Missing Acp-Connection-Id");
    const connection = context.lookup(connectionId, principal);
    if (connection === undefined) return reject(request, 404, "Unknown Acp-Connection-Id");
    if (!connection.hasInboundRoom(bodyText.length)) {
      // The agent has left too much unread: the client tries again later (nothing was
      // taken, so nothing is lost or done twice).
      return reject(
        request,
        503,
        "Agent is not reading",
        text("The agent has not read earlier messages yet; try again later", 503, {
          "Retry-After": String(INBOUND_RETRY_AFTER_SECONDS),
        }),
      );
    }
    const headerSession = request.headers.get(HEADER_SESSION_ID);
    const isResponse = !("method" in body) && ("result" in body || "error" in body);
    if (isResponse) {
      const key = idKey(body.id);
      const route: Route | undefined =
        key === undefined ? undefined : connection.clientResponseRoutes.get(key);
      if (route !== undefined && route !== null) {
        if (headerSession === null) return reject(request, 400, "Missing Acp-Session-Id");
        if (headerSession !== route) return reject(request, 400, "Mismatched Acp-Session-Id");
      }
      if (key !== undefined) connection.clientResponseRoutes.delete(key);
    } else {
      const method = typeof body.method === "string" ? body.method : "";
      const paramsSession = paramsSessionId(body);
      if (
        (methodRequiresSessionHeader(method) || paramsSession !== undefined) &&
        headerSession === null
      ) {
        return reject(request, 400, "Missing Acp-Session-Id");
      }
      if (
        headerSession !== null &&
        paramsSession !== undefined &&
        headerSession !== paramsSession
      ) {
        return reject(request, 400, "Mismatched Acp-Session-Id");
      }
      const session = headerSession ?? paramsSession ?? null;
      if ("id" in body) {
        const route: Route = method === "session/load" ? null : session;
        if (route !== null && !connection.sessionStreams.has(route)) {
          try {
            connection.sessionStream(route);
          } catch {
            return reject(request, 429, "Too many streams on this connection");
          }
        }
        const key = idKey(body.id);
        if (key !== undefined) connection.pendingRoutes.set(key, route);
      }
    }
    try {
      connection.deliver(message, bodyText.length);
    } catch {
      return reject(request, 404, "Unknown Acp-Connection-Id");
    }
    return new Response(null, { status: 202 });
  };

  const handleGet = (request: Request, principal: AcpPrincipal | undefined): Response => {
    if (request.headers.get("Upgrade")?.toLowerCase() === "websocket") {
      return reject(request, 426, "WebSocket upgrade is not available on this adapter");
    }
    if (!request.headers.get("Accept")?.toLowerCase().includes(EVENT_STREAM_MIME_TYPE)) {
      return reject(request, 406, "Not Acceptable");
    }
    const connectionId = request.headers.get(HEADER_CONNECTION_ID);
    if (connectionId === null) return reject(request, 400, "Missing Acp-Connection-Id");
    const connection = context.lookup(connectionId, principal);
    if (connection?.transport !== "http") {
      return reject(request, 404, "Unknown Acp-Connection-Id");
    }
    const sessionId = request.headers.get(HEADER_SESSION_ID);
    let stream;
    try {
      stream =
        sessionId === null ? connection.connectionStream : connection.sessionStream(sessionId);
    } catch {
      return reject(request, 429, "Too many streams on this connection");
    }
    const kind = sessionId === null ? "connection" : "session";
    const lastEventId = request.headers.get(HEADER_LAST_EVENT_ID);
    let lease: StreamLease | undefined;
    if (context.resumable && lastEventId !== null) {
      const cursor = /^\d+$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : Number.NaN;
      const failure = stream.rewind(cursor);
      if (failure !== undefined) {
        log({
          type: "resume-failed",
          connectionId: connection.id,
          stream: kind,
          reason: failure,
          status: 409,
        });
        return text(`resume failed: ${failure}`, 409);
      }
      lease = stream.attach(true);
      log({ type: "stream-resumed", connectionId: connection.id, stream: kind });
    } else {
      lease = stream.attach(false);
      if (lease !== undefined) {
        log({ type: "stream-open", connectionId: connection.id, stream: kind });
      }
    }
    if (lease === undefined) {
      return reject(request, 409, "Outbound stream already has an active receiver");
    }
    connection.touch();
    return new Response(sseBody(lease, context.resumable, keepAliveMs), {
      status: 200,
      headers: {
        "Content-Type": EVENT_STREAM_MIME_TYPE,
        "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no",
      },
    });
  };

  const handleDelete = (request: Request, principal: AcpPrincipal | undefined): Response => {
    const connectionId = request.headers.get(HEADER_CONNECTION_ID);
    if (connectionId === null) return reject(request, 400, "Missing Acp-Connection-Id");
    const connection = context.lookup(connectionId, principal);
    if (connection === undefined) return reject(request, 404, "Unknown Acp-Connection-Id");
    connection.close("delete");
    return new Response(null, { status: 202 });
  };

  return {
    maxBodyBytes,
    get connectionCount() {
      return connections.size;
    },
    async handle(request) {
      const admitted = await admit(request);
      if ("response" in admitted) return admitted.response;
      switch (request.method) {
        case "POST":
          return handlePost(request, admitted.principal);
        case "GET":
          return handleGet(request, admitted.principal);
        case "DELETE":
          return handleDelete(request, admitted.principal);
        default:
          return reject(
            request,
            405,
            "Method Not Allowed",
            text("Method Not Allowed", 405, { Allow: "GET, POST, DELETE" }),
          );
      }
    },
    async prepareWebSocket(request) {
      const admitted = await admit(request);
      if ("response" in admitted) return { ok: false, response: admitted.response };
      const principal = admitted.principal;
      const key = principalKey(principal);
      if ((perPrincipal.get(key) ?? 0) >= maxPerPrincipal) {
        return { ok: false, response: reject(request, 429, "Too many connections") };
      }
      const connectionId = globalThis.crypto.randomUUID();
      let settled = false;
      return {
        ok: true,
        connectionId,
        accept(socket) {
          if (settled) throw new Error("WebSocket upgrade already settled");
          settled = true;
          const session = new WebSocketSession(socket, context, principal, connectionId);
          return session.events;
        },
        reject() {
          settled = true;
        },
      };
    },
    async close() {
      for (const session of [...socketOwners.values(), ...unboundSockets])
        session.shutdown(1001, "Server shutting down");
      for (const connection of [...connections.values()]) connection.close("server-close");
      await Promise.resolve();
    },
  };
}
