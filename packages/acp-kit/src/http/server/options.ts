/**
 * Options and public types of the acp-kit HTTP/WebSocket server.
 *
 * @module
 */
import type { Stream } from "../../base/messages.js";

/** Who a request comes from, as established by {@link AcpHttpHandlerOptions.authenticate}. */
export interface AcpPrincipal {
  /** Stable identity; connections are counted and bound per `id`. */
  readonly id: string;
}

/** Why a served connection ended. */
export type ConnectionCloseReason =
  | "delete"
  | "idle"
  | "agent-exit"
  | "limit"
  | "socket-closed"
  | "initialize-failed"
  | "server-close";

/** What the agent factory learns about the connection it serves. */
export interface AcpAgentContext {
  /** The `Acp-Connection-Id`. */
  readonly connectionId: string;
  /** The authenticated principal, if an `authenticate` hook is set. */
  readonly principal: AcpPrincipal | undefined;
  /** How the client is connected. */
  readonly transport: "http" | "websocket";
  /** Aborted when the connection ends (stop the agent then). */
  readonly signal: AbortSignal;
}

/**
 * Starts the agent for one connection on a message {@link Stream}, for example
 * `(stream) => new AgentSideConnection((conn) => new MyAgent(conn), stream)`. If it returns
 * an object with a `closed` promise (an `AgentSideConnection` does), the connection ends
 * when that settles.
 */
export type AcpAgentFactory = (stream: Stream, context: AcpAgentContext) => unknown;

/** Outcome of {@link AcpHttpHandlerOptions.authenticate}: a principal, a ready response, or nothing (401). */
export type AuthenticateResult = AcpPrincipal | Response | null | undefined;

/**
 * Resumable-stream retention (see docs/remote.md). Each stream keeps the messages it sent
 * for a replay: the last `retentionMessages`, and all those sent in the last
 * `retentionWindowSeconds` however many, within `retentionBytes` in all.
 */
export interface AcpResumableOptions {
  /** Sent messages kept per stream for replay, however old. Default 1000. */
  retentionMessages?: number;
  /**
   * Sent messages younger than this many seconds are kept too, however many: a fast
   * agent's output during a network outage this long (a silent one lasts until the
   * keep-alives tell, 3 × `keepAliveMs`). Default 60.
   */
  retentionWindowSeconds?: number;
  /** The most a stream keeps for replay (UTF-16 length of the messages). Default 128 MiB. */
  retentionBytes?: number;
  /** How long a WebSocket connection whose socket dropped waits for a resume. Default 300. */
  retentionSeconds?: number;
}

/** Information given to {@link AcpHttpHandlerOptions.onConnectionClose}. */
export interface ConnectionCloseInfo {
  readonly connectionId: string;
  readonly principal: AcpPrincipal | undefined;
  readonly transport: "http" | "websocket";
  readonly reason: ConnectionCloseReason;
}

/**
 * A diagnostic event. Carries identifiers, statuses and reasons only: never message
 * bodies, never header values.
 */
export interface AcpServerEvent {
  readonly type:
    | "connection-open"
    | "connection-close"
    | "request-rejected"
    | "stream-open"
    | "stream-resumed"
    | "resume-failed"
    | "websocket-open"
    | "websocket-close"
    | "agent-error";
  readonly connectionId?: string;
  readonly principalId?: string;
  readonly transport?: "http" | "websocket";
  /** HTTP method of the request, for request events. */
  readonly httpMethod?: string;
  /** HTTP status answered, for rejections. */
  readonly status?: number;
  /** A short fixed reason text. */
  readonly reason?: string;
  /** `"connection"` or `"session"` for stream events. */
  readonly stream?: "connection" | "session";
}

/** Options of {@link createAcpHttpHandler}. */
export interface AcpHttpHandlerOptions {
  /** Starts the agent of each new connection. */
  agent: AcpAgentFactory;
  /**
   * Runs on every HTTP request and WebSocket upgrade, before anything else (so before
   * `initialize`). Return the principal, a `Response` to send instead (e.g. 403), or
   * `undefined` for 401. A connection is bound to the principal that initialized it.
   */
  authenticate?: (request: Request) => AuthenticateResult | Promise<AuthenticateResult>;
  /**
   * Allowed `Origin` values (exact, e.g. `"https://app.example"`), a predicate, or `"*"`.
   * Default: loopback origins only (`localhost`, `127.0.0.1`, `[::1]`, any port, http or
   * https). Requests without `Origin` are always allowed (non-browser clients).
   */
  allowedOrigins?: readonly string[] | ((origin: string) => boolean) | "*";
  /** Turns on resumable streams (SSE `id:`, `Last-Event-ID`, WebSocket `stream/resume`). */
  resumable?: boolean | AcpResumableOptions;
  /** SSE keep-alive comment / WebSocket ping interval in ms. Default 15000; 0 turns them off. */
  keepAliveMs?: number;
  /** Largest POST body (and WebSocket frame) in bytes; 413 beyond. Default 16 MiB. */
  maxBodyBytes?: number;
  /** Unsent bytes a stream may hold before the agent's output waits. Default 64 MiB. */
  maxBufferedBytesPerStream?: number;
  /**
   * Client message bytes (the JSON text's length) a connection holds for an agent that has
   * not read them yet. Beyond it a POST gets 503 with `Retry-After: 1` (nothing taken, so
   * it can be sent again) and a WebSocket is no longer read until the agent catches up.
   * A message is always taken when nothing waits, so one message up to `maxBodyBytes`
   * passes whatever this is. Default 16 MiB.
   */
  maxInboundBytesPerConnection?: number;
  /** How long output may wait for a reader before the connection is closed. Default 60000. */
  maxOutputStallMs?: number;
  /** Session streams per connection; 429 beyond. Default 1024. */
  maxStreamsPerConnection?: number;
  /** Open connections per principal (or per server without `authenticate`); 429 beyond. Default unlimited. */
  maxConnectionsPerPrincipal?: number;
  /** End a connection with no client message and no attached stream for this long. Default 0 (off). */
  idleTimeoutMs?: number;
  /** How long `initialize` may take before the connection is dropped (500). Default 30000. */
  initializeTimeoutMs?: number;
  /**
   * How long an accepted WebSocket may go without sending `initialize` (or
   * `stream/resume`) before it is closed with 1008. Such a socket counts against
   * `maxConnectionsPerPrincipal` while it is open. Default 10000; 0 turns it off.
   */
  firstMessageTimeoutMs?: number;
  /** Called once per connection when it ends (e.g. to kill an agent process group). */
  onConnectionClose?: (info: ConnectionCloseInfo) => void;
  /** Diagnostics; see {@link AcpServerEvent}. */
  logger?: (event: AcpServerEvent) => void;
}
