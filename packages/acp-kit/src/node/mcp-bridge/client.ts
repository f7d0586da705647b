/**
 * {@link McpClientBridge}: a client's own MCP-over-ACP servers, served to agents that do not
 * advertise `acp` through a loopback {@link McpHttpBridge} (or its stdio shim).
 *
 * @module
 */
import type { McpProvider } from "../../mcp/provider.js";
import type * as schema from "../../schema/types.gen.js";
import {
  McpHttpBridge,
  mcpProviderTarget,
  type McpHttpBridgeOptions,
  type McpStdioShimCommand,
} from "./bridge.js";
import { mcpBridgeMode, rewriteMcpServers, type McpBridgeMode } from "./plan.js";

/** Options of an {@link McpClientBridge}: the bridge's, and the stdio shim command. */
export interface McpClientBridgeOptions extends McpHttpBridgeOptions {
  /**
   * How agents that advertise neither `acp` nor `http` run the stdio shim (for example
   * `{ command: "acp-kit", args: ["mcp-shim"] }`). Without it such agents get the `acp`
   * declarations unchanged.
   */
  readonly stdioShim?: McpStdioShimCommand;
}

/**
 * Serves a client's {@link McpProvider} servers to an agent that lacks MCP-over-ACP: after
 * `initialize`, {@link McpClientBridge.configure} reads the agent's capabilities, and
 * {@link McpClientBridge.rewrite} turns the `acp` declarations of each session request
 * into `http` entries served by a loopback bridge in this process (or stdio shim entries,
 * for agents without `http`). An agent that advertises `acp` gets them unchanged, and
 * nothing is advertised that the bridge cannot serve.
 *
 * ```ts
 * const mcp = new McpProvider();
 * const agent = new ClientSideConnection((a) => ({ ...client, unstable_messageMcp: mcp.attach(a) }), stream);
 * const bridge = new McpClientBridge(mcp);
 * bridge.configure(await agent.initialize({ protocolVersion: 1, clientCapabilities: {} }));
 * const tools = mcp.register({ name: "editor-tools", handler });
 * await agent.newSession(await bridge.rewrite({ cwd, mcpServers: [tools.declaration] }));
 * ```
 */
export class McpClientBridge implements AsyncDisposable {
  /** The loopback bridge (it listens once a declaration is rewritten). */
  readonly bridge: McpHttpBridge;
  private readonly stdioShim: McpStdioShimCommand | undefined;
  private current: McpBridgeMode = "native";

  /**
   * Creates the bridge of one connection.
   *
   * @param provider - The provider the client registers its servers on.
   * @param options - Limits, the 2025-era front end, the stdio shim, the closing signal.
   */
  constructor(provider: McpProvider, options: McpClientBridgeOptions = {}) {
    this.bridge = new McpHttpBridge(mcpProviderTarget(provider), options);
    this.stdioShim = options.stdioShim;
  }

  /** How `acp` declarations reach the agent (`native` until configured). */
  get mode(): McpBridgeMode {
    return this.current;
  }

  /**
   * Reads the agent's `initialize` answer and decides the mode (see {@link mcpBridgeMode}).
   *
   * @param initializeResponse - The agent's answer (v1 or v2).
   */
  configure(initializeResponse: unknown): McpBridgeMode {
    this.current = mcpBridgeMode(initializeResponse, this.stdioShim);
    return this.current;
  }

  /**
   * Session request params (`session/new`, `load`, `resume`, `fork`) with their `acp`
   * declarations rewritten for the agent; the same object when nothing changes.
   *
   * @param params - The request's params.
   */
  async rewrite<T extends { mcpServers?: schema.McpServer[] | null }>(params: T): Promise<T> {
    const servers = params.mcpServers;
    if (servers == null) return params;
    const rewritten = await rewriteMcpServers(servers, this.bridge, this.current, this.stdioShim);
    return rewritten === servers ? params : { ...params, mcpServers: [...rewritten] };
  }

  /** Closes the loopback listener. */
  async close(): Promise<void> {
    await this.bridge.close();
  }

  /** Same as {@link McpClientBridge.close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
