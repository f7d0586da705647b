/**
 * The bridge's first direction: it serves a v1 client (an editor of today) as a v1 agent
 * and speaks v2 to the agent behind it, following the mapping of docs/v2.md.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import { RequestError } from "../jsonrpc/errors.js";
import { isPlainObject, type JsonRpcId } from "../base/messages.js";
import type { Agent as V1Agent, RequestContext } from "../peer/agent.js";
import type { AgentSideConnection as V1AgentSideConnection } from "../peer/agent-side-connection.js";
import type * as v1 from "../schema/types.gen.js";
import type * as v2 from "../schema/v2/types.gen.js";
import type { Client } from "./agent.js";
import type { ClientSideConnection } from "./client-side-connection.js";
import type { LossyCounter } from "./lossy.js";

type Json = Record<string, unknown>;

/** A v1 prompt waiting for its v2 turn to end. */
interface PendingPrompt {
  readonly resolve: (response: v1.PromptResponse) => void;
  readonly reject: (error: unknown) => void;
  /** The v2 answer came (the message was inserted). */
  acked: boolean;
  /** A `running` state was seen since it was sent. */
  started: boolean;
  messageId: string | undefined;
}

interface ToolState {
  /** The v2 fields as patched so far (v2 form). */
  readonly fields: Json;
  created: boolean;
}

interface TerminalState {
  output: Uint8Array;
  exitStatus: Json | undefined;
  command: string | undefined;
  referenced: boolean;
}

interface SessionState {
  readonly prompts: PendingPrompt[];
  /** Prompts sent whose answer (the inserted message's id) has not come yet. */
  awaitingAnswers: number;
  /** The ids of the messages this client's prompts inserted: their echo is not shown. */
  readonly echoes: Set<string>;
  /** Whole `user_message`s held while a prompt's answer (its id) is not known yet. */
  heldUserMessages: Json[];
  /** Content forwarded so far per message (`kind\0id`), to turn whole upserts into chunks. */
  readonly forwarded: Map<string, Json[]>;
  readonly tools: Map<string, ToolState>;
  readonly terminals: Map<string, TerminalState>;
  /** Tool calls whose content shows each terminal. */
  readonly terminalUsers: Map<string, Set<string>>;
  configOptions: Json[] | undefined;
  planIds: Set<string>;
  currentPlan: string | undefined;
  replaying: boolean;
}

const CHUNK_KIND: Readonly<Record<string, string>> = {
  user_message: "user_message_chunk",
  agent_message: "agent_message_chunk",
  agent_thought: "agent_thought_chunk",
};

const V1_STOP_REASONS: ReadonlySet<string> = new Set([
  "end_turn",
  "max_tokens",
  "max_turn_requests",
  "refusal",
  "cancelled",
]);

const PASS_THROUGH: ReadonlySet<string> = new Set(["session_info_update", "usage_update"]);

function decodeBase64(data: string): Uint8Array {
  try {
    const binary = atob(data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return new Uint8Array(0);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** v2 config options (`configId`) as v1's (`id`). */
function v1Options(options: readonly Json[]): Json[] {
  return options.map((option) => {
    const { configId, ...rest } = option;
    return configId === undefined ? option : { ...rest, id: configId };
  });
}

/** The mode option of a session's config options, if it has one. */
function modeOption(options: readonly Json[] | undefined): Json | undefined {
  return options?.find((option) => option.category === "mode" && option.type === "select");
}

/** v1 `modes` synthesized from a mode config option. */
function modesOf(options: readonly Json[] | undefined): v1.SessionModeState | undefined {
  const option = modeOption(options);
  if (option === undefined || typeof option.currentValue !== "string") return undefined;
  const values = Array.isArray(option.options) ? (option.options as Json[]) : [];
  const flat = values.flatMap((value) =>
    Array.isArray(value.options) ? (value.options as Json[]) : [value],
  );
  return {
    currentModeId: option.currentValue,
    availableModes: flat
      .filter((value) => typeof value.value === "string")
      .map((value) => ({
        id: value.value as string,
        name: typeof value.name === "string" ? value.name : (value.value as string),
        ...(typeof value.description === "string" ? { description: value.description } : {}),
      })),
  };
}

/**
 * The agent a v1 client talks to: each call goes to the v2 agent, each v2 update comes
 * back as what v1 can show of it. Create one per connection with {@link V1ViewOfV2Agent}.
 */
export class V1ViewOfV2Agent implements V1Agent {
  private readonly sessions = new Map<string, SessionState>();
  private readonly afterAnswers = new Map<JsonRpcId, () => void>();
  private permissionIds = 0;

  /**
   * @param upstream - The v1 connection to the client.
   * @param downstream - The v2 connection to the agent (already initialized).
   * @param clientInit - The v1 client's `initialize`, for what it can show.
   * @param lossy - Where lossy steps are counted.
   */
  constructor(
    private readonly upstream: V1AgentSideConnection,
    private readonly downstream: ClientSideConnection,
    private readonly clientInit: v1.InitializeRequest,
    private readonly lossy: LossyCounter,
  ) {
    upstream.observe((direction, message) => {
      if (direction === "out") this.onOutgoing(message);
    });
  }

  /**
   * The v2 client the downstream connection is created with.
   *
   * @param view - The view, once made.
   * @param tap - Hears each update as the agent sent it, before it is shown in v1.
   */
  static client(
    view: () => V1ViewOfV2Agent,
    tap?: (notification: v2.UpdateSessionNotification) => void,
  ): Client {
    return {
      sessionUpdate: (params) => {
        try {
          tap?.(params);
        } catch {
          // A listener's failure must not stop the update from reaching the client.
        }
        return view().onUpdate(params);
      },
      requestPermission: (params, context) => view().onPermission(params, context),
      createElicitation: (params, context) =>
        view().upstream.createElicitation(
          params as unknown as v1.CreateElicitationRequest,
          context === undefined ? undefined : { signal: context.signal },
        ),
      completeElicitation: (params) => view().upstream.completeElicitation(params),
      extMethod: (method, params, context) =>
        view().upstream.request<Json>(
          method,
          params,
          context === undefined ? undefined : { signal: context.signal },
        ),
      extNotification: (method, params) => view().upstream.notify(method, params),
    };
  }

  // ---- v1 requests, answered through the v2 agent ----

  /** The v2 agent's `initialize` answer, as v1 says it. */
  initialize(): v1.InitializeResponse {
    const answer = this.downstream.initialized?.response;
    if (answer === undefined)
      throw RequestError.internalError(undefined, "the v2 agent is not initialized");
    const caps = (answer.capabilities ?? {}) as Json;
    const session = isPlainObject(caps.session) ? caps.session : undefined;
    const prompt = isPlainObject(session?.prompt) ? session.prompt : {};
    const mcp = isPlainObject(session?.mcp) ? session.mcp : {};
    const marker = (value: unknown): boolean => value !== undefined && value !== null;
    const authMethods = (answer.authMethods ?? []).flatMap((method): v1.AuthMethod[] => {
      const m = method as Json;
      if (typeof m.methodId !== "string" || typeof m.name !== "string") {
        this.lossy.count("auth_method_unknown_type", undefined, String(m.type));
        return [];
      }
      const { methodId, type, ...rest } = m;
      if (type === "terminal")
        return [{ ...rest, id: methodId, type: "terminal" } as v1.AuthMethod];
      if (type !== "agent") this.lossy.count("auth_method_unknown_type", undefined, String(type));
      return [{ ...rest, id: methodId } as v1.AuthMethod];
    });
    const sessionCapabilities: Json = { list: {}, resume: {}, close: {} };
    if (marker(session?.delete)) sessionCapabilities.delete = {};
    if (marker(session?.additionalDirectories)) sessionCapabilities.additionalDirectories = {};
    const agentCapabilities: Json = {
      loadSession: session !== undefined,
      promptCapabilities: {
        image: marker(prompt.image),
        audio: marker(prompt.audio),
        embeddedContext: marker(prompt.embeddedContext),
      },
      mcpCapabilities: { http: marker(mcp.http), sse: false, acp: marker(mcp.acp) },
      sessionCapabilities,
    };
    if (authMethods.length > 0) agentCapabilities.auth = { logout: {} };
    return {
      protocolVersion: 1,
      agentInfo: answer.info,
      agentCapabilities: agentCapabilities,
      authMethods,
      ...(answer._meta === undefined ? {} : { _meta: answer._meta }),
    };
  }

  async authenticate(
    params: v1.AuthenticateRequest,
    context?: RequestContext,
  ): Promise<v1.AuthenticateResponse> {
    const { methodId, ...rest } = params;
    return await this.downstream.login({ ...rest, methodId }, this.options(context));
  }

  async logout(params: v1.LogoutRequest, context?: RequestContext): Promise<v1.LogoutResponse> {
    return await this.downstream.logout(params, this.options(context));
  }

  async newSession(
    params: v1.NewSessionRequest,
    context?: RequestContext,
  ): Promise<v1.NewSessionResponse> {
    const response = await this.downstream.newSession(
      {
        ...params,
        mcpServers: this.mcpServers(params.mcpServers, undefined),
      } as v2.NewSessionRequest,
      this.options(context),
    );
    const state = this.state(response.sessionId);
    state.configOptions = response.configOptions;
    this.afterAnswer(context, response.sessionId, response.availableCommands);
    return this.setupAnswer({ ...response }, state) as v1.NewSessionResponse;
  }

  async loadSession(
    params: v1.LoadSessionRequest,
    context?: RequestContext,
  ): Promise<v1.LoadSessionResponse> {
    const state = this.state(params.sessionId);
    state.replaying = true;
    state.forwarded.clear();
    try {
      const response = await this.downstream.resumeSession(
        {
          ...params,
          mcpServers: this.mcpServers(params.mcpServers, params.sessionId),
          replayFrom: { type: "start" },
        } as v2.ResumeSessionRequest,
        this.options(context),
      );
      state.configOptions = response.configOptions ?? state.configOptions;
      this.afterAnswer(context, params.sessionId, response.availableCommands);
      return this.setupAnswer(response, state);
    } finally {
      state.replaying = false;
    }
  }

  async resumeSession(
    params: v1.ResumeSessionRequest,
    context?: RequestContext,
  ): Promise<v1.ResumeSessionResponse> {
    const state = this.state(params.sessionId);
    const response = await this.downstream.resumeSession(
      {
        ...params,
        mcpServers: this.mcpServers(params.mcpServers ?? [], params.sessionId),
      } as v2.ResumeSessionRequest,
      this.options(context),
    );
    state.configOptions = response.configOptions ?? state.configOptions;
    this.afterAnswer(context, params.sessionId, response.availableCommands);
    return this.setupAnswer(response, state);
  }

  async listSessions(
    params: v1.ListSessionsRequest,
    context?: RequestContext,
  ): Promise<v1.ListSessionsResponse> {
    return await this.downstream.listSessions(params, this.options(context));
  }

  async closeSession(
    params: v1.CloseSessionRequest,
    context?: RequestContext,
  ): Promise<v1.CloseSessionResponse> {
    const response = await this.downstream.closeSession(params, this.options(context));
    this.forget(
      params.sessionId,
      RequestError.requestCancelled(undefined, "the session was closed"),
    );
    return response;
  }

  async deleteSession(
    params: v1.DeleteSessionRequest,
    context?: RequestContext,
  ): Promise<v1.DeleteSessionResponse> {
    const response = await this.downstream.deleteSession(params, this.options(context));
    this.forget(
      params.sessionId,
      RequestError.requestCancelled(undefined, "the session was deleted"),
    );
    return response;
  }

  async setSessionConfigOption(
    params: v1.SetSessionConfigOptionRequest,
    context?: RequestContext,
  ): Promise<v1.SetSessionConfigOptionResponse> {
    const request = (
      "type" in params ? params : { ...params, type: "id" }
    ) as v2.SetSessionConfigOptionRequest;
    const response = await this.downstream.setSessionConfigOption(request, this.options(context));
    this.noteConfig(params.sessionId, response.configOptions, false);
    return {
      ...response,
      configOptions: v1Options(response.configOptions),
    } as unknown as v1.SetSessionConfigOptionResponse;
  }

  async setSessionMode(
    params: v1.SetSessionModeRequest,
    context?: RequestContext,
  ): Promise<v1.SetSessionModeResponse> {
    const state = this.state(params.sessionId);
    const option = modeOption(state.configOptions);
    if (option === undefined)
      throw new RequestError(-32601, "Method not found", { reason: "agent has no mode option" });
    const response = await this.downstream.setSessionConfigOption(
      {
        sessionId: params.sessionId,
        configId: option.configId as string,
        type: "id",
        value: params.modeId,
      },
      this.options(context),
    );
    this.noteConfig(params.sessionId, response.configOptions, true);
    return {};
  }

  prompt(params: v1.PromptRequest, context?: RequestContext): Promise<v1.PromptResponse> {
    const state = this.state(params.sessionId);
    return new Promise<v1.PromptResponse>((resolve, reject) => {
      const pending: PendingPrompt = {
        resolve,
        reject,
        acked: false,
        started: false,
        messageId: undefined,
      };
      state.prompts.push(pending);
      state.awaitingAnswers++;
      this.downstream.prompt(params as v2.PromptRequest, this.options(context)).then(
        (response) => {
          pending.acked = true;
          pending.messageId = response.messageId;
          state.echoes.add(response.messageId);
          state.awaitingAnswers--;
          this.releaseUserMessages(params.sessionId, state);
        },
        (error: unknown) => {
          const at = state.prompts.indexOf(pending);
          if (at >= 0) state.prompts.splice(at, 1);
          state.awaitingAnswers--;
          this.releaseUserMessages(params.sessionId, state);
          reject(error);
        },
      );
    });
  }

  async cancel(params: v1.CancelNotification): Promise<void> {
    await this.downstream.cancel(params);
  }

  extMethod(method: string, params: Json, context?: RequestContext): Promise<Json> {
    return this.downstream.request(method, params, this.options(context)) as Promise<Json>;
  }

  extNotification(method: string, params: Json): Promise<void> {
    return this.downstream.notify(method, params);
  }

  // ---- v2 traffic, shown to the v1 client ----

  private async onPermission(
    params: v2.RequestPermissionRequest,
    context: RequestContext | undefined,
  ): Promise<v2.RequestPermissionResponse> {
    const subject = params.subject as Json | null | undefined;
    let toolCall: Json;
    if (subject?.type === "tool_call" && isPlainObject(subject.toolCall)) {
      toolCall = this.v1ToolFields(params.sessionId, subject.toolCall, false);
      toolCall.toolCallId = subject.toolCall.toolCallId;
      if (toolCall.title === undefined) toolCall.title = params.title;
    } else if (subject?.type === "command") {
      toolCall = {
        toolCallId:
          typeof subject.toolCallId === "string"
            ? subject.toolCallId
            : `permission-${++this.permissionIds}`,
        title: params.title,
        kind: "execute",
        rawInput: { command: subject.command, cwd: subject.cwd },
      };
    } else {
      if (subject !== undefined && subject !== null)
        this.lossy.count("permission_subject_unknown", params.sessionId, String(subject.type));
      toolCall = { toolCallId: `permission-${++this.permissionIds}`, title: params.title };
    }
    const response = await this.upstream.requestPermission(
      {
        sessionId: params.sessionId,
        toolCall: toolCall as v1.ToolCallUpdate,
        options: params.options as v1.PermissionOption[],
        ...(params._meta === undefined ? {} : { _meta: params._meta }),
      },
      context === undefined ? undefined : { signal: context.signal },
    );
    return response;
  }

  private async onUpdate(params: v2.UpdateSessionNotification): Promise<void> {
    const sessionId = params.sessionId;
    const state = this.state(sessionId);
    const update = params.update as Json;
    const kind = typeof update.sessionUpdate === "string" ? update.sessionUpdate : "";
    for (const out of this.map(sessionId, state, kind, update))
      await this.upstream.sessionUpdate({ sessionId, update: out as v1.SessionUpdate });
  }

  private map(sessionId: string, state: SessionState, kind: string, update: Json): Json[] {
    switch (kind) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const base = kind.slice(0, -"_chunk".length);
        if (typeof update.messageId === "string") {
          const key = `${base}\u0000${update.messageId}`;
          state.forwarded.set(key, [...(state.forwarded.get(key) ?? []), update.content as Json]);
        }
        return [update];
      }
      case "user_message":
        if (!state.replaying && state.echoes.has(update.messageId as string))
          return this.noteEcho(state, update);
        if (state.awaitingAnswers > 0 && !state.replaying) {
          state.heldUserMessages.push(update);
          return [];
        }
        return this.upsertMessage(sessionId, state, kind, update);
      case "agent_message":
      case "agent_thought":
        return this.upsertMessage(sessionId, state, kind, update);
      case "state_update":
        this.onState(state, update);
        return [];
      case "tool_call_update":
        return this.toolUpdate(sessionId, state, update);
      case "tool_call_content_chunk": {
        const tool = this.tool(state, update.toolCallId as string);
        const content = Array.isArray(tool.fields.content) ? (tool.fields.content as Json[]) : [];
        tool.fields.content = [...content, update.content as Json];
        return this.toolUpdate(
          sessionId,
          state,
          { toolCallId: update.toolCallId, content: tool.fields.content },
          true,
        );
      }
      case "terminal_update":
      case "terminal_output_chunk":
        return this.terminalUpdate(sessionId, state, kind, update);
      case "plan_update":
        return this.planUpdate(sessionId, state, update);
      case "plan_removed": {
        const planId = update.planId;
        state.planIds.delete(planId as string);
        if (planId !== state.currentPlan) return [];
        state.currentPlan = undefined;
        return [{ sessionUpdate: "plan", entries: [] }];
      }
      case "available_commands_update":
        return [this.commands(sessionId, update.availableCommands)];
      case "config_option_update":
        return this.noteConfig(sessionId, update.configOptions as Json[], false, {
          ...update,
          configOptions: v1Options(
            Array.isArray(update.configOptions) ? (update.configOptions as Json[]) : [],
          ),
        });
      case "notice":
        return this.gated(sessionId, "notices", update);
      case "compaction_update":
      case "compaction_summary_chunk":
        return this.gated(sessionId, "compaction", update);
      default:
        if (PASS_THROUGH.has(kind)) return [update];
        this.lossy.count("update_unknown_to_v1", sessionId, kind);
        return [];
    }
  }

  private upsertMessage(
    sessionId: string,
    state: SessionState,
    kind: string,
    update: Json,
  ): Json[] {
    const messageId = update.messageId as string;
    const key = `${kind}\u0000${messageId}`;
    const before = state.forwarded.get(key) ?? [];
    const after = Array.isArray(update.content) ? (update.content as Json[]) : [];
    const chunk = CHUNK_KIND[kind] ?? `${kind}_chunk`;
    const out: Json[] = [];
    const emit = (content: Json): void => {
      out.push({ sessionUpdate: chunk, messageId, content });
    };
    let i = 0;
    for (; i < before.length; i++) {
      const old = before[i] ?? {};
      const next = after[i];
      if (next !== undefined && sameJson(old, next)) continue;
      // The last block forwarded may have grown: its text extends.
      const extends_ =
        i === before.length - 1 &&
        next !== undefined &&
        old.type === "text" &&
        next.type === "text" &&
        typeof old.text === "string" &&
        typeof next.text === "string" &&
        next.text.startsWith(old.text) &&
        sameJson({ ...old, text: "" }, { ...next, text: "" });
      if (!extends_) {
        this.lossy.count("message_rewrite", sessionId, kind);
        return [];
      }
      const suffix = (next.text as string).slice((old.text as string).length);
      if (suffix !== "") emit({ ...next, text: suffix });
      i++;
      break;
    }
    for (const block of after.slice(i)) emit(block);
    state.forwarded.set(key, [...after]);
    return out;
  }

  /** The echo of a prompt the v1 client sent itself: it has the message already. */
  private noteEcho(state: SessionState, update: Json): Json[] {
    state.forwarded.set(
      `user_message\u0000${String(update.messageId)}`,
      Array.isArray(update.content) ? (update.content as Json[]) : [],
    );
    return [];
  }

  private releaseUserMessages(sessionId: string, state: SessionState): void {
    if (state.awaitingAnswers > 0) return;
    const held = state.heldUserMessages;
    state.heldUserMessages = [];
    for (const update of held) {
      if (state.echoes.has(update.messageId as string)) {
        this.noteEcho(state, update);
        continue;
      }
      for (const out of this.upsertMessage(sessionId, state, "user_message", update))
        void this.upstream
          .sessionUpdate({ sessionId, update: out as v1.SessionUpdate })
          .catch(() => undefined);
    }
  }

  private onState(state: SessionState, update: Json): void {
    const head = state.prompts[0];
    if (head === undefined) return; // a snapshot, or background news: nothing to answer
    if (update.state === "running") {
      head.started = true;
      return;
    }
    if (update.state !== "idle") return;
    const stopReason = update.stopReason;
    if (stopReason === undefined || stopReason === null || !(head.started || head.acked)) return;
    state.prompts.shift();
    if (stopReason === "error") {
      const error = isPlainObject(update.error) ? update.error : {};
      head.reject(
        new RequestError(
          typeof error.code === "number" ? error.code : -32603,
          typeof error.message === "string" ? error.message : "Internal error",
          error.data,
        ),
      );
      return;
    }
    if (typeof stopReason === "string" && V1_STOP_REASONS.has(stopReason)) {
      head.resolve({
        stopReason: stopReason as v1.StopReason,
        ...(isPlainObject(update.usage) ? { usage: update.usage as v1.Usage } : {}),
      });
      return;
    }
    this.lossy.count("stop_reason_unknown_to_v1", undefined, JSON.stringify(stopReason));
    head.resolve({ stopReason: "end_turn", _meta: { "acp-kit/v2StopReason": stopReason } });
  }

  private tool(state: SessionState, toolCallId: string): ToolState {
    let tool = state.tools.get(toolCallId);
    if (tool === undefined) {
      tool = { fields: { toolCallId }, created: false };
      state.tools.set(toolCallId, tool);
    }
    return tool;
  }

  private toolUpdate(
    sessionId: string,
    state: SessionState,
    patch: Json,
    contentOnly = false,
  ): Json[] {
    const toolCallId = patch.toolCallId as string;
    const tool = this.tool(state, toolCallId);
    if (!contentOnly) {
      for (const [key, value] of Object.entries(patch)) {
        if (key === "sessionUpdate" || value === undefined) continue;
        if (value === null) Reflect.deleteProperty(tool.fields, key);
        else tool.fields[key] = value;
      }
    }
    if (patch.capabilities !== undefined && patch.capabilities !== null)
      this.lossy.count("tool_call_cancel_capability", sessionId);
    if (!tool.created) {
      tool.created = true;
      const fields = this.v1ToolFields(sessionId, tool.fields, true, toolCallId, state);
      return [{ sessionUpdate: "tool_call", toolCallId, ...fields }];
    }
    const source: Json = contentOnly ? { content: tool.fields.content } : patch;
    const fields = this.v1ToolFields(sessionId, source, false, toolCallId, state);
    return [{ sessionUpdate: "tool_call_update", toolCallId, ...fields }];
  }

  /** v2 tool call fields (a patch or the whole call) as v1 fields; `whole` fills v1's required ones. */
  private v1ToolFields(
    sessionId: string,
    fields: Json,
    whole: boolean,
    toolCallId?: string,
    state?: SessionState,
  ): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      switch (key) {
        case "toolCallId":
        case "sessionUpdate":
        case "capabilities":
          break;
        case "title":
          out.title = value ?? "";
          break;
        case "kind":
          out.kind = value ?? "other";
          break;
        case "status":
          out.status = this.status(sessionId, value);
          break;
        case "content":
          out.content =
            value === null ? [] : this.content(sessionId, value as Json[], toolCallId, state);
          break;
        case "locations":
          out.locations = value ?? [];
          break;
        default:
          out[key] = value;
      }
    }
    if (Array.isArray(fields.content) && state !== undefined) {
      const extra = this.diffLocations(fields.content as Json[]);
      if (extra.length > 0 && fields.locations === undefined) out.locations = extra;
    }
    if (whole) {
      out.title ??= typeof fields.name === "string" ? fields.name : "tool";
      out.kind ??= "other";
      out.status ??= "pending";
    }
    return out;
  }

  private status(sessionId: string, value: unknown): string {
    if (value === null) return "pending";
    if (value === "paused") {
      this.lossy.count("status_paused", sessionId);
      return "in_progress";
    }
    if (value === "cancelled") {
      this.lossy.count("status_cancelled", sessionId);
      return "failed";
    }
    if (
      value === "pending" ||
      value === "in_progress" ||
      value === "completed" ||
      value === "failed"
    )
      return value;
    this.lossy.count("status_unknown", sessionId, JSON.stringify(value));
    return "in_progress";
  }

  private diffLocations(content: readonly Json[]): Json[] {
    const paths: Json[] = [];
    for (const item of content) {
      if (item.type !== "diff" || !Array.isArray(item.changes)) continue;
      for (const change of item.changes as Json[])
        if (typeof change.path === "string") paths.push({ path: change.path });
    }
    return paths;
  }

  private content(
    sessionId: string,
    items: readonly Json[],
    toolCallId?: string,
    state?: SessionState,
  ): Json[] {
    return items.flatMap((item): Json[] => {
      if (item.type === "content") return [item];
      if (item.type === "diff") {
        const changes = Array.isArray(item.changes) ? (item.changes as Json[]) : [];
        const patch = isPlainObject(item.patch) ? item.patch : undefined;
        if (patch !== undefined && typeof patch.text === "string") {
          this.lossy.count("diff_as_patch_text", sessionId);
          return [{ type: "content", content: { type: "text", text: patch.text } }];
        }
        this.lossy.count("diff_without_patch", sessionId);
        const summary = changes
          .map((change) => `${String(change.operation)} ${String(change.path)}`)
          .join("\n");
        return [{ type: "content", content: { type: "text", text: summary } }];
      }
      if (item.type === "terminal" && typeof item.terminalId === "string" && state !== undefined) {
        const terminal = this.terminal(state, item.terminalId);
        if (!terminal.referenced) {
          terminal.referenced = true;
          this.lossy.count("agent_terminal_as_text", sessionId);
        }
        if (toolCallId !== undefined) {
          let users = state.terminalUsers.get(item.terminalId);
          if (users === undefined) state.terminalUsers.set(item.terminalId, (users = new Set()));
          users.add(toolCallId);
        }
        return [{ type: "content", content: { type: "text", text: this.terminalText(terminal) } }];
      }
      this.lossy.count("tool_content_unknown_to_v1", sessionId, String(item.type));
      return [];
    });
  }

  private terminal(state: SessionState, terminalId: string): TerminalState {
    let terminal = state.terminals.get(terminalId);
    if (terminal === undefined) {
      terminal = {
        output: new Uint8Array(0),
        exitStatus: undefined,
        command: undefined,
        referenced: false,
      };
      state.terminals.set(terminalId, terminal);
    }
    return terminal;
  }

  private terminalText(terminal: TerminalState): string {
    let text = new TextDecoder().decode(terminal.output);
    if (terminal.command !== undefined) text = `$ ${terminal.command}\n${text}`;
    const exit = terminal.exitStatus;
    if (exit !== undefined) {
      const how =
        typeof exit.exitCode === "number"
          ? `exit code ${String(exit.exitCode)}`
          : typeof exit.signal === "string"
            ? `signal ${exit.signal}`
            : "exited";
      text += `${text.endsWith("\n") || text === "" ? "" : "\n"}[${how}]`;
    }
    return text;
  }

  private terminalUpdate(
    sessionId: string,
    state: SessionState,
    kind: string,
    update: Json,
  ): Json[] {
    const terminalId = update.terminalId as string;
    const terminal = this.terminal(state, terminalId);
    if (kind === "terminal_output_chunk") {
      terminal.output = concat(terminal.output, decodeBase64(update.data as string));
    } else {
      if (typeof update.command === "string") terminal.command = update.command;
      if (isPlainObject(update.output) && typeof update.output.data === "string")
        terminal.output = decodeBase64(update.output.data);
      if (isPlainObject(update.exitStatus)) terminal.exitStatus = update.exitStatus;
    }
    const users = state.terminalUsers.get(terminalId);
    if (users === undefined || users.size === 0) {
      if (!terminal.referenced) {
        terminal.referenced = true;
        this.lossy.count("agent_terminal_not_shown", sessionId);
      }
      return [];
    }
    return [...users].map((toolCallId) => {
      const tool = this.tool(state, toolCallId);
      const content = Array.isArray(tool.fields.content) ? (tool.fields.content as Json[]) : [];
      return {
        sessionUpdate: "tool_call_update",
        toolCallId,
        content: this.content(sessionId, content, toolCallId, state),
      };
    });
  }

  private planUpdate(sessionId: string, state: SessionState, update: Json): Json[] {
    const plan = isPlainObject(update.plan) ? update.plan : {};
    const planId = typeof plan.planId === "string" ? plan.planId : "";
    if (plan.type !== "items" || !Array.isArray(plan.entries)) {
      this.lossy.count("plan_type_unknown_to_v1", sessionId, String(plan.type));
      return [];
    }
    state.planIds.add(planId);
    if (state.planIds.size > 1) this.lossy.count("several_plans", sessionId);
    state.currentPlan = planId;
    return [
      {
        sessionUpdate: "plan",
        entries: plan.entries,
        ...(update._meta === undefined ? {} : { _meta: update._meta }),
      },
    ];
  }

  private commands(sessionId: string, commands: unknown): Json {
    const list = Array.isArray(commands) ? (commands as Json[]) : [];
    return {
      sessionUpdate: "available_commands_update",
      availableCommands: list.flatMap((command): Json[] => {
        if (command.type !== "command") {
          this.lossy.count("command_type_unknown_to_v1", sessionId, String(command.type));
          return [];
        }
        const { type: _type, input, ...rest } = command;
        if (!isPlainObject(input)) return [rest];
        if (input.type !== "text") {
          this.lossy.count("command_input_unknown_to_v1", sessionId, String(input.type));
          return [rest];
        }
        const { type: _inputType, ...hint } = input;
        return [{ ...rest, input: hint }];
      }),
    };
  }

  /** A new config options list: forwarded, with a `current_mode_update` when the mode changed. */
  private noteConfig(
    sessionId: string,
    options: Json[] | undefined,
    forceMode: boolean,
    update?: Json,
  ): Json[] {
    if (options === undefined) return update === undefined ? [] : [update];
    const state = this.state(sessionId);
    const before = modeOption(state.configOptions)?.currentValue;
    state.configOptions = options;
    const after = modeOption(options)?.currentValue;
    const out: Json[] = update === undefined ? [] : [update];
    if (typeof after === "string" && (after !== before || forceMode))
      out.push({ sessionUpdate: "current_mode_update", currentModeId: after });
    if (update === undefined)
      for (const item of out)
        void this.upstream
          .sessionUpdate({ sessionId, update: item as v1.SessionUpdate })
          .catch(() => undefined);
    return update === undefined ? [] : out;
  }

  private gated(sessionId: string, capability: "notices" | "compaction", update: Json): Json[] {
    const session = this.clientInit.clientCapabilities?.session;
    const marker = isPlainObject(session) ? session[capability] : undefined;
    if (marker !== undefined && marker !== null) return [update];
    this.lossy.count(`${capability}_not_advertised`, sessionId);
    return [];
  }

  private setupAnswer(response: Json, state: SessionState): Json {
    const { availableCommands: _commands, ...rest } = response;
    if (Array.isArray(rest.configOptions))
      rest.configOptions = v1Options(rest.configOptions as Json[]);
    const modes = modesOf(state.configOptions);
    return modes === undefined ? rest : { ...rest, modes };
  }

  /** What a setup answer carries that v1 sends as an update: after the answer. */
  private afterAnswer(
    context: RequestContext | undefined,
    sessionId: string,
    commands: unknown,
  ): void {
    if (commands === undefined || commands === null) return;
    const update = this.commands(sessionId, commands);
    const send = (): void => {
      void this.upstream
        .sessionUpdate({ sessionId, update: update as v1.SessionUpdate })
        .catch(() => undefined);
    };
    if (context === undefined) send();
    else this.afterAnswers.set(context.id, send);
  }

  /** Runs what waits for the answer to a request once that answer went out. */
  private onOutgoing(message: unknown): void {
    if (this.afterAnswers.size === 0 || !isPlainObject(message) || "method" in message) return;
    const id = message.id as JsonRpcId;
    const then = this.afterAnswers.get(id);
    if (then === undefined) return;
    this.afterAnswers.delete(id);
    queueMicrotask(then);
  }

  private mcpServers(servers: readonly v1.McpServer[], sessionId: string | undefined): Json[] {
    return servers.flatMap((server): Json[] => {
      const s = server as Json;
      if (s.type === "sse") {
        this.lossy.count("mcp_sse_dropped", sessionId, String(s.name));
        return [];
      }
      if (s.type === undefined || s.type === "stdio") return [{ ...s, type: "stdio" }];
      return [s];
    });
  }

  private state(sessionId: string): SessionState {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = {
        prompts: [],
        awaitingAnswers: 0,
        echoes: new Set(),
        heldUserMessages: [],
        forwarded: new Map(),
        tools: new Map(),
        terminals: new Map(),
        terminalUsers: new Map(),
        configOptions: undefined,
        planIds: new Set(),
        currentPlan: undefined,
        replaying: false,
      };
      this.sessions.set(sessionId, state);
    }
    return state;
  }

  private forget(sessionId: string, reason: RequestError): void {
    const state = this.sessions.get(sessionId);
    if (state === undefined) return;
    for (const prompt of state.prompts.splice(0)) prompt.reject(reason);
    this.sessions.delete(sessionId);
  }

  private options(context: RequestContext | undefined): SendRequestOptions | undefined {
    return context === undefined ? undefined : { signal: context.signal };
  }
}
