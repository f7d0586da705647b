/**
 * The transport checks, the body reading and the JSON-RPC answers of the loopback MCP
 * bridge: the wire behaviour of the official SDK 2.4.0's bridge (statuses, codes,
 * messages, headers), written for acp-kit.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

import { isJsonObject } from "../../mcp/binding.js";

/** The HMAC context the bearer token of a server is derived with. */
const HMAC_CONTEXT = "mcp-over-acp-http-adapter/server/v1\0";

/** One refusal: the HTTP status and the JSON-RPC error the body carries. */
export interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Record<string, string>;
  readonly data?: unknown;
}

/** The route segment of a server: `mcp-<base64url(serverId)>`. */
export function serverRoute(serverId: string): string {
  return `mcp-${Buffer.from(serverId, "utf8").toString("base64url")}`;
}

/** The server id a route names, when the route is the canonical one of some id. */
export function parseServerRoute(route: string): string | undefined {
  if (route.length > 4096 || !route.startsWith("mcp-")) return undefined;
  const serverId = Buffer.from(route.slice(4), "base64url").toString("utf8");
  return serverRoute(serverId) === route ? serverId : undefined;
}

/** The bearer token of a server: HMAC-SHA256 over the context and the id. */
export function serverToken(secret: Buffer, serverId: string): Buffer {
  return createHmac("sha256", secret).update(HMAC_CONTEXT).update(serverId, "utf8").digest();
}

function authorized(header: string | undefined, secret: Buffer, serverId: string): boolean {
  const parts = header?.split(" ") ?? [];
  const [scheme, token] = parts;
  if (parts.length !== 2 || scheme?.toLowerCase() !== "bearer" || !token) return false;
  const supplied = Buffer.from(token, "base64url");
  if (supplied.toString("base64url") !== token) return false;
  const expected = serverToken(secret, serverId);
  return supplied.length === expected.length && timingSafeEqual(supplied, expected);
}

/** How many times a header occurs in the raw request. */
function headerCount(req: IncomingMessage, name: string): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === name) count += 1;
  }
  return count;
}

/** A header that occurs once, as a string. */
export function singleHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
}

function validOrigin(req: IncomingMessage): boolean {
  // Browsers send Origin; only the listener's own loopback origin is trusted.
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  return host !== undefined && /^127\.0\.0\.1:\d{1,5}$/.test(host) && origin === `http://${host}`;
}

/** Whether a qvalue is positive; `undefined` when it is malformed. */
function positiveQuality(value: string): boolean | undefined {
  const match = /^([01])(?:\.(\d{0,3}))?$/.exec(value);
  if (match === null) return undefined;
  const fraction = match[2] ?? "";
  if (match[1] === "1") return /^0*$/.test(fraction) ? true : undefined;
  return /[1-9]/.test(fraction);
}

function acceptsJsonAndSse(accept: string | undefined): boolean {
  let json = false;
  let sse = false;
  for (const item of (accept ?? "").split(",")) {
    const [media = "", ...parameters] = item.split(";");
    let quality: boolean | undefined;
    for (const parameter of parameters) {
      const [key, value] = parameter.split("=", 2);
      if (key?.trim().toLowerCase() !== "q") continue;
      const positive = positiveQuality(value?.trim() ?? "");
      if (positive === undefined || quality !== undefined) return false;
      quality = positive;
    }
    if (quality === false) continue;
    const type = media.trim().toLowerCase();
    json ||= type === "application/json";
    sse ||= type === "text/event-stream";
  }
  return json && sse;
}

/**
 * The checks that precede reading the body, in the SDK bridge's order: duplicate routing
 * headers, Origin, route, authorization, method, Accept, Content-Type. Returns the server
 * id the request is for, or the refusal.
 */
export function checkTransport(
  req: IncomingMessage,
  secret: Buffer,
): { readonly serverId: string } | { readonly refusal: Refusal } {
  for (const name of ["origin", "authorization", "mcp-protocol-version", "mcp-method", "mcp-name"])
    if (headerCount(req, name) > 1)
      return {
        refusal: {
          status: 400,
          code: -32020,
          message: "HeaderMismatch: duplicate routing or authentication header",
        },
      };
  if (!validOrigin(req))
    return { refusal: { status: 403, code: -32600, message: "Invalid Origin" } };
  const route = new URL(req.url ?? "/", "http://127.0.0.1").pathname.slice(1);
  const serverId = parseServerRoute(route);
  if (serverId === undefined)
    return { refusal: { status: 404, code: -32601, message: "Unknown MCP route" } };
  if (!authorized(req.headers.authorization, secret, serverId))
    return {
      refusal: {
        status: 401,
        code: -32600,
        message: "Unauthorized",
        headers: { "www-authenticate": "Bearer" },
      },
    };
  if (req.method !== "POST")
    return {
      refusal: {
        status: 405,
        code: -32600,
        message: "Only POST is supported",
        headers: { allow: "POST" },
      },
    };
  if (!acceptsJsonAndSse(req.headers.accept))
    return {
      refusal: {
        status: 406,
        code: -32600,
        message: "Accept must include application/json and text/event-stream",
      },
    };
  const mediaType = req.headers["content-type"]?.split(";")[0]?.trim();
  if (mediaType?.toLowerCase() !== "application/json")
    return { refusal: { status: 415, code: -32600, message: "Expected application/json" } };
  return { serverId };
}

/** A JSON-RPC id the bridge accepts: a string or a safe integer. */
export type JsonRpcId = string | number;

/** True for a string or a safe integer. */
export function validRequestId(id: unknown): id is JsonRpcId {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/** A JSON-RPC error message (no `id` member when the id is unknown). */
export function jsonRpcError(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    ...(id === null ? {} : { id }),
    error: { code, message, ...(data === undefined ? {} : { data }) },
  };
}

/** Sends a JSON body with its length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** Sends a refusal as a JSON-RPC error. */
export function sendRefusal(res: ServerResponse, refusal: Refusal, id: JsonRpcId | null): void {
  sendJson(
    res,
    refusal.status,
    jsonRpcError(id, refusal.code, refusal.message, refusal.data),
    refusal.headers,
  );
}

/** Lets a refused request's body flow to nowhere, ignoring its errors. */
export function drain(req: IncomingMessage): void {
  if (req.destroyed || req.readableEnded) return;
  req.on("error", ignore);
  req.resume();
}

function ignore(): void {
  // A refused upload may fail; nobody waits for it.
}

/** The body exceeded the limit. */
export class BodyTooLarge extends Error {}

/**
 * Reads the request body as UTF-8, at most `limit` bytes: a larger declared length or
 * body rejects with {@link BodyTooLarge}; a client that goes away rejects otherwise.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = req.headers["content-length"]?.trim();
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
    req.on("error", ignore);
    return Promise.reject(new BodyTooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        req.pause();
        fail(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.once("end", () => {
      if (settled) return;
      settled = true;
      resolve(new TextDecoder().decode(Buffer.concat(chunks)));
    });
    req.once("error", fail);
    req.once("close", () => {
      fail(new Error("Request closed"));
    });
  });
}

/**
 * Compares a mirrored `Mcp-Name` header with the body's value; the header may carry it as
 * `=?base64?…?=` (canonical Base64 only).
 */
export function matchesMirror(header: string | undefined, body: string): boolean {
  if (header === undefined) return false;
  const sentinel = /^=\?base64\?(.*)\?=$/.exec(header);
  if (sentinel === null) return header === body;
  const encoded = sentinel[1] ?? "";
  const decoded = Buffer.from(encoded, "base64");
  return decoded.toString("base64") === encoded && decoded.equals(Buffer.from(body, "utf8"));
}

const SCHEMA_MAPS = [
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
];
const SCHEMA_VALUES = [
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "contentSchema",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
];
const SCHEMA_ARRAYS = ["allOf", "anyOf", "oneOf", "prefixItems"];

/**
 * A `tools/list` result without the transport-only `x-mcp-header` annotations in its
 * tools' input schemas (the bridge does not derive `Mcp-Param-*` headers).
 */
export function stripHeaderAnnotations(result: unknown): unknown {
  if (!isJsonObject(result) || !Array.isArray(result.tools)) return result;
  return {
    ...result,
    tools: result.tools.map((tool: unknown) =>
      isJsonObject(tool) && tool.inputSchema !== undefined
        ? { ...tool, inputSchema: stripSchema(tool.inputSchema) }
        : tool,
    ),
  };
}

function stripSchema(schema: unknown): unknown {
  if (!isJsonObject(schema)) return schema;
  const out: Record<string, unknown> = { ...schema };
  delete out["x-mcp-header"];
  for (const key of SCHEMA_MAPS) {
    const children = out[key];
    if (isJsonObject(children))
      out[key] = Object.fromEntries(
        Object.entries(children).map(([name, child]) => [name, stripSchema(child)]),
      );
  }
  if (out.items !== undefined)
    out.items = Array.isArray(out.items) ? out.items.map(stripSchema) : stripSchema(out.items);
  for (const key of SCHEMA_VALUES) if (out[key] !== undefined) out[key] = stripSchema(out[key]);
  for (const key of SCHEMA_ARRAYS) {
    const children = out[key];
    if (Array.isArray(children)) out[key] = children.map(stripSchema);
  }
  return out;
}
