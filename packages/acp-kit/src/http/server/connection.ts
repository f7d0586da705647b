/**
 * One ACP connection served over HTTP or WebSocket: the agent's message stream, the routing
 * of its output onto streams (as the official SDK routes it), limits and lifetime.
 *
 * @module
 */
import type { AnyMessage, Stream } from "../../base/messages.js";
import { CLOSE_WITH_CONNECTION } from "../../transport/message-stream-transport.js";
import { OutboundStream, type RetentionLimits } from "./outbound-stream.js";
import type { AcpPrincipal, ConnectionCloseReason } from "./options.js";

/** The notification cancelling a request (either side's, hop by hop). */
const CANCEL_REQUEST_METHOD = "$/cancel_request";

/** Where a message goes: a session's stream, or the connection stream (`null`). */
export type Route = string | null;

/** Limits a connection enforces. */
export interface ConnectionLimits {
  readonly maxBufferedBytesPerStream: number;
  readonly maxInboundBytesPerConnection: number;
  readonly maxOutputStallMs: number;
  readonly maxStreamsPerConnection: number;
  readonly idleTimeoutMs: number;
  readonly retention: RetentionLimits | undefined;
}

/** Raised when a session stream would exceed `maxStreamsPerConnection`. */
export class StreamLimitError extends Error {
  constructor() {
    super("Too many streams on this connection");
    this.name = "StreamLimitError";
  }
}

/** Raised for a message sent to a connection that has ended. */
export class ConnectionClosedError extends Error {
  constructor() {
    super("ACP connection is closed");
    this.name = "ConnectionClosedError";
  }
}

/** Raised when the agent does not answer `initialize` within `initializeTimeoutMs`. */
export class InitializeTimeoutError extends Error {
  constructor() {
    super("initialize timed out");
    this.name = "InitializeTimeoutError";
  }
}

/**
 * The JSON-RPC error sent to the client when `initialize` fails, and the fixed reason
 * logged for it. The client learns what kind of failure it was (`data.reason`), never the
 * text of an error raised inside the server.
 */
export function initializeFailure(error: unknown): {
  readonly error: { code: number; message: string; data: { reason: string } };
  readonly logReason: string;
} {
  const reason =
    error instanceof InitializeTimeoutError
      ? "timeout"
      : error instanceof ConnectionClosedError
        ? "connection-closed"
        : "internal";
  return {
    error: { code: -32603, message: "Initialize failed", data: { reason } },
    logReason: `initialize failed: ${reason}`,
  };
}

/** What the server needs to create a connection. */
export interface ConnectionInit {
  readonly id: string;
  readonly transport: "http" | "websocket";
  readonly principal: AcpPrincipal | undefined;
  readonly limits: ConnectionLimits;
  readonly onClose: (connection: ServedConnection, reason: ConnectionCloseReason) => void;
}

/** Key of a JSON-RPC id in route maps. */
export function idKey(id: unknown): string | undefined {
  if (typeof id === "string") return `s:${id}`;
  if (typeof id === "number") return `n:${id}`;
  if (id === null) return "null";
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The string `params.sessionId` of a request or notification, if any. */
export function paramsSessionId(message: Record<string, unknown>): string | undefined {
  const params = message.params;
  if (!isRecord(params)) return undefined;
  return typeof params.sessionId === "string" ? params.sessionId : undefined;
}

function closeQuietly(controller: ReadableStreamDefaultController<AnyMessage>): void {
  try {
    controller.close();
  } catch {
    // already closed or errored
  }
}

/** See the module comment. */
export class ServedConnection {
  readonly id: string;
  readonly transport: "http" | "websocket";
  readonly principal: AcpPrincipal | undefined;
  /** The connection-level stream (HTTP) or the socket's single stream (WebSocket). */
  readonly connectionStream: OutboundStream;
  readonly sessionStreams = new Map<string, OutboundStream>();
  /** Client request id → route of its response. */
  readonly pendingRoutes = new Map<string, Route>();
  /** Agent request id → the session it went to (for the client's answer). */
  readonly clientResponseRoutes = new Map<string, Route>();
  /** Client → agent JSON-RPC messages accepted (WebSocket resume bookkeeping). */
  receivedCount = 0;
  /** The agent was handed its stream and answered `initialize`. */
  initialized = false;
  closed = false;
  closeReason: ConnectionCloseReason | undefined;
  /** Aborted when the connection ends. */
  readonly signal: AbortSignal;

  private readonly limits: ConnectionLimits;
  private readonly onClose: ConnectionInit["onClose"];
  private readonly abortController = new AbortController();
  private inbound: ReadableStreamDefaultController<AnyMessage> | undefined;
  /** Client messages the agent has not read yet (from `inboundHead` on), with their sizes. */
  private inboundQueue: { message: AnyMessage; size: number }[] = [];
  private inboundHead = 0;
  private inboundBytes = 0;
  /** The agent waits in a read: the next message goes straight to it. */
  private inboundPulling = false;
  /** The agent cancelled its readable side: nothing more can reach it. */
  private inboundCancelled = false;
  /** Told each time the agent takes a queued message (the WebSocket resumes reading). */
  private inboundListener: (() => void) | undefined;
  private initWaiter:
    | {
        key: string;
        augment: (message: AnyMessage) => AnyMessage;
        resolve: (message: AnyMessage) => void;
      }
    | undefined;
  private receivers = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private lastActivity = Date.now();
  private routeChain: Promise<void> = Promise.resolve();

  constructor(init: ConnectionInit) {
    this.id = init.id;
    this.transport = init.transport;
    this.principal = init.principal;
    this.limits = init.limits;
    this.onClose = init.onClose;
    this.signal = this.abortController.signal;
    this.connectionStream = this.newStream();
    this.scheduleIdle();
  }

  /** The message stream handed to the agent factory. */
  createAgentStream(): Stream {
    // Client messages wait in the connection's own queue, counted in bytes, and move into
    // the stream only when the agent reads: so the server knows how much the agent left
    // unread (see `hasInboundRoom`).
    const readable = new ReadableStream<AnyMessage>(
      {
        start: (controller) => {
          this.inbound = controller;
        },
        pull: () => this.pullInbound(),
        cancel: () => {
          this.inboundCancelled = true;
          this.inboundQueue = [];
          this.inboundHead = 0;
          this.inboundBytes = 0;
          this.inboundListener?.();
        },
      },
      { highWaterMark: 0 },
    );
    const writable = new WritableStream<AnyMessage>({
      write: (message) => this.route(message),
      close: () => this.agentEnded(),
      abort: () => this.agentEnded(),
    });
    // Closed by the agent's connection when it ends: that is how the server learns of it.
    return { readable, writable, [CLOSE_WITH_CONNECTION]: true } as Stream;
  }

  /**
   * Hands a client message to the agent: at once if it waits in a read, otherwise into the
   * queue, where its `size` (the JSON text's length) counts until the agent reads it.
   */
  deliver(message: AnyMessage, size: number): void {
    if (this.closed || this.inbound === undefined || this.inboundCancelled) {
      throw new ConnectionClosedError();
    }
    this.touch();
    this.receivedCount++;
    if (this.inboundPulling) {
      this.inboundPulling = false;
      this.inbound.enqueue(message);
      return;
    }
    this.inboundQueue.push({ message, size });
    this.inboundBytes += size;
  }

  /** Size of the client messages the agent has not read yet. */
  get unreadBytes(): number {
    return this.inboundBytes;
  }

  /**
   * Whether a client message of `size` may be queued: while the agent has left less than
   * `maxInboundBytesPerConnection` unread. A message is always taken when nothing waits.
   */
  hasInboundRoom(size: number): boolean {
    return (
      this.inboundBytes === 0 ||
      this.inboundBytes + size <= this.limits.maxInboundBytesPerConnection
    );
  }

  /** Sets who is told when the agent reads a queued message (one listener at a time). */
  onInboundRead(listener: (() => void) | undefined): void {
    this.inboundListener = listener;
  }

  private pullInbound(): void {
    const controller = this.inbound;
    if (controller === undefined || this.inboundCancelled) return;
    const entry = this.inboundQueue[this.inboundHead];
    if (entry === undefined) {
      if (this.closed) closeQuietly(controller);
      else this.inboundPulling = true;
      return;
    }
    this.inboundQueue[this.inboundHead++] = undefined as never;
    if (this.inboundHead === this.inboundQueue.length) {
      this.inboundQueue = [];
      this.inboundHead = 0;
    } else if (this.inboundHead >= 1024 && this.inboundHead * 2 >= this.inboundQueue.length) {
      this.inboundQueue = this.inboundQueue.slice(this.inboundHead);
      this.inboundHead = 0;
    }
    this.inboundBytes -= entry.size;
    controller.enqueue(entry.message);
    this.inboundListener?.();
  }

  /**
   * Sends `initialize` and resolves with the agent's response to it, passed through
   * `augment`. Over WebSocket the response is also the socket stream's first message.
   */
  initialize(
    message: AnyMessage & { id: string | number },
    size: number,
    augment: (message: AnyMessage) => AnyMessage,
  ): Promise<AnyMessage> {
    const key = idKey(message.id) ?? "";
    const answer = new Promise<AnyMessage>((resolve, reject) => {
      this.initWaiter = { key, augment, resolve };
      this.signal.addEventListener("abort", () => reject(new ConnectionClosedError()), {
        once: true,
      });
    });
    this.deliver(message, size);
    return answer;
  }

  /** Marks client activity (resets the idle timer). */
  touch(): void {
    this.lastActivity = Date.now();
  }

  /** The stream of a session, created on demand (throws {@link StreamLimitError}). */
  sessionStream(sessionId: string): OutboundStream {
    if (this.transport === "websocket") return this.connectionStream;
    const existing = this.sessionStreams.get(sessionId);
    if (existing !== undefined) return existing;
    if (this.sessionStreams.size >= this.limits.maxStreamsPerConnection) {
      throw new StreamLimitError();
    }
    const stream = this.newStream(() => {
      // A session stream nobody listens to and nothing waits on is dropped (unless it may
      // still be resumed).
      if (!stream.hasReceiver && !stream.hasPending && this.limits.retention === undefined) {
        this.sessionStreams.delete(sessionId);
      }
    });
    this.sessionStreams.set(sessionId, stream);
    return stream;
  }

  /** The stream for a route. */
  streamFor(route: Route): OutboundStream {
    return route === null ? this.connectionStream : this.sessionStream(route);
  }

  /** Ends the connection. */
  close(reason: ConnectionCloseReason): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.abortController.abort();
    // What the agent has not read yet stays readable; the stream ends after it.
    if (this.inbound !== undefined && this.inboundHead === this.inboundQueue.length) {
      closeQuietly(this.inbound);
    }
    this.connectionStream.finish();
    for (const stream of this.sessionStreams.values()) stream.finish();
    this.pendingRoutes.clear();
    this.clientResponseRoutes.clear();
    this.onClose(this, reason);
  }

  private newStream(onChange?: () => void): OutboundStream {
    return new OutboundStream(this.limits.retention, (attached) => {
      this.receivers += attached ? 1 : -1;
      this.touch();
      onChange?.();
    });
  }

  private agentEnded(): void {
    // Let queued messages drain: streams finish, receivers get what is left.
    this.close("agent-exit");
  }

  private async route(message: AnyMessage): Promise<void> {
    if (this.closed) return;
    const record = message as unknown as Record<string, unknown>;
    const isResponse = !("method" in record) && ("result" in record || "error" in record);
    let stream: OutboundStream;
    if (isResponse) {
      const key = idKey(record.id);
      const waiter = this.initWaiter;
      if (waiter !== undefined && key === waiter.key) {
        this.initWaiter = undefined;
        this.initialized = true;
        const answer = waiter.augment(message);
        if (this.transport === "websocket") this.connectionStream.push(JSON.stringify(answer));
        waiter.resolve(answer);
        return;
      }
      const route = key !== undefined ? this.pendingRoutes.get(key) : undefined;
      if (key !== undefined) this.pendingRoutes.delete(key);
      stream = this.safeStream(route ?? null);
    } else {
      const sessionId = paramsSessionId(record) ?? this.withdrawnRoute(record);
      if ("id" in record) {
        const key = idKey(record.id);
        if (key !== undefined) this.clientResponseRoutes.set(key, sessionId ?? null);
      }
      stream = this.safeStream(sessionId ?? null);
    }
    stream.push(JSON.stringify(message));
    await this.backpressure(stream);
  }

  /**
   * The session of the request an agent's `$/cancel_request` withdraws (v2 withdraws a
   * permission request so), while the client has not answered it: the notification goes on
   * that request's stream, behind it, not on the connection stream where it could overtake
   * it.
   */
  private withdrawnRoute(record: Record<string, unknown>): string | undefined {
    if (record.method !== CANCEL_REQUEST_METHOD || "id" in record) return undefined;
    const params = record.params;
    const key = isRecord(params) ? idKey(params.requestId) : undefined;
    return key === undefined ? undefined : (this.clientResponseRoutes.get(key) ?? undefined);
  }

  private safeStream(route: Route): OutboundStream {
    try {
      return this.streamFor(route);
    } catch {
      // Over the stream limit: the message goes to the connection stream rather than being lost.
      return this.connectionStream;
    }
  }

  /** Holds the agent's output while the stream holds too much unread; closes on a stall. */
  private async backpressure(stream: OutboundStream): Promise<void> {
    const limit = this.limits.maxBufferedBytesPerStream;
    let room = stream.waitForRoom(limit);
    while (room !== undefined && !this.closed) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = await Promise.race([
        room.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), this.limits.maxOutputStallMs);
        }),
      ]);
      clearTimeout(timer);
      if (stalled) {
        this.close("limit");
        return;
      }
      room = stream.waitForRoom(limit);
    }
  }

  private scheduleIdle(): void {
    const timeout = this.limits.idleTimeoutMs;
    if (timeout <= 0) return;
    const check = (): void => {
      if (this.closed) return;
      const idleFor = Date.now() - this.lastActivity;
      if (this.receivers <= 0 && idleFor >= timeout) {
        this.close("idle");
        return;
      }
      const wait = this.receivers > 0 ? timeout : Math.max(10, timeout - idleFor);
      this.idleTimer = setTimeout(check, wait);
    };
    this.idleTimer = setTimeout(check, timeout);
  }

  /** Runs `task` after earlier routed work (keeps client messages in order). */
  serialize(task: () => Promise<void>): Promise<void> {
    const next = this.routeChain.then(task);
    this.routeChain = next.catch(() => undefined);
    return next;
  }
}
