/**
 * Two loopback MCP bridges over the same kind of server, for the bridge tests: the
 * official SDK 2.4.0's `McpOverAcpHttpBridge` (in the official agent, calling through its
 * `McpOverAcpCaller`) and acp-kit's `McpHttpBridge` (in an acp-kit agent, through
 * `McpCaller`). Each calls, over a real ACP byte pipe, an acp-kit client whose
 * `McpProvider` serves the same handler; and raw HTTP requests, sent with `node:http` so
 * that headers can be repeated or left out at will.
 */
import * as theirV1 from "@agentclientprotocol/sdk/unstable";
import { McpOverAcpHttpBridge } from "@agentclientprotocol/sdk/experimental/mcp-http";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import {
  AgentSideConnection,
  ClientSideConnection,
  ndJsonStream,
} from "../../packages/acp-kit/src/index.js";
import {
  McpCaller,
  McpProtocolError,
  McpProvider,
  type McpOutcome,
  type McpRequestContext,
  type McpRequestHandler,
  type McpServerAcpDeclaration,
} from "../../packages/acp-kit/src/mcp/index.js";
import { McpHttpBridge } from "../../packages/acp-kit/src/node/mcp-bridge/index.js";
import { interopWire, type InteropWire } from "../support/interop-wire.js";

export const CLIENT_INFO = { name: "bridge-test-agent", version: "1.0.0" };

/** What the provider saw of one request. */
export interface Seen {
  readonly context: McpRequestContext;
}

/** A deterministic MCP 2026-07-28 server, as a plain provider handler. */
export function testServer(seen: Seen[], gate?: Promise<void>) {
  return async (context: McpRequestContext): Promise<McpOutcome> => {
    seen.push({ context });
    const { method, params, signal, requestId } = context;
    const notify = (name: string, payload: Record<string, unknown>) =>
      context.notify(name, payload);
    if (method === "server/discover")
      return {
        result: {
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: { listChanged: true } },
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "private",
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "test-tools", version: "1.2.3" } },
        },
      };
    if (method === "tools/list")
      return {
        result: {
          tools: [
            {
              name: "echo",
              description: "Echoes",
              inputSchema: {
                type: "object",
                properties: { message: { type: "string", "x-mcp-header": "Message" } },
              },
            },
          ],
          resultType: "complete",
        },
      };
    if (method === "subscriptions/listen") {
      await notify("notifications/resources/updated", {
        uri: "file:///x",
        _meta: { "io.modelcontextprotocol/subscriptionId": requestId },
      });
      return { result: { _meta: { "io.modelcontextprotocol/subscriptionId": requestId } } };
    }
    if (method !== "tools/call") throw new McpProtocolError(-32601, `Method not found: ${method}`);
    const name = params?.name;
    const args = (params?.arguments ?? {}) as Record<string, unknown>;
    switch (name) {
      case "echo":
        return {
          result: {
            content: [{ type: "text", text: String(args.message) }],
            resultType: "complete",
          },
        };
      case "progress":
        await notify("notifications/progress", { progressToken: "p", progress: 1, total: 2 });
        await notify("notifications/progress", { progressToken: "p", progress: 2, total: 2 });
        return { result: { content: [{ type: "text", text: "done" }] } };
      case "flood":
        await notify("notifications/message", { level: "info", data: "x".repeat(8 << 20) });
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        throw new Error("aborted");
      case "wait":
        await new Promise<void>((resolve, reject) => {
          signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
          void gate?.then(resolve);
        });
        return { result: { content: [] } };
      case "ask":
        return { result: { resultType: "input_required", inputRequests: {} } };
      case "bad-args":
        throw new McpProtocolError(-32602, "Invalid arguments");
      default:
        throw new Error(`no tool ${String(name)}`);
    }
  };
}

/** One bridge under test with its server. */
export interface BridgeUnderTest {
  readonly label: "sdk" | "ours";
  readonly wire: InteropWire;
  /** The server's `http` declaration. */
  readonly http: { url: string; token: string; port: number };
  /** An `http` declaration for a server id nobody registered. */
  readonly unknownServer: { url: string; token: string };
  readonly seen: Seen[];
  readonly close: () => Promise<void>;
}

/** Limits both bridges get. */
export interface Limits {
  maxActiveRequests?: number;
  maxRequestBodyBytes?: number;
  maxBufferedResponseBytes?: number;
}

function endpointOf(declaration: { url: string; headers: { name: string; value: string }[] }) {
  const auth = declaration.headers.find((h) => h.name === "Authorization")?.value ?? "";
  return {
    url: declaration.url,
    token: auth.replace(/^Bearer /, ""),
    port: Number(new URL(declaration.url).port),
  };
}

/** An acp-kit client with a provider serving the test server. */
function providerClient(
  wire: InteropWire,
  seen: Seen[],
  gate?: Promise<void>,
  handler?: McpRequestHandler,
) {
  const mcp = new McpProvider();
  const client = new ClientSideConnection(
    (connection) => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: () => undefined,
      unstable_messageMcp: mcp.attach(connection),
    }),
    ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
  );
  const registration = mcp.register({
    name: "test-tools",
    handler: handler ?? testServer(seen, gate),
  });
  return { client, declaration: registration.declaration };
}

const AGENT_INIT = { protocolVersion: 1, agentCapabilities: {}, authMethods: [] };

/** The official agent with the official bridge. */
export async function sdkBridge(
  limits: Limits = {},
  gate?: Promise<void>,
  handler?: McpRequestHandler,
): Promise<BridgeUnderTest> {
  const wire = interopWire();
  const seen: Seen[] = [];
  const caller = new theirV1.McpOverAcpCaller({ clientInfo: CLIENT_INFO });
  const bridge = new McpOverAcpHttpBridge(caller, limits);
  const agent = theirV1
    .agent({ name: "official-agent" })
    .onRequest("initialize", () => AGENT_INIT)
    .onNotification("mcp/message", caller.handleNotification)
    .connect(theirV1.ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
  const { client, declaration } = providerClient(wire, seen, gate, handler);
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const http = endpointOf(await bridge.toHttp(agent.client, declaration));
  const unknown: McpServerAcpDeclaration = { type: "acp", name: "none", serverId: "none:1" };
  const unknownServer = endpointOf(await bridge.toHttp(agent.client, unknown));
  return {
    label: "sdk",
    wire,
    http,
    unknownServer,
    seen,
    close: async () => {
      agent.close();
      client.close();
      await Promise.resolve();
    },
  };
}

/** acp-kit's agent with acp-kit's bridge. */
export async function ourBridge(
  limits: Limits = {},
  gate?: Promise<void>,
  legacyClients = true,
  handler?: McpRequestHandler,
): Promise<BridgeUnderTest> {
  const wire = interopWire();
  const seen: Seen[] = [];
  const caller = new McpCaller({ clientInfo: CLIENT_INFO });
  const bridge = new McpHttpBridge(caller, { ...limits, legacyClients });
  const agent = new AgentSideConnection(
    (connection) => ({
      initialize: () => AGENT_INIT,
      newSession: () => ({ sessionId: "s-1" }),
      authenticate: () => ({}),
      prompt: () => ({ stopReason: "end_turn" }),
      cancel: () => undefined,
      unstable_messageMcp: caller.attach(connection),
    }),
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
  );
  const { client, declaration } = providerClient(wire, seen, gate, handler);
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const http = endpointOf(await bridge.toHttp(declaration));
  const unknownServer = endpointOf(
    await bridge.toHttp({ type: "acp", name: "none", serverId: "none:1" }),
  );
  return {
    label: "ours",
    wire,
    http,
    unknownServer,
    seen,
    close: async () => {
      await bridge.close();
      agent.close();
      client.close();
    },
  };
}

/** A raw HTTP answer. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A raw request: headers as given (an array value repeats the header). */
export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string | string[]>;
  readonly body?: string;
  /** Aborts the request (closing the connection). */
  readonly signal?: AbortSignal;
  /** Called with the response as soon as its headers arrive. */
  readonly onResponse?: (headers: IncomingHttpHeaders) => void;
}

/** Sends one raw request to `url` (its path replaced by `path` when given). */
export function send(url: string, raw: RawRequest): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: target.port,
        path: raw.path ?? target.pathname,
        method: raw.method ?? "POST",
        headers: raw.headers ?? {},
        ...(raw.signal === undefined ? {} : { signal: raw.signal }),
      },
      (res) => {
        raw.onResponse?.(res.headers);
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(raw.body);
  });
}

/** The headers of a well-formed MCP 2026-07-28 POST. */
export function mcpHeaders(
  token: string,
  method: string,
  extra: Record<string, string | string[]> = {},
): Record<string, string | string[]> {
  return {
    authorization: `Bearer ${token}`,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...extra,
  };
}

/** A well-formed MCP 2026-07-28 request body. */
export function mcpBody(
  method: string,
  params: Record<string, unknown> = {},
  id: string | number = 1,
): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        ...((params._meta as Record<string, unknown> | undefined) ?? {}),
      },
    },
  });
}

/** The events of an event-stream body, parsed. */
export function sseEvents(body: string): unknown[] {
  return body
    .split("\n\n")
    .map((block) =>
      block
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n"),
    )
    .filter((data) => data !== "")
    .map((data) => JSON.parse(data) as unknown);
}
