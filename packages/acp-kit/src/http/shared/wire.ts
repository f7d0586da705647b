/**
 * Wire constants of ACP's Streamable HTTP and WebSocket transport, shared by the acp-kit
 * server and clients. Runtime-neutral.
 *
 * @module
 */

/** Header naming the transport connection; returned by `initialize`, sent on every later request. */
export const HEADER_CONNECTION_ID = "Acp-Connection-Id";
/** Header naming the ACP session a request, response or stream belongs to. */
export const HEADER_SESSION_ID = "Acp-Session-Id";
/** The SSE resume header: the last event id (cursor) the client processed. */
export const HEADER_LAST_EVENT_ID = "Last-Event-ID";
/** Media type of server-sent event streams. */
export const EVENT_STREAM_MIME_TYPE = "text/event-stream";
/** Media type of POSTed JSON-RPC messages. */
export const JSON_MIME_TYPE = "application/json";
/** The default endpoint path. */
export const DEFAULT_ACP_PATH = "/acp";

/** Methods whose POST must carry `Acp-Session-Id` (as the official SDK 2.4.0 requires). */
export const SESSION_SCOPED_METHODS: ReadonlySet<string> = new Set([
  "session/cancel",
  "session/close",
  "session/delete",
  "session/fork",
  "session/load",
  "session/prompt",
  "session/resume",
  "session/set_config_option",
  "session/set_mode",
  "session/set_model",
]);

/** Whether a client → agent method must be POSTed with `Acp-Session-Id`. */
export function methodRequiresSessionHeader(method: string): boolean {
  return SESSION_SCOPED_METHODS.has(method);
}

/** First WebSocket frame of a resuming client (acp-kit resumable-stream extension). */
export const RESUME_METHOD = "stream/resume";
/** Control frame confirming a WebSocket resume. */
export const RESUMED_METHOD = "stream/resumed";
/** Control frame refusing a WebSocket resume; the socket then closes with {@link WS_CLOSE_RESUME_FAILED}. */
export const RESUME_FAILED_METHOD = "stream/resume_failed";
/** WebSocket close code after a refused resume. */
export const WS_CLOSE_RESUME_FAILED = 4409;
/** `_meta` key of the initialize result that advertises transport features. */
export const TRANSPORT_META_KEY = "acp/transport";
/** Default keep-alive interval (SSE comment / WebSocket ping), in milliseconds. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

/** What the server advertises under `result._meta["acp/transport"]` of `initialize`. */
export interface TransportAdvertisement {
  /** Present when streams can be resumed; the retention the server guarantees at least. */
  resumable?: {
    retentionMessages: number;
    retentionWindowSeconds: number;
    retentionBytes: number;
    retentionSeconds: number;
  };
  /** Keep-alive interval in milliseconds. */
  keepAliveMs: number;
}
