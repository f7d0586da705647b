/**
 * {@link SessionClient}: the client side of an agent's sessions over one connection, and
 * {@link ClientSession}, a handle on one of them. Every request (new, load, resume, list,
 * prompt, cancel, mode, config option, model, close) goes through it, so the session's
 * state in its {@link SessionStore} follows every response as well as every update; the
 * protocol's decisions (authentication required at any step, load or resume, the time
 * limit of session setup) are made here once. Runtime-neutral.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import type { Client } from "../peer/client.js";
import type { ClientSideConnection } from "../peer/client-side-connection.js";
import type * as schema from "../schema/types.gen.js";
import { AuthRequiredError, isAuthRequired, isTerminalAuth } from "./auth.js";
import { sessionSetting } from "./settings.js";
import type { SessionState } from "./state.js";
import { SessionStore, type SessionStoreListener } from "./store.js";

/** Default time limit of `session/new`, `session/load` and `session/resume`: 120 s. */
export const DEFAULT_SESSION_SETUP_TIMEOUT_MS = 120_000;

/** The agent's requests a {@link SessionClient} sends: any `ClientSideConnection` has them. */
export type SessionConnection = Pick<
  ClientSideConnection,
  | "newSession"
  | "loadSession"
  | "resumeSession"
  | "listSessions"
  | "closeSession"
  | "prompt"
  | "cancel"
  | "setSessionMode"
  | "setSessionConfigOption"
  | "authenticate"
  | "logout"
>;

/** A prompt: text, or content blocks. */
export type PromptInput = string | readonly schema.ContentBlock[];

/** Where a session's files may be: its working directory and extra roots. */
export interface SessionRoots {
  /** The session's working directory (absolute). */
  readonly cwd: string;
  /** Extra workspace roots (absolute). */
  readonly additionalDirectories?: readonly string[] | undefined;
}

/** Calls a {@link SessionClient} makes around its requests (a toolkit confines files with them). */
export interface SessionHooks {
  /**
   * A session is about to be used in `roots`: called after the `session/new` answer (the
   * id is known then), and before `session/load` and `session/resume` are sent (a replay
   * may already need them).
   */
  readonly opening?: (sessionId: string, roots: SessionRoots) => void;
  /** `session/cancel` is about to be sent; `turn` settles with the running prompt, if any. */
  readonly cancelling?: (sessionId: string, turn: Promise<unknown> | undefined) => void;
  /** The session was closed (`close`, whether or not the agent supports `session/close`). */
  readonly closed?: (sessionId: string) => void;
}

/** Options of a {@link SessionClient}. */
export interface SessionClientOptions {
  /**
   * The store the sessions' states live in. It must be fed the connection's updates (wrap
   * the client with `store.wrap(...)`); several clients (a restarted agent) may share one.
   * Default: a new store, fed by {@link SessionClient.wrap}.
   */
  readonly store?: SessionStore;
  /**
   * The agent's `initialize` answer: which of load, resume, list, close and logout it
   * supports, and the auth methods an {@link AuthRequiredError} carries. Settable later
   * through {@link SessionClient.agentInfo}.
   */
  readonly agentInfo?: schema.InitializeResponse;
  /**
   * Time limit of `session/new`, `session/load` and `session/resume`, in ms (default
   * {@link DEFAULT_SESSION_SETUP_TIMEOUT_MS}; `0` or `Infinity`: none). Past it the request
   * rejects with a `ConnectionError` (`code: "timeout"`) and `$/cancel_request` is sent. A
   * call's own `timeoutMs` wins. Prompts have no limit (a turn may run long; cancel it).
   */
  readonly setupTimeoutMs?: number;
  /** Which of `session/load` and `session/resume` {@link SessionClient.restoreSession} prefers when the agent has both. Default `"load"` (the history is replayed). */
  readonly prefer?: "load" | "resume";
  /** See {@link SessionHooks}. */
  readonly hooks?: SessionHooks;
}

/** What a {@link SessionClient} tells its listeners. */
export type SessionClientEvent = {
  /** A request failed with `-32000`; the same error is then thrown to the caller. */
  readonly type: "auth_required";
  /** The error, with the agent's methods and a way to retry. */
  readonly error: AuthRequiredError;
};

/** The answer of {@link SessionClient.restoreSession}. */
export type RestoredSession =
  | { readonly method: "session/load"; readonly response: schema.LoadSessionResponse }
  | { readonly method: "session/resume"; readonly response: schema.ResumeSessionResponse };

/** Thrown when the agent does not support what was asked (no request is sent). */
export class UnsupportedByAgentError extends Error {
  /** The capability the agent did not advertise (`sessionCapabilities.list`, ...). */
  readonly capability: string;

  /**
   * Creates the error.
   *
   * @param capability - The missing capability.
   * @param message - What could not be done.
   */
  constructor(capability: string, message: string) {
    super(message);
    this.name = "UnsupportedByAgentError";
    this.capability = capability;
  }
}

/**
 * The client side of an agent's sessions over one connection.
 *
 * ```ts
 * const sessions = new SessionClient();
 * const agent = new ClientSideConnection(() => sessions.wrap(myClient), stream);
 * sessions.agentInfo = await agent.initialize({ protocolVersion: PROTOCOL_VERSION });
 * sessions.connect(agent);
 * const session = sessions.session((await sessions.newSession({ cwd, mcpServers: [] })).sessionId);
 * await session.prompt("Hello");
 * session.state.thread; // messages, tool calls, plan, mode, config options, usage, ...
 * ```
 *
 * Updates are folded by session id as they come, so those an agent sends before its
 * `session/new` answer are kept in the session's state. Each response that changes a
 * session (setup responses, `set_config_option`, `set_mode`, the prompt's stop reason) is
 * folded too. A request answered `-32000` rejects with an {@link AuthRequiredError} (and
 * listeners hear of it first), whatever the step.
 */
export class SessionClient {
  /** The sessions' states. */
  readonly store: SessionStore;
  /** The agent's `initialize` answer, when known. */
  agentInfo: schema.InitializeResponse | undefined;
  private connection: SessionConnection | undefined;
  private readonly setupTimeoutMs: number;
  private readonly prefer: "load" | "resume";
  private readonly hooks: SessionHooks;
  private readonly listeners = new Set<(event: SessionClientEvent) => void>();
  /** The running prompt of each session, so a cancel covers requests racing it. */
  private readonly turns = new Map<string, Promise<unknown>>();

  /**
   * Creates a client for one connection; nothing is sent until a method is called.
   *
   * @param connection - The connection to the agent; or {@link SessionClient.connect} later
   *   (the connection usually needs {@link SessionClient.wrap} first).
   * @param options - See {@link SessionClientOptions}.
   */
  constructor(connection?: SessionConnection, options: SessionClientOptions = {}) {
    this.connection = connection;
    this.store = options.store ?? new SessionStore();
    this.agentInfo = options.agentInfo;
    const limit = options.setupTimeoutMs ?? DEFAULT_SESSION_SETUP_TIMEOUT_MS;
    if (Number.isNaN(limit) || limit < 0) {
      throw new RangeError(`setupTimeoutMs must be a number of ms >= 0, got ${String(limit)}`);
    }
    this.setupTimeoutMs = limit === 0 ? Infinity : limit;
    this.prefer = options.prefer ?? "load";
    this.hooks = options.hooks ?? {};
  }

  /** Sets the connection requests go through (once; a new agent process needs a new client). */
  connect(connection: SessionConnection): this {
    if (this.connection !== undefined && this.connection !== connection) {
      throw new Error("This SessionClient is already connected; make one per connection.");
    }
    this.connection = connection;
    return this;
  }

  /** `client` with a `sessionUpdate` that first feeds {@link SessionClient.store}. */
  wrap<C extends Client>(client: C): C {
    return this.store.wrap(client);
  }

  /**
   * Calls `listener` on each {@link SessionClientEvent}; returns the function that
   * unsubscribes it.
   */
  subscribe(listener: (event: SessionClientEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** A handle on a session of this client (opened or not: it is only an id). */
  session(sessionId: string): ClientSession {
    return new ClientSession(this, sessionId);
  }

  /** True when the agent supports `session/load`. */
  get canLoad(): boolean {
    return this.agentInfo?.agentCapabilities?.loadSession === true;
  }

  /** True when the agent supports `session/resume`. */
  get canResume(): boolean {
    return this.agentInfo?.agentCapabilities?.sessionCapabilities?.resume != null;
  }

  /** True when the agent supports `session/list`. */
  get canList(): boolean {
    return this.agentInfo?.agentCapabilities?.sessionCapabilities?.list != null;
  }

  /** True when the agent supports `session/close`. */
  get canClose(): boolean {
    return this.agentInfo?.agentCapabilities?.sessionCapabilities?.close != null;
  }

  /** True when the agent supports `logout`. */
  get canLogout(): boolean {
    return this.agentInfo?.agentCapabilities?.auth?.logout != null;
  }

  /**
   * The MCP servers of `servers` that the agent does not take, by its `mcpCapabilities`:
   * every agent takes stdio servers; `http`, `sse` and `acp` (MCP over ACP) servers only
   * when it says so. Empty when it takes them all (check before `session/new`, `load` or
   * `resume`: an agent may fail a session over a server it cannot run).
   */
  refusedMcpServers(servers: readonly schema.McpServer[]): schema.McpServer[] {
    const taken = this.agentInfo?.agentCapabilities?.mcpCapabilities;
    const takes: Readonly<Record<string, boolean>> = {
      http: taken?.http === true,
      sse: taken?.sse === true,
      acp: taken?.acp === true,
    };
    return servers.filter((server) => "type" in server && takes[server.type] === false);
  }

  /**
   * How {@link SessionClient.restoreSession} would open an existing session: the preferred
   * of `session/load` and `session/resume` that the agent supports, or `undefined`.
   */
  get restoreMethod(): "session/load" | "session/resume" | undefined {
    const load = this.canLoad ? ("session/load" as const) : undefined;
    const resume = this.canResume ? ("session/resume" as const) : undefined;
    return this.prefer === "load" ? (load ?? resume) : (resume ?? load);
  }

  /** `session/new` (time-limited); the session's state gets the answer's modes and options. */
  newSession(
    params: schema.NewSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.NewSessionResponse> {
    return this.guard(
      "session/new",
      params,
      async (agent) => {
        const response = await this.store.newSession(agent, params, this.setupOptions(options));
        this.hooks.opening?.(response.sessionId, params);
        return response;
      },
      () => this.newSession(params, options),
    );
  }

  /**
   * `session/load` (time-limited): the state's conversation is dropped and replayed by the
   * agent. Needs `loadSession`.
   */
  loadSession(
    params: schema.LoadSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.LoadSessionResponse> {
    return this.guard(
      "session/load",
      params,
      (agent) => {
        this.hooks.opening?.(params.sessionId, params);
        return this.store.loadSession(agent, params, this.setupOptions(options));
      },
      () => this.loadSession(params, options),
    );
  }

  /** `session/resume` (time-limited, no replay). Needs `sessionCapabilities.resume`. */
  resumeSession(
    params: schema.ResumeSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ResumeSessionResponse> {
    return this.guard(
      "session/resume",
      params,
      (agent) => {
        this.hooks.opening?.(params.sessionId, params);
        return this.store.resumeSession(agent, params, this.setupOptions(options));
      },
      () => this.resumeSession(params, options),
    );
  }

  /**
   * Opens an existing session the way the agent supports: `session/load` or
   * `session/resume` (see {@link SessionClient.restoreMethod}). Throws
   * {@link UnsupportedByAgentError} when it supports neither.
   */
  async restoreSession(
    params: schema.LoadSessionRequest,
    options?: SendRequestOptions,
  ): Promise<RestoredSession> {
    const method = this.restoreMethod;
    if (method === "session/load") {
      return { method, response: await this.loadSession(params, options) };
    }
    if (method === "session/resume") {
      return { method, response: await this.resumeSession(params, options) };
    }
    throw new UnsupportedByAgentError(
      "loadSession",
      "This agent can neither load nor resume sessions.",
    );
  }

  /** `session/list` (one page). Throws {@link UnsupportedByAgentError} without `sessionCapabilities.list`. */
  listSessions(
    params: schema.ListSessionsRequest = {},
    options?: SendRequestOptions,
  ): Promise<schema.ListSessionsResponse> {
    if (!this.canList) {
      return Promise.reject(
        new UnsupportedByAgentError(
          "sessionCapabilities.list",
          "This agent does not list sessions.",
        ),
      );
    }
    return this.guard(
      "session/list",
      params,
      (agent) => agent.listSessions(params, options),
      () => this.listSessions(params, options),
    );
  }

  /**
   * One prompt turn: recorded in the session's thread (the prompt as a user message, the
   * stop reason, or `null` when the request failed).
   */
  prompt(
    params: schema.PromptRequest,
    options?: SendRequestOptions,
  ): Promise<schema.PromptResponse> {
    return this.guard(
      "session/prompt",
      params,
      async (agent) => {
        const turn = this.store.prompt(agent, params, options);
        this.turns.set(params.sessionId, turn);
        try {
          return await turn;
        } finally {
          if (this.turns.get(params.sessionId) === turn) this.turns.delete(params.sessionId);
        }
      },
      () => this.prompt(params, options),
    );
  }

  /** Cancels the session's running turn: marks it cancelled, then `session/cancel`. */
  async cancel(sessionId: string): Promise<void> {
    const agent = this.requireConnection();
    this.hooks.cancelling?.(sessionId, this.turns.get(sessionId));
    await this.store.cancel(agent, { sessionId });
  }

  /**
   * Sets the session's mode where {@link sessionSetting} says it lives: through its config
   * option of category `mode` when it has one (the protocol's preference), otherwise with
   * `session/set_mode`, and the state's `currentModeId` follows.
   */
  async setMode(sessionId: string, modeId: string): Promise<void> {
    const configId = sessionSetting(this.store.get(sessionId), "mode")?.configId;
    if (configId !== undefined) {
      // The session's modes, when it offers them too, follow the option (see the store).
      await this.setConfigOption(sessionId, configId, modeId);
      return;
    }
    const params: schema.SetSessionModeRequest = { sessionId, modeId };
    await this.guard(
      "session/set_mode",
      params,
      (agent) => agent.setSessionMode(params),
      () => this.setMode(sessionId, modeId),
    );
    this.store.apply({
      sessionId,
      update: { sessionUpdate: "current_mode_update", currentModeId: modeId },
    });
  }

  /**
   * `session/set_config_option` (a select value as a string, a boolean as a boolean); the
   * state's config options become the answer's.
   */
  async setConfigOption(
    sessionId: string,
    configId: string,
    value: string | boolean,
  ): Promise<schema.SetSessionConfigOptionResponse> {
    const params: schema.SetSessionConfigOptionRequest =
      typeof value === "boolean"
        ? { sessionId, configId, type: "boolean", value }
        : { sessionId, configId, value };
    const response = await this.guard(
      "session/set_config_option",
      params,
      (agent) => agent.setSessionConfigOption(params),
      () => this.setConfigOption(sessionId, configId, value),
    );
    this.store.setup(sessionId, { configOptions: response.configOptions });
    return response;
  }

  /**
   * Sets the session's model: the config option of category `model` (the protocol has no
   * other way). Throws {@link UnsupportedByAgentError} when the session has none.
   */
  setModel(sessionId: string, modelId: string): Promise<schema.SetSessionConfigOptionResponse> {
    const configId = sessionSetting(this.store.get(sessionId), "model")?.configId;
    if (configId === undefined) {
      return Promise.reject(
        new UnsupportedByAgentError("configOptions", "This session offers no choice of model."),
      );
    }
    return this.setConfigOption(sessionId, configId, modelId);
  }

  /**
   * `session/close` when the agent supports it; either way the session is forgotten by the
   * hooks (its state stays in the store until you `delete` it).
   */
  async closeSession(sessionId: string): Promise<void> {
    try {
      if (this.canClose) {
        const params: schema.CloseSessionRequest = { sessionId };
        await this.guard(
          "session/close",
          params,
          (agent) => agent.closeSession(params),
          () => this.closeSession(sessionId),
        );
      }
    } finally {
      this.turns.delete(sessionId);
      this.hooks.closed?.(sessionId);
    }
  }

  /**
   * `authenticate` with an advertised method. A `terminal` method is refused (the protocol
   * forbids sending it: run its login command and start the agent again instead).
   */
  async authenticate(method: schema.AuthMethod | string): Promise<void> {
    const found =
      typeof method === "string"
        ? this.agentInfo?.authMethods?.find((m) => m.id === method)
        : method;
    if (found !== undefined && isTerminalAuth(found)) {
      throw new Error(
        `"${found.id}" is a terminal login: run its command, then start the agent again.`,
      );
    }
    await this.requireConnection().authenticate({
      methodId: typeof method === "string" ? method : method.id,
    });
  }

  /** `logout`. Throws {@link UnsupportedByAgentError} without `auth.logout`. */
  async logout(): Promise<void> {
    if (!this.canLogout) {
      throw new UnsupportedByAgentError("auth.logout", "This agent does not support logout.");
    }
    await this.requireConnection().logout({});
  }

  private setupOptions(options: SendRequestOptions | undefined): SendRequestOptions {
    return { ...options, timeoutMs: options?.timeoutMs ?? this.setupTimeoutMs };
  }

  private requireConnection(): SessionConnection {
    if (this.connection === undefined) {
      throw new Error("This SessionClient has no connection yet (call connect first).");
    }
    return this.connection;
  }

  /** Runs `send`; a `-32000` becomes an {@link AuthRequiredError}, told to listeners first. */
  private async guard<T>(
    method: string,
    params: unknown,
    send: (agent: SessionConnection) => Promise<T>,
    retry: () => Promise<unknown>,
  ): Promise<T> {
    try {
      return await send(this.requireConnection());
    } catch (error) {
      if (!isAuthRequired(error) || error instanceof AuthRequiredError) throw error;
      const failure = new AuthRequiredError(error, {
        method,
        params,
        authMethods: this.agentInfo?.authMethods ?? [],
        retry,
      });
      for (const listener of [...this.listeners]) {
        try {
          listener({ type: "auth_required", error: failure });
        } catch {
          // A listener's failure must not hide the error from the caller.
        }
      }
      throw failure;
    }
  }
}

/**
 * A handle on one session of a {@link SessionClient}: its state, and every request about
 * it. Get one with {@link SessionClient.session}.
 */
export class ClientSession {
  /**
   * Made by {@link SessionClient.session}.
   *
   * @param client - The session client.
   * @param sessionId - The agent's session id.
   */
  constructor(
    readonly client: SessionClient,
    readonly sessionId: string,
  ) {}

  /** The session's state: thread, plan, mode, commands, config options, usage, ... */
  get state(): SessionState {
    const state = this.client.store.get(this.sessionId);
    if (state === undefined) throw new Error(`Session ${this.sessionId} is not in the store`);
    return state;
  }

  /** Calls `listener` after every change of this session's state; returns an unsubscribe. */
  subscribe(listener: SessionStoreListener): () => void {
    return this.client.store.subscribe(listener, this.sessionId);
  }

  /** Runs one prompt turn and resolves with its stop reason when the agent answers. */
  prompt(prompt: PromptInput, options?: SendRequestOptions): Promise<schema.PromptResponse> {
    const blocks =
      typeof prompt === "string" ? [{ type: "text" as const, text: prompt }] : [...prompt];
    return this.client.prompt({ sessionId: this.sessionId, prompt: blocks }, options);
  }

  /** Cancels the running turn. */
  cancel(): Promise<void> {
    return this.client.cancel(this.sessionId);
  }

  /** Sets the mode (see {@link SessionClient.setMode}). */
  setMode(modeId: string): Promise<void> {
    return this.client.setMode(this.sessionId, modeId);
  }

  /** `session/set_config_option`; the state's config options follow the answer. */
  setConfigOption(
    configId: string,
    value: string | boolean,
  ): Promise<schema.SetSessionConfigOptionResponse> {
    return this.client.setConfigOption(this.sessionId, configId, value);
  }

  /** Sets the model (the config option of category `model`). */
  setModel(modelId: string): Promise<schema.SetSessionConfigOptionResponse> {
    return this.client.setModel(this.sessionId, modelId);
  }

  /** `session/close` when the agent supports it; forgets the session either way. */
  close(): Promise<void> {
    return this.client.closeSession(this.sessionId);
  }
}
