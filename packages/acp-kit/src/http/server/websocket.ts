/**
 * The WebSocket side of the server core, on a minimal socket interface (any runtime).
 *
 * @module
 */
import type { AnyMessage } from "../../base/messages.js";
import {
  RESUME_FAILED_METHOD,
  RESUME_METHOD,
  RESUMED_METHOD,
  WS_CLOSE_RESUME_FAILED,
  type TransportAdvertisement,
} from "../shared/wire.js";
import { initializeFailure, type ServedConnection } from "./connection.js";
import type { AcpPrincipal, AcpServerEvent } from "./options.js";
import type { StreamLease } from "./outbound-stream.js";

/** @internal Everything a WebSocket session needs from the server. */
export interface ServerContext {
  readonly advertisement: TransportAdvertisement;
  readonly resumable: boolean;
  readonly retentionMs: number;
  readonly keepAliveMs: number;
  readonly maxBufferedBytes: number;
  readonly maxOutputStallMs: number;
  readonly maxInboundBytes: number;
  readonly maxBodyBytes: number;
  readonly firstMessageTimeoutMs: number;
  /** Takes one of the principal's connection slots; `false` when none is left. */
  reserveSlot(principal: AcpPrincipal | undefined): boolean;
  /** Gives back a slot taken by `reserveSlot`. */
  releaseSlot(principal: AcpPrincipal | undefined): void;
  /** Opens a connection; `reserved`: on a slot the caller already took. */
  openConnection(
    transport: "http" | "websocket",
    principal: AcpPrincipal | undefined,
    id?: string,
    reserved?: boolean,
  ): ServedConnection | "limit";
  lookup(id: string, principal: AcpPrincipal | undefined): ServedConnection | undefined;
  initialize(
    connection: ServedConnection,
    message: AnyMessage & { id: string | number },
    size: number,
    signal?: AbortSignal,
  ): Promise<AnyMessage>;
  log(event: AcpServerEvent): void;
  /** The socket session currently serving a WebSocket connection. */
  readonly socketOwners: Map<string, WebSocketSession>;
  /** Sockets that have sent neither `initialize` nor `stream/resume` yet. */
  readonly unboundSockets: Set<WebSocketSession>;
}

/** The little a WebSocket must offer the server core (the `ws` package's `WebSocket` fits). */
export interface AcpSocket {
  /** Sends one text frame. */
  send(text: string): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
  /** Sends a ping (keep-alive); optional. */
  ping?(): void;
  /** Drops the connection without a handshake; optional. */
  terminate?(): void;
  /** Bytes queued but not yet sent; optional (backpressure). */
  readonly bufferedAmount?: number;
  /**
   * Stops reading from the peer (TCP then pushes back on it); optional. Without it, a
   * peer that sends more than the agent reads has its socket closed (1008) instead.
   */
  pause?(): void;
  /** Reads from the peer again after {@link AcpSocket.pause}. */
  resume?(): void;
}

/** Events the adapter feeds into the core for one accepted socket. */
export interface AcpSocketEvents {
  /** A text frame arrived. */
  message(text: string): void;
  /** A binary frame arrived (ignored). */
  binary(): void;
  /** A pong arrived. */
  pong(): void;
  /**
   * The socket closed, with the code of the peer's close frame when the adapter knows it:
   * `1000` (normal) and `1005` (no code) mean the client closed on purpose, which ends the
   * connection at once; anything else (`1006`: dropped) keeps it for a resume.
   */
  closed(code?: number): void;
}

/**
 * Unsent bytes a socket may hold before the next message waits in the stream's queue.
 * It was `maxBufferedBytesPerStream` (64 MiB): a fast agent ahead of its client filled it,
 * and a cut lost all of it (358,108 messages, 60 MB to replay; now 57,269, 9.6 MB: what
 * the kernel's buffers held).
 */
const SOCKET_HIGH_WATER_BYTES = 1024 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One accepted socket: either a new connection (after `initialize`) or a resumed one. */
export class WebSocketSession {
  readonly events: AcpSocketEvents;
  private connection: ServedConnection | undefined;
  private chain: Promise<void> = Promise.resolve();
  private ended = false;
  private lease: StreamLease | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private missedPongs = 0;
  /** Size of the frames received and not yet handled (waiting in `chain`). */
  private held = 0;
  /** Reading is paused: the agent has too much unread. */
  private paused = false;
  /** The socket holds a connection slot of its principal not yet passed to a connection. */
  private holdsSlot = false;
  /** `initialize` or `stream/resume` has arrived. */
  private bound = false;
  private firstMessageTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly socket: AcpSocket,
    private readonly context: ServerContext,
    private readonly principal: AcpPrincipal | undefined,
    private readonly upgradeId: string,
  ) {
    this.events = {
      message: (text) => {
        const size = text.length;
        this.held += size;
        this.flow();
        this.chain = this.chain
          .then(() => this.onMessage(text, size))
          .catch(() => {
            this.shutdown(1011, "Message handling failed");
          })
          .then(() => {
            this.held -= size;
            this.flow();
          });
      },
      binary: () => undefined,
      pong: () => {
        this.missedPongs = 0;
      },
      closed: (code) => this.onClosed(code === 1000 || code === 1005),
    };
    context.log({ type: "websocket-open", transport: "websocket" });
    // The socket counts against the principal's connections from now on (a socket that
    // never initializes must not escape the limit), and has a while to say what it is.
    if (!context.reserveSlot(principal)) {
      this.shutdown(1008, "Too many connections");
      return;
    }
    this.holdsSlot = true;
    context.unboundSockets.add(this);
    if (context.firstMessageTimeoutMs > 0) {
      this.firstMessageTimer = setTimeout(() => {
        this.context.log({ type: "websocket-close", reason: "no initialize in time" });
        this.shutdown(1008, "No initialize in time");
      }, context.firstMessageTimeoutMs);
    }
    if (context.keepAliveMs > 0 && socket.ping !== undefined) {
      this.pingTimer = setInterval(() => {
        // A paused socket's pongs are not read: silence then says nothing of the peer (the
        // pings still go out, so a vanished peer still fails the writes).
        if (this.paused) {
          this.missedPongs = 0;
        } else if (this.missedPongs >= 2) {
          this.context.log({ type: "websocket-close", reason: "keep-alive timeout" });
          if (this.socket.terminate !== undefined) this.socket.terminate();
          else this.socket.close(1001, "Keep-alive timeout");
          this.onClosed();
          return;
        } else {
          this.missedPongs++;
        }
        try {
          this.socket.ping?.();
        } catch {
          // the close event follows
        }
      }, context.keepAliveMs);
    }
  }

  /** Closes the socket (not the connection, unless it is not resumable). */
  shutdown(code: number, reason: string): void {
    try {
      this.socket.close(code, reason);
    } catch {
      // already closed
    }
    this.onClosed();
  }

  private send(value: unknown): boolean {
    if (this.ended) return false;
    try {
      this.socket.send(typeof value === "string" ? value : JSON.stringify(value));
      return true;
    } catch {
      this.shutdown(1011, "Send failed");
      return false;
    }
  }

  /**
   * Reads the socket only while the agent keeps up: pauses it once the frames waiting here
   * and the messages the agent left unread pass `maxInboundBytes`, resumes below. A socket
   * that cannot pause is closed when that passes `maxInboundBytes + maxBodyBytes`.
   */
  private flow(): void {
    if (this.ended) return;
    const held = this.held + (this.connection?.unreadBytes ?? 0);
    const limit = this.context.maxInboundBytes;
    if (held > limit) {
      if (this.paused) return;
      if (this.socket.pause === undefined) {
        if (held <= limit + this.context.maxBodyBytes) return;
        this.context.log({ type: "websocket-close", reason: "agent not reading" });
        this.connection?.close("limit");
        this.shutdown(1008, "Agent is not reading");
        return;
      }
      this.paused = true;
      try {
        this.socket.pause();
      } catch {
        // the close event follows
      }
    } else if (this.paused) {
      this.paused = false;
      try {
        this.socket.resume?.();
      } catch {
        // the close event follows
      }
    }
  }

  /** This socket serves `connection` now (initialized or resumed). */
  private bind(connection: ServedConnection): void {
    this.connection = connection;
    this.context.socketOwners.set(connection.id, this);
    connection.onInboundRead(() => {
      if (this.connection === connection) this.flow();
    });
  }

  /** `initialize` or `stream/resume` arrived: the first-message timer stops. */
  private markBound(): void {
    this.bound = true;
    this.context.unboundSockets.delete(this);
    if (this.firstMessageTimer !== undefined) clearTimeout(this.firstMessageTimer);
    this.firstMessageTimer = undefined;
  }

  private async onMessage(text: string, size: number): Promise<void> {
    if (this.ended) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      return;
    }
    if (Array.isArray(value)) {
      this.send({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "JSON-RPC batches are not supported" },
      });
      return;
    }
    if (!isRecord(value)) {
      this.send({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } });
      return;
    }
    const connection = this.connection;
    if (connection === undefined) {
      if (value.method === RESUME_METHOD) {
        this.resume(value);
        return;
      }
      await this.initialize(value, size);
      return;
    }
    if (value.method === "initialize" && "id" in value) {
      this.send({
        jsonrpc: "2.0",
        id: value.id,
        error: { code: -32600, message: "Initialize not allowed on existing connection" },
      });
      return;
    }
    if (value.method === RESUME_METHOD) return;
    try {
      connection.deliver(value as unknown as AnyMessage, size);
    } catch {
      this.shutdown(1000, "Connection closed");
    }
  }

  private async initialize(message: Record<string, unknown>, size: number): Promise<void> {
    const id = message.id;
    if (message.method !== "initialize" || (typeof id !== "string" && typeof id !== "number")) {
      this.shutdown(1002, "First message must be initialize");
      return;
    }
    if (this.bound) return;
    this.markBound();
    // The socket's slot becomes the connection's.
    const connection = this.context.openConnection(
      "websocket",
      this.principal,
      this.upgradeId,
      this.holdsSlot,
    );
    this.holdsSlot = false;
    if (connection === "limit") {
      this.shutdown(1008, "Too many connections");
      return;
    }
    this.bind(connection);
    try {
      await this.context.initialize(
        connection,
        message as unknown as AnyMessage & { id: string | number },
        size,
      );
    } catch (error) {
      const failure = initializeFailure(error);
      this.context.log({
        type: "agent-error",
        connectionId: connection.id,
        transport: "websocket",
        reason: failure.logReason,
      });
      this.send({ jsonrpc: "2.0", id, error: failure.error });
      connection.close("initialize-failed");
      this.shutdown(1011, "Initialize failed");
      return;
    }
    this.pump(connection);
  }

  private resume(message: Record<string, unknown>): void {
    const params = isRecord(message.params) ? message.params : {};
    const fail = (reason: string): void => {
      this.context.log({ type: "resume-failed", transport: "websocket", reason });
      this.send({ jsonrpc: "2.0", method: RESUME_FAILED_METHOD, params: { reason } });
      this.shutdown(WS_CLOSE_RESUME_FAILED, "Resume failed");
    };
    if (!this.context.resumable) {
      fail("not-resumable");
      return;
    }
    const connectionId = params.connectionId;
    const rawCursor = params.cursor;
    const cursor =
      typeof rawCursor === "number"
        ? rawCursor
        : typeof rawCursor === "string" && /^\d+$/.test(rawCursor)
          ? Number(rawCursor)
          : Number.NaN;
    const connection =
      typeof connectionId === "string"
        ? this.context.lookup(connectionId, this.principal)
        : undefined;
    if (connection?.transport !== "websocket") {
      fail("unknown-connection");
      return;
    }
    const failure = connection.connectionStream.rewind(cursor);
    if (failure !== undefined) {
      fail(failure);
      return;
    }
    const previous = this.context.socketOwners.get(connection.id);
    this.markBound();
    // The connection already counts against the principal: the socket's own slot goes.
    this.releaseSlot();
    this.bind(connection);
    if (previous !== undefined && previous !== this) previous.detachReplaced();
    this.flow();
    this.send({
      jsonrpc: "2.0",
      method: RESUMED_METHOD,
      params: {
        connectionId: connection.id,
        cursor: String(cursor),
        received: connection.receivedCount,
      },
    });
    this.context.log({
      type: "stream-resumed",
      connectionId: connection.id,
      transport: "websocket",
    });
    this.pump(connection);
  }

  /** Another socket took over this connection. */
  private detachReplaced(): void {
    this.connection = undefined;
    this.lease?.release();
    this.lease = undefined;
    this.shutdown(1000, "Resumed on another socket");
  }

  private pump(connection: ServedConnection): void {
    const lease = connection.connectionStream.attach(true);
    if (lease === undefined) return;
    this.lease = lease;
    void (async () => {
      for (;;) {
        const entry = await lease.next();
        if (entry === undefined) break;
        if (!this.send(entry.text)) return;
        await this.waitForSocket(connection);
      }
      if (this.lease === lease && connection.closed && !this.ended) {
        this.shutdown(connection.closeReason === "limit" ? 1008 : 1000, "Connection closed");
      }
    })();
  }

  /**
   * Waits while the socket holds more than {@link SOCKET_HIGH_WATER_BYTES} unsent; closes
   * the connection on a stall. What the socket holds is lost if it drops (only the replay
   * buffer has it then), while what waits in the stream's queue is not: so the socket is
   * given little at a time, and the rest waits in the queue, where
   * `maxBufferedBytesPerStream` holds the agent back.
   */
  private async waitForSocket(connection: ServedConnection): Promise<void> {
    const highWater = Math.min(this.context.maxBufferedBytes, SOCKET_HIGH_WATER_BYTES);
    let pollMs = 1;
    let stalledMs = 0;
    let last = this.socket.bufferedAmount ?? 0;
    while (!this.ended && !connection.closed && last >= highWater) {
      if (stalledMs >= this.context.maxOutputStallMs) {
        connection.close("limit");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      stalledMs += pollMs;
      pollMs = Math.min(pollMs * 2, 100);
      const now = this.socket.bufferedAmount ?? 0;
      if (now < last) stalledMs = 0;
      last = now;
    }
  }

  private releaseSlot(): void {
    if (!this.holdsSlot) return;
    this.holdsSlot = false;
    this.context.releaseSlot(this.principal);
  }

  private onClosed(deliberate = false): void {
    if (this.ended) return;
    this.ended = true;
    if (this.pingTimer !== undefined) clearInterval(this.pingTimer);
    if (this.firstMessageTimer !== undefined) clearTimeout(this.firstMessageTimer);
    this.context.unboundSockets.delete(this);
    this.releaseSlot();
    this.lease?.release();
    this.lease = undefined;
    const connection = this.connection;
    this.context.log({ type: "websocket-close", transport: "websocket" });
    if (connection === undefined) return;
    if (this.context.socketOwners.get(connection.id) !== this) return;
    this.context.socketOwners.delete(connection.id);
    if (!this.context.resumable || connection.closed || deliberate) {
      connection.close("socket-closed");
      return;
    }
    // Keep the connection for a resume, at most the retention window.
    const timer = setTimeout(() => {
      if (!this.context.socketOwners.has(connection.id)) connection.close("socket-closed");
    }, this.context.retentionMs);
    connection.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  }
}
