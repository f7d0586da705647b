/**
 * {@link connectWebSocket}: ACP over a WebSocket (one JSON-RPC message per text frame),
 * as the official SDK 2.4.0 speaks it, plus resuming a dropped socket on servers that
 * keep what they sent (`stream/resume`, see docs/remote.md).
 *
 * @module
 */
import type WebSocketType from "ws";
import type { AnyMessage } from "../../base/messages.js";
import { MemoryCookieStore, type CookieStore } from "./cookies.js";
import { HttpStatusError } from "./http.js";
import {
  backoffDelay,
  resolveSettings,
  ResumeGapError,
  sleep,
  transportInfo,
  type RemoteClientOptions,
  type RemoteStream,
  type Settings,
} from "./options.js";

/** A constructor with the `ws` package's shape (headers on the opening request). */
export type WebSocketConstructor = typeof WebSocketType;

/** Options of {@link connectWebSocket}. */
export interface WebSocketClientOptions extends RemoteClientOptions {
  /**
   * The WebSocket class (default: the `ws` package's). It must accept
   * `new WebSocket(url, { headers })`, as `ws` does, so that headers and cookies go out
   * with the opening request.
   */
  readonly WebSocket?: WebSocketConstructor;
  /**
   * The most sent messages kept to be sent again after a resume (default: no limit but
   * {@link WebSocketClientOptions.resendBufferBytes}): the server says how many it got, the client sends the rest.
   */
  readonly resendBufferMessages?: number;
  /**
   * The most kept to be sent again, as the UTF-16 length of the messages (default 16 MiB).
   * What an outage swallows must fit: 20,000 small messages did not fit in the 1,000
   * messages kept before.
   */
  readonly resendBufferBytes?: number;
}

/** Why a socket could not be opened, or closed. */
interface OpenFailure {
  /** The close code (1006 for a socket that never opened). */
  readonly code: number;
  /** In words, with the HTTP status of a refused upgrade. */
  readonly why: string;
  /** The server's answer when it refused the upgrade. */
  readonly refusal?: HttpStatusError;
}

/** Upgrade statuses after which trying again cannot help (as for HTTP requests). */
const FATAL = new Set([401, 403, 404, 410]);

/** How long leaving a refused connection waits for its socket's close handshake. */
const GOODBYE_MS = 2_000;

const RESUMED = "stream/resumed";
const RESUME_FAILED = "stream/resume_failed";
/** The close code of a failed resume. */
const CLOSE_RESUME_FAILED = 4409;

/**
 * Opens a remote ACP connection over a WebSocket (`ws://host:port/acp`; an `http(s)` URL
 * is turned into `ws(s)`). Messages written before the socket opens wait for it; the first
 * must be `initialize`. When the server advertises resumable streams and the socket
 * drops, the client opens a new one with jittered backoff and resumes: it says which
 * frame it saw last, the server replays the rest, and the client sends again what the
 * server did not get, so nothing is lost or doubled.
 *
 * @param url - The endpoint.
 * @param options - Headers, cookies, timeouts, reconnecting, the WebSocket class.
 */
export function connectWebSocket(
  url: string | URL,
  options: WebSocketClientOptions = {},
): RemoteStream {
  const target = new URL(String(url));
  if (target.protocol === "http:") target.protocol = "ws:";
  if (target.protocol === "https:") target.protocol = "wss:";
  return new WebSocketTransport(target.href, options);
}

class WebSocketTransport implements RemoteStream {
  readonly readable: ReadableStream<AnyMessage>;
  readonly writable: WritableStream<AnyMessage>;
  readonly closed: Promise<void>;
  private readonly settings: Settings;
  private readonly lifetime = new AbortController();
  private controller!: ReadableStreamDefaultController<AnyMessage>;
  private resolveClosed!: () => void;
  private ended = false;
  private connId: string | undefined;
  private socket: WebSocketType | undefined;
  /** True while the current socket is open and usable (resumed, when resuming). */
  private live = false;
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private resumable = false;
  /** Server frames delivered (the resume cursor). */
  private receivedFrames = 0;
  /** Client frames sent; `sentLog` keeps the last ones, numbered. */
  private sentFrames = 0;
  private sentLog: { n: number; text: string }[] = [];
  /** Entries of `sentLog` before this one were dropped (kept as a hole until compacted). */
  private sentHead = 0;
  private sentBytes = 0;
  private readonly maxResend: number;
  private readonly maxResendBytes: number;
  private keepAliveTimeoutMs: number;
  private readonly keepAliveFromCaller: boolean;
  private ctor: WebSocketConstructor | undefined;
  /** Settles the pending {@link open} when its socket goes live. */
  private settleOpen: ((failure: OpenFailure | undefined) => void) | undefined;
  /** Whether the reconnect loop runs (there is never more than one). */
  private reconnecting = false;
  /** The id of the connection's `initialize` (the first frame sent). */
  private initializeId: unknown;
  /**
   * The connection's `initialize` was answered with an error and nothing was sent since:
   * another `initialize` (a client asking again in v1) goes on a new socket, as the server
   * refuses a second one on this connection.
   */
  private initializeRefused = false;
  /**
   * The socket dropped after the `initialize` was refused (the agent left, as some do on a
   * v2 `initialize`): kept, as another `initialize` opens a new socket; anything else sent
   * handles the drop as usual.
   */
  private droppedAfterRefusal: OpenFailure | undefined;

  constructor(
    private readonly url: string,
    options: WebSocketClientOptions,
  ) {
    const cookies: CookieStore | undefined =
      options.cookies === false ? undefined : (options.cookies ?? new MemoryCookieStore());
    this.settings = resolveSettings(options, cookies);
    this.keepAliveTimeoutMs = this.settings.keepAliveTimeoutMs;
    this.keepAliveFromCaller = options.keepAliveTimeoutMs !== undefined;
    this.maxResend = options.resendBufferMessages ?? Number.POSITIVE_INFINITY;
    this.maxResendBytes = options.resendBufferBytes ?? 16 * 1024 * 1024;
    this.ctor = options.WebSocket;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.readable = new ReadableStream<AnyMessage>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        cancel: () => this.close(),
      },
      { highWaterMark: Number.MAX_SAFE_INTEGER },
    );
    let chain: Promise<void> = Promise.resolve();
    this.writable = new WritableStream<AnyMessage>({
      write: (message) => {
        const next = chain.then(() => this.send(message));
        chain = next.catch(() => undefined);
        return next;
      },
      close: () => this.close(),
      abort: () => this.close(),
    });
    if (options.signal !== undefined) {
      if (options.signal.aborted) void this.close();
      else {
        // Removed when the stream ends: a long-lived signal must not keep this stream alive.
        options.signal.addEventListener("abort", () => void this.close(), {
          once: true,
          signal: this.lifetime.signal,
        });
      }
    }
    void this.open(false).then(
      (failure) => {
        // The first socket never opened: there is nothing to resume.
        if (failure !== undefined) this.finish(failure.refusal ?? new Error(failure.why));
      },
      (error: unknown) => this.finish(asError(error)),
    );
  }

  get connectionId(): string | undefined {
    return this.connId;
  }

  close(): Promise<void> {
    if (!this.ended) {
      const socket = this.socket;
      this.finish(undefined);
      try {
        socket?.close(1000);
      } catch {
        // Not open yet: terminate instead.
        socket?.terminate();
      }
    }
    return this.closed;
  }

  private async send(message: AnyMessage): Promise<void> {
    if (this.ended) throw new Error("The remote connection is closed");
    const initialize = "method" in message && message.method === "initialize" && "id" in message;
    if (this.initializeRefused && initialize) await this.restart();
    this.initializeRefused = false;
    const drop = this.droppedAfterRefusal;
    this.droppedAfterRefusal = undefined;
    if (drop !== undefined) {
      this.dropped(drop);
      if (this.isEnded()) throw new Error("The remote connection is closed");
    }
    if (!this.live) {
      await new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    }
    if (this.sentFrames === 0 && initialize) this.initializeId = message.id;
    const text = JSON.stringify(message);
    this.sentFrames++;
    this.keepForResend(text);
    // A send on a socket that just died is caught up by the resume (the server says what it got).
    this.socket?.send(text, (error) => {
      if (error) this.socket?.terminate();
    });
  }

  /**
   * Leaves the connection whose `initialize` was refused (its socket is closed, which ends
   * it on the server; the close handshake is awaited) and opens a new socket, with nothing
   * sent or received on it yet.
   */
  private async restart(): Promise<void> {
    const old = this.socket;
    this.socket = undefined;
    this.live = false;
    this.droppedAfterRefusal = undefined;
    this.connId = undefined;
    this.resumable = false;
    this.receivedFrames = 0;
    this.sentFrames = 0;
    this.sentLog = [];
    this.sentHead = 0;
    this.sentBytes = 0;
    if (old !== undefined) {
      // Its close handshake is awaited (bounded): a server that limits connections then
      // has room for the new one.
      const closed = new Promise<void>((resolve) => {
        if (old.readyState === old.CLOSED) return resolve();
        const timer = setTimeout(resolve, GOODBYE_MS);
        old.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      try {
        old.close(1000);
      } catch {
        old.terminate();
      }
      await closed;
    }
    const failure = await this.open(false);
    if (failure !== undefined) {
      const error = failure.refusal ?? new Error(failure.why);
      this.finish(error);
      throw error;
    }
  }

  /**
   * Opens a socket; when `resume`, its first frame asks the server to continue the
   * connection. Resolves once the socket is usable (open; resumed, when resuming) with
   * `undefined`, or with why it could not be opened. A socket that was usable and drops
   * later goes to {@link dropped}.
   */
  private async open(resume: boolean): Promise<OpenFailure | undefined> {
    const WebSocket = this.ctor ?? (this.ctor = (await import("ws")).default);
    if (this.ended) return undefined;
    const headers = new Headers(this.settings.headers);
    this.settings.cookies?.apply(headers);
    const plain: Record<string, string> = {};
    headers.forEach((value, name) => (plain[name] = value));
    const socket = new WebSocket(this.url, {
      headers: plain,
      handshakeTimeout: this.settings.requestTimeoutMs,
      maxPayload: this.settings.maxMessageBytes,
    });
    this.socket = socket;
    let settle!: (failure: OpenFailure | undefined) => void;
    const outcome = new Promise<OpenFailure | undefined>((resolve) => (settle = resolve));
    this.settleOpen = settle;
    let refusal: HttpStatusError | undefined;
    let lastError: Error | undefined;
    socket.on("upgrade", (response) => {
      const setCookie = response.headers["set-cookie"];
      if (setCookie !== undefined && this.settings.cookies !== undefined) {
        const h = new Headers();
        for (const line of setCookie) h.append("Set-Cookie", line);
        this.settings.cookies.store(h);
      }
      const id = response.headers["acp-connection-id"];
      if (!resume && typeof id === "string") this.connId = id;
    });
    socket.on("unexpected-response", (_request, response) => {
      // The server (or a proxy) answered the upgrade with a status: keep it and the start
      // of the body to say why, then drop the socket (the close below reports it).
      const status = response.statusCode ?? 0;
      let body = "";
      const done = (): void => {
        if (refusal !== undefined) return;
        refusal = new HttpStatusError(status, body.slice(0, 512), "The WebSocket upgrade");
        response.destroy();
        socket.terminate();
      };
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
        if (body.length >= 512) done();
      });
      response.once("end", done);
      response.once("error", done);
      response.once("close", done);
    });
    let lastSeen = Date.now();
    let pinger: ReturnType<typeof setInterval> | undefined;
    let resumeTimer: ReturnType<typeof setTimeout> | undefined;
    socket.on("open", () => {
      if (this.ended) return;
      lastSeen = Date.now();
      if (this.keepAliveTimeoutMs > 0) {
        pinger = setInterval(
          () => {
            if (Date.now() - lastSeen > this.keepAliveTimeoutMs) {
              socket.terminate(); // a dead peer: the close handler reconnects
              return;
            }
            socket.ping();
          },
          Math.max(10, Math.floor(this.keepAliveTimeoutMs / 3)),
        );
        pinger.unref();
      }
      if (resume) {
        // A server that takes the socket but never answers the resume must not hold the
        // reconnect loop: the try fails after the request timeout.
        const waitMs = this.settings.requestTimeoutMs;
        if (waitMs > 0) {
          resumeTimer = setTimeout(() => {
            if (this.socket !== socket || this.live) return;
            lastError = new Error(`No answer to stream/resume in ${waitMs} ms`);
            socket.terminate();
          }, waitMs);
        }
        socket.send(
          JSON.stringify({
            jsonrpc: "2.0",
            method: "stream/resume",
            params: {
              connectionId: this.connId,
              cursor: String(this.receivedFrames),
              received: this.sentFrames,
            },
          }),
        );
      } else {
        this.goLive();
      }
    });
    socket.on("pong", () => (lastSeen = Date.now()));
    socket.on("ping", () => (lastSeen = Date.now()));
    socket.on("message", (data, isBinary) => {
      lastSeen = Date.now();
      if (isBinary || this.ended || this.socket !== socket) return;
      this.frame(rawText(data));
    });
    socket.on("error", (error) => {
      lastError = error; // the close that follows decides
    });
    socket.on("close", (code, reason) => {
      if (pinger !== undefined) clearInterval(pinger);
      if (resumeTimer !== undefined) clearTimeout(resumeTimer);
      // A socket that was live drops; one that never was failed to open.
      const wasLive = this.live && this.socket === socket;
      const text = reason.toString("utf8");
      const failure: OpenFailure = {
        code,
        why:
          refusal?.message ??
          `The WebSocket closed (code ${code}${text !== "" ? `: ${text}` : lastError === undefined ? "" : `: ${lastError.message}`})`,
        ...(refusal === undefined ? {} : { refusal }),
      };
      if (this.settleOpen === settle) this.settleOpen = undefined;
      settle(failure);
      if (this.socket !== socket || this.ended) return;
      this.live = false;
      if (wasLive) this.dropped(failure);
    });
    return outcome;
  }

  private goLive(): void {
    this.live = true;
    const settle = this.settleOpen;
    this.settleOpen = undefined;
    settle?.(undefined);
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }

  private frame(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) return;
    const msg = message as AnyMessage;
    if ("method" in msg && !("id" in msg)) {
      if (msg.method === RESUMED) return this.resumed(msg.params);
      if (msg.method === RESUME_FAILED) {
        this.settings.onEvent({ type: "resume-gap", stream: "connection" });
        this.finish(new ResumeGapError("connection"));
        return;
      }
    }
    this.receivedFrames++;
    if (this.receivedFrames === 1) {
      this.initializeRefused =
        this.sentFrames === 1 && "error" in msg && msg.id === this.initializeId;
      const info = transportInfo(msg);
      this.resumable = info.resumable;
      if (!this.keepAliveFromCaller && info.keepAliveMs !== undefined && info.keepAliveMs > 0) {
        this.keepAliveTimeoutMs = info.keepAliveMs * 3;
      }
    }
    try {
      this.controller.enqueue(msg);
    } catch {
      // The reader went away.
    }
  }

  /** Keeps a sent message to be sent again after a resume, within the limits. */
  private keepForResend(text: string): void {
    this.sentLog.push({ n: this.sentFrames, text });
    this.sentBytes += text.length;
    while (
      this.sentHead < this.sentLog.length &&
      (this.sentLog.length - this.sentHead > this.maxResend || this.sentBytes > this.maxResendBytes)
    ) {
      this.sentBytes -= this.sentLog[this.sentHead]?.text.length ?? 0;
      this.sentLog[this.sentHead] = undefined as unknown as { n: number; text: string };
      this.sentHead++;
    }
    // The dropped head is cut off once it is most of the array (amortized O(1) a message).
    if (this.sentHead >= 1024 && this.sentHead * 2 >= this.sentLog.length) {
      this.sentLog = this.sentLog.slice(this.sentHead);
      this.sentHead = 0;
    }
  }

  private resumed(params: unknown): void {
    const received = Number(
      (params as { received?: unknown } | undefined)?.received ?? this.sentFrames,
    );
    const first = this.sentLog[this.sentHead];
    if (received < this.sentFrames && (first === undefined || first.n > received + 1)) {
      this.finish(new Error("Messages sent before the drop are no longer held to be sent again"));
      return;
    }
    for (let i = this.sentHead; i < this.sentLog.length; i++) {
      const entry = this.sentLog[i];
      if (entry !== undefined && entry.n > received) this.socket?.send(entry.text);
    }
    this.settings.onEvent({ type: "reconnected", stream: "connection", resumed: true });
    this.goLive();
  }

  /** A live socket dropped: resume on a new one, or end. */
  private dropped(failure: OpenFailure): void {
    if (this.initializeRefused) {
      this.droppedAfterRefusal = failure;
      return;
    }
    if (failure.code === CLOSE_RESUME_FAILED) {
      this.settings.onEvent({ type: "resume-gap", stream: "connection" });
      this.finish(new ResumeGapError("connection"));
      return;
    }
    if (!this.resumable || this.connId === undefined || this.settings.maxAttempts === 0) {
      // Nothing to resume: the connection is over.
      this.finish(failure.code === 1000 ? undefined : new Error(failure.why));
      return;
    }
    // One loop at a time: sockets it opens report to it, never start another one.
    if (this.reconnecting) return;
    this.reconnecting = true;
    void this.reconnect(failure.why).finally(() => (this.reconnecting = false));
  }

  /**
   * Tries to resume on a new socket, at most `maxAttempts` times, with jittered backoff
   * between the tries. A refusal that cannot change by trying again (HTTP 401, 403, 404,
   * 410 on the upgrade) ends the connection at once, with the status.
   */
  private async reconnect(why: string): Promise<void> {
    let reason = why;
    for (let attempt = 1; attempt <= this.settings.maxAttempts; attempt++) {
      const delayMs = backoffDelay(this.settings, attempt);
      this.settings.onEvent({
        type: "reconnecting",
        stream: "connection",
        attempt,
        delayMs,
        reason,
      });
      await sleep(delayMs, this.lifetime.signal);
      if (this.isEnded()) return;
      const failure = await this.open(true);
      if (failure === undefined || this.isEnded()) return;
      if (failure.code === CLOSE_RESUME_FAILED) {
        this.dropped(failure);
        return;
      }
      if (failure.refusal !== undefined && FATAL.has(failure.refusal.status)) {
        this.finish(failure.refusal);
        return;
      }
      reason = failure.why;
    }
    this.finish(
      new Error(`${why}; no reconnect after ${this.settings.maxAttempts} tries (last: ${reason})`),
    );
  }

  /** Whether the transport has ended (a method: it changes across awaits). */
  private isEnded(): boolean {
    return this.ended;
  }

  private finish(error: Error | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.live = false;
    this.lifetime.abort();
    const failure = error ?? new Error("The remote connection is closed");
    for (const waiter of this.waiters.splice(0)) waiter.reject(failure);
    try {
      if (error === undefined) this.controller.close();
      else this.controller.error(error);
    } catch {
      // Already cancelled.
    }
    if (error !== undefined) this.socket?.terminate();
    this.settings.onEvent(error === undefined ? { type: "closed" } : { type: "closed", error });
    this.resolveClosed();
  }
}

function rawText(data: WebSocketType.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
