/**
 * The bridge's second direction: it serves a v2 client as a v2 agent and speaks v1 to
 * the agent behind it, following the mapping of docs/v2.md.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import { RequestError } from "../jsonrpc/errors.js";
import { isPlainObject } from "../base/messages.js";
import type { Client as V1Client } from "../peer/client.js";
import type { ClientSideConnection as V1ClientSideConnection } from "../peer/client-side-connection.js";
import type * as v1 from "../schema/types.gen.js";
import type * as v2 from "../schema/v2/types.gen.js";
import type { Agent, RequestContext } from "./agent.js";
import type { AgentSideConnection } from "./agent-side-connection.js";
import { unifiedDiff } from "./line-diff.js";
import type { LossyCounter } from "./lossy.js";

type Json = Record<string, unknown>;

interface Held {
  readonly request: v2.PromptRequest;
  readonly resolve: (response: v2.PromptResponse) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
}

interface SessionState {
  readonly sessionId: string;
  cwd: string | undefined;
  running: boolean;
  readonly held: Held[];
  /** Ids given to v1 chunks without one: the kind of the message being written, and its id. */
  current: { kind: string; id: string } | undefined;
  modes: v1.SessionModeState | undefined;
  permissions: number;
  /** A resume emulated by `session/load`: its replay is not for the client. */
  swallowReplay: boolean;
}

let bridges = 0;

/** v1 config options (`id`) as v2's (`configId`). */
function v2Options(options: readonly Json[]): Json[] {
  return options.map((option) => {
    const { id, ...rest } = option;
    return id === undefined ? option : { ...rest, configId: id };
  });
}

/** The synthesized option standing for v1 modes. */
const MODE_OPTION_ID = "mode";

/**
 * The agent a v2 client talks to: each call goes to the v1 agent, each v1 update comes
 * back as v2. Create one per connection.
 */
export class V2ViewOfV1Agent implements Agent {
  private readonly sessions = new Map<string, SessionState>();
  private readonly prefix = `b${(bridges++).toString(36)}`;
  private ids = 0;

  /**
   * @param upstream - The v2 connection to the client.
   * @param downstream - The v1 connection to the agent (already initialized).
   * @param agentInit - The v1 agent's `initialize` answer.
   * @param lossy - Where lossy steps are counted.
   */
  constructor(
    private readonly upstream: AgentSideConnection,
    private readonly downstream: V1ClientSideConnection,
    private readonly agentInit: v1.InitializeResponse,
    private readonly lossy: LossyCounter,
  ) {}

  /** The v1 client the downstream connection is created with. */
  static client(view: () => V2ViewOfV1Agent): V1Client {
    return {
      sessionUpdate: (params) => view().onUpdate(params),
      requestPermission: (params, context) => view().onPermission(params, context),
      createElicitation: (params, context) =>
        view().upstream.createElicitation(
          params as unknown as v2.CreateElicitationRequest,
          context === undefined ? undefined : { signal: context.signal },
        ) as unknown as Promise<v1.CreateElicitationResponse>,
      completeElicitation: (params) => view().upstream.completeElicitation(params),
      extMethod: (method, params, context) =>
        view().upstream.request(
          method,
          params,
          context === undefined ? undefined : { signal: context.signal },
        ) as Promise<Json>,
      extNotification: (method, params) => view().upstream.notify(method, params),
    };
  }

  // ---- v2 requests, answered through the v1 agent ----

  /** The v1 agent's `initialize` answer, as v2 says it. */
  initialize(): v2.InitializeResponse {
    const answer = this.agentInit;
    const caps = answer.agentCapabilities ?? {};
    const prompt = caps.promptCapabilities ?? {};
    const mcp = caps.mcpCapabilities ?? {};
    const sessionCaps = caps.sessionCapabilities ?? {};
    const session: Json = {
      prompt: {
        ...(prompt.image === true ? { image: {} } : {}),
        ...(prompt.audio === true ? { audio: {} } : {}),
        ...(prompt.embeddedContext === true ? { embeddedContext: {} } : {}),
      },
      mcp: {
        stdio: {},
        ...(mcp.http === true ? { http: {} } : {}),
        ...(mcp.acp === true ? { acp: {} } : {}),
      },
    };
    if (sessionCaps.delete !== undefined && sessionCaps.delete !== null) session.delete = {};
    if (
      sessionCaps.additionalDirectories !== undefined &&
      sessionCaps.additionalDirectories !== null
    )
      session.additionalDirectories = {};
    if (mcp.sse === true) this.lossy.count("mcp_sse_not_in_v2");
    const authMethods = (answer.authMethods ?? []).map((method) => {
      const { id, type, ...rest } = method as Json;
      return { ...rest, type: type ?? "agent", methodId: id } as v2.AuthMethod;
    });
    return {
      protocolVersion: 2,
      info: answer.agentInfo ?? { name: "unknown", version: "unknown" },
      capabilities: { session },
      ...(authMethods.length > 0 ? { authMethods } : {}),
      ...(answer._meta === undefined ? {} : { _meta: answer._meta }),
    };
  }

  async login(
    params: v2.LoginAuthRequest,
    context?: RequestContext,
  ): Promise<v2.LoginAuthResponse> {
    return await this.downstream.authenticate(params, this.options(context));
  }

  async logout(
    params: v2.LogoutAuthRequest,
    context?: RequestContext,
  ): Promise<v2.LogoutAuthResponse> {
    const auth = this.agentInit.agentCapabilities?.auth as Json | undefined;
    if (auth?.logout === undefined || auth.logout === null)
      throw new RequestError(-32601, "Method not found", { reason: "the v1 agent has no logout" });
    return await this.downstream.logout(params, this.options(context));
  }

  async newSession(
    params: v2.NewSessionRequest,
    context?: RequestContext,
  ): Promise<v2.NewSessionResponse> {
    const response = await this.downstream.newSession(
      { ...params, mcpServers: this.mcpServers(params.mcpServers) } as v1.NewSessionRequest,
      this.options(context),
    );
    const state = this.state(response.sessionId);
    state.cwd = params.cwd;
    state.modes = response.modes ?? undefined;
    const { modes: _modes, ...rest } = response;
    return {
      ...rest,
      ...this.configWithModes(state, response.configOptions),
    } as v2.NewSessionResponse;
  }

  async listSessions(
    params: v2.ListSessionsRequest,
    context?: RequestContext,
  ): Promise<v2.ListSessionsResponse> {
    if (this.agentInit.agentCapabilities?.sessionCapabilities?.list != null)
      return await this.downstream.listSessions(params, this.options(context));
    // Only the sessions made on this connection: the v1 agent cannot list its own.
    this.lossy.count("session_list_partial");
    return {
      sessions: [...this.sessions.values()].flatMap((s) =>
        s.cwd === undefined ? [] : [{ sessionId: s.sessionId, cwd: s.cwd }],
      ),
    };
  }

  async resumeSession(
    params: v2.ResumeSessionRequest,
    context?: RequestContext,
  ): Promise<v2.ResumeSessionResponse> {
    const caps = this.agentInit.agentCapabilities;
    const replay = params.replayFrom?.type === "start";
    const { replayFrom: _replay, ...rest } = params;
    const request = { ...rest, mcpServers: this.mcpServers(params.mcpServers) };
    let response: Json;
    const known = this.sessions.get(params.sessionId);
    if (replay) {
      if (caps?.loadSession !== true)
        throw RequestError.invalidParams({ reason: "replay unsupported by v1 agent" });
      const state = this.state(params.sessionId);
      state.current = undefined;
      response = await this.downstream.loadSession(
        request as v1.LoadSessionRequest,
        this.options(context),
      );
    } else if (caps?.sessionCapabilities?.resume != null) {
      response = await this.downstream.resumeSession(
        request as v1.ResumeSessionRequest,
        this.options(context),
      );
    } else if (known?.cwd !== undefined) {
      response = {};
    } else if (caps?.loadSession === true) {
      const state = this.state(params.sessionId);
      state.swallowReplay = true;
      try {
        response = await this.downstream.loadSession(
          request as v1.LoadSessionRequest,
          this.options(context),
        );
      } finally {
        state.swallowReplay = false;
      }
    } else {
      throw new RequestError(-32002, "Resource not found", { sessionId: params.sessionId });
    }
    const state = this.state(params.sessionId);
    state.cwd = params.cwd;
    if (isPlainObject(response.modes)) state.modes = response.modes as v1.SessionModeState;
    await this.sendState(state, state.running ? "running" : "idle");
    const { modes: _modes, ...answer } = response;
    return {
      ...answer,
      ...this.configWithModes(state, answer.configOptions as Json[] | undefined),
    } as v2.ResumeSessionResponse;
  }

  async closeSession(
    params: v2.CloseSessionRequest,
    context?: RequestContext,
  ): Promise<v2.CloseSessionResponse> {
    const state = this.sessions.get(params.sessionId);
    if (this.agentInit.agentCapabilities?.sessionCapabilities?.close != null) {
      await this.downstream.closeSession(params, this.options(context));
    } else {
      if (state === undefined)
        throw new RequestError(-32002, "Resource not found", { sessionId: params.sessionId });
      if (state.running) await this.downstream.cancel({ sessionId: params.sessionId });
    }
    if (state !== undefined) {
      for (const held of state.held.splice(0)) held.reject(RequestError.requestCancelled());
      this.sessions.delete(params.sessionId);
    }
    return {};
  }

  async deleteSession(
    params: v2.DeleteSessionRequest,
    context?: RequestContext,
  ): Promise<v2.DeleteSessionResponse> {
    if (this.agentInit.agentCapabilities?.sessionCapabilities?.delete == null)
      throw new RequestError(-32601, "Method not found", {
        reason: "the v1 agent cannot delete sessions",
      });
    await this.downstream.deleteSession(params, this.options(context));
    this.sessions.delete(params.sessionId);
    return {};
  }

  async setSessionConfigOption(
    params: v2.SetSessionConfigOptionRequest,
    context?: RequestContext,
  ): Promise<v2.SetSessionConfigOptionResponse> {
    const state = this.state(params.sessionId);
    if (
      params.configId === MODE_OPTION_ID &&
      state.modes !== undefined &&
      typeof params.value === "string"
    ) {
      await this.downstream.setSessionMode(
        { sessionId: params.sessionId, modeId: params.value },
        this.options(context),
      );
      state.modes = { ...state.modes, currentModeId: params.value };
      return {
        configOptions: this.configWithModes(state, undefined).configOptions ?? [],
      } as v2.SetSessionConfigOptionResponse;
    }
    const { type, ...rest } = params as Json;
    const request = type === "id" ? rest : params;
    const response = await this.downstream.setSessionConfigOption(
      request as v1.SetSessionConfigOptionRequest,
      this.options(context),
    );
    return {
      ...response,
      ...this.configWithModes(state, response.configOptions),
    } as v2.SetSessionConfigOptionResponse;
  }

  prompt(params: v2.PromptRequest, context?: RequestContext): Promise<v2.PromptResponse> {
    const state = this.state(params.sessionId);
    if (!state.running) return Promise.resolve(this.start(state, params));
    return new Promise((resolve, reject) => {
      const held: Held = { request: params, resolve, reject, signal: context?.signal };
      state.held.push(held);
      context?.signal.addEventListener(
        "abort",
        () => {
          const at = state.held.indexOf(held);
          if (at >= 0) {
            state.held.splice(at, 1);
            reject(RequestError.requestCancelled());
          }
        },
        { once: true },
      );
    });
  }

  async cancel(params: v2.CancelSessionNotification): Promise<void> {
    const state = this.sessions.get(params.sessionId);
    for (const held of state?.held.splice(0) ?? []) held.reject(RequestError.requestCancelled());
    await this.downstream.cancel(params);
  }

  extMethod(method: string, params: Json, context?: RequestContext): Promise<Json> {
    return this.downstream.request<Json>(method, params, this.options(context));
  }

  extNotification(method: string, params: Json): Promise<void> {
    return this.downstream.extNotification(method, params);
  }

  // ---- the v1 agent's traffic, shown to the v2 client ----

  private start(state: SessionState, request: v2.PromptRequest): v2.PromptResponse {
    const messageId = `${this.prefix}-user-${(this.ids++).toString(36)}`;
    state.running = true;
    state.current = undefined;
    void this.send(state.sessionId, {
      sessionUpdate: "user_message",
      messageId,
      content: request.prompt,
    });
    void this.sendState(state, "running");
    this.downstream.prompt(request as v1.PromptRequest).then(
      (response) => {
        const idle: Json = { stopReason: response.stopReason };
        if (response.usage !== undefined && response.usage !== null) idle.usage = response.usage;
        void this.finish(state, idle);
      },
      (error: unknown) => {
        const e =
          error instanceof RequestError
            ? error
            : RequestError.internalError(
                undefined,
                error instanceof Error ? error.message : String(error),
              );
        void this.finish(state, {
          stopReason: "error",
          error: {
            code: e.code,
            message: e.message,
            ...(e.data === undefined ? {} : { data: e.data }),
          },
        });
      },
    );
    return { messageId };
  }

  private async finish(state: SessionState, idle: Json): Promise<void> {
    state.running = false;
    await this.sendState(state, "idle", idle);
    const next = state.held.shift();
    if (next !== undefined) next.resolve(this.start(state, next.request));
  }

  private async onPermission(
    params: v1.RequestPermissionRequest,
    context: { signal: AbortSignal } | undefined,
  ): Promise<v1.RequestPermissionResponse> {
    const state = this.state(params.sessionId);
    const toolCall = {
      ...this.v2ToolFields(params.sessionId, params.toolCall),
      toolCallId: params.toolCall.toolCallId,
    };
    state.permissions++;
    if (state.permissions === 1 && state.running) await this.sendState(state, "requires_action");
    try {
      return (await this.upstream.requestPermission(
        {
          sessionId: params.sessionId,
          title:
            typeof params.toolCall.title === "string" && params.toolCall.title !== ""
              ? params.toolCall.title
              : "Permission requested",
          subject: { type: "tool_call", toolCall: toolCall },
          options: params.options,
          ...(params._meta === undefined ? {} : { _meta: params._meta }),
        },
        context === undefined ? undefined : { signal: context.signal },
      )) as unknown as v1.RequestPermissionResponse;
    } finally {
      state.permissions--;
      if (state.permissions === 0 && state.running) await this.sendState(state, "running");
    }
  }

  private async onUpdate(params: v1.SessionNotification): Promise<void> {
    const state = this.state(params.sessionId);
    if (state.swallowReplay) return;
    for (const update of this.map(state, params.update)) await this.send(params.sessionId, update);
  }

  private map(state: SessionState, update: Json): Json[] {
    const kind = update.sessionUpdate;
    switch (kind) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const base = (kind as string).slice(0, -"_chunk".length);
        let messageId = typeof update.messageId === "string" ? update.messageId : undefined;
        if (messageId === undefined) {
          if (state.current?.kind !== base)
            state.current = {
              kind: base,
              id: `${this.prefix}-${base}-${(this.ids++).toString(36)}`,
            };
          messageId = state.current.id;
        } else state.current = { kind: base, id: messageId };
        return [{ ...update, messageId }];
      }
      case "tool_call": {
        state.current = undefined;
        const { sessionUpdate: _kind, ...fields } = update;
        return [
          {
            sessionUpdate: "tool_call_update",
            ...this.v2ToolFields(state.sessionId, fields),
          },
        ];
      }
      case "tool_call_update": {
        state.current = undefined;
        const { sessionUpdate: _kind, ...fields } = update;
        return [
          {
            sessionUpdate: "tool_call_update",
            ...this.v2ToolFields(state.sessionId, fields),
          },
        ];
      }
      case "plan":
        state.current = undefined;
        return [
          {
            sessionUpdate: "plan_update",
            plan: { type: "items", planId: `${state.sessionId}/plan`, entries: update.entries },
            ...(update._meta === undefined ? {} : { _meta: update._meta }),
          },
        ];
      case "current_mode_update":
        if (state.modes === undefined) {
          this.lossy.count("mode_without_modes", state.sessionId);
          return [];
        }
        state.modes = { ...state.modes, currentModeId: update.currentModeId as string };
        return [
          {
            sessionUpdate: "config_option_update",
            configOptions: this.configWithModes(state, undefined).configOptions ?? [],
          },
        ];
      case "config_option_update":
        return [{ ...update, ...this.configWithModes(state, update.configOptions as Json[]) }];
      case "available_commands_update":
        return [
          {
            ...update,
            availableCommands: (Array.isArray(update.availableCommands)
              ? (update.availableCommands as Json[])
              : []
            ).map((command) => {
              const { input, ...rest } = command;
              return isPlainObject(input)
                ? { type: "command", ...rest, input: { type: "text", ...input } }
                : { type: "command", ...rest };
            }),
          },
        ];
      case "session_info_update":
      case "usage_update":
      case "notice":
      case "compaction_update":
      case "compaction_summary_chunk":
        return [update];
      default:
        this.lossy.count("update_unknown_to_v2", state.sessionId, String(kind));
        return [];
    }
  }

  /** v1 tool call fields as v2: `null` means omitted (v1 senders use it loosely). */
  private v2ToolFields(sessionId: string, fields: Json): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined || value === null) continue;
      if (key === "content") out.content = this.content(sessionId, value as Json[]);
      else out[key] = value;
    }
    return out;
  }

  private content(sessionId: string, items: readonly Json[]): Json[] {
    return items.flatMap((item): Json[] => {
      if (item.type === "content") return [item];
      if (
        item.type === "diff" &&
        typeof item.path === "string" &&
        typeof item.newText === "string"
      ) {
        const oldText = typeof item.oldText === "string" ? item.oldText : null;
        // The patch names the file relative to the session's directory, as git would.
        const root = this.sessions.get(sessionId)?.cwd?.replace(/\/+$/, "");
        const shown =
          root !== undefined && item.path.startsWith(`${root}/`)
            ? item.path.slice(root.length + 1)
            : item.path.replace(/^\/+/, "");
        return [
          {
            type: "diff",
            changes: [{ operation: oldText === null ? "add" : "modify", path: item.path }],
            patch: { format: "git_patch", text: unifiedDiff(shown, oldText, item.newText) },
            ...(item._meta === undefined ? {} : { _meta: item._meta }),
          },
        ];
      }
      // A v1 terminal is the client's own: this bridge hosts none, so there is none to show.
      this.lossy.count("tool_content_unknown_to_v2", sessionId, String(item.type));
      return [];
    });
  }

  /** The config options with a `mode` option standing for v1 modes, when there are modes. */
  private configWithModes(
    state: SessionState,
    options: readonly Json[] | null | undefined,
  ): { configOptions?: Json[] } {
    const list = options === null || options === undefined ? undefined : v2Options(options);
    const modes = state.modes;
    if (modes === undefined) return list === undefined ? {} : { configOptions: list };
    const own = (list ?? []).some((option) => option.category === "mode");
    if (own) return { configOptions: list ?? [] };
    const option: Json = {
      configId: MODE_OPTION_ID,
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: modes.currentModeId,
      options: modes.availableModes.map((mode) => ({
        value: mode.id,
        name: mode.name,
        ...(mode.description === undefined || mode.description === null
          ? {}
          : { description: mode.description }),
      })),
    };
    return { configOptions: [...(list ?? []), option] };
  }

  private sendState(
    state: SessionState,
    value: "running" | "idle" | "requires_action",
    idle: Json = {},
  ): Promise<void> {
    return this.send(state.sessionId, {
      sessionUpdate: "state_update",
      state: value,
      ...(value === "idle" ? { stopReason: null, ...idle } : {}),
    });
  }

  private send(sessionId: string, update: Json): Promise<void> {
    const sent = this.upstream.sessionUpdate({ sessionId, update: update as v2.SessionUpdate });
    sent.catch(() => undefined);
    return sent;
  }

  private mcpServers(servers: readonly v2.McpServer[] | undefined): Json[] {
    return (servers ?? []).map((server) => {
      const { type, ...rest } = server as Json;
      return type === "stdio" ? { args: [], env: [], ...rest } : server;
    });
  }

  private state(sessionId: string): SessionState {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = {
        sessionId,
        cwd: undefined,
        running: false,
        held: [],
        current: undefined,
        modes: undefined,
        permissions: 0,
        swallowReplay: false,
      };
      this.sessions.set(sessionId, state);
    }
    return state;
  }

  private options(context: RequestContext | undefined): SendRequestOptions | undefined {
    return context === undefined ? undefined : { signal: context.signal };
  }
}
