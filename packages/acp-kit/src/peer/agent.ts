/**
 * The {@link Agent} interface: what an agent implements, and what a
 * {@link ClientSideConnection} offers a client.
 *
 * @module
 */
import type { InboundRequestContext } from "../jsonrpc/inbound.js";
import type { MaybePromise } from "../base/messages.js";
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

  /** `nes/start` (unstable): start a next-edit-suggestion session. @experimental */
  unstable_startNes?(
    params: schema.StartNesRequest,
    context?: RequestContext,
  ): MaybePromise<schema.StartNesResponse>;
  /** `nes/suggest` (unstable): suggest the next edits at a position. @experimental */
  unstable_suggestNes?(
    params: schema.SuggestNesRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SuggestNesResponse>;
  /** `nes/close` (unstable): end a next-edit-suggestion session. @experimental */
  unstable_closeNes?(
    params: schema.CloseNesRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CloseNesResponse | void>;
  /** `nes/accept` notification (unstable): the user took a suggestion. @experimental */
  unstable_acceptNes?(params: schema.AcceptNesNotification): MaybePromise<void>;
  /** `nes/reject` notification (unstable): the user dismissed a suggestion. @experimental */
  unstable_rejectNes?(params: schema.RejectNesNotification): MaybePromise<void>;
  /** `document/didOpen` notification (unstable). @experimental */
  unstable_didOpenDocument?(params: schema.DidOpenDocumentNotification): MaybePromise<void>;
  /** `document/didChange` notification (unstable). @experimental */
  unstable_didChangeDocument?(params: schema.DidChangeDocumentNotification): MaybePromise<void>;
  /** `document/didClose` notification (unstable). @experimental */
  unstable_didCloseDocument?(params: schema.DidCloseDocumentNotification): MaybePromise<void>;
  /** `document/didSave` notification (unstable). @experimental */
  unstable_didSaveDocument?(params: schema.DidSaveDocumentNotification): MaybePromise<void>;
  /** `document/didFocus` notification (unstable). @experimental */
  unstable_didFocusDocument?(params: schema.DidFocusDocumentNotification): MaybePromise<void>;

  /**
   * `session/close` under its 0.16 to 0.19 name; used when {@link Agent.closeSession} is absent.
   * @deprecated Implement {@link Agent.closeSession}.
   */
  unstable_closeSession?(
    params: schema.CloseSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CloseSessionResponse | void>;
  /**
   * `session/resume` under its 0.12 to 0.19 name; used when {@link Agent.resumeSession} is absent.
   * @deprecated Implement {@link Agent.resumeSession}.
   */
  unstable_resumeSession?(
    params: schema.ResumeSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ResumeSessionResponse>;
  /**
   * `session/list` under its 0.12 to 0.14 name; used when {@link Agent.listSessions} is absent.
   * @deprecated Implement {@link Agent.listSessions}.
   */
  unstable_listSessions?(
    params: schema.ListSessionsRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ListSessionsResponse>;
  /**
   * `session/delete` under its 0.23 name; used when {@link Agent.deleteSession} is absent.
   * @deprecated Implement {@link Agent.deleteSession}.
   */
  unstable_deleteSession?(
    params: schema.DeleteSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.DeleteSessionResponse | void>;
  /**
   * `session/set_config_option` under its 0.13 name; used when
   * {@link Agent.setSessionConfigOption} is absent.
   * @deprecated Implement {@link Agent.setSessionConfigOption}.
   */
  unstable_setSessionConfigOption?(
    params: schema.SetSessionConfigOptionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SetSessionConfigOptionResponse>;
  /**
   * `session/fork` under its 0.10 name; used when {@link Agent.unstable_forkSession} is absent.
   * @deprecated Implement {@link Agent.unstable_forkSession}.
   */
  forkSession?(
    params: schema.ForkSessionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ForkSessionResponse>;
  /**
   * `logout` under its 0.18 to 0.21 name; used when {@link Agent.logout} is absent.
   * @deprecated Implement {@link Agent.logout}.
   */
  unstable_logout?(
    params: schema.LogoutRequest,
    context?: RequestContext,
  ): MaybePromise<schema.LogoutResponse | void>;
  /**
   * `session/set_model`, which the protocol dropped after SDK 0.23 (a model is now a
   * session config option); classic clients may still send it.
   * @deprecated Offer the model as a config option and implement
   * {@link Agent.setSessionConfigOption}.
   */
  unstable_setSessionModel?(
    params: schema.SetSessionModelRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SetSessionModelResponse | void>;
  /**
   * `session/set_model` under its 0.4 to 0.10 name; used when
   * {@link Agent.unstable_setSessionModel} is absent.
   * @deprecated Offer the model as a config option and implement
   * {@link Agent.setSessionConfigOption}.
   */
  setSessionModel?(
    params: schema.SetSessionModelRequest,
    context?: RequestContext,
  ): MaybePromise<schema.SetSessionModelResponse | void>;

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
  "nes/start": "unstable_startNes",
  "nes/suggest": "unstable_suggestNes",
  "nes/close": "unstable_closeNes",
  "nes/accept": "unstable_acceptNes",
  "nes/reject": "unstable_rejectNes",
  "document/didOpen": "unstable_didOpenDocument",
  "document/didChange": "unstable_didChangeDocument",
  "document/didClose": "unstable_didCloseDocument",
  "document/didSave": "unstable_didSaveDocument",
  "document/didFocus": "unstable_didFocusDocument",
} as const;

/**
 * The names classic releases (SDK 0.4 to 1.9) gave the {@link Agent} method handling a
 * wire method, tried in order when today's name is absent: an agent written on 0.19 that
 * implements only `unstable_closeSession` still receives `session/close`.
 */
export const AGENT_CLASSIC_HANDLER_NAMES: Readonly<Record<string, readonly string[]>> = {
  "session/close": ["unstable_closeSession"],
  "session/resume": ["unstable_resumeSession"],
  "session/list": ["unstable_listSessions"],
  "session/delete": ["unstable_deleteSession"],
  "session/set_config_option": ["unstable_setSessionConfigOption"],
  "session/fork": ["forkSession"],
  logout: ["unstable_logout"],
  "session/set_model": ["unstable_setSessionModel", "setSessionModel"],
};
