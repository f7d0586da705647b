/**
 * {@link createScriptedAgentV2}: the scripted agent as an ACP v2 agent: the same scenarios,
 * said in v2 through one {@link AgentSession} per session.
 *
 * @module
 */
import { sessionNotFound } from "../../agent/session-registry.js";
import { ErrorCodes } from "../../base/error-codes.js";
import { VERSION } from "../../base/version.js";
import { RequestError } from "../../jsonrpc/errors.js";
import type * as v1 from "../../schema/types.gen.js";
import type * as v2 from "../../schema/v2/types.gen.js";
import { envVarsOf } from "../../session/auth.js";
import type { Agent, RequestContext } from "../../v2/agent.js";
import { AgentSession, type Turn } from "../../v2/agent-session.js";
import type { AgentSideConnection } from "../../v2/agent-side-connection.js";
import { chooseTurn, promptText } from "../scenario/match.js";
import { renderDeep } from "../scenario/placeholders.js";
import type { Scenario } from "../scenario/types.js";
import type { ScriptedAgentOptions } from "./options.js";
import { DEFAULT_SCRIPTED_CAPABILITIES } from "./handlers.js";
import { checkPrompt, setConfigOption } from "./prompt.js";
import { ScriptedSessionStore, type ScriptedSession } from "./sessions.js";
import {
  MODE_CONFIG_ID,
  noV2Equivalent,
  v2AuthMethods,
  v2Commands,
  v2PlainUpdate,
  v2SessionOptions,
  v2ToolFields,
} from "./v2-convert.js";
import { V2StepRunner, type V2ScriptedSession } from "./v2-steps.js";

function isTerminalAuth(method: v1.AuthMethod): boolean {
  return (method as { type?: unknown }).type === "terminal";
}

/** The v2 `capabilities` for a scenario's v1 `agentCapabilities`. */
function v2Capabilities(caps: v1.AgentCapabilities): v2.AgentCapabilities {
  const prompt = caps.promptCapabilities ?? {};
  const mcp = caps.mcpCapabilities ?? {};
  const sessionCaps = caps.sessionCapabilities ?? {};
  const session: v2.SessionCapabilities = {
    prompt: {
      ...(prompt.image === true ? { image: {} } : {}),
      ...(prompt.audio === true ? { audio: {} } : {}),
      ...(prompt.embeddedContext === true ? { embeddedContext: {} } : {}),
    },
    mcp: {
      stdio: {},
      ...(mcp.http === true ? { http: {} } : {}),
    },
  };
  if (sessionCaps.delete !== undefined && sessionCaps.delete !== null) session.delete = {};
  if (sessionCaps.additionalDirectories !== undefined && sessionCaps.additionalDirectories !== null)
    session.additionalDirectories = {};
  return { session };
}

/** The scripted agent's v2 state and request handlers for one connection. @internal */
class ScriptedHandlersV2 {
  readonly capabilities: v1.AgentCapabilities;
  private readonly setup: NonNullable<Scenario["agent"]>;
  private readonly store: ScriptedSessionStore;
  private readonly attached = new Map<string, V2ScriptedSession>();
  private readonly environment: Readonly<Record<string, string | undefined>>;
  private client: v2.ClientCapabilities = {};
  private authenticated = false;

  constructor(
    private readonly connection: AgentSideConnection,
    private readonly scenario: Scenario,
    private readonly options: ScriptedAgentOptions,
  ) {
    this.environment = options.env ?? {};
    this.setup = scenario.agent ?? {};
    this.capabilities = this.setup.capabilities ?? DEFAULT_SCRIPTED_CAPABILITIES;
    this.store = new ScriptedSessionStore(scenario);
  }

  initialize(params: v2.InitializeRequest): v2.InitializeResponse {
    this.client = params.capabilities ?? {};
    const terminalAuth =
      this.client.auth?.terminal !== undefined && this.client.auth.terminal !== null;
    const methods = (this.setup.authMethods ?? []).filter(
      (m) => terminalAuth || !isTerminalAuth(m),
    );
    const info = this.setup.info ?? {
      name: "acp-scripted-agent",
      title: this.scenario.name ?? "Scripted agent",
      version: VERSION,
    };
    return {
      protocolVersion: 2,
      info: structuredClone<v2.Implementation>(info),
      capabilities: v2Capabilities(this.capabilities),
      ...(methods.length > 0 ? { authMethods: v2AuthMethods(methods) } : {}),
    };
  }

  login(params: v2.LoginAuthRequest): v2.LoginAuthResponse {
    const method = this.setup.authMethods?.find((candidate) => candidate.id === params.methodId);
    if (method === undefined || isTerminalAuth(method)) {
      throw RequestError.invalidParams(
        { methodId: params.methodId },
        "unknown authentication method",
      );
    }
    const missing = (envVarsOf(method) ?? [])
      .filter((v) => !v.optional && (this.environment[v.name] ?? "") === "")
      .map((v) => v.name);
    if (missing.length > 0) throw RequestError.internalError(`${missing.join(", ")} is not set`);
    this.authenticated = true;
    return {};
  }

  logout(): v2.LogoutAuthResponse {
    this.authenticated = false;
    return {};
  }

  newSession(params: v2.NewSessionRequest): v2.NewSessionResponse {
    this.gate();
    const session = this.store.create(params.cwd);
    const result = { sessionId: session.sessionId, ...this.activate(session, params.cwd) };
    this.tell();
    return result;
  }

  listSessions(params: v2.ListSessionsRequest): v2.ListSessionsResponse {
    this.gate();
    return this.store.list(params, this.setup.listPageSize ?? 50);
  }

  async resumeSession(params: v2.ResumeSessionRequest): Promise<v2.ResumeSessionResponse> {
    this.gate();
    const session = this.store.get(params.sessionId);
    const replay = params.replayFrom;
    if (replay !== undefined && replay !== null && replay.type !== "start") {
      throw RequestError.invalidParams(
        { replayFrom: replay },
        "the scripted agent replays from the start only",
      );
    }
    const known = this.attached.get(session.sessionId);
    const result = this.activate(session, params.cwd);
    const state = this.active(session.sessionId);
    // What the scenario declares happened before this run, then what happened since.
    if (replay?.type === "start") await this.replayDeclared(state);
    await state.agent.resume(params);
    if (known === undefined) await session.ready;
    return result;
  }

  async closeSession(params: v2.CloseSessionRequest): Promise<v2.CloseSessionResponse> {
    const state = this.attached.get(params.sessionId);
    if (state === undefined || state.agent.closed) throw sessionNotFound(params.sessionId);
    await state.agent.close();
    return {};
  }

  async deleteSession(params: v2.DeleteSessionRequest): Promise<v2.DeleteSessionResponse> {
    this.store.get(params.sessionId); // -32002 for an unknown session
    const state = this.attached.get(params.sessionId);
    if (state !== undefined) await state.agent.close();
    this.attached.delete(params.sessionId);
    this.store.delete(params.sessionId);
    this.tell();
    return {};
  }

  async setSessionConfigOption(
    params: v2.SetSessionConfigOptionRequest,
  ): Promise<v2.SetSessionConfigOptionResponse> {
    const state = this.active(params.sessionId);
    await state.scripted.ready;
    const session = state.scripted;
    const value: unknown = params.value;
    const ownMode = (session.configOptions ?? []).some((option) => option.category === "mode");
    if (params.configId === MODE_CONFIG_ID && session.modes !== undefined && !ownMode) {
      const modes = session.modes;
      if (typeof value !== "string" || !modes.availableModes.some((mode) => mode.id === value)) {
        throw RequestError.invalidParams({ configId: params.configId, value }, "unknown mode");
      }
      modes.currentModeId = value;
    } else {
      setConfigOption(session, {
        sessionId: params.sessionId,
        configId: params.configId,
        value,
      } as v1.SetSessionConfigOptionRequest);
    }
    const configOptions = v2SessionOptions(session.configOptions, session.modes) ?? [];
    await state.agent.update({ sessionUpdate: "config_option_update", configOptions });
    return { configOptions };
  }

  prompt(params: v2.PromptRequest, context?: RequestContext): Promise<v2.PromptResponse> {
    // Errors before the message is inserted are errors of the request, as v2 says.
    if (this.setup.requiresAuth === "prompt" && !this.authenticated) {
      throw RequestError.authRequired({ details: "not logged in" });
    }
    const state = this.active(params.sessionId);
    checkPrompt(params as unknown as v1.PromptRequest, this.capabilities.promptCapabilities);
    const prompt = params.prompt as v1.ContentBlock[];
    const session = state.scripted;
    const chosen = chooseTurn(this.scenario.turns, prompt, session.orderedTurns);
    if (chosen === undefined) {
      throw new RequestError(ErrorCodes.INTERNAL_ERROR, "No scenario turn answers this prompt", {
        prompt: promptText(prompt),
      });
    }
    // A turn that starts by failing with -32000 refuses the prompt for a login: v2 says
    // that before the message is inserted, as an error of session/prompt.
    const first = chosen.turn.steps[0] as { fail?: { code: number } } | undefined;
    if (first?.fail?.code === ErrorCodes.AUTH_REQUIRED && !state.agent.busy) {
      if (chosen.ordered) session.orderedTurns += 1;
      session.turns += 1;
      const values = new Map(chosen.values)
        .set("turn", String(session.turns))
        .set("cwd", session.cwd)
        .set("sessionId", session.sessionId);
      const { code, message, data } = first.fail as {
        code: number;
        message: string;
        data?: unknown;
      };
      const render = (value: unknown): unknown => renderDeep(value, (name) => values.get(name));
      throw new RequestError(code, render(message) as string, render(data));
    }
    return state.agent.prompt(params, (turn) => this.runTurn(state, turn), context?.signal);
  }

  cancel(params: v2.CancelSessionNotification): void {
    this.attached.get(params.sessionId)?.agent.cancel();
  }

  cancelToolCall(params: v2.CancelToolCallRequest): Promise<v2.CancelToolCallResponse> {
    return this.active(params.sessionId).agent.cancelToolCall(params);
  }

  cancelTerminal(params: v2.CancelTerminalRequest): Promise<v2.CancelTerminalResponse> {
    return this.active(params.sessionId).agent.cancelTerminal(params);
  }

  private async runTurn(state: V2ScriptedSession, turn: Turn) {
    const session = state.scripted;
    try {
      await session.ready;
      const prompt = turn.prompt as v1.ContentBlock[];
      const chosen = chooseTurn(this.scenario.turns, prompt, session.orderedTurns);
      if (chosen === undefined) {
        throw new RequestError(ErrorCodes.INTERNAL_ERROR, "No scenario turn answers this prompt");
      }
      if (chosen.ordered) session.orderedTurns += 1;
      session.turns += 1;
      const values = new Map(chosen.values).set("turn", String(session.turns));
      const env = {
        delayScale: this.options.delayScale ?? 1,
        runCommand: this.options.runCommand,
        fileSystem: this.options.fileSystem,
      };
      const flow = await new V2StepRunner(turn, state, env, values).run(chosen.turn.steps);
      // v2's own stop reasons; `cancelled` (a `stop` step) is said as is.
      return (flow?.stop ?? "end_turn") as "end_turn";
    } finally {
      this.tell();
    }
  }

  private gate(): void {
    if (this.setup.requiresAuth === true && !this.authenticated) throw RequestError.authRequired();
  }

  private tell(): void {
    this.options.onSessionsChange?.(this.store.snapshot());
  }

  /** Attaches the session (once); returns its setup state. Its slash commands follow the answer. */
  private activate(session: ScriptedSession, cwd: string): v2.ResumeSessionResponse {
    session.cwd = cwd;
    let state = this.attached.get(session.sessionId);
    if (state === undefined) {
      let ids = 0;
      state = {
        scripted: session,
        agent: new AgentSession(this.connection, session.sessionId, {
          newId: () => `msg_${++ids}`,
        }),
        tools: new Map(),
        terminalCount: 0,
      };
      this.attached.set(session.sessionId, state);
      session.ready = advertiseCommands(state);
    }
    const result: v2.ResumeSessionResponse = {};
    const configOptions = v2SessionOptions(session.configOptions, session.modes);
    if (configOptions !== undefined) result.configOptions = configOptions;
    if (session.commands !== undefined) result.availableCommands = v2Commands(session.commands);
    return result;
  }

  /** An attached session (`-32002` otherwise). */
  private active(sessionId: string): V2ScriptedSession {
    const state = this.attached.get(sessionId);
    if (state === undefined) throw sessionNotFound(sessionId);
    return state;
  }

  /**
   * Sends a declared session's history (v1 updates) as v2: text chunks of one kind in a
   * row form one message, tool calls become `tool_call_update`s, plans `plan_update`s.
   * An update v2 cannot say fails the resume.
   */
  private async replayDeclared(state: V2ScriptedSession): Promise<void> {
    const sessionId = state.scripted.sessionId;
    let current: { kind: string; id: string } | undefined;
    let count = 0;
    for (const update of state.scripted.history) {
      const json = update as Record<string, unknown>;
      const kind = update.sessionUpdate as string;
      let out: v2.SessionUpdate;
      if (kind.endsWith("_chunk") && kind !== "compaction_summary_chunk") {
        const base = kind.slice(0, -"_chunk".length);
        if (typeof json.messageId === "string") current = { kind: base, id: json.messageId };
        else if (current?.kind !== base) current = { kind: base, id: `history_${++count}` };
        out = { ...json, messageId: current.id } as v2.SessionUpdate;
      } else if (kind === "tool_call" || kind === "tool_call_update") {
        current = undefined;
        const { sessionUpdate: _kind, ...fields } = json;
        out = {
          sessionUpdate: "tool_call_update",
          ...v2ToolFields(fields, state.scripted.cwd),
        } as v2.SessionUpdate;
      } else if (kind === "current_mode_update") {
        throw noV2Equivalent('a "current_mode_update" in a declared session\'s history');
      } else out = v2PlainUpdate(update);
      await this.connection.sessionUpdate({ sessionId, update: out });
    }
  }
}

/** Sends the session's slash commands once the answer that set it up has gone out. */
async function advertiseCommands(state: V2ScriptedSession): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  const commands = state.scripted.commands;
  if (commands === undefined) return;
  await state.agent
    .update({ sessionUpdate: "available_commands_update", availableCommands: v2Commands(commands) })
    .catch(() => undefined);
}

/**
 * The scripted agent as an ACP v2 agent, for a v2 `AgentSideConnection` (from
 * `acp-kit/v2`) you build yourself or a `protocolRouter`'s `v2` factory. The scenario is
 * said in v2 as docs/scripted-agent.md ("ACP v2") describes: every session is an
 * `AgentSession` (prompt echo, `state_update`s, held prompts, resume with replay); v1
 * modes are a config option of category `mode`; `terminal` steps run their command
 * through `runCommand` and show it as the agent's own terminal; `readFile` and
 * `writeFile` go to `fileSystem`. What v2 cannot say fails with an error naming it.
 *
 * @param connection - The v2 connection.
 * @param scenario - A valid scenario (see `validateScenario`).
 * @param options - Delays, environment, command runner, files.
 */
export function createScriptedAgentV2(
  connection: AgentSideConnection,
  scenario: Scenario,
  options: ScriptedAgentOptions = {},
): Agent {
  const handlers = new ScriptedHandlersV2(connection, scenario, options);
  const agent: Agent = {
    initialize: (params) => handlers.initialize(params),
    newSession: (params) => handlers.newSession(params),
    listSessions: (params) => handlers.listSessions(params),
    resumeSession: (params) => handlers.resumeSession(params),
    closeSession: (params) => handlers.closeSession(params),
    prompt: (params, context) => handlers.prompt(params, context),
    cancel: (params) => handlers.cancel(params),
    cancelToolCall: (params) => handlers.cancelToolCall(params),
    cancelTerminal: (params) => handlers.cancelTerminal(params),
    setSessionConfigOption: (params) => handlers.setSessionConfigOption(params),
  };
  if ((scenario.agent?.authMethods ?? []).length > 0) {
    agent.login = (params) => handlers.login(params);
    agent.logout = () => handlers.logout();
  }
  const caps = handlers.capabilities.sessionCapabilities ?? {};
  if (caps.delete !== undefined && caps.delete !== null) {
    agent.deleteSession = (params) => handlers.deleteSession(params);
  }
  return agent;
}
