/**
 * {@link defineProxy}: a proxy between any ACP client and any agent (tracing, policies,
 * gateways, prompt rewriting, tools of its own). It intercepts what it wants by method,
 * from either side, and forwards everything else as it is. It runs under a conductor
 * (one stream, the dialect learnt from its initialization) or standalone (a client
 * stream and an agent stream of its own).
 *
 * @module
 */
import type { Logger } from "../base/logger.js";
import { isPlainObject, type Stream } from "../base/messages.js";
import type { MessageObserver } from "../jsonrpc/connection.js";
import type {
  AgentNotificationTypes,
  AgentRequestTypes,
  ClientNotificationTypes,
  ClientRequestTypes,
} from "../schema/methods.gen.js";
import { McpProvider, type McpServerOptions, type McpServerRegistration } from "../mcp/provider.js";
import type { McpServer, MessageMcpRequest } from "../schema/types.gen.js";
import type { Transport } from "../transport/transport.js";
import { linkAsProxy, plainLink, type Channel, type Link } from "./channel.js";
import type { ProxyDialect } from "./dialect.js";

/** Either side of a proxy, to send it requests and notifications of the proxy's own. */
export interface ProxyPeer {
  /** Sends a request; resolves with its result, rejects with the peer's `RequestError`. */
  request(method: string, params: unknown, signal?: AbortSignal): Promise<unknown>;
  /** Sends a notification. */
  notify(method: string, params: unknown): Promise<void>;
}

/** What a request interceptor is given. */
export interface ProxyRequestContext<P = unknown, R = unknown> {
  /** The request's method. */
  readonly method: string;
  /** Its params, as they arrived. */
  readonly params: P;
  /** Aborts when the sender cancels the request (`$/cancel_request`) or leaves. */
  readonly signal: AbortSignal;
  /**
   * Sends the request on to the other side (with `params`, or these params changed) and
   * resolves with its answer; cancelling this request cancels it there too.
   */
  readonly forward: (params?: P) => Promise<R>;
  /** The client side (whoever is before this proxy). */
  readonly client: ProxyPeer;
  /** The agent side (whoever is after this proxy). */
  readonly agent: ProxyPeer;
}

/** What a notification interceptor is given. */
export interface ProxyNotificationContext<P = unknown> {
  /** The notification's method. */
  readonly method: string;
  /** Its params, as they arrived. */
  readonly params: P;
  /** Sends it on to the other side (with `params`, or these params changed). */
  readonly forward: (params?: P) => Promise<void>;
  /** The client side (whoever is before this proxy). */
  readonly client: ProxyPeer;
  /** The agent side (whoever is after this proxy). */
  readonly agent: ProxyPeer;
}

/** A request interceptor: its return value (or the promise of it) is the answer. */
export type ProxyRequestHandler<P = unknown, R = unknown> = (
  context: ProxyRequestContext<P, R>,
) => R | Promise<R>;

/** A notification interceptor: what it does not forward is not forwarded. */
export type ProxyNotificationHandler<P = unknown> = (
  context: ProxyNotificationContext<P>,
) => void | Promise<void>;

/** The MCP servers a proxy adds to each session it forwards, or a function choosing them. */
export type ProxyMcpServers =
  | readonly McpServer[]
  | ((method: string, params: Record<string, unknown>) => readonly McpServer[]);

/** The session requests whose `mcpServers` a proxy adds to. */
const SESSION_SETUP = new Set(["session/new", "session/load", "session/resume", "session/fork"]);

/** Options of a proxy's hosts. */
export interface ProxyHostOptions {
  /** Where the connections' problems go. */
  readonly logger?: Logger;
  /** Sees every message read or written (`link` says which connection). */
  readonly observe?: (
    link: "conductor" | "client" | "agent",
    ...event: Parameters<MessageObserver>
  ) => void;
}

/** A proxy that runs. */
export interface RunningProxy {
  /** Resolves when its connections are over. */
  readonly closed: Promise<void>;
  /** Ends its connections. */
  close(reason?: unknown): void;
}

interface Routes<H> {
  readonly byMethod: Map<string, H>;
  fallback: H | undefined;
}

function routes<H>(): Routes<H> {
  return { byMethod: new Map(), fallback: undefined };
}

function pick<H>(table: Routes<H>, method: string): H | undefined {
  return table.byMethod.get(method) ?? table.fallback;
}

function add<H>(table: Routes<H>, method: string, handler: H): void {
  if (method === "*") table.fallback = handler;
  else table.byMethod.set(method, handler);
}

function peerOf(channel: Channel): ProxyPeer {
  return {
    request: (method, params, signal) => channel.request(method, params, signal),
    notify: (method, params) => channel.notify(method, params),
  };
}

/**
 * A proxy's definition: interceptors by method, from either side (`"*"` for every method
 * without one of its own), and MCP servers to add to the sessions it forwards. What no
 * interceptor takes is forwarded as it is, requests with their cancellation,
 * notifications in order. Typed by the v1 method tables; a v2 conversation passes
 * through the same way (its params are v2's).
 *
 * ```ts
 * const proxy = defineProxy()
 *   .onRequestFromClient("session/prompt", ({ params, forward }) =>
 *     forward({ ...params, prompt: [{ type: "text", text: "Be brief." }, ...params.prompt] }),
 *   )
 *   .onRequestFromAgent("session/request_permission", ({ params }) => ({
 *     outcome: { outcome: "selected", optionId: params.options[0]!.optionId },
 *   }));
 * proxy.serve(ndJsonStream(stdout, stdin)); // under a conductor
 * ```
 */
export class ProxyDefinition {
  private readonly clientRequests = routes<ProxyRequestHandler>();
  private readonly clientNotifications = routes<ProxyNotificationHandler>();
  private readonly agentRequests = routes<ProxyRequestHandler>();
  private readonly agentNotifications = routes<ProxyNotificationHandler>();
  private readonly mcpServers: ProxyMcpServers[] = [];
  /** The MCP servers this proxy serves itself (over MCP-over-ACP), made on first use. */
  private mcp: McpProvider | undefined;

  /** Intercepts a request the client side sends (`"*"`: every one without its own). */
  onRequestFromClient<M extends keyof AgentRequestTypes>(
    method: M,
    handler: ProxyRequestHandler<AgentRequestTypes[M]["params"], AgentRequestTypes[M]["result"]>,
  ): this;
  onRequestFromClient(method: string, handler: ProxyRequestHandler): this;
  onRequestFromClient<P, R>(method: string, handler: ProxyRequestHandler<P, R>): this {
    add(this.clientRequests, method, handler as unknown as ProxyRequestHandler);
    return this;
  }

  /** Intercepts a notification the client side sends (`"*"`: every one without its own). */
  onNotificationFromClient<M extends keyof AgentNotificationTypes>(
    method: M,
    handler: ProxyNotificationHandler<AgentNotificationTypes[M]>,
  ): this;
  onNotificationFromClient(method: string, handler: ProxyNotificationHandler): this;
  onNotificationFromClient<P>(method: string, handler: ProxyNotificationHandler<P>): this {
    add(this.clientNotifications, method, handler as unknown as ProxyNotificationHandler);
    return this;
  }

  /** Intercepts a request the agent side sends (`"*"`: every one without its own). */
  onRequestFromAgent<M extends keyof ClientRequestTypes>(
    method: M,
    handler: ProxyRequestHandler<ClientRequestTypes[M]["params"], ClientRequestTypes[M]["result"]>,
  ): this;
  onRequestFromAgent(method: string, handler: ProxyRequestHandler): this;
  onRequestFromAgent<P, R>(method: string, handler: ProxyRequestHandler<P, R>): this {
    add(this.agentRequests, method, handler as unknown as ProxyRequestHandler);
    return this;
  }

  /** Intercepts a notification the agent side sends (`"*"`: every one without its own). */
  onNotificationFromAgent<M extends keyof ClientNotificationTypes>(
    method: M,
    handler: ProxyNotificationHandler<ClientNotificationTypes[M]>,
  ): this;
  onNotificationFromAgent(method: string, handler: ProxyNotificationHandler): this;
  onNotificationFromAgent<P>(method: string, handler: ProxyNotificationHandler<P>): this {
    add(this.agentNotifications, method, handler as unknown as ProxyNotificationHandler);
    return this;
  }

  /**
   * Adds MCP servers to every session this proxy forwards (`session/new`, `load`,
   * `resume`, `fork`), after the client's own; a function chooses them per request.
   */
  addMcpServers(servers: ProxyMcpServers): this {
    this.mcpServers.push(servers);
    return this;
  }

  /**
   * Serves an MCP server of the proxy's own over MCP-over-ACP (`mcp/message`): its
   * declaration (`type: "acp"`) is added to every session the proxy forwards, the agent's
   * `mcp/message` requests for it are answered here (with the binding's checks, limits and
   * errors, see `acp-kit/mcp`), and those for other servers go on to the client with their
   * request id. The agent must support MCP-over-ACP (`mcpCapabilities.acp`).
   *
   * ```ts
   * proxy.provideMcpServer({ name: "project-tools", handler: fromFetchHandler(mcp) });
   * ```
   */
  provideMcpServer(options: McpServerOptions): McpServerRegistration {
    this.mcp ??= new McpProvider();
    const registration = this.mcp.register(options);
    this.mcpServers.push(() =>
      this.mcp?.has(registration.serverId) === true ? [registration.declaration] : [],
    );
    return registration;
  }

  /**
   * Runs the proxy between two channels: `client` faces its predecessor, `agent` its
   * successor. The hosts below make the channels; this is for hosts of your own.
   */
  attach(client: Channel, agent: Channel): void {
    const clientPeer = peerOf(client);
    const agentPeer = peerOf(agent);
    client.serve({
      request: (method, params, signal) => {
        const given = this.withMcpServers(method, params);
        const handler = pick(this.clientRequests, method);
        const forward = (next: unknown = given): Promise<unknown> =>
          agent.request(method, next, signal);
        if (handler === undefined) return forward();
        return handler({
          method,
          params: given,
          signal,
          forward,
          client: clientPeer,
          agent: agentPeer,
        });
      },
      notification: (method, params) => {
        const handler = pick(this.clientNotifications, method);
        const forward = (next: unknown = params): Promise<void> => agent.notify(method, next);
        if (handler === undefined) return forward();
        return handler({ method, params, forward, client: clientPeer, agent: agentPeer });
      },
    });
    agent.serve({
      request: (method, params, signal) => {
        const mcp = this.mcp;
        if (method === "mcp/message" && mcp !== undefined && isPlainObject(params)) {
          const envelope = params as MessageMcpRequest;
          if (mcp.has(envelope.serverId)) {
            return mcp.serve(envelope, {
              signal,
              notify: (notification) => agent.notify("mcp/message", notification),
            });
          }
        }
        const handler = pick(this.agentRequests, method);
        const forward = (next: unknown = params): Promise<unknown> =>
          client.request(method, next, signal);
        if (handler === undefined) return forward();
        return handler({ method, params, signal, forward, client: clientPeer, agent: agentPeer });
      },
      notification: (method, params) => {
        const handler = pick(this.agentNotifications, method);
        const forward = (next: unknown = params): Promise<void> => client.notify(method, next);
        if (handler === undefined) return forward();
        return handler({ method, params, forward, client: clientPeer, agent: agentPeer });
      },
    });
  }

  /**
   * Runs the proxy under a conductor, over one stream (the proxy's stdio, usually). The
   * dialect is learnt from how the conductor initializes it (`_proxy/initialize`,
   * `proxy/initialize`, or `initialize` with `_meta.proxy`), and envelopes of any dialect
   * are read; it answers in the dialect it was spoken to.
   */
  serve(
    stream: Stream | Transport,
    options: ProxyHostOptions & { dialect?: ProxyDialect } = {},
  ): RunningProxy {
    const link = linkAsProxy(stream, {
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.dialect === undefined ? {} : { dialect: options.dialect }),
      ...(options.observe === undefined
        ? {}
        : { observe: (direction, message) => options.observe?.("conductor", direction, message) }),
    });
    this.attach(link.plain, link.wrapped);
    return running([link]);
  }

  /**
   * Runs the proxy standalone: `client` is the client's stream (plain ACP, as to an
   * agent), `agent` the agent's (plain ACP, as from a client).
   */
  standalone(
    client: Stream | Transport,
    agent: Stream | Transport,
    options: ProxyHostOptions = {},
  ): RunningProxy {
    const observe = (side: "client" | "agent") =>
      options.observe === undefined
        ? {}
        : {
            observe: (direction: "in" | "out", message: unknown) =>
              options.observe?.(side, direction, message),
          };
    const logger = options.logger === undefined ? {} : { logger: options.logger };
    const clientLink = plainLink(client, { ...logger, ...observe("client") });
    const agentLink = plainLink(agent, { ...logger, ...observe("agent") });
    this.attach(clientLink.plain, agentLink.plain);
    return running([clientLink, agentLink]);
  }

  private withMcpServers(method: string, params: unknown): unknown {
    if (this.mcpServers.length === 0 || !SESSION_SETUP.has(method) || !isPlainObject(params))
      return params;
    const own = Array.isArray(params.mcpServers) ? (params.mcpServers as unknown[]) : [];
    const added = this.mcpServers.flatMap((servers) =>
      typeof servers === "function" ? servers(method, params) : servers,
    );
    return { ...params, mcpServers: [...own, ...added] };
  }
}

/** Both links end together: one ending closes the other. */
function running(links: readonly Link[]): RunningProxy {
  for (const link of links) {
    void link.connection.closed.then(() => {
      for (const other of links) other.connection.close();
    });
  }
  return {
    closed: Promise.all(links.map((link) => link.connection.closed)).then(() => undefined),
    close(reason?: unknown) {
      for (const link of links) link.connection.close(reason);
    },
  };
}

/** A new, empty {@link ProxyDefinition}: everything is forwarded until you intercept it. */
export function defineProxy(): ProxyDefinition {
  return new ProxyDefinition();
}
