/**
 * The v2 {@link Agent} and {@link Client} interfaces: what each side of an ACP v2
 * connection implements, and the handler name of every v2 method.
 *
 * @module
 */
import type { InboundRequestContext } from "../jsonrpc/inbound.js";
import type { MaybePromise } from "../base/messages.js";
import type * as schema from "../schema/v2/types.gen.js";

/**
 * What a handler receives besides its params: the request id and an `AbortSignal` that
 * aborts when the peer cancels the request (`$/cancel_request`) or the connection closes.
 */
export type RequestContext = InboundRequestContext;

/**
 * An ACP v2 agent. Implement it and hand it to {@link AgentSideConnection}; a
 * {@link ClientSideConnection} offers the same calls by sending each to the agent.
 *
 * The baseline every v2 agent that advertises `capabilities.session` must serve is
 * required: `session/new`, `session/list`, `session/resume`, `session/close`,
 * `session/prompt` and `session/cancel`. Optional methods answer `-32601` when absent,
 * except `tool_call/cancel` and `terminal/cancel`, which answer `-32602` (nothing is
 * cancellable) as v2 says. An agent that lists `authMethods` must implement `login` and
 * `logout`.
 */
export interface Agent {
  /** `initialize`: agree on v2 and exchange capabilities. */
  initialize(
    params: schema.InitializeRequest,
    context?: RequestContext,
  ): MaybePromise<schema.InitializeResponse>;
  /** `auth/login`: authenticate with one of the advertised methods. */
  login?(
    params: schema.LoginAuthRequest,
    context?: RequestContext,
  ): MaybePromise<schema.LoginAuthResponse | void>;
  /** `auth/logout`: forget the credentials. */
  logout?(
    params: schema.LogoutAuthRequest,
    context?: RequestContext,
  ): MaybePromise<schema.LogoutAuthResponse | void>;
  /** `session/new`: create a session. */
  newSession(
    params: schema.NewSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.NewSessionResponse>;
  /** `session/list`: list sessions, one page at a time. */
  listSessions(
    params: schema.ListSessionsRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ListSessionsResponse>;
  /**
   * `session/resume`: attach to a session; with `replayFrom` its history is sent again as
   * updates. A snapshot of the session's state follows the replay, before the answer.
   */
  resumeSession(
    params: schema.ResumeSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ResumeSessionResponse | void>;
  /** `session/close`: cancel a session's work and release it. */
  closeSession(
    params: schema.CloseSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CloseSessionResponse | void>;
  /** `session/delete`: forget a session (advertise `capabilities.session.delete`). */
  deleteSession?(
    params: schema.DeleteSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.DeleteSessionResponse | void>;
  /** `session/set_config_option`: change one of the session's configuration options. */
  setSessionConfigOption?(
    params: schema.SetSessionConfigOptionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SetSessionConfigOptionResponse>;
  /**
   * `session/prompt`: insert a user message. The answer (its `messageId`) comes once the
   * message is inserted; the turn's progress and end arrive as `state_update`s.
   */
  prompt(
    params: schema.PromptRequest,
    context?: RequestContext,
  ): MaybePromise<schema.PromptResponse>;
  /** `session/cancel`: stop the session's foreground work (a notification). */
  cancel(params: schema.CancelSessionNotification): MaybePromise<void>;
  /** `tool_call/cancel`: stop one tool call that advertised `capabilities.cancel`. */
  cancelToolCall?(
    params: schema.CancelToolCallRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CancelToolCallResponse | void>;
  /** `terminal/cancel`: stop one terminal's process that advertised `capabilities.cancel`. */
  cancelTerminal?(
    params: schema.CancelTerminalRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CancelTerminalResponse | void>;
  /** `session/fork` (unstable). @experimental */
  unstable_forkSession?(
    params: schema.ForkSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ForkSessionResponse>;
  /** `session/archive` (unstable). @experimental */
  unstable_archiveSession?(
    params: schema.ArchiveSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ArchiveSessionResponse | void>;
  /** `session/unarchive` (unstable). @experimental */
  unstable_unarchiveSession?(
    params: schema.UnarchiveSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.UnarchiveSessionResponse | void>;
  /** `session/status` (unstable). @experimental */
  unstable_sessionStatus?(
    params: schema.SessionStatusRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SessionStatusResponse>;
  /** `session/set_title` (unstable). @experimental */
  unstable_setSessionTitle?(
    params: schema.SetSessionTitleRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SetSessionTitleResponse | void>;
  /** `auth/status` (unstable). @experimental */
  unstable_authStatus?(
    params: schema.AuthStatusRequest,
    context?: RequestContext,
  ): MaybePromise<schema.AuthStatusResponse>;
  /** `providers/list` (unstable). @experimental */
  unstable_listProviders?(
    params: schema.ListProvidersRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ListProvidersResponse>;
  /** `providers/set` (unstable). @experimental */
  unstable_setProvider?(
    params: schema.SetProviderRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SetProviderResponse | void>;
  /** `providers/disable` (unstable). @experimental */
  unstable_disableProvider?(
    params: schema.DisableProviderRequest,
    context?: RequestContext,
  ): MaybePromise<schema.DisableProviderResponse | void>;
  /** `mcp/message` notification from the client (unstable). @experimental */
  unstable_messageMcp?(params: schema.MessageMcpNotification): MaybePromise<void>;
  /** Requests of methods outside the protocol (their names start with `_`). */
  extMethod?(
    method: string,
    params: Record<string, unknown>,
    context?: RequestContext,
  ): MaybePromise<Record<string, unknown>>;
  /** Notifications of methods outside the protocol. */
  extNotification?(method: string, params: Record<string, unknown>): MaybePromise<void>;
}

/** The {@link Agent} method handling each v2 method the agent receives. */
export const AGENT_HANDLER_NAMES: Readonly<Record<string, string>> = {
  initialize: "initialize",
  "auth/login": "login",
  "auth/logout": "logout",
  "session/new": "newSession",
  "session/list": "listSessions",
  "session/resume": "resumeSession",
  "session/close": "closeSession",
  "session/delete": "deleteSession",
  "session/set_config_option": "setSessionConfigOption",
  "session/prompt": "prompt",
  "session/cancel": "cancel",
  "tool_call/cancel": "cancelToolCall",
  "terminal/cancel": "cancelTerminal",
  "session/fork": "unstable_forkSession",
  "session/archive": "unstable_archiveSession",
  "session/unarchive": "unstable_unarchiveSession",
  "session/status": "unstable_sessionStatus",
  "session/set_title": "unstable_setSessionTitle",
  "auth/status": "unstable_authStatus",
  "providers/list": "unstable_listProviders",
  "providers/set": "unstable_setProvider",
  "providers/disable": "unstable_disableProvider",
  "mcp/message": "unstable_messageMcp",
};

/**
 * An ACP v2 client. Implement it and hand it to {@link ClientSideConnection}. Optional
 * methods answer `-32601` when absent; `session/update` is the one every client needs.
 */
export interface Client {
  /** `session/update`: one streamed update about a session (a notification). */
  sessionUpdate(params: schema.UpdateSessionNotification): MaybePromise<void>;
  /** `session/request_permission`: let the user choose among options. */
  requestPermission?(
    params: schema.RequestPermissionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.RequestPermissionResponse>;
  /** `elicitation/create`: ask the user for structured input, or to visit a URL. */
  createElicitation?(
    params: schema.CreateElicitationRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CreateElicitationResponse>;
  /** `elicitation/complete`: a URL elicitation has finished (a notification). */
  completeElicitation?(params: schema.CompleteElicitationNotification): MaybePromise<void>;
  /** `mcp/message` request from the agent (unstable). @experimental */
  unstable_messageMcp?(
    params: schema.MessageMcpRequest,
    context?: RequestContext,
  ): MaybePromise<schema.MessageMcpResponse>;
  /** `auth/status_update` notification (unstable). @experimental */
  unstable_authStatusUpdate?(params: schema.AuthStatusUpdateNotification): MaybePromise<void>;
  /** Requests of methods outside the protocol (their names start with `_`). */
  extMethod?(
    method: string,
    params: Record<string, unknown>,
    context?: RequestContext,
  ): MaybePromise<Record<string, unknown>>;
  /** Notifications of methods outside the protocol. */
  extNotification?(method: string, params: Record<string, unknown>): MaybePromise<void>;
}

/** The {@link Client} method handling each v2 method the client receives. */
export const CLIENT_HANDLER_NAMES: Readonly<Record<string, string>> = {
  "session/update": "sessionUpdate",
  "session/request_permission": "requestPermission",
  "elicitation/create": "createElicitation",
  "elicitation/complete": "completeElicitation",
  "mcp/message": "unstable_messageMcp",
  "auth/status_update": "unstable_authStatusUpdate",
};
