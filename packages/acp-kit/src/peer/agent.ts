/**
 * The {@link Agent} interface: what an agent implements, and what a
 * {@link ClientSideConnection} offers a client.
 *
 * @module
 */
import type { InboundRequestContext } from "../jsonrpc/inbound.js";
import type { MaybePromise } from "../jsonrpc/messages.js";
import type * as schema from "../schema/types.gen.js";

/**
 * What a handler receives besides its params: the request id and an `AbortSignal` that
 * aborts when the peer cancels the request (`$/cancel_request`) or the connection closes.
 * Classic handlers that take only `params` simply ignore it.
 */
export type RequestContext = InboundRequestContext;

/**
 * An ACP agent. Implement it and hand it to {@link AgentSideConnection}; a
 * {@link ClientSideConnection} implements it by sending each call to the agent.
 *
 * Optional methods answer `-32601` (method not found) when absent. Methods whose result
 * is empty may return nothing; `{}` is sent.
 */
export interface Agent {
  /** `initialize`: negotiate the protocol version and exchange capabilities. */
  initialize(
    params: schema.InitializeRequest,
    context?: RequestContext,
  ): MaybePromise<schema.InitializeResponse>;
  /** `session/new`: create a session. */
  newSession(
    params: schema.NewSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.NewSessionResponse>;
  /** `session/load`: restore a session, replaying its history as updates before answering. */
  loadSession?(
    params: schema.LoadSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.LoadSessionResponse | void>;
  /** `session/list`: list sessions, one page at a time. */
  listSessions?(
    params: schema.ListSessionsRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ListSessionsResponse>;
  /** `session/delete`: forget a session. */
  deleteSession?(
    params: schema.DeleteSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.DeleteSessionResponse | void>;
  /** `session/resume`: restore a session without replaying its history. */
  resumeSession?(
    params: schema.ResumeSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ResumeSessionResponse>;
  /** `session/close`: cancel a session's work and release it. */
  closeSession?(
    params: schema.CloseSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CloseSessionResponse | void>;
  /** `session/set_mode`: switch a session's mode. */
  setSessionMode?(
    params: schema.SetSessionModeRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SetSessionModeResponse | void>;
  /** `session/set_config_option`: change a config option; answer with all options. */
  setSessionConfigOption?(
    params: schema.SetSessionConfigOptionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SetSessionConfigOptionResponse>;
  /** `authenticate`: run an in-protocol authentication method. */
  authenticate(
    params: schema.AuthenticateRequest,
    context?: RequestContext,
  ): MaybePromise<schema.AuthenticateResponse | void>;
  /** `logout`: end the authenticated state. */
  logout?(
    params: schema.LogoutRequest,
    context?: RequestContext,
  ): MaybePromise<schema.LogoutResponse | void>;
  /** `session/prompt`: run one prompt turn, streaming updates, and say why it ended. */
  prompt(
    params: schema.PromptRequest,
    context?: RequestContext,
  ): MaybePromise<schema.PromptResponse>;
  /** `session/cancel` (notification): stop the session's running turn. */
  cancel(params: schema.CancelNotification): MaybePromise<void>;

  /** `session/fork` (unstable): copy a session into a new one. @experimental */
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
  ): MaybePromise<schema.SetSessionTitleResponse>;
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

  /** Any other request (extension methods are named with a leading `_`). */
  extMethod?(
    method: string,
    params: Record<string, unknown>,
    context?: RequestContext,
  ): MaybePromise<Record<string, unknown>>;
  /** Any other notification. */
  extNotification?(method: string, params: Record<string, unknown>): MaybePromise<void>;
}

/** The name of the {@link Agent} method handling each agent-side wire method. */
export const AGENT_HANDLER_NAMES = {
  initialize: "initialize",
  authenticate: "authenticate",
  logout: "logout",
  "session/new": "newSession",
  "session/load": "loadSession",
  "session/list": "listSessions",
  "session/delete": "deleteSession",
  "session/resume": "resumeSession",
  "session/close": "closeSession",
  "session/set_mode": "setSessionMode",
  "session/set_config_option": "setSessionConfigOption",
  "session/prompt": "prompt",
  "session/cancel": "cancel",
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
} as const;
