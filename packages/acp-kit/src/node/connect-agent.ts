/**
 * {@link connectAgent}: a working client over a real agent in one call — spawn, serve
 * files and terminals, answer permissions, initialize, and open sessions.
 *
 * @module
 */
import type { McpProvider } from "../mcp/provider.js";
import type { ClientSideConnection } from "../peer/client-side-connection.js";
import { PROTOCOL_VERSION } from "../peer/methods.js";
import type * as schema from "../schema/types.gen.js";
import {
  ClientSession,
  type PromptInput as SessionPromptInput,
  type SessionClient,
} from "../session/session-client.js";
import { VERSION } from "../base/version.js";
import { ClientToolkit, type ClientToolkitOptions } from "./client-toolkit.js";
import { McpClientBridge, type McpClientBridgeOptions } from "./mcp-bridge/client.js";
import { spawnAgent, type SpawnedAgent } from "./spawn/agent.js";
import type { AgentExit } from "./spawn/errors.js";
import type { SpawnAgentOptions } from "./spawn/options.js";

/** Options of {@link connectAgent}: how to start the agent, and what the client serves. */
export interface ConnectAgentOptions
  extends Omit<SpawnAgentOptions, "client">, ClientToolkitOptions {
  /** Who the client is, sent in `initialize`. Default `{ name: "acp-kit", version }`. */
  readonly clientInfo?: schema.Implementation;
  /** Extra client capabilities, merged over what the toolkit serves. */
  readonly clientCapabilities?: schema.ClientCapabilities;
  /**
   * The client's MCP-over-ACP servers: the provider answers the agent's `mcp/message`
   * requests; put its registrations' declarations in `mcpServers`.
   */
  readonly mcp?: McpProvider;
  /**
   * Serves the `acp` declarations of {@link ConnectAgentOptions.mcp} to an agent that does
   * not advertise `acp`: `true` (or the bridge's options) rewrites them, in the sessions
   * this client opens, into `http` entries of a loopback bridge (or stdio shim entries with
   * `stdioShim`, for agents without `http`). Default off.
   */
  readonly mcpBridge?: boolean | McpClientBridgeOptions;
}

/** A prompt: text, or content blocks. */
export type PromptInput = SessionPromptInput;

/** Options of {@link ConnectedAgent.newSession}. */
export interface OpenSessionOptions {
  /** The session's working directory. Default: the agent's `cwd` option, else `process.cwd()`. */
  readonly cwd?: string;
  /** Extra workspace roots (only if the agent advertises `additionalDirectories`). */
  readonly additionalDirectories?: string[];
  /** MCP servers for the agent to connect to. Default none. */
  readonly mcpServers?: schema.McpServer[];
}

/**
 * One session of a {@link ConnectedAgent}: a {@link ClientSession} of the agent's
 * {@link SessionClient} (prompt, cancel, mode, config options, model, close; the state
 * follows every answer and update).
 */
export class AgentSession extends ClientSession {
  /**
   * Made by {@link ConnectedAgent}; not meant to be called directly.
   * @param sessionId - The agent's session id.
   * @param agent - The connected agent.
   */
  constructor(sessionId: string, agent: ConnectedAgent) {
    super(agent.sessions, sessionId);
  }
}

/** An initialized agent process with a complete client on this side. */
export class ConnectedAgent implements AsyncDisposable {
  /**
   * Made by {@link connectAgent}; not meant to be called directly.
   * @param process - The spawned agent.
   * @param toolkit - What the client serves.
   * @param info - The agent's `initialize` answer.
   * @param defaultCwd - The working directory of new sessions by default.
   * @param mcpBridge - The bridge that rewrites `acp` declarations, when turned on.
   */
  constructor(
    readonly process: SpawnedAgent,
    readonly toolkit: ClientToolkit,
    readonly info: schema.InitializeResponse,
    private readonly defaultCwd: string,
    readonly mcpBridge?: McpClientBridge,
  ) {
    this.sessions = toolkit.sessionClient(process.connection, info);
  }

  /**
   * The agent's sessions: every session request goes through it (a `-32000` at any step
   * rejects with an `AuthRequiredError`; subscribe to hear of it).
   */
  readonly sessions: SessionClient;

  /** The connection to the agent (it implements `Agent`). */
  get connection(): ClientSideConnection {
    return this.process.connection;
  }

  /** `session/new` in `cwd` (default: the agent's working directory). */
  async newSession(options: OpenSessionOptions = {}): Promise<AgentSession> {
    const params: schema.NewSessionRequest = {
      cwd: options.cwd ?? this.defaultCwd,
      mcpServers: options.mcpServers ?? [],
    };
    if (options.additionalDirectories !== undefined) {
      params.additionalDirectories = options.additionalDirectories;
    }
    const { sessionId } = await this.sessions.newSession(await this.bridged(params));
    return new AgentSession(sessionId, this);
  }

  /** `session/load` (when the agent supports it): the history replays into the session's state. */
  async loadSession(sessionId: string, options: OpenSessionOptions = {}): Promise<AgentSession> {
    await this.sessions.loadSession(await this.bridged(this.existing(sessionId, options)));
    return new AgentSession(sessionId, this);
  }

  /** `session/resume` (when the agent supports it): the session goes on, without a replay. */
  async resumeSession(sessionId: string, options: OpenSessionOptions = {}): Promise<AgentSession> {
    await this.sessions.resumeSession(await this.bridged(this.existing(sessionId, options)));
    return new AgentSession(sessionId, this);
  }

  /**
   * Opens an existing session the way the agent supports: `session/load` (preferred: the
   * history replays) or `session/resume`.
   */
  async restoreSession(sessionId: string, options: OpenSessionOptions = {}): Promise<AgentSession> {
    await this.sessions.restoreSession(await this.bridged(this.existing(sessionId, options)));
    return new AgentSession(sessionId, this);
  }

  /** The agent's sessions (one page of `session/list`), when it supports listing. */
  listSessions(params: schema.ListSessionsRequest = {}): Promise<schema.ListSessionsResponse> {
    return this.sessions.listSessions(params);
  }

  /** The params with their `acp` declarations rewritten for the agent, when bridging. */
  private async bridged<T extends { mcpServers?: schema.McpServer[] | null }>(
    params: T,
  ): Promise<T> {
    return this.mcpBridge === undefined ? params : this.mcpBridge.rewrite(params);
  }

  private existing(sessionId: string, options: OpenSessionOptions): schema.LoadSessionRequest {
    return {
      sessionId,
      cwd: options.cwd ?? this.defaultCwd,
      mcpServers: options.mcpServers ?? [],
      ...(options.additionalDirectories === undefined
        ? {}
        : { additionalDirectories: options.additionalDirectories }),
    };
  }

  /** Closes the connection, ends the agent's process group and kills every terminal. */
  async close(): Promise<AgentExit> {
    try {
      return await this.process.close();
    } finally {
      await this.mcpBridge?.close();
      await this.toolkit.dispose();
    }
  }

  /** Same as {@link ConnectedAgent.close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Starts an agent and connects a complete client to it: files and terminals served
 * inside each session's roots, permission requests answered by your policies, every
 * update folded into the session's state. Resolves once `initialize` has succeeded.
 *
 * ```ts
 * await using agent = await connectAgent({
 *   command: "npx", args: ["-y", "@zed-industries/claude-code-acp"],
 *   permissions: { policies: [allowReadOnly()] },
 * });
 * const session = await agent.newSession();
 * const { stopReason } = await session.prompt("What does this project do?");
 * ```
 */
export async function connectAgent(options: ConnectAgentOptions): Promise<ConnectedAgent> {
  const toolkit = new ClientToolkit(options);
  const provider = options.mcp;
  const spawned = await spawnAgent({
    ...options,
    client: (agent) => {
      const client = toolkit.client();
      return provider === undefined
        ? client
        : { ...client, unstable_messageMcp: provider.attach(agent) };
    },
  });
  const bridgeOptions = options.mcpBridge === true ? {} : options.mcpBridge;
  const mcpBridge =
    provider === undefined || bridgeOptions === undefined || bridgeOptions === false
      ? undefined
      : new McpClientBridge(provider, bridgeOptions);
  // The listener closes with the connection.
  const closeBridge = (): Promise<void> | undefined => mcpBridge?.close();
  void spawned.connection.closed.then(closeBridge, closeBridge);
  // A v2 agent's session is folded from its own updates, not from what v1 shows of them.
  spawned.observeV2Updates((notification) => toolkit.sessions.applyV2(notification));
  try {
    const info = await spawned.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { ...toolkit.capabilities, ...options.clientCapabilities },
      clientInfo: options.clientInfo ?? { name: "acp-kit", version: VERSION },
    });
    mcpBridge?.configure(info);
    return new ConnectedAgent(spawned, toolkit, info, options.cwd ?? process.cwd(), mcpBridge);
  } catch (error) {
    await mcpBridge?.close();
    await spawned.close();
    await toolkit.dispose();
    throw error;
  }
}
