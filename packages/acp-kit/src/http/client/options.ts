/**
 * Options and events shared by {@link connectHttp} and {@link connectWebSocket}.
 *
 * @module
 */
import type { AnyMessage, Stream } from "../../base/messages.js";
import type { CookieStore } from "./cookies.js";

/** How a remote client retries after its connection to the server drops. */
export interface ReconnectOptions {
  /** Tries before giving up (default 8). `0` turns reconnecting off. */
  readonly maxAttempts?: number;
  /** The first delay in milliseconds (default 100). */
  readonly initialDelayMs?: number;
  /** The longest delay in milliseconds (default 5000). */
  readonly maxDelayMs?: number;
}

/** What a remote client reports about its connection, for logs and status lines. */
export type RemoteEvent =
  | {
      /** The connection (or a stream of it) dropped; a new try starts after `delayMs`. */
      readonly type: "reconnecting";
      /** `"connection"`, or the session whose stream dropped. */
      readonly stream: string;
      readonly attempt: number;
      readonly delayMs: number;
      /** Why it dropped, in words. */
      readonly reason: string;
    }
  | {
      /** A stream is back; `resumed` when it continued from the last event it had. */
      readonly type: "reconnected";
      readonly stream: string;
      readonly resumed: boolean;
    }
  | {
      /**
       * The server no longer has the messages after the last one this client saw (HTTP
       * 409 on resume): what was sent in between is lost. For a session, its pending
       * requests fail and its messages fail until it is attached again with
       * `session/load` or `session/resume`; for the connection, the transport ends with a
       * {@link ResumeGapError}.
       */
      readonly type: "resume-gap";
      readonly stream: string;
    }
  | {
      /** The transport ended: closed by the caller, by the server, or by an error. */
      readonly type: "closed";
      readonly error?: Error;
    };

/** Options of {@link connectHttp} and {@link connectWebSocket}. */
export interface RemoteClientOptions {
  /** Headers sent with every request (an `Authorization` header, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Where cookies are kept (default: a new {@link MemoryCookieStore} for this
   * connection). Share one between connections, or across a reconnect, to keep a load
   * balancer's affinity cookie. `false` sends and keeps no cookies.
   */
  readonly cookies?: CookieStore | false;
  /** The `fetch` to use (default: the global one). HTTP only. */
  readonly fetch?: typeof fetch;
  /** Aborting it closes the transport, as `close()` does. */
  readonly signal?: AbortSignal;
  /** Milliseconds for a POST to be answered, or for a stream to open (default 30000). */
  readonly requestTimeoutMs?: number;
  /**
   * Milliseconds without a byte from the server (events or keep-alives) after which the
   * peer is taken for dead and the stream is opened again (default 45000; `0` for
   * never). WebSocket: the client pings every third of this.
   */
  readonly keepAliveTimeoutMs?: number;
  /** Reconnecting after a drop (default: on, 8 tries). `false` turns it off. */
  readonly reconnect?: ReconnectOptions | false;
  /** The largest message accepted from the server, in bytes (default 64 MiB). */
  readonly maxMessageBytes?: number;
  /** Told about drops, reconnects, gaps and the end. Must not throw. */
  readonly onEvent?: (event: RemoteEvent) => void;
}

/** A message stream to a remote agent, for `new ClientSideConnection(toClient, stream)`. */
export interface RemoteStream extends Stream {
  /** The `Acp-Connection-Id` the server gave, once `initialize` has been answered. */
  readonly connectionId: string | undefined;
  /** Resolves when the transport has ended (never rejects). */
  readonly closed: Promise<void>;
  /** Ends the connection (HTTP: `DELETE`; WebSocket: a close frame). */
  close(): Promise<void>;
}

/**
 * The server no longer holds the messages this client missed while it was away (it
 * answered 409 to a resume): messages are lost. Recover by opening a new connection and
 * attaching the session again with `session/load` or `session/resume`.
 */
export class ResumeGapError extends Error {
  /**
   * Creates the error.
   * @param stream - `"connection"` or the session id whose stream has the gap.
   */
  constructor(readonly stream: string) {
    super(
      stream === "connection"
        ? "The server no longer has the messages missed while reconnecting; open a new connection and load the session again"
        : `The server no longer has the messages of session ${stream} missed while reconnecting; attach it again with session/load or session/resume`,
    );
    this.name = "ResumeGapError";
  }
}

/** The JSON-RPC error code of requests failed by the transport (internal error). */
export const TRANSPORT_ERROR_CODE = -32603;

/** Resolved options. */
export interface Settings {
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: CookieStore | undefined;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxMessageBytes: number;
  readonly onEvent: (event: RemoteEvent) => void;
}

/** Fills in defaults. */
export function resolveSettings(
  options: RemoteClientOptions,
  cookies: CookieStore | undefined,
): Settings {
  const reconnect = options.reconnect === false ? { maxAttempts: 0 } : (options.reconnect ?? {});
  const onEvent = options.onEvent;
  return {
    headers: options.headers ?? {},
    cookies,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 45_000,
    maxAttempts: reconnect.maxAttempts ?? 8,
    initialDelayMs: reconnect.initialDelayMs ?? 100,
    maxDelayMs: reconnect.maxDelayMs ?? 5_000,
    maxMessageBytes: options.maxMessageBytes ?? 64 * 1024 * 1024,
    onEvent: (event) => {
      try {
        onEvent?.(event);
      } catch {
        // A listener's mistake must not break the transport.
      }
    },
  };
}

/**
 * The delay before try number `attempt` (1-based): exponential from the initial delay,
 * capped, with "full jitter" (a random point between half and all of it) so that many
 * clients cut off at once do not come back at once.
 */
export function backoffDelay(settings: Settings, attempt: number): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** The longest `Retry-After` the client waits out, in ms. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * What a `Retry-After` header asks for, in ms from `now` (delta-seconds or an HTTP date),
 * at most {@link MAX_RETRY_AFTER_MS}; undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** A JSON-RPC id as a map key (`1` and `"1"` differ). */
export function idKey(id: unknown): string | undefined {
  if (typeof id === "string") return `s:${id}`;
  if (typeof id === "number") return `n:${id}`;
  return undefined;
}

/** The `sessionId` of a message's params, if any. */
export function paramsSessionId(message: AnyMessage): string | undefined {
  if (!("method" in message)) return undefined;
  const params = message.params;
  if (typeof params !== "object" || params === null) return undefined;
  const sessionId = (params as { sessionId?: unknown }).sessionId;
  return typeof sessionId === "string" ? sessionId : undefined;
}

/** The `sessionId` of a response's result (`session/new`, `session/fork`), if any. */
export function resultSessionId(message: AnyMessage): string | undefined {
  if (!("result" in message)) return undefined;
  const result = message.result;
  if (typeof result !== "object" || result === null) return undefined;
  const sessionId = (result as { sessionId?: unknown }).sessionId;
  return typeof sessionId === "string" ? sessionId : undefined;
}

/** Waits, unless the signal aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** What a server says of its transport in `_meta["acp/transport"]` of the initialize result. */
export interface TransportInfo {
  /** Whether it keeps sent messages for a resume. */
  readonly resumable: boolean;
  /** How often it sends keep-alives, in milliseconds. */
  readonly keepAliveMs: number | undefined;
}

/** Reads {@link TransportInfo} from an initialize response (all absent: not resumable). */
export function transportInfo(message: unknown): TransportInfo {
  const result = (message as { result?: unknown } | null)?.result;
  const meta = (result as { _meta?: unknown } | null | undefined)?._meta;
  const info = (meta as Record<string, unknown> | null | undefined)?.["acp/transport"];
  if (typeof info !== "object" || info === null)
    return { resumable: false, keepAliveMs: undefined };
  const { resumable, keepAliveMs } = info as { resumable?: unknown; keepAliveMs?: unknown };
  return {
    resumable: typeof resumable === "object" && resumable !== null,
    keepAliveMs: typeof keepAliveMs === "number" ? keepAliveMs : undefined,
  };
}
