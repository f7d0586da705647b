/**
 * The v2 {@link ClientSideConnection}: the client's end of an ACP v2 connection.
 *
 * @module
 */
import type { MessageObserver, SendRequestOptions } from "../jsonrpc/connection.js";
import { RequestError } from "../jsonrpc/errors.js";
import { isPlainObject, type Stream } from "../base/messages.js";
import type { ResultShape } from "../jsonrpc/pending.js";
import { AcpConnectionCore, type AcpConnectionOptions } from "../peer/acp-connection.js";
import { buildRouter } from "../peer/router.js";
import {
  METHOD_SPECS,
  type AgentNotificationTypes,
  type AgentRequestTypes,
} from "../schema/v2/methods.gen.js";
import type * as schema from "../schema/v2/types.gen.js";
import { DEF_VALIDATORS } from "../schema/v2/validators.gen.js";
import type { Transport } from "../transport/transport.js";
import { CLIENT_HANDLER_NAMES, type Client } from "./agent.js";
import { ClientInitialization, notInitialized, V2 } from "./initialization.js";

/** `-32002` (resource not found): for `session/close` and `session/delete`, already done. */
const RESOURCE_NOT_FOUND = -32002;

/** True for an answer that names a protocol version other than v2 (a v1 answer, say). */
function otherVersion(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    typeof value.protocolVersion === "number" &&
    value.protocolVersion !== V2
  );
}

/**
 * How the `initialize` answer is checked: an answer naming another protocol version is
 * let through, to be refused by its version (`-32600`) rather than by its v1 shape (a
 * v1 answer has no `info`); any other answer must be a valid v2 `InitializeResponse`.
 */
const INITIALIZE_RESULT: ResultShape = {
  validate: (value, path) => otherVersion(value) || DEF_VALIDATORS.InitializeResponse(value, path),
};

/**
 * The client's end of an ACP v2 connection: routes the agent's requests to your v2
 * {@link Client} (once `initialize` succeeded; the agent's requests during it wait) and
 * sends each v2 call to the agent. Like the official client, calls made before
 * `initialize` reject `-32600` without being sent, calls made while it is in flight are
 * sent once it succeeded, and `initialize` cannot be repeated after another request.
 *
 * ```ts
 * import { ClientSideConnection } from "acp-kit/v2";
 * const agent = new ClientSideConnection(() => myClient, ndJsonStream(stdin, stdout));
 * await agent.initialize({ protocolVersion: 2, info: { name: "my-editor", version: "1.0.0" } });
 * const { sessionId } = await agent.newSession({ cwd: process.cwd() });
 * ```
 */
export class ClientSideConnection {
  private readonly core: AcpConnectionCore;
  private readonly initialization: { guard?: ClientInitialization } = {};
  /** Set once a request other than `initialize` was sent: `initialize` is final then. */
  private otherRequestSent = false;
  private exchange:
    | { readonly request: schema.InitializeRequest; readonly response: schema.InitializeResponse }
    | undefined;

  /**
   * Connects your v2 client to an agent over `stream`.
   *
   * @param toClient - Creates your client; it receives this connection (the agent).
   * @param stream - The message stream or transport, usually `ndJsonStream(agent.stdin, agent.stdout)`.
   * @param options - Logger, default request timeout and the engine's other options.
   */
  constructor(
    toClient: (agent: ClientSideConnection) => Client,
    stream: Stream | Transport,
    options?: AcpConnectionOptions,
  ) {
    const holder: { client?: Client } = {};
    this.core = new AcpConnectionCore(
      stream,
      "agent",
      () => buildRouter("client", holder.client ?? {}, CLIENT_HANDLER_NAMES, {}, METHOD_SPECS),
      options,
      METHOD_SPECS,
      (inner) => (this.initialization.guard = new ClientInitialization(inner)),
    );
    try {
      holder.client = toClient(this);
    } catch (error) {
      this.core.rpc.close(error);
      throw error;
    }
  }

  /** The last successful `initialize`: what was asked and what the agent answered. */
  get initialized():
    | { readonly request: schema.InitializeRequest; readonly response: schema.InitializeResponse }
    | undefined {
    return this.exchange;
  }

  /**
   * `initialize`: agrees on v2 and exchanges capabilities. An answer with another
   * `protocolVersion` (a v1 answer too, whatever its shape) rejects with `-32600` "The v2
   * API only supports protocol version 2"; any other answer that is not a valid v2 one
   * rejects with a `ConnectionError("invalid_response")`. Either way the connection stays
   * open and `initialize` may be sent again.
   */
  async initialize(
    params: schema.InitializeRequest,
    options?: SendRequestOptions,
  ): Promise<schema.InitializeResponse> {
    const guard = this.guard();
    if (guard.phase === "initialized" && this.otherRequestSent)
      throw RequestError.invalidRequest(
        "ACP v2 initialize must not be repeated after other requests",
      );
    guard.begin();
    let response: schema.InitializeResponse;
    try {
      response = await this.core.rpc.request<schema.InitializeResponse>(
        "initialize",
        params,
        options,
        INITIALIZE_RESULT,
      );
      if (response.protocolVersion !== V2)
        throw RequestError.invalidRequest(
          { expectedProtocolVersion: V2, receivedProtocolVersion: response.protocolVersion },
          `The v2 API only supports protocol version ${V2}`,
        );
    } catch (error) {
      guard.end(false, this.exchange !== undefined);
      throw error;
    }
    this.exchange = { request: params, response };
    guard.end(true, true);
    return response;
  }

  /**
   * Takes an `initialize` exchange that happened before this connection existed (see
   * `negotiate()`) as this connection's own.
   *
   * @internal
   */
  adoptInitialization(
    request: schema.InitializeRequest,
    response: schema.InitializeResponse,
  ): void {
    const guard = this.guard();
    guard.begin();
    this.exchange = { request, response };
    guard.end(true, true);
  }

  /** `auth/login`: authenticates with one of the agent's `authMethods`. */
  login(
    params: schema.LoginAuthRequest,
    options?: SendRequestOptions,
  ): Promise<schema.LoginAuthResponse> {
    return this.send("auth/login", params, options);
  }

  /** `auth/logout`: makes the agent forget its credentials. */
  logout(
    params: schema.LogoutAuthRequest = {},
    options?: SendRequestOptions,
  ): Promise<schema.LogoutAuthResponse> {
    return this.send("auth/logout", params, options);
  }

  /** `session/new`: creates a session. */
  newSession(
    params: schema.NewSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.NewSessionResponse> {
    return this.send("session/new", params, options);
  }

  /** `session/list`: lists sessions, one page at a time. */
  listSessions(
    params: schema.ListSessionsRequest = {},
    options?: SendRequestOptions,
  ): Promise<schema.ListSessionsResponse> {
    return this.send("session/list", params, options);
  }

  /**
   * `session/resume`: attaches to a session; with `replayFrom: { type: "start" }` its
   * history arrives again as updates, then a snapshot of its state, before this resolves.
   */
  resumeSession(
    params: schema.ResumeSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ResumeSessionResponse> {
    return this.send("session/resume", params, options);
  }

  /** `session/close`: cancels a session's work and releases it; closing twice succeeds. */
  closeSession(
    params: schema.CloseSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.CloseSessionResponse> {
    return alreadyDone(this.send("session/close", params, options));
  }

  /** `session/delete`: forgets a session; deleting twice succeeds. */
  deleteSession(
    params: schema.DeleteSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.DeleteSessionResponse> {
    return alreadyDone(this.send("session/delete", params, options));
  }

  /** `session/set_config_option`: changes one of the session's configuration options. */
  setSessionConfigOption(
    params: schema.SetSessionConfigOptionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SetSessionConfigOptionResponse> {
    return this.send("session/set_config_option", params, options);
  }

  /**
   * `session/prompt`: inserts a user message; resolves with its `messageId` once the agent
   * inserted it (a prompt the agent holds resolves later, or rejects `-32800` on cancel).
   * The turn's progress and its end arrive as `state_update`s.
   */
  prompt(
    params: schema.PromptRequest,
    options?: SendRequestOptions,
  ): Promise<schema.PromptResponse> {
    return this.send("session/prompt", params, options);
  }

  /** `session/cancel`: stops the session's foreground work. */
  cancel(params: schema.CancelSessionNotification): Promise<void> {
    return this.sendNotification("session/cancel", params);
  }

  /** `tool_call/cancel`: stops one tool call that advertised `capabilities.cancel`. */
  cancelToolCall(
    params: schema.CancelToolCallRequest,
    options?: SendRequestOptions,
  ): Promise<schema.CancelToolCallResponse> {
    return this.send("tool_call/cancel", params, options);
  }

  /** `terminal/cancel`: stops one terminal's process that advertised `capabilities.cancel`. */
  cancelTerminal(
    params: schema.CancelTerminalRequest,
    options?: SendRequestOptions,
  ): Promise<schema.CancelTerminalResponse> {
    return this.send("terminal/cancel", params, options);
  }

  /** `session/fork` (unstable). @experimental */
  unstable_forkSession(
    params: schema.ForkSessionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ForkSessionResponse> {
    return this.send("session/fork", params, options);
  }

  /** `session/status` (unstable). @experimental */
  unstable_sessionStatus(
    params: schema.SessionStatusRequest,
    options?: SendRequestOptions,
  ): Promise<schema.SessionStatusResponse> {
    return this.send("session/status", params, options);
  }

  /** `auth/status` (unstable). @experimental */
  unstable_authStatus(
    params: schema.AuthStatusRequest = {},
    options?: SendRequestOptions,
  ): Promise<schema.AuthStatusResponse> {
    return this.send("auth/status", params, options);
  }

  /** `mcp/message` notification to the agent (unstable). @experimental */
  unstable_messageMcp(params: schema.MessageMcpNotification): Promise<void> {
    return this.sendNotification("mcp/message", params);
  }

  /**
   * Sends any request to the agent. v2 methods are typed and their results validated;
   * other names (extension methods start with `_`) are sent as given.
   */
  request<M extends keyof AgentRequestTypes>(
    method: M,
    params: AgentRequestTypes[M]["params"],
    options?: SendRequestOptions,
  ): Promise<AgentRequestTypes[M]["result"]>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    // `initialize` by name is the same call, with the same checks and bookkeeping.
    if (method === "initialize")
      return this.initialize(params as schema.InitializeRequest, options);
    return this.send(method, params, options);
  }

  /** Sends any notification to the agent. */
  notify<M extends keyof AgentNotificationTypes>(
    method: M,
    params: AgentNotificationTypes[M],
  ): Promise<void>;
  notify(method: string, params?: unknown): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    return this.sendNotification(method, params);
  }

  /** Sends an extension request. */
  extMethod(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.send(method, params);
  }

  /** Sends an extension notification. */
  extNotification(method: string, params: Record<string, unknown>): Promise<void> {
    return this.sendNotification(method, params);
  }

  /** Sees every message in and out, in order. Returns a function that stops observing. */
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

  /**
   * Sends a request once the connection is initialized, as the official client does:
   * refused `-32600` before any `initialize` (nothing is sent), held while one is in
   * flight, sent at once after.
   */
  private send<T>(method: string, params: unknown, options?: SendRequestOptions): Promise<T> {
    const waiting = this.ready(method);
    const go = (): Promise<T> => {
      this.otherRequestSent = true;
      return this.core.request<T>(method, params, options);
    };
    return waiting === undefined ? go() : waiting.then(go);
  }

  /** Sends a notification once the connection is initialized (see `send`). */
  private sendNotification(method: string, params: unknown): Promise<void> {
    const waiting = this.ready(method);
    const go = (): Promise<void> => this.core.notify(method, params);
    return waiting === undefined ? go() : waiting.then(go);
  }

  /** `undefined` when initialized; else what to wait for (rejecting when it failed). */
  private ready(method: string): Promise<void> | undefined {
    const guard = this.guard();
    if (guard.phase === "initialized") return undefined;
    if (guard.phase === "initializing") return guard.settled().then(() => this.ready(method));
    return Promise.reject(notInitialized(method));
  }

  private guard(): ClientInitialization {
    const guard = this.initialization.guard;
    if (guard === undefined) throw new Error("the connection is not set up yet");
    return guard;
  }
}

/** Answers `{}` when the agent says the session is already gone (`-32002`). */
async function alreadyDone<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof RequestError && error.code === RESOURCE_NOT_FOUND) return {} as T;
    throw error;
  }
}
