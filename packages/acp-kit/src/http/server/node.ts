/**
 * Node adapter: serves an {@link AcpHttpHandler} on a `node:http` server, with WebSocket
 * upgrades on the same path through the `ws` package.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { DEFAULT_ACP_PATH, HEADER_CONNECTION_ID } from "../shared/wire.js";
import { createAcpHttpHandler, type AcpHttpHandler } from "./handler.js";
import type { AcpHttpHandlerOptions } from "./options.js";
import { isLoopbackHost } from "./loopback.js";

/** Options of {@link attachAcpHandler}. */
export interface AttachOptions {
  /** Endpoint path. Default `/acp`. Other paths get 404. */
  path?: string;
}

function requestUrl(req: IncomingMessage): string {
  const host =
    typeof req.headers.host === "string" && /^[\w.:[\]-]+$/.test(req.headers.host)
      ? req.headers.host
      : "localhost";
  return `http://${host}${req.url ?? "/"}`;
}

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(requestUrl(req)).pathname;
  } catch {
    return "";
  }
}

function nodeHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** Methods the Fetch API refuses to build a `Request` with. */
const FETCH_FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);
/** The `Allow` header of a 405 (what the core serves). */
const ALLOWED_METHODS = "GET, POST, DELETE";

/**
 * The body of `req` as a web stream that reads only on demand: nothing is taken in until
 * the core asks for it, which it does after the Origin check and authentication, and
 * never more than its size limit (it cancels beyond). On cancel the rest is discarded
 * (the response then closes the connection).
 */
function nodeBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  req.pause();
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          if (!open) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => {
          if (!open) return;
          open = false;
          controller.close();
        });
        req.once("error", (error) => {
          if (!open) return;
          open = false;
          controller.error(error);
        });
        // A connection closed in the middle of the body, without an error: the reader
        // must not wait for the rest for ever.
        req.once("close", () => {
          if (!open) return;
          open = false;
          controller.error(new Error("The request was closed before its body ended"));
        });
      },
      pull() {
        req.resume();
      },
      cancel() {
        open = false;
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name.toLowerCase() !== "set-cookie") res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("Set-Cookie", cookies);
  const body = response.body;
  if (body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = body.getReader();
  const onClose = (): void => {
    void reader.cancel().catch(() => undefined);
  };
  res.once("close", onClose);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const settle = (): void => {
            res.off("drain", settle);
            res.off("close", settle);
            resolve();
          };
          res.once("drain", settle);
          res.once("close", settle);
        });
      }
    }
  } catch {
    // body failed or was cancelled
  } finally {
    res.off("close", onClose);
    if (!res.destroyed && !res.writableEnded) res.end();
  }
}

function rejectUpgrade(socket: Duplex, response: Response, body: string): void {
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || "Error"}`];
  response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`, "Connection: close", "", body);
  socket.end(lines.join("\r\n"));
}

/**
 * Serves `handler` on an existing `node:http` server: its `request` and `upgrade` events on
 * `path`. Returns a function that detaches it.
 */
export function attachAcpHandler(
  server: Server,
  handler: AcpHttpHandler,
  options: AttachOptions = {},
): () => void {
  return attach(server, handler, options).detach;
}

/** {@link attachAcpHandler}, with the WebSockets it accepted (open ones) for a shutdown. */
function attach(
  server: Server,
  handler: AcpHttpHandler,
  options: AttachOptions,
): { detach: () => void; sockets: ReadonlySet<WebSocket> } {
  const path = options.path ?? DEFAULT_ACP_PATH;
  const wss = new WebSocketServer({ noServer: true, maxPayload: handler.maxBodyBytes });
  const pendingHeaders = new WeakMap<IncomingMessage, string>();
  wss.on("headers", (headers: string[], req: IncomingMessage) => {
    const id = pendingHeaders.get(req);
    if (id !== undefined) headers.push(`${HEADER_CONNECTION_ID}: ${id}`);
  });

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (pathOf(req) !== path) {
      res.statusCode = 404;
      res.setHeader("Content-Type", "text/plain");
      res.end("Not Found");
      return;
    }
    const method = req.method ?? "GET";
    if (FETCH_FORBIDDEN_METHODS.has(method.toUpperCase())) {
      // No `Request` can carry these: answered here, as the core answers other methods.
      res.statusCode = 405;
      res.setHeader("Allow", ALLOWED_METHODS);
      res.setHeader("Content-Type", "text/plain");
      res.end("Method Not Allowed");
      return;
    }
    void (async () => {
      const abort = new AbortController();
      res.once("close", () => {
        if (!res.writableFinished) abort.abort();
      });
      try {
        // Only POST and DELETE carry a body, and it is read only when the core asks for
        // it: after Origin and authentication, up to its limit (413 beyond). Any other
        // method is refused by the core (405) without its body being taken in.
        const hasBody = method === "POST" || method === "DELETE";
        const request = new Request(requestUrl(req), {
          method,
          headers: nodeHeaders(req),
          ...(hasBody ? { body: nodeBodyStream(req), duplex: "half" as const } : {}),
          signal: abort.signal,
        });
        const response = await handler.handle(request);
        // A body left unread (refused before reading, or beyond the limit) is discarded
        // and the connection not reused.
        if (hasBody && !req.complete) res.setHeader("Connection", "close");
        await writeResponse(res, response);
      } catch (error) {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        res.statusCode = 500;
        res.setHeader("Content-Type", "text/plain");
        res.end("Internal Server Error");
      }
    })();
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", () => undefined);
    if (pathOf(req) !== path || req.headers.upgrade?.toLowerCase() !== "websocket") {
      rejectUpgrade(
        socket,
        new Response(null, { status: 404, statusText: "Not Found" }),
        "Not Found",
      );
      return;
    }
    void (async () => {
      const request = new Request(requestUrl(req), { method: "GET", headers: nodeHeaders(req) });
      const upgrade = await handler.prepareWebSocket(request);
      if (!upgrade.ok) {
        rejectUpgrade(socket, upgrade.response, await upgrade.response.text());
        return;
      }
      pendingHeaders.set(req, upgrade.connectionId);
      let accepted = false;
      socket.once("close", () => {
        if (!accepted) upgrade.reject();
      });
      wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        accepted = true;
        pendingHeaders.delete(req);
        const events = upgrade.accept(ws);
        ws.on("message", (data, isBinary) => {
          if (isBinary) {
            events.binary();
            return;
          }
          const text = Array.isArray(data)
            ? Buffer.concat(data).toString("utf8")
            : Buffer.from(data as ArrayBuffer).toString("utf8");
          events.message(text);
        });
        ws.on("pong", () => events.pong());
        ws.on("close", (code: number) => events.closed(code));
        ws.on("error", () => undefined);
      });
    })().catch(() => socket.destroy());
  };

  server.on("request", onRequest);
  server.on("upgrade", onUpgrade);
  const detach = (): void => {
    server.off("request", onRequest);
    server.off("upgrade", onUpgrade);
    wss.close();
  };
  // `ws` keeps the open sockets in `clients` (client tracking is on by default).
  return { detach, sockets: wss.clients };
}

/**
 * How long a shutting-down server waits for its WebSocket clients to answer the close
 * frame before it drops their sockets. (`ws` alone waits 30 s for a client that ignores
 * close frames, and `server.close()` waits for that socket.)
 */
const SOCKET_CLOSE_GRACE_MS = 2_000;

/**
 * Sends a close frame to each socket still open (one with no connection yet has had none),
 * waits until all have closed, at most `graceMs`, then drops those left.
 */
async function closeSockets(sockets: ReadonlySet<WebSocket>, graceMs: number): Promise<void> {
  const open = [...sockets].filter((socket) => socket.readyState !== socket.CLOSED);
  if (open.length === 0) return;
  for (const socket of open) {
    if (socket.readyState === socket.OPEN) socket.close(1001, "Server shutting down");
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = Promise.all(
    open.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === socket.CLOSED) resolve();
          else socket.once("close", () => resolve());
        }),
    ),
  );
  await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
  for (const socket of open) if (socket.readyState !== socket.CLOSED) socket.terminate();
  await closed;
}

/** A running ACP server made by {@link createAcpNodeServer}. */
export interface AcpNodeServer {
  /** The underlying `node:http` server. */
  readonly server: Server;
  /** The server core. */
  readonly handler: AcpHttpHandler;
  /**
   * Starts listening on `host` (default `127.0.0.1`); resolves with the bound address (use
   * port 0 for any free port). Rejects for a host beyond loopback when the server has no
   * `authenticate` hook and `allowUnauthenticated` is not set.
   */
  listen(port: number, host?: string): Promise<AddressInfo>;
  /**
   * Ends every connection and stops listening. WebSocket clients get a close frame and
   * 2 s to answer it; the sockets of those that do not are dropped.
   */
  close(): Promise<void>;
}

/** Options of {@link createAcpNodeServer}. */
export interface AcpNodeServerOptions extends AcpHttpHandlerOptions, AttachOptions {
  /**
   * Lets `listen()` bind a host beyond loopback without an `authenticate` hook (anyone who
   * can reach the port can then run the agent). Default `false`: such a `listen()` rejects.
   * For servers behind a proxy that authenticates, or on a trusted network.
   */
  allowUnauthenticated?: boolean;
}

/**
 * Creates a `node:http` server serving ACP over Streamable HTTP and WebSocket on `path`
 * (default `/acp`). Its `listen()` binds `127.0.0.1` by default; another host beyond
 * loopback needs `authenticate` (or `allowUnauthenticated: true`), otherwise it rejects.
 */
export function createAcpNodeServer(options: AcpNodeServerOptions): AcpNodeServer {
  const handler = createAcpHttpHandler(options);
  const server = createServer();
  const attached = attach(server, handler, options);
  return {
    server,
    handler,
    listen(port, host = "127.0.0.1") {
      if (
        !isLoopbackHost(host) &&
        options.authenticate === undefined &&
        options.allowUnauthenticated !== true
      ) {
        return Promise.reject(
          new Error(
            `Refusing to listen on ${host} without authenticate: anyone who can reach it could run the agent. ` +
              `Give an authenticate hook (e.g. bearerTokenAuth(token)), listen on 127.0.0.1, ` +
              `or pass allowUnauthenticated: true if something in front of the server authenticates.`,
          ),
        );
      }
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    async close() {
      await handler.close();
      // A client that does not answer its close frame is dropped after the grace.
      await closeSockets(attached.sockets, SOCKET_CLOSE_GRACE_MS);
      attached.detach();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
