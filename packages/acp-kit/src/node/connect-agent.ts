/**
 * {@link connectAgent}: a working client over a real agent in one call — spawn, serve
 * files and terminals, answer permissions, initialize, and open sessions.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import type { ClientSideConnection } from "../peer/client-side-connection.js";
import { PROTOCOL_VERSION } from "../peer/methods.js";
import type * as schema from "../schema/types.gen.js";
import type { SessionState } from "../session/state.js";
import type { SessionStoreListener } from "../session/store.js";
import { VERSION } from "../version.js";
import { ClientToolkit, type ClientToolkitOptions } from "./client-toolkit.js";
import { spawnAgent, type SpawnedAgent } from "./spawn-agent.js";
import type { AgentExit } from "./spawn-errors.js";
import type { SpawnAgentOptions } from "./spawn-options.js";

/** Options of {@link connectAgent}: how to start the agent, and what the client serves. */
export interface ConnectAgentOptions
  extends Omit<SpawnAgentOptions, "client">, ClientToolkitOptions {
  /** Who the client is, sent in `initialize`. Default `{ name: "acp-kit", version }`. */
  readonly clientInfo?: schema.Implementation;
  /** Extra client capabilities, merged over what the toolkit serves. */
  readonly clientCapabilities?: schema.ClientCapabilities;
}

/** A prompt: text, or content blocks. */
export type PromptInput = string | readonly schema.ContentBlock[];

/** Options of {@link ConnectedAgent.newSession}. */
export interface OpenSessionOptions {
  /** The session's working directory. Default: the agent's `cwd` option, else `process.cwd()`. */
  readonly cwd?: string;
  /** Extra workspace roots (only if the agent advertises `additionalDirectories`). */
  readonly additionalDirectories?: string[];
  /** MCP servers for the agent to connect to. Default none. */
  readonly mcpServers?: schema.McpServer[];
}

/** One session of a {@link ConnectedAgent}. */
export class AgentSession {
  /**
   * Made by {@link ConnectedAgent}; not meant to be called directly.
   * @param sessionId - The agent's session id.
   * @param agent - The connected agent.
   */
  constructor(
    readonly sessionId: string,
    private readonly agent: ConnectedAgent,
  ) {}

  /** The session's thread: messages, tool calls, plan, mode, commands, usage, ... */
  get state(): SessionState {
    const state = this.agent.toolkit.sessions.get(this.sessionId);
    if (state === undefined) throw new Error(`Session ${this.sessionId} is no longer tracked`);
    return state;
  }

  /** Calls `listener` after every change of this session's state; returns an unsubscribe. */
  subscribe(listener: SessionStoreListener): () => void {
    return this.agent.toolkit.sessions.subscribe(listener, this.sessionId);
  }

  /** Runs one prompt turn and resolves with its stop reason when the agent answers. */
  prompt(prompt: PromptInput, options?: SendRequestOptions): Promise<schema.PromptResponse> {
    const blocks =
      typeof prompt === "string" ? [{ type: "text" as const, text: prompt }] : [...prompt];
    return this.agent.toolkit.prompt(
      this.agent.connection,
      { sessionId: this.sessionId, prompt: blocks },
      options,
    );
  }

  /** Cancels the running turn (pending permission requests are answered `cancelled`). */
  cancel(): Promise<void> {
    return this.agent.toolkit.cancel(this.agent.connection, this.sessionId);
  }

  /** `session/set_mode`. */
  async setMode(modeId: string): Promise<void> {
    await this.agent.connection.setSessionMode({ sessionId: this.sessionId, modeId });
  }

  /** `session/set_config_option` with a select value. */
  setConfigOption(configId: string, value: string): Promise<schema.SetSessionConfigOptionResponse> {
    return this.agent.connection.setSessionConfigOption({
      sessionId: this.sessionId,
      configId,
      value,
    });
  }

  /** `session/close` when the agent supports it; forgets the session either way. */
  async close(): Promise<void> {
    try {
      if (this.agent.info.agentCapabilities?.sessionCapabilities?.close != null) {
        await this.agent.connection.closeSession({ sessionId: this.sessionId });
      }
    } finally {
      this.agent.toolkit.forgetSession(this.sessionId);
    }
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
   */
  constructor(
    readonly process: SpawnedAgent,
    readonly toolkit: ClientToolkit,
    readonly info: schema.InitializeResponse,
    private readonly defaultCwd: string,
  ) {}

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
    const { sessionId } = await this.toolkit.newSession(this.connection, params);
    return new AgentSession(sessionId, this);
  }

  /** `session/load` (when the agent supports it): the history replays into the session's state. */
  async loadSession(sessionId: string, options: OpenSessionOptions = {}): Promise<AgentSession> {
    await this.toolkit.loadSession(this.connection, {
      sessionId,
      cwd: options.cwd ?? this.defaultCwd,
      mcpServers: options.mcpServers ?? [],
      ...(options.additionalDirectories === undefined
        ? {}
        : { additionalDirectories: options.additionalDirectories }),
    });
    return new AgentSession(sessionId, this);
  }

  /** Closes the connection, ends the agent's process group and kills every terminal. */
  async close(): Promise<AgentExit> {
    try {
      return await this.process.close();
    } finally {
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
  const spawned = await spawnAgent({ ...options, client: () => toolkit.client() });
  try {
    const info = await spawned.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { ...toolkit.capabilities, ...options.clientCapabilities },
      clientInfo: options.clientInfo ?? { name: "acp-kit", version: VERSION },
    });
    return new ConnectedAgent(spawned, toolkit, info, options.cwd ?? process.cwd());
  } catch (error) {
    await spawned.close();
    await toolkit.dispose();
    throw error;
  }
}
