/**
 * {@link AgentController}: the protocol side of the CLI's `run`, `prompt` and `demo`:
 * starting (and restarting) the agent, authentication, the session, prompt turns,
 * cancellation, modes, config options and session switching. It has no UI of its own:
 * views subscribe to it and to the session store.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { RequestError } from "acp-kit";
import type { Logger } from "acp-kit";
import type { Client } from "acp-kit";
import { PROTOCOL_VERSION } from "acp-kit";
import type * as schema from "acp-kit";
import { SessionStore } from "acp-kit";
import { VERSION } from "acp-kit";
import { ClientToolkit } from "acp-kit/node";
import type { PermissionPrompt } from "acp-kit/node";
import type { PermissionPolicy } from "acp-kit/node";
import { spawnAgent, type SpawnedAgent } from "acp-kit/node";
import type { AgentExit } from "acp-kit/node";
import type { TerminalOutputEvent } from "acp-kit/node";
import type { AgentTarget } from "./target.js";

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
  /** Wraps the client handed to the connection (to observe requests). */
  readonly wrapClient?: (client: Client) => Client;
  /** Protocol warnings. */
  readonly logger?: Logger;
  /** How long `initialize` may take, in ms (first `npx` runs are slow). */
  readonly initializeTimeoutMs?: number;
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

/**
 * True for a `terminal` auth method. Checked on the value, not the type: a method of a kind
 * this version does not know (a newer `type`) reaches us as an agent method with its
 * `type` field kept, and must not be run as a login command.
 */
export function isTerminalAuth(
  method: schema.AuthMethod,
): method is schema.AuthMethodTerminal & { type: "terminal" } {
  return (method as { type?: unknown }).type === "terminal";
}

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
export class AgentController {
  /** Every session's thread; kept across restarts. */
  readonly sessions = new SessionStore();
  /** The current toolkit (a new one per agent process). */
  toolkit!: ClientToolkit;
  /** The current agent process. */
  agent: SpawnedAgent | undefined;
  /** The agent's `initialize` answer. */
  info: schema.InitializeResponse | undefined;
  /** The current session. */
  sessionId: string | undefined;
  /** Authentication methods, while `phase` is `auth-required`. */
  authMethods: readonly schema.AuthMethod[] = [];
  /**
   * True once an agent process got as far as a session (or a login request): a later end
   * is worth a restart; a first start that fails is not.
   */
  wasReady = false;
  /** How the agent ended (or why it could not start), once `phase` is `exited`. */
  exit: AgentEnd | undefined;
  private phaseValue: ControllerPhase = "starting";
  private readonly listeners = new Set<() => void>();
  private versionValue = 0;
  /** The start or restart under way, which a second call joins. */
  private launching: Promise<void> | undefined;

  /** @param options - See {@link ControllerOptions}. */
  constructor(private readonly options: ControllerOptions) {
    this.sessions.subscribe(() => this.emit());
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
  onChange = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** A number that changes on every change {@link AgentController.onChange} reports. */
  snapshot = (): number => this.versionValue;

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
      ...(target.env === undefined ? {} : { env: target.env }),
      cwd: this.options.cwd,
      client: this.options.wrapClient?.(base) ?? base,
      ...(this.options.onStderr === undefined ? {} : { onStderr: this.options.onStderr }),
      connection: this.options.logger === undefined ? {} : { logger: this.options.logger },
      ...(this.options.initializeTimeoutMs === undefined
        ? {}
        : { initializeTimeoutMs: this.options.initializeTimeoutMs }),
    });
    this.agent = agent;
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
    await this.openSession();
  }

  /** `session/new`; on `-32000` moves to `auth-required` with the agent's methods. */
  async openSession(): Promise<void> {
    const agent = this.requireAgent();
    try {
      const { sessionId } = await this.toolkit.newSession(agent.connection, {
        cwd: this.options.cwd,
        mcpServers: [],
      });
      this.sessionId = sessionId;
      this.setPhase("ready");
    } catch (error) {
      if (error instanceof RequestError && error.code === -32000) {
        this.authMethods = this.info?.authMethods ?? [];
        this.setPhase("auth-required");
        return;
      }
      throw error;
    }
  }

  /**
   * Authenticates with `method` and opens the session. A `terminal` method runs the
   * agent's own command with the method's arguments in the user's terminal (through
   * `runInteractive`), then restarts the agent, as the protocol prescribes.
   */
  async authenticate(method: schema.AuthMethod, runInteractive: InteractiveRunner): Promise<void> {
    const agent = this.requireAgent();
    if (isTerminalAuth(method)) {
      const { target } = this.options;
      const code = await runInteractive(target.command, [...target.args, ...(method.args ?? [])], {
        ...process.env,
        ...target.env,
        ...method.env,
      });
      if (code !== 0) {
        throw new Error(
          `The login command ended with ${code === null ? "a signal" : `code ${code}`}.`,
        );
      }
      await this.restart();
      return;
    }
    await agent.connection.authenticate({ methodId: method.id });
    await this.openSession();
  }

  /** Runs one prompt turn in the current session. */
  async prompt(prompt: readonly schema.ContentBlock[]): Promise<schema.PromptResponse> {
    const agent = this.requireAgent();
    const sessionId = this.requireSession();
    this.setPhase("prompting");
    try {
      return await this.toolkit.prompt(agent.connection, { sessionId, prompt: [...prompt] });
    } finally {
      if (this.phaseValue === "prompting") this.setPhase("ready");
    }
  }

  /** Cancels the running turn (pending permission requests are answered `cancelled`). */
  async cancel(): Promise<void> {
    if (this.agent === undefined || this.sessionId === undefined) return;
    await this.toolkit.cancel(this.agent.connection, this.sessionId);
  }

  /** `session/set_mode` in the current session. */
  async setMode(modeId: string): Promise<void> {
    await this.requireAgent().connection.setSessionMode({
      sessionId: this.requireSession(),
      modeId,
    });
    this.sessions.setup(this.requireSession(), {
      modes: { currentModeId: modeId, availableModes: [...(this.state?.availableModes ?? [])] },
    });
  }

  /** `session/set_config_option` in the current session (select or boolean). */
  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const sessionId = this.requireSession();
    const params: schema.SetSessionConfigOptionRequest =
      typeof value === "boolean"
        ? { sessionId, configId, type: "boolean", value }
        : { sessionId, configId, value };
    const { configOptions } = await this.requireAgent().connection.setSessionConfigOption(params);
    this.sessions.setup(sessionId, { configOptions });
  }

  /** The agent's sessions (first page), when it supports `session/list`. */
  async listSessions(): Promise<schema.SessionInfo[]> {
    if (this.info?.agentCapabilities?.sessionCapabilities?.list == null) {
      throw new Error("This agent does not list sessions.");
    }
    const { sessions } = await this.requireAgent().connection.listSessions({
      cwd: this.options.cwd,
    });
    return sessions;
  }

  /** Switches to another session: `session/load` (history replayed) or `session/resume`. */
  async switchSession(sessionId: string): Promise<"loaded" | "resumed"> {
    const agent = this.requireAgent();
    const params = { sessionId, cwd: this.options.cwd, mcpServers: [] };
    if (this.info?.agentCapabilities?.loadSession === true) {
      await this.toolkit.loadSession(agent.connection, params);
      this.sessionId = sessionId;
      this.emit();
      return "loaded";
    }
    if (this.info?.agentCapabilities?.sessionCapabilities?.resume != null) {
      await this.toolkit.resumeSession(agent.connection, params);
      this.sessionId = sessionId;
      this.emit();
      return "resumed";
    }
    throw new Error("This agent can neither load nor resume sessions.");
  }

  /**
   * Ends the current agent process (if any) and starts a new one. The phase is `starting`
   * from the call on; a call while a start or restart is under way joins it.
   */
  restart(): Promise<void> {
    if (this.launching !== undefined) return this.launching;
    const old = this.agent;
    this.agent = undefined;
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
    if (agent !== undefined) await agent.close();
    await this.toolkit.dispose();
  }

  private requireAgent(): SpawnedAgent {
    if (this.agent === undefined) throw new Error("The agent is not running.");
    return this.agent;
  }

  private requireSession(): string {
    if (this.sessionId === undefined) throw new Error("No session is open.");
    return this.sessionId;
  }

  private setPhase(phase: ControllerPhase): void {
    this.phaseValue = phase;
    if (phase === "ready" || phase === "auth-required") this.wasReady = true;
    this.emit();
  }

  private emit(): void {
    this.versionValue++;
    for (const listener of this.listeners) listener();
  }
}
