/**
 * The v2 {@link AgentSideConnection}: the agent's end of an ACP v2 connection.
 *
 * @module
 */
import type { MessageObserver, SendRequestOptions } from "../jsonrpc/connection.js";
import type { Stream } from "../base/messages.js";
import { AcpConnectionCore, type AcpConnectionOptions } from "../peer/acp-connection.js";
import { buildRouter } from "../peer/router.js";
import {
  METHOD_SPECS,
  type ClientNotificationTypes,
  type ClientRequestTypes,
} from "../schema/v2/methods.gen.js";
import type * as schema from "../schema/v2/types.gen.js";
import type { Transport } from "../transport/transport.js";
import { AGENT_HANDLER_NAMES, type Agent } from "./agent.js";
import { AgentInitialization } from "./initialization.js";

/**
 * The agent's end of an ACP v2 connection: routes the client's requests to your v2
 * {@link Agent} under v2's initialization rules, and offers the calls a v2 agent makes
 * to its client. v2 has no client file system or terminals: an agent reports its own
 * terminals as session updates (see {@link AgentSession}).
 *
 * ```ts
 * import { AgentSideConnection } from "acp-kit/v2";
 * const connection = new AgentSideConnection((client) => new MyAgent(client), stream);
 * ```
 */
export class AgentSideConnection {
  private readonly core: AcpConnectionCore;
  private readonly initialization: { guard?: AgentInitialization } = {};

  /**
   * Connects your v2 agent to a client over `stream`.
   *
   * @param toAgent - Creates your agent; it receives this connection to call the client with.
   * @param stream - The message stream or transport, usually `ndJsonStream(stdout, stdin)`.
   * @param options - Logger, default request timeout and the engine's other options.
   */
  constructor(
    toAgent: (connection: AgentSideConnection) => Agent,
    stream: Stream | Transport,
    options?: AcpConnectionOptions,
  ) {
    const holder: { agent?: Agent } = {};
    this.core = new AcpConnectionCore(
      stream,
      "client",
      () => buildRouter("agent", holder.agent ?? {}, AGENT_HANDLER_NAMES, {}, METHOD_SPECS),
      options,
      METHOD_SPECS,
      (inner) => (this.initialization.guard = new AgentInitialization(inner)),
    );
    try {
      holder.agent = toAgent(this);
    } catch (error) {
      this.core.rpc.close(error);
      throw error;
    }
  }

  /**
   * The client's `initialize` request and this agent's answer, once one succeeded
   * (`undefined` before). The latest, when the client repeated it.
   */
  get initialized():
    | { readonly request: schema.InitializeRequest; readonly response: schema.InitializeResponse }
    | undefined {
    return this.initialization.guard?.exchange;
  }

  /** `session/update`: sends one update about a session to the client. */
  sessionUpdate(params: schema.UpdateSessionNotification): Promise<void> {
    return this.core.notify("session/update", params);
  }

  /** `session/request_permission`: asks the client to choose among options. */
  requestPermission(
    params: schema.RequestPermissionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.RequestPermissionResponse> {
    return this.core.request("session/request_permission", params, options);
  }

  /** `elicitation/create`: asks the user for structured input, or to visit a URL. */
  createElicitation(
    params: schema.CreateElicitationRequest,
    options?: SendRequestOptions,
  ): Promise<schema.CreateElicitationResponse> {
    return this.core.request("elicitation/create", params, options);
  }

  /** `elicitation/complete`: tells the client a URL elicitation has finished. */
  completeElicitation(params: schema.CompleteElicitationNotification): Promise<void> {
    return this.core.notify("elicitation/complete", params);
  }

  /** `mcp/message` request to the client (unstable). @experimental */
  unstable_messageMcp(
    params: schema.MessageMcpRequest,
    options?: SendRequestOptions,
  ): Promise<schema.MessageMcpResponse> {
    return this.core.request("mcp/message", params, options);
  }

  /** `auth/status_update` notification to the client (unstable). @experimental */
  unstable_authStatusUpdate(params: schema.AuthStatusUpdateNotification): Promise<void> {
    return this.core.notify("auth/status_update", params);
  }

  /**
   * Sends any request to the client. v2 methods are typed and their results validated;
   * other names (extension methods start with `_`) are sent as given.
   */
  request<M extends keyof ClientRequestTypes>(
    method: M,
    params: ClientRequestTypes[M]["params"],
    options?: SendRequestOptions,
  ): Promise<ClientRequestTypes[M]["result"]>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    return this.core.request(method, params, options);
  }

  /** Sends any notification to the client. */
  notify<M extends keyof ClientNotificationTypes>(
    method: M,
    params: ClientNotificationTypes[M],
  ): Promise<void>;
  notify(method: string, params?: unknown): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    return this.core.notify(method, params);
  }

  /** Sends an extension request. */
  extMethod(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.core.request(method, params);
  }

  /** Sends an extension notification. */
  extNotification(method: string, params: Record<string, unknown>): Promise<void> {
    return this.core.notify(method, params);
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
}
