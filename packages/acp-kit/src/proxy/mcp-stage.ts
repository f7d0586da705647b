/**
 * The conductor's MCP stage: in front of an agent that does not advertise MCP-over-ACP, it
 * advertises `acp` to the chain and serves `acp` declarations to the agent through a
 * bridge (loopback HTTP, in `acp-kit/node`), whose MCP requests go back up the chain as
 * `mcp/message`.
 *
 * @module
 */
import { RequestError } from "../jsonrpc/errors.js";
import { agentMcpTransports, isAcpMcpServer, isJsonObject } from "../mcp/binding.js";
import { McpCaller } from "../mcp/caller.js";
import type * as schema from "../schema/types.gen.js";
import type { Channel, ChannelHandlers } from "./channel.js";

/**
 * A bridge the conductor's MCP stage serves `acp` declarations through, for one chain.
 * `acp-kit/node`'s `McpHttpBridge` is one.
 */
export interface ConductorMcpBridge {
  /**
   * `mcpServers` with each `acp` entry replaced by one the agent can use, the others
   * unchanged: an `http` entry on loopback, or with `stdioShim` a stdio entry that runs
   * that command (which speaks MCP over stdio to the bridge).
   */
  adaptServers(
    servers: readonly schema.McpServer[],
    stdioShim?: ConductorMcpStdioShim,
  ): Promise<readonly schema.McpServer[]>;
  /** Stops serving (the chain is over). */
  close(): Promise<void>;
}

/**
 * Makes the {@link ConductorMcpBridge} of one chain. `caller` sends the bridge's MCP
 * requests up the chain (it fits `McpHttpBridge`'s target): `(caller) => new
 * McpHttpBridge(caller)`.
 */
export type ConductorMcpBridgeFactory = (caller: McpCaller) => ConductorMcpBridge;

/**
 * The command of a stdio MCP shim (`acp-kit mcp-shim`), for agents that take MCP servers
 * only by command: the bridge adds its own arguments (`--url`, `--token-env`) and the
 * token's environment variable.
 */
export interface ConductorMcpStdioShim {
  /** The program, for example `acp-kit` or `process.execPath`. */
  readonly command: string;
  /** Arguments before the shim's own (`["mcp-shim"]` for `acp-kit`). */
  readonly args?: readonly string[];
}

/** How the stage treats `acp` declarations, once the agent's `initialize` answer is known. */
type StageMode = "native" | "http" | "stdio" | "refuse";

/** The requests whose params carry `mcpServers`. */
const SESSION_METHODS = new Set(["session/new", "session/load", "session/resume", "session/fork"]);

/** The `initialize` answer with `acp` advertised (v1 `mcpCapabilities.acp`, v2 `session.mcp.acp`). */
function advertisingAcp(answer: unknown): unknown {
  if (!isJsonObject(answer)) return answer;
  const v1 = answer.agentCapabilities;
  if (isJsonObject(v1)) {
    const mcp = isJsonObject(v1.mcpCapabilities) ? v1.mcpCapabilities : {};
    return { ...answer, agentCapabilities: { ...v1, mcpCapabilities: { ...mcp, acp: true } } };
  }
  const v2 = answer.capabilities;
  if (isJsonObject(v2) && isJsonObject(v2.session)) {
    const session = v2.session;
    const mcp = isJsonObject(session.mcp) ? session.mcp : {};
    return {
      ...answer,
      capabilities: { ...v2, session: { ...session, mcp: { ...mcp, acp: {} } } },
    };
  }
  return answer;
}

/**
 * The agent's channel with the MCP stage in front of it. Until the agent's `initialize`
 * answer, nothing changes. Then:
 *
 * - the agent advertises `acp`: nothing changes (native);
 * - it advertises `http` and a bridge factory is given: the answer going up advertises
 *   `acp`, the `acp` entries of `session/new|load|resume|fork` reach the agent as the
 *   bridge's `http` entries, the bridge's MCP requests go up as `mcp/message` (at once:
 *   the agent may call before it answers `session/new`), and the `mcp/message`
 *   notifications coming down go to those requests;
 * - it advertises neither, and a bridge factory and `stdioShim` are given: the same, with
 *   stdio entries that run the shim (every agent takes stdio MCP servers; a v2 agent gets
 *   them with `type: "stdio"`);
 * - otherwise: a session request with an `acp` entry is refused with `-32602`,
 *   `data: { type: "acp" }` (nothing is advertised that is not served).
 */
export function withMcpStage(
  agent: Channel,
  factory: ConductorMcpBridgeFactory | undefined,
  stdioShim?: ConductorMcpStdioShim,
): Channel & { close(): Promise<void> } {
  let mode: StageMode | undefined;
  let v2 = false;
  let upstream: ChannelHandlers | undefined;
  let bridge: ConductorMcpBridge | undefined;
  let closed = false;
  const caller = new McpCaller(
    {},
    {
      unstable_messageMcp: async (params, options) => {
        if (upstream === undefined) throw RequestError.internalError(undefined, "No chain yet");
        const answer: unknown = await upstream.request(
          "mcp/message",
          params,
          options?.signal ?? new AbortController().signal,
        );
        return answer as schema.MessageMcpResponse;
      },
    },
  );
  const rewrite = async (params: unknown): Promise<unknown> => {
    if (!isJsonObject(params) || !Array.isArray(params.mcpServers)) return params;
    const servers = params.mcpServers as schema.McpServer[];
    if (!servers.some(isAcpMcpServer)) return params;
    if ((mode === "http" || mode === "stdio") && factory !== undefined) {
      // No bridge starts listening once the chain is over.
      if (closed) throw RequestError.internalError(undefined, "The chain is closed");
      bridge ??= factory(caller);
      if (mode === "http") return { ...params, mcpServers: await bridge.adaptServers(servers) };
      const adapted = await bridge.adaptServers(servers, stdioShim);
      // A v2 agent's stdio entries carry their type.
      const typed = v2
        ? adapted.map((server, i) =>
            isAcpMcpServer(servers[i]) ? { type: "stdio", ...server } : server,
          )
        : adapted;
      return { ...params, mcpServers: typed };
    }
    throw RequestError.invalidParams({ type: "acp" }, "Unsupported MCP server transport acp");
  };
  return {
    async request(method, params, signal) {
      if (method === "initialize") {
        const answer = await agent.request(method, params, signal);
        const has = agentMcpTransports(answer);
        v2 = isJsonObject(answer) && isJsonObject(answer.capabilities);
        mode = has.acp
          ? "native"
          : factory === undefined
            ? "refuse"
            : has.http
              ? "http"
              : stdioShim !== undefined
                ? "stdio"
                : "refuse";
        return mode === "http" || mode === "stdio" ? advertisingAcp(answer) : answer;
      }
      if (mode !== "native" && SESSION_METHODS.has(method)) {
        return agent.request(method, await rewrite(params), signal);
      }
      return agent.request(method, params, signal);
    },
    async notify(method, params) {
      if (
        (mode === "http" || mode === "stdio") &&
        method === "mcp/message" &&
        isJsonObject(params)
      ) {
        caller.handleNotification(params as schema.MessageMcpNotification);
        return;
      }
      await agent.notify(method, params);
    },
    serve(handlers) {
      upstream = handlers;
      agent.serve(handlers);
    },
    close: async () => {
      closed = true;
      await bridge?.close();
    },
  };
}
