/**
 * {@link connectHttp}: ACP over Streamable HTTP, as the official SDK 2.4.0 speaks it
 * (POST for what the client sends, one SSE stream for the connection and one per
 * session for what the agent sends), plus reconnecting and resuming streams with
 * `Last-Event-ID`.
 *
 * @module
 */
import type { AnyMessage, JsonRpcId } from "../../base/messages.js";
import { MemoryCookieStore, type CookieStore } from "./cookies.js";
import {
  backoffDelay,
  retryAfterMs,
  idKey,
  paramsSessionId,
  resolveSettings,
  resultSessionId,
  ResumeGapError,
  transportInfo,
  sleep,
  TRANSPORT_ERROR_CODE,
  type RemoteClientOptions,
  type RemoteStream,
  type Settings,
} from "./options.js";
import { parseEventStream } from "./sse.js";

const CONNECTION_HEADER = "Acp-Connection-Id";
const SESSION_HEADER = "Acp-Session-Id";
const CONNECTION = "connection";

/** Methods whose answer the official server sends on the connection stream, not the session's. */
const CONNECTION_ROUTED = new Set(["session/load"]);

/** An HTTP answer that is not a success. */
export class HttpStatusError extends Error {
  /**
   * Creates the error.
   * @param status - The HTTP status.
   * @param body - The start of the response body (diagnostic text).
   * @param what - What was asked, in words.
   */
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status}${body === "" ? "" : ` (${body})`}`);
    this.name = "HttpStatusError";
  }
}

/** How long leaving a refused connection waits for the server's answer to its DELETE. */
const GOODBYE_MS = 2_000;

/** The notification withdrawing a request. */
const CANCEL_REQUEST_METHOD = "$/cancel_request";
/** The most `$/cancel_request`s kept for requests not seen yet. */
const MAX_EARLY_CANCELS = 256;

/** Messages the readable side holds before the event streams wait for the connection. */
const READ_AHEAD_MESSAGES = 1024;

/** Statuses after which the connection is gone for good. */
const FATAL = new Set([401, 403, 404, 410]);

/**
 * Opens a remote ACP connection over Streamable HTTP. Nothing is sent until the first
 * message, which must be `initialize`. Use the result as the stream of a
 * `ClientSideConnection`:
 *
 * ```ts
 * const stream = connectHttp("http://127.0.0.1:8787/acp", { headers: { Authorization: "Bearer …" } });
 * const agent = new ClientSideConnection(() => myClient, stream);
 * await agent.initialize({ protocolVersion: 1, clientCapabilities: remoteClientCapabilities() });
 * ```
 *
 * Streams that drop are opened again with jittered backoff; when the server gave its
 * events ids, the client resumes after the last one it saw (`Last-Event-ID`) and drops
 * any it already has, so nothing is lost or doubled. See {@link RemoteClientOptions}.
 *
 * @param url - The endpoint, such as `http://host:port/acp`.
 * @param options - Headers, cookies, timeouts, reconnecting.
 */
export function connectHttp(url: string | URL, options: RemoteClientOptions = {}): RemoteStream {
  return new HttpTransport(String(url), options);
}

interface StreamState {
  readonly key: string;
  readonly sessionId: string | undefined;
  lastEventId: string | undefined;
  /** Whether the server numbers this stream's events (then a drop loses nothing). */
  resumable: boolean;
  opened: boolean;
  ready: Promise<void>;
  settleReady: (error?: Error) => void;
  attempt: AbortController | undefined;
  failure: Error | undefined;
  /**
   * Whether the current try brought something (an event, or keep-alives after the opening
   * comment): only then does a drop start the count of tries again. A stream the server
   * opens and ends at once is a failed try like any other.
   */
  progressed: boolean;
}

interface PendingRequest {
  readonly id: JsonRpcId;
  readonly stream: string;
}

class HttpTransport implements RemoteStream {
  readonly readable: ReadableStream<AnyMessage>;
  readonly writable: WritableStream<AnyMessage>;
  readonly closed: Promise<void>;
  private connId: string | undefined;
  private readonly settings: Settings;
  private readonly fetchImpl: typeof fetch;
  private readonly lifetime = new AbortController();
  private controller!: ReadableStreamDefaultController<AnyMessage>;
  /** Event streams waiting for the connection to read what is queued. */
  private readers: (() => void)[] = [];
  private ended = false;
  private resolveClosed!: () => void;
  private readonly streams = new Map<string, StreamState>();
  /** Requests of ours not answered yet, with the stream their answer comes on. */
  private readonly pending = new Map<string, PendingRequest>();
  /** The agent's requests: the session stream each came on (the answer goes with its header). */
  private readonly agentRequestSessions = new Map<string, string>();
  /** The agent's requests delivered and not answered yet. */
  private readonly agentRequests = new Set<string>();
  /**
   * The agent's `$/cancel_request`s that came before the request they withdraw (a server
   * may send them on the connection stream and the request on a session's), by that
   * request's id: delivered right after it. At most {@link MAX_EARLY_CANCELS}, the oldest
   * dropped (a cancel that came after its request was answered is never needed).
   */
  private readonly earlyCancels = new Map<string, AnyMessage>();
  private writeChain: Promise<void> = Promise.resolve();
  /** Whether the server advertised resumable streams. */
  private serverResumable = false;
  /**
   * The connection's `initialize` was answered with an error and nothing was sent since:
   * another `initialize` (a client asking again in v1) starts a new connection, as the
   * server refuses a second one on this.
   */
  private initializeRefused = false;
  /**
   * The connection ended after its `initialize` was refused (the agent left, as some do on
   * a v2 `initialize`): kept, not raised, as another `initialize` starts a new connection;
   * anything else sent ends the transport with it.
   */
  private lostAfterRefusal: Error | undefined;
  private keepAliveTimeoutMs: number;
  private readonly keepAliveFromCaller: boolean;

  constructor(
    private readonly url: string,
    options: RemoteClientOptions,
  ) {
    const cookies: CookieStore | undefined =
      options.cookies === false ? undefined : (options.cookies ?? new MemoryCookieStore());
    this.settings = resolveSettings(options, cookies);
    this.keepAliveTimeoutMs = this.settings.keepAliveTimeoutMs;
    this.keepAliveFromCaller = options.keepAliveTimeoutMs !== undefined;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== "function")
      throw new Error("connectHttp needs fetch (Node 18 or later)");
    this.fetchImpl = fetchImpl;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.readable = new ReadableStream<AnyMessage>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wakeReaders(),
        cancel: () => this.close(),
      },
      // Messages read ahead of the connection. Beyond them the event streams wait (TCP
      // pushes back on the server): an unbounded queue made a burst cost quadratic time,
      // as a long array's shift() is a copy.
      { highWaterMark: READ_AHEAD_MESSAGES },
    );
    this.writable = new WritableStream<AnyMessage>({
      write: (message) => {
        const next = this.writeChain.then(() => this.send(message));
        this.writeChain = next.catch(() => undefined);
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
  }

  get connectionId(): string | undefined {
    return this.connId;
  }

  async close(): Promise<void> {
    if (this.ended) return this.closed;
    const id = this.connId;
    this.finish(undefined);
    if (id !== undefined) {
      await this.request("DELETE", { [CONNECTION_HEADER]: id }, undefined, undefined)
        .then((response) => response.body?.cancel())
        .catch(() => undefined);
    }
  }

  // ---- sending ----

  private async send(message: AnyMessage): Promise<void> {
    if (this.ended) throw new Error("The remote connection is closed");
    if (this.initializeRefused && isInitialize(message)) return this.restart(message);
    this.initializeRefused = false;
    const lost = this.lostAfterRefusal;
    if (lost !== undefined) {
      this.finish(lost);
      throw lost;
    }
    if (this.connId === undefined) return this.initialize(message);
    const sessionId = this.routeOf(message);
    if (sessionId !== undefined) {
      const state = this.openStream(sessionId);
      if (
        "method" in message &&
        (message.method === "session/load" || message.method === "session/resume")
      ) {
        // Attaching again clears an earlier gap.
        if (state.failure !== undefined) {
          this.streams.delete(sessionId);
          return this.send(message);
        }
      }
      try {
        await state.ready;
      } catch (error) {
        this.failMessage(message, error as Error);
        return;
      }
    }
    const key = "method" in message && "id" in message ? idKey(message.id) : undefined;
    if (key !== undefined && "id" in message) {
      const stream =
        sessionId === undefined || ("method" in message && CONNECTION_ROUTED.has(message.method))
          ? CONNECTION
          : sessionId;
      this.pending.set(key, { id: message.id, stream });
    }
    if (!("method" in message)) {
      const k = idKey(message.id);
      if (k !== undefined) {
        this.agentRequestSessions.delete(k);
        this.agentRequests.delete(k);
      }
    }
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      [CONNECTION_HEADER]: this.connId,
    };
    if (sessionId !== undefined) headers[SESSION_HEADER] = sessionId;
    let response: Response;
    try {
      response = await this.postWithRetry(headers, JSON.stringify(message), key !== undefined);
    } catch (error) {
      const err = error as Error;
      // The answer may have come on a stream already: then the failure of the POST (a
      // network cut before its own 202) changes nothing.
      const answered = key !== undefined && !this.pending.has(key);
      if (key !== undefined) this.pending.delete(key);
      if (answered) return;
      if (!(err instanceof HttpStatusError) && key !== undefined && !this.lifetime.signal.aborted) {
        // A request lost to the network (not sent again: it may have run) fails alone; the
        // streams' reconnecting decides whether the connection lives on.
        this.failMessage(message, err);
        return;
      }
      if (err instanceof HttpStatusError && !FATAL.has(err.status)) {
        if (err.status === 409 && sessionId !== undefined) {
          this.failStream(this.openStream(sessionId), new ResumeGapError(sessionId));
        }
        this.failMessage(message, err);
        return;
      }
      this.finish(err);
      throw err;
    }
    void response.body?.cancel().catch(() => undefined);
  }

  /** The session whose stream and header a message goes with, if any. */
  private routeOf(message: AnyMessage): string | undefined {
    const fromParams = paramsSessionId(message);
    if (fromParams !== undefined) return fromParams;
    if ("method" in message) return undefined;
    const k = idKey(message.id);
    return k === undefined ? undefined : this.agentRequestSessions.get(k);
  }

  /**
   * Leaves a connection whose `initialize` was refused (its streams stop, the server is
   * told with a DELETE, whose answer is awaited) and starts a new one with `message`.
   */
  private async restart(message: AnyMessage): Promise<void> {
    const old = this.connId;
    this.connId = undefined;
    this.initializeRefused = false;
    this.lostAfterRefusal = undefined;
    this.serverResumable = false;
    const replaced = new Error("The connection was replaced after a refused initialize");
    for (const state of this.streams.values()) {
      state.failure = replaced;
      state.settleReady(replaced);
      state.attempt?.abort();
    }
    this.streams.clear();
    this.pending.clear();
    this.agentRequestSessions.clear();
    this.agentRequests.clear();
    this.earlyCancels.clear();
    if (old !== undefined) {
      // Awaited: a server that limits connections then has room for the new one.
      await this.request("DELETE", { [CONNECTION_HEADER]: old }, undefined, GOODBYE_MS)
        .then((response) => response.body?.cancel())
        .catch(() => undefined);
    }
    return this.initialize(message);
  }

  private async initialize(message: AnyMessage): Promise<void> {
    if (!isInitialize(message)) {
      const error = new Error("The first message on a remote connection must be initialize");
      this.finish(error);
      throw error;
    }
    try {
      const response = await this.request(
        "POST",
        { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        JSON.stringify(message),
        this.settings.requestTimeoutMs,
      );
      if (!response.ok) throw await statusError(response, "initialize");
      const id = response.headers.get(CONNECTION_HEADER);
      if (id === null || id === "")
        throw new Error("The server's answer to initialize has no Acp-Connection-Id");
      const body = (await response.json()) as AnyMessage;
      if (this.ended) {
        // Closed while initializing: the server's connection must not be left behind.
        void this.request("DELETE", { [CONNECTION_HEADER]: id }, undefined, undefined).catch(
          () => undefined,
        );
        return;
      }
      this.connId = id;
      this.learnTransport(body);
      this.openStream(CONNECTION);
      this.initializeRefused = "error" in body;
      this.deliver(body);
    } catch (error) {
      this.finish(error as Error);
      throw error;
    }
  }

  /** Reads what the server says of itself in `_meta["acp/transport"]` of the initialize result. */
  private learnTransport(body: AnyMessage): void {
    const info = transportInfo(body);
    this.serverResumable = info.resumable;
    if (!this.keepAliveFromCaller && info.keepAliveMs !== undefined && info.keepAliveMs > 0) {
      this.keepAliveTimeoutMs = info.keepAliveMs * 3;
    }
  }

  /** POSTs, trying again when the request certainly did not reach an agent. */
  private async postWithRetry(
    headers: Record<string, string>,
    body: string,
    isRequest: boolean,
  ): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let failure: Error;
      let advised: number | undefined;
      try {
        response = await this.request("POST", headers, body, this.settings.requestTimeoutMs);
        if (response.ok) return response;
        advised = retryAfterMs(response.headers.get("Retry-After"), Date.now());
        failure = await statusError(response, "POST");
        // 502/503/504 from a proxy: the backend was not reached (or not answering).
        if (![502, 503, 504].includes(response.status)) throw failure;
      } catch (error) {
        if (error instanceof HttpStatusError && ![502, 503, 504].includes(error.status))
          throw error;
        failure = error as Error;
        // A request is sent again only when it surely did not arrive (it must not run
        // twice); an answer or a notification is sent again after any network failure.
        if (!(error instanceof HttpStatusError) && isRequest && !refused(error)) throw error;
        if (this.lifetime.signal.aborted) throw error;
      }
      if (attempt > this.settings.maxAttempts || this.ended) throw failure;
      // A 503's Retry-After (the server's inbound queue is full, or a proxy's backend is
      // away) is waited out, up to a minute, when it asks for longer than the backoff.
      const delayMs = Math.max(backoffDelay(this.settings, attempt), advised ?? 0);
      this.settings.onEvent({
        type: "reconnecting",
        stream: CONNECTION,
        attempt,
        delayMs,
        reason: failure.message,
      });
      await sleep(delayMs, this.lifetime.signal);
    }
  }

  // ---- receiving ----

  private openStream(key: string): StreamState {
    const existing = this.streams.get(key);
    if (existing !== undefined) return existing;
    let settle!: (error?: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    ready.catch(() => undefined);
    let settled = false;
    const state: StreamState = {
      key,
      sessionId: key === CONNECTION ? undefined : key,
      lastEventId: undefined,
      resumable: false,
      opened: false,
      ready,
      settleReady: (error) => {
        if (settled) return;
        settled = true;
        settle(error);
      },
      attempt: undefined,
      failure: undefined,
      progressed: false,
    };
    this.streams.set(key, state);
    void this.runStream(state);
    return state;
  }

  private async runStream(state: StreamState): Promise<void> {
    let failures = 0;
    while (!this.ended && state.failure === undefined && this.streams.get(state.key) === state) {
      const attempt = new AbortController();
      state.attempt = attempt;
      let reason: Error;
      try {
        const headers: Record<string, string> = {
          Accept: "text/event-stream",
          [CONNECTION_HEADER]: this.connId ?? "",
        };
        if (state.sessionId !== undefined) headers[SESSION_HEADER] = state.sessionId;
        // Resuming: after a drop on a server that keeps what it sent ("0": from the start).
        const resuming =
          state.opened && (state.resumable || this.serverResumable)
            ? true
            : state.lastEventId !== undefined;
        if (resuming) headers["Last-Event-ID"] = state.lastEventId ?? "0";
        const response = await this.request(
          "GET",
          headers,
          undefined,
          this.settings.requestTimeoutMs,
          attempt.signal,
        );
        if (!response.ok) {
          const error = await statusError(response, `the ${describe(state)} stream`);
          if (response.status === 409 && resuming) {
            // What we missed has left the server's buffer.
            this.failStream(state, new ResumeGapError(state.key));
            return;
          }
          if (FATAL.has(error.status)) {
            this.streamFatal(state, error);
            return;
          }
          if (response.status === 409 && !state.opened) {
            // Another receiver holds it (the first open): the session is not ours to read.
            this.failStream(state, error, false);
            return;
          }
          throw error;
        }
        if (response.body === null) throw new Error("The event stream has no body");
        if (state.opened) {
          this.settings.onEvent({
            type: "reconnected",
            stream: state.key,
            resumed: resuming && state.resumable,
          });
        }
        state.opened = true;
        state.progressed = false;
        state.settleReady();
        await this.readEvents(state, response.body, attempt);
        reason = new Error(`The server ended the ${describe(state)} stream`);
      } catch (error) {
        if (this.stopped(state)) return;
        reason = error instanceof Error ? error : new Error(String(error));
        if (attempt.signal.aborted && attempt.signal.reason instanceof Error)
          reason = attempt.signal.reason;
      }
      if (this.stopped(state)) return;
      if (!state.resumable && !this.serverResumable) {
        // Answers in flight may be lost with the stream: fail what waits on it.
        this.failPending(state.key, reason);
      }
      if (state.progressed) failures = 0;
      state.progressed = false;
      failures++;
      if (failures > this.settings.maxAttempts) {
        if (state.key === CONNECTION) this.connectionLost(state, reason);
        else this.failStream(state, reason, false);
        return;
      }
      const delayMs = backoffDelay(this.settings, failures);
      this.settings.onEvent({
        type: "reconnecting",
        stream: state.key,
        attempt: failures,
        delayMs,
        reason: reason.message,
      });
      await sleep(delayMs, this.lifetime.signal);
    }
  }

  /** Whether a stream's loop must stop (a method: state changes across awaits). */
  private stopped(state: StreamState): boolean {
    return this.ended || state.failure !== undefined;
  }

  private async readEvents(
    state: StreamState,
    body: ReadableStream<Uint8Array>,
    attempt: AbortController,
  ): Promise<void> {
    const idle = this.keepAliveTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      if (idle <= 0) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(
        () => attempt.abort(new Error(`No data nor keep-alive from the server for ${idle} ms`)),
        idle,
      );
    };
    arm();
    let items = 0;
    try {
      for await (const item of parseEventStream(body, this.settings.maxMessageBytes)) {
        arm();
        items++;
        if (item.kind === "event" || items > 1) state.progressed = true;
        if (this.stopped(state)) return;
        if (item.kind !== "event") continue;
        const { id, data } = item.event;
        if (id !== undefined && id !== "") {
          if (isDuplicate(state.lastEventId, id)) continue;
          state.lastEventId = id;
          state.resumable = true;
        }
        if (data.trim() === "") continue;
        let message: unknown;
        try {
          message = JSON.parse(data);
        } catch {
          continue; // not JSON: nothing a connection could use
        }
        if (typeof message !== "object" || message === null || Array.isArray(message)) continue;
        this.received(message as AnyMessage, state);
        if ((this.controller.desiredSize ?? 1) <= 0 && !this.ended) {
          // The connection is behind: wait for it (not counted as the server's silence).
          if (timer !== undefined) clearTimeout(timer);
          await new Promise<void>((resolve) => this.readers.push(resolve));
          arm();
        }
      }
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  private received(message: AnyMessage, state: StreamState): void {
    if ("method" in message && "id" in message) {
      const k = idKey(message.id);
      if (k !== undefined) {
        if (state.sessionId !== undefined) this.agentRequestSessions.set(k, state.sessionId);
        this.agentRequests.add(k);
        this.deliver(message);
        const cancel = this.earlyCancels.get(k);
        if (cancel !== undefined) {
          this.earlyCancels.delete(k);
          this.deliver(cancel);
        }
        return;
      }
    }
    if ("method" in message && message.method === CANCEL_REQUEST_METHOD && !("id" in message)) {
      const params = message.params;
      const k =
        typeof params === "object" && params !== null && "requestId" in params
          ? idKey(params.requestId)
          : undefined;
      if (k !== undefined && !this.agentRequests.has(k)) {
        this.earlyCancels.set(k, message);
        if (this.earlyCancels.size > MAX_EARLY_CANCELS) {
          const oldest = this.earlyCancels.keys().next();
          if (oldest.done !== true) this.earlyCancels.delete(oldest.value);
        }
        return;
      }
    }
    if (!("method" in message)) {
      const k = idKey(message.id);
      if (k !== undefined) this.pending.delete(k);
      const sessionId = resultSessionId(message);
      if (sessionId !== undefined) this.openStream(sessionId);
    }
    this.deliver(message);
  }

  // ---- failures ----

  /** A stream has a gap or conflict: its waiting requests fail; later ones fail until re-attached. */
  private failStream(state: StreamState, error: Error, gap = true): void {
    state.failure = error;
    state.settleReady(error);
    state.attempt?.abort();
    if (gap) this.settings.onEvent({ type: "resume-gap", stream: state.key });
    if (state.key === CONNECTION) {
      this.connectionLost(state, error);
      return;
    }
    this.failPending(state.key, error);
  }

  private streamFatal(state: StreamState, error: Error): void {
    state.settleReady(error);
    if (state.key === CONNECTION) this.connectionLost(state, error);
    else this.finish(error);
  }

  /**
   * The connection stream is gone for good: the transport ends, unless the connection's
   * `initialize` was refused (see {@link HttpTransport.lostAfterRefusal}).
   */
  private connectionLost(state: StreamState, error: Error): void {
    if (!this.initializeRefused) {
      this.finish(error);
      return;
    }
    state.failure ??= error;
    state.settleReady(error);
    this.lostAfterRefusal = error;
  }

  private failPending(stream: string, error: Error): void {
    for (const [key, pending] of this.pending) {
      if (pending.stream !== stream) continue;
      this.pending.delete(key);
      this.deliver(errorResponse(pending.id, error));
    }
  }

  /** A message that cannot go out: a request is answered with an error, the rest dropped. */
  private failMessage(message: AnyMessage, error: Error): void {
    if ("method" in message && "id" in message) this.deliver(errorResponse(message.id, error));
  }

  private deliver(message: AnyMessage): void {
    if (this.ended) return;
    try {
      this.controller.enqueue(message);
    } catch {
      // The reader went away.
    }
  }

  /** Lets the event streams waiting for the connection to catch up read on. */
  private wakeReaders(): void {
    const readers = this.readers;
    this.readers = [];
    for (const resolve of readers) resolve();
  }

  /** Ends the transport: with an error, the readable side errors; without, it closes. */
  private finish(error: Error | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.wakeReaders();
    this.lifetime.abort();
    for (const state of this.streams.values()) {
      state.attempt?.abort();
      state.settleReady(error ?? new Error("The remote connection is closed"));
    }
    try {
      if (error === undefined) this.controller.close();
      else this.controller.error(error);
    } catch {
      // Already cancelled.
    }
    if (error !== undefined && this.connId !== undefined) {
      const id = this.connId;
      void this.request("DELETE", { [CONNECTION_HEADER]: id }, undefined, 2_000)
        .then((response) => response.body?.cancel())
        .catch(() => undefined);
    }
    this.settings.onEvent(error === undefined ? { type: "closed" } : { type: "closed", error });
    this.resolveClosed();
  }

  // ---- HTTP ----

  private async request(
    method: string,
    extra: Record<string, string>,
    body: string | undefined,
    timeoutMs: number | undefined,
    signal?: AbortSignal,
  ): Promise<Response> {
    const headers = new Headers(this.settings.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    this.settings.cookies?.apply(headers);
    const signals: AbortSignal[] = [];
    if (signal !== undefined) signals.push(signal);
    if (method !== "DELETE") signals.push(this.lifetime.signal);
    // The time limit covers the answer's headers only: an event stream lasts.
    const timeout = timeoutMs !== undefined && timeoutMs > 0 ? new AbortController() : undefined;
    if (timeout !== undefined) signals.push(timeout.signal);
    const timer =
      timeout === undefined
        ? undefined
        : setTimeout(
            () => timeout.abort(new Error(`No answer from the server in ${timeoutMs} ms`)),
            timeoutMs,
          );
    try {
      const response = await this.fetchImpl(this.url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(signals.length === 0 ? {} : { signal: anySignal(signals) }),
      });
      this.settings.cookies?.store(response.headers);
      return response;
    } catch (error) {
      if (timeout?.signal.aborted === true && timeout.signal.reason instanceof Error)
        throw timeout.signal.reason;
      throw error;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}

/** Whether a message is an `initialize` request. */
function isInitialize(message: AnyMessage): boolean {
  return "method" in message && message.method === "initialize" && "id" in message;
}

function describe(state: StreamState): string {
  return state.sessionId === undefined ? "connection" : `session ${state.sessionId}`;
}

/** Whether an event id was seen already (ids that are numbers compare as numbers). */
function isDuplicate(last: string | undefined, id: string): boolean {
  if (last === undefined) return false;
  const a = Number(last);
  const b = Number(id);
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b) && /^\d+$/.test(id) && /^\d+$/.test(last))
    return b <= a;
  return false;
}

function anySignal(signals: AbortSignal[]): AbortSignal {
  if (signals.length === 1 && signals[0] !== undefined) return signals[0];
  // Node 20.3+: the combined signal is collected with the request, no listener left behind.
  if (typeof AbortSignal.any === "function") return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), {
      once: true,
      signal: controller.signal,
    });
  }
  return controller.signal;
}

/** Whether a fetch failure means the request never reached the server. */
function refused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === "ECONNREFUSED";
}

async function statusError(response: Response, what: string): Promise<HttpStatusError> {
  let text = "";
  try {
    text = (await response.text()).slice(0, 512);
  } catch {
    // No body to quote.
  }
  return new HttpStatusError(response.status, text, what);
}

function errorResponse(id: JsonRpcId, error: Error): AnyMessage {
  const data: Record<string, unknown> = { reason: error.name };
  if (error instanceof HttpStatusError) data.status = error.status;
  if (error instanceof ResumeGapError) data.stream = error.stream;
  return {
    jsonrpc: "2.0",
    id,
    error: { code: TRANSPORT_ERROR_CODE, message: error.message, data },
  };
}
