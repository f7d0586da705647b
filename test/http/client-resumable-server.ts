/**
 * A minimal resumable ACP server for the client's tests, written from the wire spec
 * (docs/remote.md, "Resumable streams"): SSE events carry `id:`, a GET with
 * `Last-Event-ID` replays what follows it (409 when that has left the buffer), and a
 * WebSocket resumes with a first `stream/resume` frame. Behind it, an acp-kit agent whose
 * prompt streams as many updates as the prompt text says.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import {
  AgentSideConnection,
  memoryStreamPair,
  PROTOCOL_VERSION,
  type AnyMessage,
  type Stream,
} from "../../packages/acp-kit/src/index.js";

/** The test agent: `session/prompt` with text "N" sends N numbered `agent_message_chunk`s. */
export function startAgent(stream: Stream): AgentSideConnection {
  let sessions = 0;
  return new AgentSideConnection(
    (conn) => ({
      initialize: () => ({
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: { loadSession: true },
      }),
      newSession: () => ({ sessionId: `s${++sessions}` }),
      authenticate: () => ({}),
      cancel: () => undefined,
      prompt: async (params) => {
        const first = params.prompt[0];
        const count = Number(first?.type === "text" ? first.text : "0");
        for (let i = 0; i < count; i++) {
          await conn.sessionUpdate({
            sessionId: params.sessionId,
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: `${i}` },
            },
          });
          // Yield now and then so the turn spreads over time (and over the proxy's drops).
          if (i % 200 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
        }
        return { stopReason: "end_turn" };
      },
    }),
    stream,
  );
}

interface Retained {
  readonly id: number;
  readonly text: string;
}

class SseStream {
  next = 0;
  buffer: Retained[] = [];
  receiver: ServerResponse | undefined;
  constructor(private readonly retention: number) {}

  push(text: string): void {
    const entry = { id: ++this.next, text };
    this.buffer.push(entry);
    if (this.buffer.length > this.retention) this.buffer.shift();
    this.receiver?.write(`id: ${entry.id}\ndata: ${text}\n\n`);
  }

  /** Attaches a receiver; false (409) when the resume point is gone or another reader holds it. */
  attach(res: ServerResponse, lastEventId: string | undefined): boolean {
    const last = lastEventId === undefined ? undefined : Number(lastEventId);
    if (last !== undefined) {
      const oldest = this.buffer[0]?.id ?? this.next + 1;
      if (last > this.next || oldest > last + 1) return false;
      this.receiver?.end();
    } else if (this.receiver !== undefined) {
      return false;
    }
    this.receiver = res;
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    res.write(": hello\n\n");
    for (const entry of this.buffer) {
      if (last === undefined || entry.id > last)
        res.write(`id: ${entry.id}\ndata: ${entry.text}\n\n`);
    }
    res.on("close", () => {
      if (this.receiver === res) this.receiver = undefined;
    });
    return true;
  }
}

interface Connection {
  readonly id: string;
  readonly agent: AgentSideConnection;
  readonly writer: WritableStreamDefaultWriter<AnyMessage>;
  readonly streams: Map<string, SseStream>;
  /** Requests of the client: the stream their answer goes to. */
  readonly routes: Map<string, string>;
  /** WebSocket: frames sent (all retained here), client frames accepted, the socket. */
  frames: string[];
  accepted: number;
  socket: WebSocket | undefined;
}

/** A running test server. */
export interface ResumableServer {
  readonly url: string;
  readonly port: number;
  /** How many GETs carried `Last-Event-ID`, and how many WebSocket resumes came. */
  readonly resumes: { sse: number; ws: number; gaps: number };
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1. `retention`: messages kept per stream for a resume. */
export async function startResumableServer(retention = 100_000): Promise<ResumableServer> {
  const connections = new Map<string, Connection>();
  const resumes = { sse: 0, ws: 0, gaps: 0 };
  const meta = {
    "acp/transport": {
      resumable: { retentionMessages: retention, retentionBytes: 1 << 30, retentionSeconds: 60 },
      keepAliveMs: 15_000,
    },
  };

  function open(
    kind: "http" | "ws",
    init: AnyMessage,
    onInit: (c: Connection, answer: AnyMessage) => void,
    id: string = randomUUID(),
  ): void {
    const pair = memoryStreamPair();
    const agent = startAgent(pair.agent);
    const connection: Connection = {
      id,
      agent,
      writer: pair.client.writable.getWriter(),
      streams: new Map([["", new SseStream(retention)]]),
      routes: new Map(),
      frames: [],
      accepted: 0,
      socket: undefined,
    };
    connections.set(connection.id, connection);
    let first = true;
    void (async () => {
      const reader = pair.client.readable.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        let message = next.value;
        if (first) {
          first = false;
          const result = (message as { result?: Record<string, unknown> }).result;
          if (result !== undefined) message = { ...message, result: { ...result, _meta: meta } };
          onInit(connection, message);
          continue;
        }
        const text = JSON.stringify(message);
        if (kind === "ws") {
          connection.frames.push(text);
          connection.socket?.send(text);
          continue;
        }
        let route = "";
        const params = (message as { params?: { sessionId?: unknown } }).params;
        if ("method" in message && typeof params?.sessionId === "string") route = params.sessionId;
        if (!("method" in message)) {
          route = connection.routes.get(String(message.id)) ?? "";
          connection.routes.delete(String(message.id));
        }
        let stream = connection.streams.get(route);
        if (stream === undefined)
          connection.streams.set(route, (stream = new SseStream(retention)));
        stream.push(text);
      }
    })();
    void connection.writer.write(init);
  }

  async function body(req: IncomingMessage): Promise<AnyMessage> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as AnyMessage;
  }

  const http = createServer((req, res) => {
    void (async () => {
      const connectionId = req.headers["acp-connection-id"];
      const sessionId = req.headers["acp-session-id"];
      if (req.method === "POST") {
        const message = await body(req);
        if (connectionId === undefined) {
          open("http", message, (c, answer) => {
            res.writeHead(200, { "Content-Type": "application/json", "Acp-Connection-Id": c.id });
            res.end(JSON.stringify(answer));
          });
          return;
        }
        const c = connections.get(String(connectionId));
        if (c === undefined) return void res.writeHead(404).end();
        if ("method" in message && "id" in message) {
          c.routes.set(
            String(message.id),
            message.method === "session/load" || typeof sessionId !== "string" ? "" : sessionId,
          );
        }
        await c.writer.write(message);
        return void res.writeHead(202).end();
      }
      if (req.method === "GET") {
        const c = connections.get(String(connectionId));
        if (c === undefined) return void res.writeHead(404).end();
        const key = typeof sessionId === "string" ? sessionId : "";
        let stream = c.streams.get(key);
        if (stream === undefined) c.streams.set(key, (stream = new SseStream(retention)));
        const last = req.headers["last-event-id"];
        if (typeof last === "string") resumes.sse++;
        if (!stream.attach(res, typeof last === "string" ? last : undefined)) {
          if (typeof last === "string") resumes.gaps++;
          res.writeHead(409, { "Content-Type": "text/plain" }).end("resume failed: gone");
        }
        return;
      }
      if (req.method === "DELETE") {
        const c = connections.get(String(connectionId));
        if (c === undefined) return void res.writeHead(404).end();
        connections.delete(c.id);
        for (const stream of c.streams.values()) stream.receiver?.end();
        await c.writer.close().catch(() => undefined);
        return void res.writeHead(202).end();
      }
      res.writeHead(405).end();
    })();
  });

  const wss = new WebSocketServer({ server: http });
  // The 101 names the connection, as the spec says.
  const upgradeIds = new WeakMap<IncomingMessage, string>();
  wss.on("headers", (headers, req) => {
    const id = randomUUID();
    upgradeIds.set(req, id);
    headers.push(`Acp-Connection-Id: ${id}`);
  });
  wss.on("connection", (socket, req) => {
    let bound: Connection | undefined;
    socket.on("message", (data) => {
      const message = JSON.parse((data as Buffer).toString("utf8")) as AnyMessage;
      if (bound === undefined) {
        if ("method" in message && message.method === "stream/resume") {
          const params = message.params as { connectionId: string; cursor: string };
          const c = connections.get(params.connectionId);
          const cursor = Number(params.cursor);
          if (c === undefined || cursor > c.frames.length || c.frames.length - cursor > retention) {
            resumes.gaps++;
            socket.send(
              JSON.stringify({
                jsonrpc: "2.0",
                method: "stream/resume_failed",
                params: { reason: "gone" },
              }),
            );
            socket.close(4409);
            return;
          }
          resumes.ws++;
          bound = c;
          c.socket?.terminate();
          c.socket = socket;
          socket.send(
            JSON.stringify({
              jsonrpc: "2.0",
              method: "stream/resumed",
              params: { connectionId: c.id, cursor: params.cursor, received: c.accepted },
            }),
          );
          // Frame 1 is the initialize answer, kept first in `frames`.
          for (const text of c.frames.slice(cursor)) socket.send(text);
          return;
        }
        open(
          "ws",
          message,
          (c, answer) => {
            bound = c;
            c.socket = socket;
            c.accepted = 1;
            const text = JSON.stringify(answer);
            c.frames.unshift(text);
            socket.send(text);
          },
          upgradeIds.get(req),
        );
        return;
      }
      bound.accepted++;
      void bound.writer.write(message);
    });
  });

  // SSE keep-alives, often, so that the tests' short dead-peer timeout only fires on a stall.
  const keepAlive = setInterval(() => {
    for (const c of connections.values()) {
      for (const stream of c.streams.values()) stream.receiver?.write(": ka\n\n");
    }
  }, 100);
  keepAlive.unref();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/acp`,
    resumes,
    port,
    close: async () => {
      clearInterval(keepAlive);
      for (const c of connections.values()) {
        c.socket?.terminate();
        for (const stream of c.streams.values()) stream.receiver?.end();
        await c.writer.close().catch(() => undefined);
      }
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
