/**
 * {@link fromFetchHandler}: serves an MCP server written with `@modelcontextprotocol/server`
 * (or any web-standard MCP 2026-07-28 HTTP handler) over MCP-over-ACP, without this
 * library depending on that package.
 *
 * @module
 */
import { RequestError } from "../jsonrpc/errors.js";
import { McpBindingErrorCodes, isJsonObject, parseMcpOutcome, type McpOutcome } from "./binding.js";
import type { McpRequestContext, McpRequestHandler } from "./provider.js";

/**
 * A web-standard MCP HTTP handler: a function from `Request` to `Response`, or an object
 * with such a `fetch` (what `createMcpHandler` of `@modelcontextprotocol/server` returns).
 */
export type McpFetchHandler = ((request: Request) => Promise<Response>) | McpFetchHandlerObject;

/** An object whose `fetch` answers MCP HTTP requests (a handler of `createMcpHandler`). */
export interface McpFetchHandlerObject {
  /** Answers one MCP HTTP request. */
  fetch(request: Request): Promise<Response>;
}

/** The params field each method's `Mcp-Name` header mirrors (MCP 2026-07-28). */
const NAME_FIELDS: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * A server handler that answers each MCP request through `handler`, as one in-process
 * HTTP exchange (never on the network): its JSON answer becomes the outcome, and the
 * notifications of an event-stream answer go to the caller as `mcp/message`
 * notifications.
 *
 * ```ts
 * import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
 * const handler = fromFetchHandler(createMcpHandler(() => buildServer(), { legacy: "reject" }));
 * provider.register({ name: "tools", handler });
 * ```
 *
 * Tools whose input schema declares `x-mcp-header` parameters are refused by the MCP SDK
 * (their `Mcp-Param-*` headers are not derived here).
 *
 * @param handler - The MCP HTTP handler.
 */
export function fromFetchHandler(handler: McpFetchHandler): McpRequestHandler {
  const fetch = typeof handler === "function" ? handler : handler.fetch.bind(handler);
  return async (context) => {
    if (!/^[\x21-\x7e]+$/.test(context.method))
      return { error: { code: -32601, message: `Method not found: ${context.method}` } };
    const response = await fetch(toRequest(context));
    if (context.signal.aborted) {
      await response.body?.cancel().catch(ignore);
      throw context.signal.reason;
    }
    const type = response.headers.get("content-type") ?? "";
    if (type.startsWith("text/event-stream") && response.body !== null)
      return readEvents(response.body, context);
    if (type.startsWith("application/json"))
      return finalOutcome(await response.json(), context.requestId);
    await response.body?.cancel().catch(ignore);
    throw new RequestError(
      McpBindingErrorCodes.BACKEND_FAILED,
      `MCP server returned HTTP ${response.status} without a JSON-RPC response`,
    );
  };
}

function ignore(): void {
  // Cancelling a body that is already gone is not an error.
}

/** The HTTP request an MCP 2026-07-28 client would send for this MCP request. */
function toRequest(context: McpRequestContext): Request {
  const headers = new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": context.protocolVersion,
    "mcp-method": context.method,
  });
  const field = NAME_FIELDS[context.method];
  const name = field === undefined ? undefined : context.params?.[field];
  if (typeof name === "string") headers.set("mcp-name", headerValue(name));
  return new Request("http://mcp-over-acp.invalid/", {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: context.requestId,
      method: context.method,
      ...(context.params === undefined ? {} : { params: context.params }),
    }),
    signal: context.signal,
  });
}

/** `value` as a header value: as is when printable ASCII, else MCP's Base64 form. */
function headerValue(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value) && value.trim() === value) return value;
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** Reads an event stream: notifications are forwarded, the response ends it. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  context: McpRequestContext,
): Promise<McpOutcome> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
          .join("\n");
        if (data === "") continue;
        const message: unknown = JSON.parse(data);
        if (!isJsonObject(message)) continue;
        if (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))
          return finalOutcome(message, context.requestId);
        // MCP 2026-07-28 has no requests from server to client: only notifications.
        if (typeof message.method === "string" && !Object.hasOwn(message, "id"))
          await context.notify(
            message.method,
            isJsonObject(message.params) ? message.params : undefined,
          );
      }
    }
  } finally {
    reader.cancel().catch(ignore);
  }
  if (context.signal.aborted) throw context.signal.reason;
  throw new RequestError(
    McpBindingErrorCodes.BACKEND_FAILED,
    "MCP server stream ended without a response",
  );
}

/** The outcome of the JSON-RPC response to the request `requestId`. */
function finalOutcome(message: unknown, requestId: string): McpOutcome {
  const outcome = parseMcpOutcome(message);
  const id = isJsonObject(message) ? message.id : undefined;
  // A request refused before dispatch may come back without its id.
  const matches = id === requestId || (id == null && outcome !== undefined && "error" in outcome);
  if (outcome === undefined || !matches)
    throw new RequestError(
      McpBindingErrorCodes.BACKEND_FAILED,
      "MCP server returned an invalid JSON-RPC response",
    );
  return "error" in outcome ? { error: outcome.error } : { result: outcome.result };
}
