/**
 * {@link AgentSideConnection}: the agent's end of a connection.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import type { MessageObserver } from "../jsonrpc/connection.js";
import type { Stream } from "../base/messages.js";
import type { Transport } from "../transport/transport.js";
import type { ClientNotificationTypes, ClientRequestTypes } from "../schema/methods.gen.js";
import type * as schema from "../schema/types.gen.js";
import { AcpConnectionCore, type AcpConnectionOptions } from "./acp-connection.js";
import { AGENT_CLASSIC_HANDLER_NAMES, AGENT_HANDLER_NAMES, type Agent } from "./agent.js";
import { buildRouter } from "./router.js";
import { TerminalHandle } from "./terminal-handle.js";

/**
 * The agent's end of an ACP connection: routes the client's requests to your
 * {@link Agent} and offers the calls an agent makes to its client.
 *
 * ```ts
 * const connection = new AgentSideConnection((client) => new MyAgent(client), stream);
 * ```
 */
export class AgentSideConnection {
  private readonly core: AcpConnectionCore;

  /**
   * Connects your agent to a client over `stream`.
   *
   * @param toAgent - Creates your agent; it receives this connection to call the client with.
   * @param stream - The message stream or transport, usually `ndJsonStream(stdout, stdin)`.
   * @param options - Logger and default request timeout.
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
      () =>
        buildRouter("agent", holder.agent ?? {}, AGENT_HANDLER_NAMES, AGENT_CLASSIC_HANDLER_NAMES),
      options,
    );
    try {
      holder.agent = toAgent(this);
    } catch (error) {
      // Nobody could use or close this connection: close it before reporting the error.
      this.core.rpc.close(error);
      throw error;
    }
  }

  /** `session/update`: sends one streamed update about a session to the client. */
  sessionUpdate(params: schema.SessionNotification): Promise<void> {
    return this.core.notify("session/update", params);
  }

  /** `session/request_permission`: asks the client to choose among options for a tool call. */
  requestPermission(
    params: schema.RequestPermissionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.RequestPermissionResponse> {
    return this.core.request("session/request_permission", params, options);
  }

  /** `fs/read_text_file`: reads a text file through the client (needs `fs.readTextFile`). */
  readTextFile(
    params: schema.ReadTextFileRequest,
    options?: SendRequestOptions,
  ): Promise<schema.ReadTextFileResponse> {
    return this.core.request("fs/read_text_file", params, options);
  }

  /** `fs/write_text_file`: writes a text file through the client (needs `fs.writeTextFile`). */
  writeTextFile(
    params: schema.WriteTextFileRequest,
    options?: SendRequestOptions,
  ): Promise<schema.WriteTextFileResponse> {
    return this.core.request("fs/write_text_file", params, options);
  }

  /**
   * `terminal/create`: starts a command in a client terminal (needs `terminal`). Release
   * the returned handle when done.
   */
  async createTerminal(
    params: schema.CreateTerminalRequest,
    options?: SendRequestOptions,
  ): Promise<TerminalHandle> {
    const response = await this.core.request<schema.CreateTerminalResponse>(
      "terminal/create",
      params,
      options,
    );
    return new TerminalHandle(response.terminalId, params.sessionId, this.core);
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

  /**
   * `elicitation/create` under its 0.19 to 1.3 name.
   * @deprecated Use {@link AgentSideConnection.createElicitation}.
   */
  unstable_createElicitation(
    params: schema.CreateElicitationRequest,
    options?: SendRequestOptions,
  ): Promise<schema.CreateElicitationResponse> {
    return this.core.request("elicitation/create", params, options);
  }

  /**
   * `elicitation/complete` under its 0.19 to 1.3 name.
   * @deprecated Use {@link AgentSideConnection.completeElicitation}.
   */
  unstable_completeElicitation(params: schema.CompleteElicitationNotification): Promise<void> {
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
   * Sends any request to the client. Protocol methods are typed and their results
   * validated; other names (extension methods start with `_`) are sent as given.
   */
  request<M extends keyof ClientRequestTypes>(
    method: M,
    params: ClientRequestTypes[M]["params"],
    options?: SendRequestOptions,
  ): Promise<ClientRequestTypes[M]["result"]>;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the classic signature
  request<Response = unknown, Params = unknown>(
    method: string,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    return this.core.request(method, params, options);
  }

  /** Sends any notification to the client. */
  notify<M extends keyof ClientNotificationTypes>(
    method: M,
    params: ClientNotificationTypes[M],
  ): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the classic signature
  notify<Params = unknown>(method: string, params?: Params): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    return this.core.notify(method, params);
  }

  /** Sends an extension request (the classic spelling of {@link AgentSideConnection.request}). */
  extMethod(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.core.request(method, params);
  }

  /** Sends an extension notification (the classic spelling of {@link AgentSideConnection.notify}). */
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
