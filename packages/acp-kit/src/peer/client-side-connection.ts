/**
 * {@link ClientSideConnection}: the client's end of a connection.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import type { MessageObserver } from "../jsonrpc/connection.js";
import type { Stream } from "../base/messages.js";
import type { Transport } from "../transport/transport.js";
import type { AgentNotificationTypes, AgentRequestTypes } from "../schema/methods.gen.js";
import type * as schema from "../schema/types.gen.js";
import { AcpConnectionCore, type AcpConnectionOptions } from "./acp-connection.js";
import type { Agent } from "./agent.js";
import { CLIENT_CLASSIC_HANDLER_NAMES, CLIENT_HANDLER_NAMES, type Client } from "./client.js";
import { buildRouter } from "./router.js";

/**
 * The client's end of an ACP connection: routes the agent's requests to your
 * {@link Client} and implements {@link Agent} by sending each call to the agent.
 *
 * ```ts
 * const agent = new ClientSideConnection(() => myClient, ndJsonStream(stdin, stdout));
 * await agent.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
 * ```
 */
export class ClientSideConnection implements Agent {
  private readonly core: AcpConnectionCore;

  /**
   * Connects your client to an agent over `stream`.
   *
   * @param toClient - Creates your client; it receives this connection (the agent).
   * @param stream - The message stream or transport, usually `ndJsonStream(agent.stdin, agent.stdout)`.
   * @param options - Logger and default request timeout.
   */
  constructor(
    toClient: (agent: Agent) => Client,
    stream: Stream | Transport,
    options?: AcpConnectionOptions,
  ) {
    const holder: { client?: Client } = {};
    this.core = new AcpConnectionCore(
      stream,
      "agent",
      () =>
        buildRouter(
          "client",
          holder.client ?? {},
          CLIENT_HANDLER_NAMES,
          CLIENT_CLASSIC_HANDLER_NAMES,
        ),
      options,
    );
    try {
      holder.client = toClient(this);
    } catch (error) {
      // Nobody could use or close this connection: close it before reporting the error.
      this.core.rpc.close(error);
      throw error;
    }
  }

  /** `initialize`: negotiates the protocol version and exchanges capabilities. */
  initialize(
    params: schema.InitializeRequest,
    options?: SendRequestOptions,
  ): Promise<schema.InitializeResponse> {
    return this.core.request("initialize", params, options);
  }

  /** `session/new`: creates a session. */
  newSession(
    params: schema.NewSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.NewSessionResponse> {
    return this.core.request("session/new", params, options);
  }

  /** `session/load`: restores a session; its history arrives as updates before this resolves. */
  loadSession(
    params: schema.LoadSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.LoadSessionResponse> {
    return this.core.request("session/load", params, options);
  }

  /** `session/list`: one page of sessions (needs `sessionCapabilities.list`). */
  listSessions(
    params: schema.ListSessionsRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ListSessionsResponse> {
    return this.core.request("session/list", params, options);
  }

  /** `session/delete`: forgets a session (needs `sessionCapabilities.delete`). */
  deleteSession(
    params: schema.DeleteSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.DeleteSessionResponse> {
    return this.core.request("session/delete", params, options);
  }

  /** `session/resume`: restores a session without history (needs `sessionCapabilities.resume`). */
  resumeSession(
    params: schema.ResumeSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ResumeSessionResponse> {
    return this.core.request("session/resume", params, options);
  }

  /** `session/close`: cancels and releases a session (needs `sessionCapabilities.close`). */
  closeSession(
    params: schema.CloseSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.CloseSessionResponse> {
    return this.core.request("session/close", params, options);
  }

  /** `session/set_mode`: switches the session's mode. */
  setSessionMode(
    params: schema.SetSessionModeRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SetSessionModeResponse> {
    return this.core.request("session/set_mode", params, options);
  }

  /** `session/set_config_option`: changes a config option; resolves with all options. */
  setSessionConfigOption(
    params: schema.SetSessionConfigOptionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SetSessionConfigOptionResponse> {
    return this.core.request("session/set_config_option", params, options);
  }

  /** `authenticate`: runs one of the agent's in-protocol authentication methods. */
  authenticate(
    params: schema.AuthenticateRequest,
    options?: SendRequestOptions,
  ): Promise<schema.AuthenticateResponse> {
    return this.core.request("authenticate", params, options);
  }

  /** `logout`: ends the authenticated state (needs `agentCapabilities.auth.logout`). */
  logout(
    params: schema.LogoutRequest = {},
    options?: SendRequestOptions,
  ): Promise<schema.LogoutResponse> {
    return this.core.request("logout", params, options);
  }

  /** `session/prompt`: runs one prompt turn; updates stream to `sessionUpdate` meanwhile. */
  prompt(
    params: schema.PromptRequest,
    options?: SendRequestOptions,
  ): Promise<schema.PromptResponse> {
    return this.core.request("session/prompt", params, options);
  }

  /** `session/cancel`: asks the agent to stop the session's running turn. */
  cancel(params: schema.CancelNotification): Promise<void> {
    return this.core.notify("session/cancel", params);
  }

  /** `session/fork` (unstable). @experimental */
  unstable_forkSession(
    params: schema.ForkSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ForkSessionResponse> {
    return this.core.request("session/fork", params, options);
  }

  /** `session/archive` (unstable). @experimental */
  unstable_archiveSession(
    params: schema.ArchiveSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ArchiveSessionResponse> {
    return this.core.request("session/archive", params, options);
  }

  /** `session/unarchive` (unstable). @experimental */
  unstable_unarchiveSession(
    params: schema.UnarchiveSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.UnarchiveSessionResponse> {
    return this.core.request("session/unarchive", params, options);
  }

  /** `session/status` (unstable). @experimental */
  unstable_sessionStatus(
    params: schema.SessionStatusRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SessionStatusResponse> {
    return this.core.request("session/status", params, options);
  }

  /** `session/set_title` (unstable). @experimental */
  unstable_setSessionTitle(
    params: schema.SetSessionTitleRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SetSessionTitleResponse> {
    return this.core.request("session/set_title", params, options);
  }

  /** `auth/status` (unstable). @experimental */
  unstable_authStatus(
    params: schema.AuthStatusRequest,
    options?: SendRequestOptions,
  ): Promise<schema.AuthStatusResponse> {
    return this.core.request("auth/status", params, options);
  }

  /** `providers/list` (unstable). @experimental */
  unstable_listProviders(
    params: schema.ListProvidersRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ListProvidersResponse> {
    return this.core.request("providers/list", params, options);
  }

  /** `providers/set` (unstable). @experimental */
  unstable_setProvider(
    params: schema.SetProviderRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SetProviderResponse> {
    return this.core.request("providers/set", params, options);
  }

  /** `providers/disable` (unstable). @experimental */
  unstable_disableProvider(
    params: schema.DisableProviderRequest,
    options?: SendRequestOptions,
  ): Promise<schema.DisableProviderResponse> {
    return this.core.request("providers/disable", params, options);
  }

  /** `mcp/message` notification to the agent (unstable). @experimental */
  unstable_messageMcp(params: schema.MessageMcpNotification): Promise<void> {
    return this.core.notify("mcp/message", params);
  }

  /** `nes/start` (unstable): starts a next-edit-suggestion session. @experimental */
  unstable_startNes(
    params: schema.StartNesRequest,
    options?: SendRequestOptions,
  ): Promise<schema.StartNesResponse> {
    return this.core.request("nes/start", params, options);
  }

  /** `nes/suggest` (unstable): asks for the next edits at a position. @experimental */
  unstable_suggestNes(
    params: schema.SuggestNesRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SuggestNesResponse> {
    return this.core.request("nes/suggest", params, options);
  }

  /** `nes/close` (unstable): ends a next-edit-suggestion session. @experimental */
  unstable_closeNes(
    params: schema.CloseNesRequest,
    options?: SendRequestOptions,
  ): Promise<schema.CloseNesResponse> {
    return this.core.request("nes/close", params, options);
  }

  /** `nes/accept` notification (unstable): the user took a suggestion. @experimental */
  unstable_acceptNes(params: schema.AcceptNesNotification): Promise<void> {
    return this.core.notify("nes/accept", params);
  }

  /** `nes/reject` notification (unstable): the user dismissed a suggestion. @experimental */
  unstable_rejectNes(params: schema.RejectNesNotification): Promise<void> {
    return this.core.notify("nes/reject", params);
  }

  /** `document/didOpen` notification (unstable). @experimental */
  unstable_didOpenDocument(params: schema.DidOpenDocumentNotification): Promise<void> {
    return this.core.notify("document/didOpen", params);
  }

  /** `document/didChange` notification (unstable). @experimental */
  unstable_didChangeDocument(params: schema.DidChangeDocumentNotification): Promise<void> {
    return this.core.notify("document/didChange", params);
  }

  /** `document/didClose` notification (unstable). @experimental */
  unstable_didCloseDocument(params: schema.DidCloseDocumentNotification): Promise<void> {
    return this.core.notify("document/didClose", params);
  }

  /** `document/didSave` notification (unstable). @experimental */
  unstable_didSaveDocument(params: schema.DidSaveDocumentNotification): Promise<void> {
    return this.core.notify("document/didSave", params);
  }

  /** `document/didFocus` notification (unstable). @experimental */
  unstable_didFocusDocument(params: schema.DidFocusDocumentNotification): Promise<void> {
    return this.core.notify("document/didFocus", params);
  }

  /**
   * Sends `session/close` (its 0.16 to 0.19 name).
   * @deprecated Use {@link ClientSideConnection.closeSession}.
   */
  unstable_closeSession(
    params: schema.CloseSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.CloseSessionResponse> {
    return this.core.request("session/close", params, options);
  }

  /**
   * Sends `session/resume` (its 0.12 to 0.19 name).
   * @deprecated Use {@link ClientSideConnection.resumeSession}.
   */
  unstable_resumeSession(
    params: schema.ResumeSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ResumeSessionResponse> {
    return this.core.request("session/resume", params, options);
  }

  /**
   * Sends `session/list` (its 0.12 to 0.14 name).
   * @deprecated Use {@link ClientSideConnection.listSessions}.
   */
  unstable_listSessions(
    params: schema.ListSessionsRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ListSessionsResponse> {
    return this.core.request("session/list", params, options);
  }

  /**
   * Sends `session/delete` (its 0.23 name).
   * @deprecated Use {@link ClientSideConnection.deleteSession}.
   */
  unstable_deleteSession(
    params: schema.DeleteSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.DeleteSessionResponse> {
    return this.core.request("session/delete", params, options);
  }

  /**
   * Sends `session/set_config_option` (its 0.13 name).
   * @deprecated Use {@link ClientSideConnection.setSessionConfigOption}.
   */
  unstable_setSessionConfigOption(
    params: schema.SetSessionConfigOptionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SetSessionConfigOptionResponse> {
    return this.core.request("session/set_config_option", params, options);
  }

  /**
   * Sends `session/fork` (its 0.10 name).
   * @deprecated Use {@link ClientSideConnection.unstable_forkSession}.
   */
  forkSession(
    params: schema.ForkSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ForkSessionResponse> {
    return this.core.request("session/fork", params, options);
  }

  /**
   * Sends `logout` (its 0.18 to 0.21 name).
   * @deprecated Use {@link ClientSideConnection.logout}.
   */
  unstable_logout(
    params: schema.LogoutRequest = {},
    options?: SendRequestOptions,
  ): Promise<schema.LogoutResponse> {
    return this.core.request("logout", params, options);
  }

  /**
   * Sends `session/set_model`, which the protocol dropped after SDK 0.23; only agents
   * built on those releases answer it.
   * @deprecated Set the model through its config option with
   * {@link ClientSideConnection.setSessionConfigOption}.
   */
  unstable_setSessionModel(
    params: schema.SetSessionModelRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SetSessionModelResponse> {
    return this.core.request("session/set_model", params, options);
  }

  /**
   * Sends `session/set_model` (its 0.4 to 0.10 name).
   * @deprecated Set the model through its config option with
   * {@link ClientSideConnection.setSessionConfigOption}.
   */
  setSessionModel(
    params: schema.SetSessionModelRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SetSessionModelResponse> {
    return this.core.request("session/set_model", params, options);
  }

  /**
   * Sends any request to the agent. Protocol methods are typed and their results
   * validated; other names (extension methods start with `_`) are sent as given.
   */
  request<M extends keyof AgentRequestTypes>(
    method: M,
    params: AgentRequestTypes[M]["params"],
    options?: SendRequestOptions,
  ): Promise<AgentRequestTypes[M]["result"]>;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the classic signature
  request<Response = unknown, Params = unknown>(
    method: string,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    return this.core.request(method, params, options);
  }

  /** Sends any notification to the agent. */
  notify<M extends keyof AgentNotificationTypes>(
    method: M,
    params: AgentNotificationTypes[M],
  ): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the classic signature
  notify<Params = unknown>(method: string, params?: Params): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    return this.core.notify(method, params);
  }

  /** Sends an extension request (the classic spelling of {@link ClientSideConnection.request}). */
  extMethod(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.core.request(method, params);
  }

  /** Sends an extension notification (the classic spelling of {@link ClientSideConnection.notify}). */
  extNotification(method: string, params: Record<string, unknown>): Promise<void> {
    return this.core.notify(method, params);
  }

  /**
   * Sees every message in and out, in order (`direction` `"in"` or `"out"`, the message
   * object). Returns a function that stops observing. Listeners must not throw or block.
   */
  observe(listener: MessageObserver): () => void {
    return this.core.observe(listener);
  }

  /** Aborts when the connection closes. */
  get signal(): AbortSignal {
    return this.core.rpc.signal;
  }

  /** Resolves when the connection closes (never rejects). */
  get closed(): Promise<void> {
    return this.core.rpc.closed;
  }

  /** Closes the connection: pending requests reject, running handlers are aborted. */
  close(reason?: unknown): void {
    this.core.rpc.close(reason);
  }
}
