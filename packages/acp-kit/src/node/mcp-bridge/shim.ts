/**
 * {@link runMcpStdioShim}: MCP over stdio on one side, the loopback bridge over HTTP on
 * the other, for agents that only launch stdio MCP servers.
 *
 * @module
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

import { parseEventStream } from "../../http/client/sse.js";
import { MCP_META_PROTOCOL_VERSION, isJsonObject } from "../../mcp/binding.js";

/** Options of {@link runMcpStdioShim}. */
export interface McpStdioShimOptions {
  /** The server's bridge URL (`http://127.0.0.1:<port>/mcp-...`). */
  readonly url: string;
  /** The server's bearer token (pass it by environment, never on a command line). */
  readonly token: string;
  /** Where MCP messages come from, one JSON per line (default `process.stdin`). */
  readonly input?: Readable;
  /** Where MCP messages go, one JSON per line (default `process.stdout`). */
  readonly output?: Writable;
}

type Message = Record<string, unknown>;

/** Methods whose `Mcp-Name` header mirrors a param (MCP 2026-07-28). */
const NAMED: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/**
 * Runs the stdio shim until its input ends: each MCP message read from `input` is POSTed
 * to the bridge, and each answer (JSON, or every message of an event stream) is written to
 * `output`. A 2025-era client gets the bridge's `initialize` session (its `Mcp-Session-Id`
 * is kept and sent along); a 2026-07-28 request goes with the headers that revision
 * mirrors. `notifications/cancelled` aborts the request it names (the bridge then cancels
 * it over ACP). Resolves once the input ended and the requests in flight were abandoned.
 *
 * @param options - The bridge URL and token, and the streams (stdio by default).
 */
export async function runMcpStdioShim(options: McpStdioShimOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const inFlight = new Map<string, AbortController>();
  let sessionId: string | undefined;
  let initializing: Promise<void> = Promise.resolve();

  const write = (message: unknown): void => {
    output.write(`${JSON.stringify(message)}\n`);
  };

  const post = async (message: Message): Promise<void> => {
    const id = message.id;
    const isRequest = typeof message.method === "string" && id !== undefined && id !== null;
    const abort = new AbortController();
    const key = JSON.stringify(id);
    if (isRequest) inFlight.set(key, abort);
    try {
      const response = await fetch(options.url, {
        method: "POST",
        headers: headersFor(message, options.token, sessionId),
        body: JSON.stringify(message),
        signal: abort.signal,
      });
      const session = response.headers.get("mcp-session-id");
      if (message.method === "initialize" && session !== null) sessionId = session;
      await relay(response, isRequest ? id : undefined, write);
    } catch (error) {
      if (isRequest && !abort.signal.aborted)
        write({
          jsonrpc: "2.0",
          id,
          error: { code: -32603, message: `MCP bridge unreachable: ${String(error)}` },
        });
    } finally {
      if (inFlight.get(key) === abort) inFlight.delete(key);
    }
  };

  const pending = new Set<Promise<void>>();
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      continue;
    }
    if (!isJsonObject(message)) continue;
    if (message.method === "notifications/cancelled" && isJsonObject(message.params))
      inFlight.get(JSON.stringify(message.params.requestId))?.abort();
    // Messages after an initialize wait for its session id.
    await initializing;
    const sent = post(message);
    if (message.method === "initialize") initializing = sent;
    pending.add(sent);
    void sent.finally(() => pending.delete(sent));
  }
  for (const abort of inFlight.values()) abort.abort();
  await Promise.allSettled(pending);
}

/** The headers of one POST: the 2026-07-28 mirrors, or the 2025 session. */
function headersFor(message: Message, token: string, sessionId: string | undefined) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
  };
  const params = isJsonObject(message.params) ? message.params : undefined;
  const meta = isJsonObject(params?._meta) ? params._meta : undefined;
  const version = meta?.[MCP_META_PROTOCOL_VERSION];
  if (typeof version === "string" && typeof message.method === "string") {
    headers["mcp-protocol-version"] = version;
    headers["mcp-method"] = message.method;
    const key = NAMED[message.method];
    const name = key === undefined ? undefined : params?.[key];
    if (typeof name === "string") headers["mcp-name"] = mirrored(name);
  } else if (sessionId !== undefined && message.method !== "initialize") {
    headers["mcp-session-id"] = sessionId;
  }
  return headers;
}

/** A header value: plain printable ASCII, else the `=?base64?…?=` form. */
function mirrored(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) && value.trim() === value
    ? value
    : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** The largest event of the bridge's answers the shim relays (one MCP message). */
const MAX_EVENT_BYTES = 64 * 1024 * 1024;

/** Writes an answer's messages: JSON, or each event of a stream; errors get the request's id. */
async function relay(
  response: Response,
  id: unknown,
  write: (message: unknown) => void,
): Promise<void> {
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream") && response.body !== null) {
    // The project's event-stream reader: linear, bounded per event, and it cancels the
    // stream however the loop ends.
    for await (const item of parseEventStream(response.body, MAX_EVENT_BYTES)) {
      if (item.kind !== "event" || item.event.data === "") continue;
      let message: unknown;
      try {
        message = JSON.parse(item.event.data);
      } catch {
        continue; // Not a message: nothing to relay.
      }
      write(withId(message, id));
    }
    return;
  }
  const text = await response.text();
  if (id === undefined) return;
  if (text === "") {
    if (!response.ok)
      write({ jsonrpc: "2.0", id, error: { code: -32603, message: `HTTP ${response.status}` } });
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    write({ jsonrpc: "2.0", id, error: { code: -32603, message: `HTTP ${response.status}` } });
    return;
  }
  write(withId(body, id));
}

/** An error answer without an id (a refusal before the body was read) gets the request's. */
function withId(message: unknown, id: unknown): unknown {
  if (id === undefined || !isJsonObject(message)) return message;
  if (message.error !== undefined && (message.id === undefined || message.id === null))
    return { ...message, id };
  return message;
}
