/**
 * {@link ScriptedHandlers}: what the scripted agent answers to each request of the
 * client, as the scenario says.
 *
 * @module
 */
import { AgentKit } from "../../agent/agent-kit.js";
import { sessionNotFound } from "../../agent/session-registry.js";
import { RequestError } from "../../jsonrpc/errors.js";
import { envVarsOf } from "../../session/auth.js";
import type { Logger } from "../../base/logger.js";
import type { RequestContext } from "../../peer/agent.js";
import type { AgentSideConnection } from "../../peer/agent-side-connection.js";
import type * as schema from "../../schema/types.gen.js";
import { VERSION } from "../../base/version.js";
import type { Scenario, ScenarioSession } from "../scenario/types.js";
import { checkPrompt, runPromptTurn, setConfigOption } from "./prompt.js";
import type { TurnEnvironment } from "./runner.js";
import { ScriptedSessionStore, visibleConfigOptions, type ScriptedSession } from "./sessions.js";

/** The capabilities a scenario advertises when it says nothing. */
export const DEFAULT_SCRIPTED_CAPABILITIES: schema.AgentCapabilities = {
  loadSession: true,
  promptCapabilities: { embeddedContext: true },
  sessionCapabilities: { list: {}, resume: {}, close: {} },
};

/** The scripted agent's state and request handlers for one connection. @internal */
export class ScriptedHandlers {
  readonly capabilities: schema.AgentCapabilities;
  private readonly setup: NonNullable<Scenario["agent"]>;
  private readonly store: ScriptedSessionStore;
  private readonly kit: AgentKit<ScriptedSession>;
  private readonly env: TurnEnvironment;
  /** The agent's environment variables (what `env_var` logins look for). */
  private readonly environment: Readonly<Record<string, string | undefined>>;
  private client: schema.ClientCapabilities = {};
  private authenticated = false;
  private readonly onSessionsChange: ((sessions: ScenarioSession[]) => void) | undefined;
  private readonly printLine: ((line: string) => void) | undefined;
  /** How many answers with id `null` (parse errors) the client sent so far. */
  private readonly nullIdAnswers: () => number;

  constructor(
    private readonly connection: AgentSideConnection,
    private readonly scenario: Scenario,
    options: {
      readonly delayScale?: number;
      readonly logger?: Logger;
      readonly env?: Readonly<Record<string, string | undefined>>;
      readonly onSessionsChange?: (sessions: ScenarioSession[]) => void;
      readonly printLine?: (line: string) => void;
      readonly nullIdAnswers?: () => number;
    },
  ) {
    this.printLine = options.printLine;
    this.nullIdAnswers = options.nullIdAnswers ?? (() => 0);
    this.environment = options.env ?? {};
    this.onSessionsChange = options.onSessionsChange;
    this.setup = scenario.agent ?? {};
    this.capabilities = this.setup.capabilities ?? DEFAULT_SCRIPTED_CAPABILITIES;
    this.store = new ScriptedSessionStore(scenario);
    this.kit = new AgentKit<ScriptedSession>(
      recordingConnection(connection, this.store),
      options.logger === undefined ? {} : { logger: options.logger },
    );
    this.env = { clientCapabilities: () => this.client, delayScale: options.delayScale ?? 1 };
  }

  initialize(params: schema.InitializeRequest): schema.InitializeResponse {
    this.client = params.clientCapabilities ?? {};
    const versions = this.setup.protocolVersions ?? [1];
    const terminalAuth = this.client.auth?.terminal === true;
    const methods = this.setup.authMethods ?? [];
    return {
      protocolVersion: versions.includes(params.protocolVersion)
        ? params.protocolVersion
        : Math.max(...versions),
      agentCapabilities: structuredClone(this.capabilities),
      authMethods: structuredClone(methods.filter((m) => terminalAuth || !isTerminalAuth(m))),
      agentInfo: structuredClone(
        this.setup.info ?? {
          name: "acp-scripted-agent",
          title: this.scenario.name ?? "Scripted agent",
          version: VERSION,
        },
      ),
    };
  }

  async authenticate(params: schema.AuthenticateRequest): Promise<void> {
    const method = this.setup.authMethods?.find((candidate) => candidate.id === params.methodId);
    if (method === undefined || isTerminalAuth(method)) {
      throw RequestError.invalidParams(
        { methodId: params.methodId },
        "unknown authentication method",
      );
    }
    // An env_var method logs in only when the agent was started with its variables (as
    // Codex answers "CODEX_API_KEY is not set").
    const missing = (envVarsOf(method) ?? [])
      .filter((v) => !v.optional && (this.environment[v.name] ?? "") === "")
      .map((v) => v.name);
    if (missing.length > 0) {
      throw RequestError.internalError(`${missing.join(", ")} is not set`);
    }
    const lines = this.setup.loginOutput?.[method.id];
    const print = this.printLine;
    if (lines !== undefined && print !== undefined) {
      const before = this.nullIdAnswers();
      for (const line of lines) print(line);
      // The client writes in order: an answer to those lines arrives before its answer to
      // this request (any answer will do; an unknown method is answered -32601).
      await this.connection.extMethod("_scripted/login_wait", {}).catch(() => undefined);
      if (this.nullIdAnswers() > before) {
        // What Gemini CLI does with the answer it read as the authorization code.
        throw RequestError.internalError("invalid authorization code");
      }
    }
    this.authenticated = true;
  }

  logout(): void {
    this.authenticated = false;
  }

  newSession(params: schema.NewSessionRequest): schema.NewSessionResponse {
    this.gate();
    const session = this.store.create(params.cwd);
    const result = { sessionId: session.sessionId, ...this.activate(session, params.cwd) };
    this.onSessionsChange?.(this.store.snapshot());
    return result;
  }

  async loadSession(params: schema.LoadSessionRequest): Promise<schema.LoadSessionResponse> {
    this.gate();
    const session = this.store.get(params.sessionId);
    // The whole history goes out before the answer, as the protocol requires.
    for (const update of session.history) {
      await this.connection.sessionUpdate({ sessionId: session.sessionId, update });
    }
    return this.activate(session, params.cwd);
  }

  resumeSession(params: schema.ResumeSessionRequest): schema.ResumeSessionResponse {
    this.gate();
    return this.activate(this.store.get(params.sessionId), params.cwd);
  }

  listSessions(params: schema.ListSessionsRequest): schema.ListSessionsResponse {
    this.gate();
    return this.store.list(params, this.setup.listPageSize ?? 50);
  }

  async closeSession(params: schema.CloseSessionRequest): Promise<void> {
    if (!this.store.has(params.sessionId)) throw sessionNotFound(params.sessionId);
    await this.kit.closeSession(params.sessionId);
  }

  async deleteSession(params: schema.DeleteSessionRequest): Promise<void> {
    await this.kit.closeSession(params.sessionId);
    this.store.delete(params.sessionId);
  }

  async setSessionMode(params: schema.SetSessionModeRequest): Promise<void> {
    const session = await this.active(params.sessionId);
    const modes = session.modes;
    if (!modes?.availableModes.some((mode) => mode.id === params.modeId)) {
      throw RequestError.invalidParams({ modeId: params.modeId }, "unknown mode");
    }
    modes.currentModeId = params.modeId;
    await this.connection.sessionUpdate({
      sessionId: session.sessionId,
      update: { sessionUpdate: "current_mode_update", currentModeId: params.modeId },
    });
  }

  async setSessionConfigOption(
    params: schema.SetSessionConfigOptionRequest,
  ): Promise<schema.SetSessionConfigOptionResponse> {
    const session = await this.active(params.sessionId);
    const configOptions = visibleConfigOptions(setConfigOption(session, params), this.client);
    await this.connection.sessionUpdate({
      sessionId: session.sessionId,
      update: { sessionUpdate: "config_option_update", configOptions },
    });
    return { configOptions };
  }

  prompt(params: schema.PromptRequest, context?: RequestContext): Promise<schema.PromptResponse> {
    if (this.setup.requiresAuth === "prompt" && !this.authenticated) {
      throw RequestError.authRequired({ details: "not logged in" });
    }
    checkPrompt(params, this.capabilities.promptCapabilities);
    const turn = this.kit.prompt(params, context, (t) => runPromptTurn(t, this.scenario, this.env));
    if (this.onSessionsChange === undefined) return turn;
    const tell = (): void => this.onSessionsChange?.(this.store.snapshot());
    return turn.finally(tell);
  }

  cancel(params: schema.CancelNotification): void {
    this.kit.cancel(params);
  }

  private gate(): void {
    if (this.setup.requiresAuth === true && !this.authenticated) {
      throw RequestError.authRequired();
    }
  }

  /** Makes the session usable; returns its setup state. Its slash commands follow the answer. */
  private activate(session: ScriptedSession, cwd: string): schema.LoadSessionResponse {
    session.cwd = cwd;
    this.kit.sessions.set(session.sessionId, session);
    session.ready = advertiseCommands(this.connection, session);
    const result: schema.LoadSessionResponse = {};
    if (session.modes !== undefined) result.modes = structuredClone(session.modes);
    if (session.configOptions !== undefined) {
      result.configOptions = visibleConfigOptions(session.configOptions, this.client);
    }
    return result;
  }

  /** An active session, once its setup updates are out. */
  private async active(sessionId: string): Promise<ScriptedSession> {
    const session = this.kit.sessions.get(sessionId);
    await session.ready;
    return session;
  }
}

function isTerminalAuth(method: schema.AuthMethod): boolean {
  return (method as { type?: unknown }).type === "terminal";
}

/** The connection the kit sends through: every turn update is also kept for `session/load`. */
function recordingConnection(connection: AgentSideConnection, store: ScriptedSessionStore) {
  return {
    get signal() {
      return connection.signal;
    },
    sessionUpdate: (params: schema.SessionNotification) => {
      if (store.has(params.sessionId)) store.get(params.sessionId).history.push(params.update);
      return connection.sessionUpdate(params);
    },
    requestPermission: connection.requestPermission.bind(connection),
    readTextFile: connection.readTextFile.bind(connection),
    writeTextFile: connection.writeTextFile.bind(connection),
    createTerminal: connection.createTerminal.bind(connection),
  };
}

/**
 * Sends the session's slash commands once the answer that set it up has gone out (a task
 * later: the answer is written a few microtasks after the handler returns).
 */
async function advertiseCommands(connection: AgentSideConnection, session: ScriptedSession) {
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (session.commands === undefined) return;
  await connection
    .sessionUpdate({
      sessionId: session.sessionId,
      update: { sessionUpdate: "available_commands_update", availableCommands: session.commands },
    })
    .catch(() => undefined);
}
