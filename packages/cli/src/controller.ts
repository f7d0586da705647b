/**
 * {@link AgentController}: the process side of the CLI's `run`, `prompt` and `demo`:
 * starting (and restarting) the agent, running login commands, and the current session.
 * Every session request, and every protocol decision about it (authentication required at
 * any step, load or resume, time limits), is the library's {@link SessionClient}. It has
 * no UI of its own: views subscribe to it and to the session store.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { RequestError, errorDataText } from "acp-kit";
import type { Logger, MessageObserver } from "acp-kit";
import type { Client } from "acp-kit";
import { PROTOCOL_VERSION } from "acp-kit";
import type * as schema from "acp-kit";
import {
  AuthRequiredError,
  type AuthEnvVar,
  envVarsOf,
  isTerminalAuth,
  loginPlan,
  terminalLoginCommand,
} from "acp-kit";
import type { SessionClient } from "acp-kit";
import { SessionStore } from "acp-kit";
import { VERSION } from "acp-kit";
import { ClientToolkit } from "acp-kit/node";
import type { PermissionPrompt } from "acp-kit/node";
import type { PermissionPolicy } from "acp-kit/node";
import { spawnAgent, type SpawnedAgent } from "acp-kit/node";
import type { AgentExit } from "acp-kit/node";
import type { TerminalOutputEvent } from "acp-kit/node";
import { refusedServersText } from "./mcp-config.js";
import { resolveSettingValue, type SessionSettings } from "./session-options.js";
import type { AgentTarget } from "./target.js";
import { ViewState } from "./view-state.js";

/** Options of {@link AgentController}. */
export interface ControllerOptions {
  /** The agent to run. */
  readonly target: AgentTarget;
  /** The session's working directory. */
  readonly cwd: string;
  /** Permission policies, tried before {@link ControllerOptions.askPermission}. */
  readonly policies: readonly PermissionPolicy[];
  /** Asks the user when no policy decides; without it the safe answer is given. */
  readonly askPermission?: PermissionPrompt;
  /** Live output of the terminals the agent runs. */
  readonly onTerminalOutput?: (event: TerminalOutputEvent) => void;
  /** Each line the agent writes to stderr. */
  readonly onStderr?: (line: string) => void;
  /**
   * Called with each line the agent prints on its stdout that is not ACP (a login URL or
   * code, a question): the user must see it. Such lines are never answered.
   */
  readonly onStdout?: (line: string) => void;
  /** Wraps the client handed to the connection (to observe requests). */
  readonly wrapClient?: (client: Client) => Client;
  /**
   * Sees every message to and from each agent process started, from before `initialize`
   * (see the connection's `observe`).
   */
  readonly observe?: MessageObserver;
  /** Protocol warnings. */
  readonly logger?: Logger;
  /** How long `initialize` may take, in ms (first `npx` runs are slow). */
  readonly initializeTimeoutMs?: number;
  /**
   * How long `session/new`, `session/load` and `session/resume` may take, in ms (default
   * 120 000; `0` or `Infinity`: no limit).
   */
  readonly sessionSetupTimeoutMs?: number;
  /** The mode and model each session opened gets (`--mode`, `--model`). */
  readonly settings?: SessionSettings;
  /** The MCP servers every session is opened with (`--mcp-config`); default none. */
  readonly mcpServers?: readonly schema.McpServer[];
  /**
   * Opens the first session of the first agent process, in place of `session/new` (to
   * restore a remembered one: see {@link AgentController.openExisting}). Called once the
   * agent is initialized; later starts open a new session.
   */
  readonly firstSession?: (controller: AgentController) => Promise<void>;
}

/** How the agent process ended, or why it could not be started. */
export interface AgentEnd {
  /** The process's exit code or signal; absent when it never ran (or could not start). */
  readonly status?: AgentExit;
  /** The last lines the agent wrote to stderr. */
  readonly stderr: readonly string[];
  /** Why starting it failed (spawning, `initialize`, `session/new`), when that is how it ended. */
  readonly error?: string;
}

/** Where the controller is. */
export type ControllerPhase =
  "starting" | "ready" | "prompting" | "auth-required" | "exited" | "closed";

/** Re-exported from the library, where the protocol's auth rules live. */
export { isTerminalAuth };

/** Runs an interactive command in the user's terminal; resolves with its exit code. */
export type InteractiveRunner = (
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
) => Promise<number | null>;

/** A runner with the terminal handed over (stdio inherited). */
export const inheritStdioRunner: InteractiveRunner = (command, args, env) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit", env });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code));
  });

/** See the module comment. */
export class AgentController extends ViewState {
  /** Every session's thread; kept across restarts. */
  readonly sessions = new SessionStore();
  /** The current toolkit (a new one per agent process). */
  toolkit!: ClientToolkit;
  /** The current agent process. */
  agent: SpawnedAgent | undefined;
  /** The session requests of the current agent process (the library's client sessions). */
  client: SessionClient | undefined;
  /** The agent's `initialize` answer (a v2 agent's as v1 shows it). */
  info: schema.InitializeResponse | undefined;

  /** The ACP version the current agent speaks, once initialized. */
  get protocol(): 1 | 2 | undefined {
    return this.agent?.protocol;
  }
  /** The current session. */
  sessionId: string | undefined;
  /** Authentication methods, while `phase` is `auth-required`. */
  authMethods: readonly schema.AuthMethod[] = [];
  /** The request that needed authentication, while `phase` is `auth-required`. */
  authFailure: AuthRequiredError | undefined;
  /**
   * True once an agent process got as far as a session (or a login request): a later end
   * is worth a restart; a first start that fails is not.
   */
  wasReady = false;
  /** How the agent ended (or why it could not start), once `phase` is `exited`. */
  exit: AgentEnd | undefined;
  private phaseValue: ControllerPhase = "starting";
  /** The start or restart under way, which a second call joins. */
  private launching: Promise<void> | undefined;
  /** Variables an `env_var` login gave; the agent is started with them (never stored). */
  private loginEnv: Record<string, string> = {};
  /** A method to `authenticate` with right after the next `initialize` (`env_var` logins). */
  private authenticateAfterStart: string | undefined;
  /** Why that `authenticate` failed, to explain a login that did not take. */
  private loginError: string | undefined;
  /** Whether {@link ControllerOptions.firstSession} was called. */
  private firstSessionCalled = false;

  /** @param options - See {@link ControllerOptions}. */
  constructor(private readonly options: ControllerOptions) {
    super();
    this.sessions.subscribe(() => this.changed());
  }

  /** Where the controller is. */
  get phase(): ControllerPhase {
    return this.phaseValue;
  }

  /** The current session's modes and config options, from its state. */
  get state(): ReturnType<SessionStore["get"]> {
    return this.sessionId === undefined ? undefined : this.sessions.get(this.sessionId);
  }

  /**
   * Calls `listener` on every change of phase, session or session state; returns an
   * unsubscribe. (A bound function: it can be handed to `useSyncExternalStore`.)
   */
  onChange = (listener: () => void): (() => void) => this.subscribe(listener);

  /**
   * Starts the agent, initializes, and opens a session (or stops at `auth-required`).
   * When that fails, the phase is `exited` with the reason in {@link AgentController.exit}
   * (so that a view can offer a restart), and the error is rethrown. A call while a start
   * is under way joins it.
   */
  start(): Promise<void> {
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<void> {
    this.setPhase("starting");
    try {
      await this.spawnAndOpen();
    } catch (error) {
      const agent = this.agent;
      this.agent = undefined;
      this.client = undefined;
      await agent?.close();
      if (this.phaseValue !== "closed") {
        this.exit = {
          stderr: agent === undefined ? [] : [...agent.stderr],
          error: error instanceof Error ? error.message : String(error),
        };
        this.setPhase("exited");
      }
      throw error;
    }
  }

  private async spawnAndOpen(): Promise<void> {
    this.toolkit = new ClientToolkit({
      sessions: this.sessions,
      ...(this.options.sessionSetupTimeoutMs === undefined
        ? {}
        : { sessionSetupTimeoutMs: this.options.sessionSetupTimeoutMs }),
      permissions: {
        policies: this.options.policies,
        ...(this.options.askPermission === undefined ? {} : { prompt: this.options.askPermission }),
        cwd: this.options.cwd,
      },
      terminals: {
        ...(this.options.onTerminalOutput === undefined
          ? {}
          : { onOutput: this.options.onTerminalOutput }),
      },
    });
    const { target } = this.options;
    const base = this.toolkit.client();
    const agent = await spawnAgent({
      command: target.command,
      args: target.args,
      env: { ...target.env, ...this.loginEnv },
      ...(target.windowsVerbatimArguments === true ? { windowsVerbatimArguments: true } : {}),
      protocol: target.protocol ?? "auto",
      cwd: this.options.cwd,
      client: this.options.wrapClient?.(base) ?? base,
      ...(this.options.onStderr === undefined ? {} : { onStderr: this.options.onStderr }),
      ...(this.options.onStdout === undefined ? {} : { onStdout: this.options.onStdout }),
      connection: this.options.logger === undefined ? {} : { logger: this.options.logger },
      ...(this.options.initializeTimeoutMs === undefined
        ? {}
        : { initializeTimeoutMs: this.options.initializeTimeoutMs }),
    });
    this.agent = agent;
    if (this.options.observe !== undefined) agent.connection.observe(this.options.observe);
    // A v2 agent's session is folded from its own updates (its diffs and terminals as
    // they are), not from what the bridge shows of them in v1.
    agent.observeV2Updates((notification) => this.sessions.applyV2(notification));
    void agent.exited.then((status) => {
      if (this.agent !== agent || this.phaseValue === "closed") return;
      this.exit = { status, stderr: [...agent.stderr] };
      this.setPhase("exited");
      void this.toolkit.dispose();
    });
    this.info = await agent.initialize({
      protocolVersion: PROTOCOL_VERSION,
      // The CLI owns a terminal, so it can run an agent's login command (terminal auth).
      clientCapabilities: { ...this.toolkit.capabilities, auth: { terminal: true } },
      clientInfo: { name: "acp-kit", title: "acp-kit CLI", version: VERSION },
    });
    const client = this.toolkit.sessionClient(agent.connection, this.info);
    this.client = client;
    client.subscribe(({ error }) => {
      if (this.client !== client || this.phaseValue === "closed") return;
      this.authFailure = error;
      this.authMethods = error.authMethods;
      this.setPhase("auth-required");
    });
    const methodId = this.authenticateAfterStart;
    this.authenticateAfterStart = undefined;
    this.loginError = undefined;
    if (methodId !== undefined) {
      // The agent may not need it with the variables set: a refusal is only worth telling
      // if the session still needs a login.
      await client.authenticate(methodId).catch((error: unknown) => {
        if (!(error instanceof RequestError)) throw error;
        this.loginError = error.message;
      });
    }
    const first = this.options.firstSession;
    if (first !== undefined && !this.firstSessionCalled) {
      this.firstSessionCalled = true;
      await first(this);
    } else await this.openSession();
  }

  /**
   * Opens an existing session as the current one (`session/load` or `session/resume`, see
   * {@link AgentController.switchSession}), with the mode and model asked for. Like {@link AgentController.openSession}, it
   * resolves at `auth-required` when the agent asks for a login.
   */
  async openExisting(sessionId: string): Promise<void> {
    try {
      await this.switchSession(sessionId);
      await this.applySettings(this.requireClient(), sessionId);
      this.setPhase("ready");
    } catch (error) {
      if (error instanceof AuthRequiredError) return;
      throw error;
    }
  }

  /**
   * `session/new`. When the agent answers that authentication is required (here or at any
   * later step), the phase is `auth-required` with the agent's methods and the failed
   * request in {@link AgentController.authFailure}; this call then resolves.
   */
  async openSession(): Promise<void> {
    const client = this.requireClient();
    try {
      const { sessionId } = await client.newSession({
        cwd: this.options.cwd,
        mcpServers: this.mcpServers(),
      });
      this.sessionId = sessionId;
      this.authFailure = undefined;
      await this.applySettings(client, sessionId);
      this.setPhase("ready");
    } catch (error) {
      if (error instanceof AuthRequiredError) return;
      throw error;
    }
  }

  /**
   * Sets the mode and model asked for on the command line, right after a session opened
   * (before it is ready). An unknown value is a `SettingValueError` naming the
   * valid ones; nothing is sent then.
   */
  private async applySettings(client: SessionClient, sessionId: string): Promise<void> {
    const { mode, model } = this.options.settings ?? {};
    const state = (): ReturnType<SessionStore["get"]> => this.sessions.get(sessionId);
    if (mode !== undefined)
      await client.setMode(sessionId, resolveSettingValue(state(), "mode", mode));
    if (model !== undefined) {
      await client.setModel(sessionId, resolveSettingValue(state(), "model", model));
    }
  }

  /**
   * The variables of an `env_var` method that are required and not set (in the agent's
   * launch, this process's environment, or a login of this run): the ones to ask for.
   */
  missingLoginVars(method: schema.AuthMethod): AuthEnvVar[] {
    return (envVarsOf(method) ?? []).filter(
      (v) => !v.optional && this.loginValue(v.name) === undefined,
    );
  }

  private loginValue(name: string): string | undefined {
    const value = this.loginEnv[name] ?? this.options.target.env?.[name] ?? process.env[name];
    return value === undefined || value === "" ? undefined : value;
  }

  /** Whether the agent supports `logout`, or this run gave it login variables to drop. */
  get canLogout(): boolean {
    return this.client?.canLogout === true || Object.keys(this.loginEnv).length > 0;
  }

  /**
   * Logs out: `logout` when the agent supports it; the variables an `env_var` login of this
   * run gave are dropped and the agent restarted without them. Resolves with what was done
   * (nothing: the agent cannot log out).
   */
  async logout(): Promise<{ readonly loggedOut: boolean; readonly dropped: readonly string[] }> {
    const client = this.requireClient();
    const loggedOut = client.canLogout;
    if (loggedOut) await client.logout();
    const dropped = Object.keys(this.loginEnv);
    if (dropped.length > 0) {
      this.loginEnv = {};
      await this.restart();
    }
    return { loggedOut, dropped };
  }

  /**
   * Logs in with `method` the way the protocol prescribes for its kind (the library's
   * `loginPlan`), then retries the request that needed it:
   *
   * - `terminal`: runs the agent's own command with the method's arguments in the user's
   *   terminal (through `runInteractive`); exit code 0 is success. Then restarts the agent.
   * - `env_var`: restarts the agent with the variables set (from `values`, else from the
   *   environment; missing ones are an error naming them), and sends `authenticate`.
   * - otherwise: `authenticate`.
   *
   * Resolves once the retried request succeeded (a retried prompt: once its turn ended).
   */
  async authenticate(
    method: schema.AuthMethod,
    runInteractive: InteractiveRunner,
    values: Readonly<Record<string, string>> = {},
  ): Promise<void> {
    const failure = this.authFailure;
    const plan = loginPlan(method);
    if (plan.kind === "terminal" && isTerminalAuth(method)) {
      const { target } = this.options;
      const login = terminalLoginCommand(method, {
        command: target.command,
        args: target.args,
        env: { ...target.env, ...this.loginEnv },
      });
      const code = await runInteractive(login.command, login.args, {
        ...process.env,
        ...login.env,
      });
      if (code !== 0) {
        throw new Error(
          `The login command ended with ${code === null ? "a signal" : `code ${code}`}: not logged in.`,
        );
      }
      await this.restart();
      await this.retry(failure, true);
      return;
    }
    if (plan.kind === "env_var") {
      const given: Record<string, string> = {};
      const missing: string[] = [];
      for (const v of envVarsOf(method) ?? []) {
        const value = values[v.name] ?? this.loginValue(v.name);
        if (value !== undefined && value !== "") given[v.name] = value;
        else if (!v.optional) missing.push(v.name);
      }
      if (missing.length > 0) {
        throw new Error(`To log in with ${method.name}, set ${missing.join(", ")}.`);
      }
      this.loginEnv = { ...this.loginEnv, ...given };
      this.authenticateAfterStart = plan.methodId;
      await this.restart();
      await this.retry(failure, true);
      return;
    }
    await this.requireClient().authenticate(method);
    await this.retry(failure, false);
  }

  /**
   * Sends again what needed authentication. After a restart the new process has opened a
   * new session already (that was the retry of `session/new`); a prompt goes to it, a load
   * or resume is done again. Throws when the agent still asks to log in.
   */
  private async retry(failure: AuthRequiredError | undefined, restarted: boolean): Promise<void> {
    // Without a failure (a login the user asked for), an open session stays.
    const method = failure?.method ?? (this.sessionId === undefined ? "session/new" : undefined);
    const stillRequired = (): Error => {
      // The agent's own words: why `authenticate` failed, else why it still refuses.
      const why = this.loginError ?? authReason(this.authFailure);
      return new Error(
        why === undefined
          ? "The agent still asks to log in (it gave no reason)."
          : `The agent still asks to log in: ${why}.`,
      );
    };
    const reopen = !restarted && (method === "session/new" || this.sessionId === undefined);
    if (reopen) await this.openSession();
    if ((reopen || restarted) && this.phaseValue === "auth-required") throw stillRequired();
    if (failure === undefined || method === "session/new") return;
    this.authFailure = undefined;
    try {
      if (method === "session/prompt") {
        await this.prompt((failure.params as schema.PromptRequest).prompt);
      } else if (method === "session/load" || method === "session/resume") {
        await this.switchSession((failure.params as schema.LoadSessionRequest).sessionId);
      } else if (!restarted) {
        this.setPhase("ready");
        await failure.retry();
      }
    } catch (error) {
      throw error instanceof AuthRequiredError ? stillRequired() : error;
    }
  }

  /** Runs one prompt turn in the current session. */
  async prompt(prompt: readonly schema.ContentBlock[]): Promise<schema.PromptResponse> {
    const client = this.requireClient();
    const sessionId = this.requireSession();
    this.authFailure = undefined;
    this.setPhase("prompting");
    try {
      return await client.prompt({ sessionId, prompt: [...prompt] });
    } finally {
      if (this.phaseValue === "prompting") this.setPhase("ready");
    }
  }

  /** Cancels the running turn (pending permission requests are answered `cancelled`). */
  async cancel(): Promise<void> {
    if (this.client === undefined || this.sessionId === undefined) return;
    await this.client.cancel(this.sessionId);
  }

  /** Sets the current session's mode (where the library says it lives: see `SessionClient.setMode`). */
  async setMode(modeId: string): Promise<void> {
    await this.requireClient().setMode(this.requireSession(), modeId);
  }

  /** `session/set_config_option` in the current session (select or boolean). */
  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    await this.requireClient().setConfigOption(this.requireSession(), configId, value);
  }

  /** Sets the current session's model (its config option of category `model`). */
  async setModel(modelId: string): Promise<void> {
    await this.requireClient().setModel(this.requireSession(), modelId);
  }

  /** The agent's sessions (first page), when it supports `session/list`. */
  async listSessions(): Promise<schema.SessionInfo[]> {
    const { sessions } = await this.requireClient().listSessions({ cwd: this.options.cwd });
    return sessions;
  }

  /**
   * The sessions' MCP servers (`--mcp-config`); an error when the agent does not take
   * some of them (the library decides, by the agent's `mcpCapabilities`).
   */
  private mcpServers(): schema.McpServer[] {
    const servers = this.options.mcpServers ?? [];
    const refused = refusedServersText(this.requireClient().refusedMcpServers(servers));
    if (refused !== undefined) throw new Error(`--mcp-config: ${refused}`);
    return [...servers];
  }

  /** How {@link AgentController.switchSession} would open a session, if the agent can. */
  get restoreMethod(): "session/load" | "session/resume" | undefined {
    return this.client?.restoreMethod;
  }

  /**
   * Switches to another session: `session/load` (history replayed) or `session/resume`,
   * as the agent supports (the library decides).
   */
  async switchSession(sessionId: string): Promise<"loaded" | "resumed"> {
    const { method } = await this.requireClient().restoreSession({
      sessionId,
      cwd: this.options.cwd,
      mcpServers: this.mcpServers(),
    });
    this.sessionId = sessionId;
    this.authFailure = undefined;
    if (this.phaseValue === "auth-required") this.setPhase("ready");
    else this.changed();
    return method === "session/load" ? "loaded" : "resumed";
  }

  /**
   * Ends the current agent process (if any) and starts a new one. The phase is `starting`
   * from the call on; a call while a start or restart is under way joins it.
   */
  restart(): Promise<void> {
    if (this.launching !== undefined) return this.launching;
    const old = this.agent;
    this.agent = undefined;
    this.client = undefined;
    this.sessionId = undefined;
    this.exit = undefined;
    this.setPhase("starting");
    this.launching = (async () => {
      await old?.close();
      await this.toolkit.dispose();
      await this.launch();
    })().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  /** Closes the connection, ends the agent's process group and kills its terminals. */
  async close(): Promise<void> {
    this.setPhase("closed");
    const agent = this.agent;
    this.agent = undefined;
    this.client = undefined;
    if (agent !== undefined) await agent.close();
    await this.toolkit.dispose();
  }

  private requireClient(): SessionClient {
    if (this.agent === undefined || this.client === undefined) {
      throw new Error("The agent is not running.");
    }
    return this.client;
  }

  private requireSession(): string {
    if (this.sessionId === undefined) throw new Error("No session is open.");
    return this.sessionId;
  }

  private setPhase(phase: ControllerPhase): void {
    this.phaseValue = phase;
    if (phase === "ready" || phase === "auth-required") this.wasReady = true;
    this.changed();
  }
}

/**
 * Why the agent asked for a login, in its own words: the error's data (`details`, ...),
 * else its message when that says more than the protocol's "Authentication required".
 */
function authReason(error: AuthRequiredError | undefined): string | undefined {
  if (error === undefined) return undefined;
  const data = errorDataText(error.data);
  if (data !== undefined) return data.replace(/\.$/, "");
  const message = error.message.trim();
  return message === "" || /^authentication required\.?$/i.test(message)
    ? undefined
    : message.replace(/\.$/, "");
}
