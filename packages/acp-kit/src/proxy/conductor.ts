/**
 * {@link Conductor}: runs a chain of proxies in front of an agent (or, in proxy mode, in
 * front of whatever follows the conductor itself), as the proxy-chains draft describes.
 *
 * @module
 */
import type { Logger } from "../base/logger.js";
import type { Stream } from "../base/messages.js";
import { RequestError } from "../jsonrpc/errors.js";
import type { Transport } from "../transport/transport.js";
import {
  linkAsProxy,
  linkToProxy,
  pipeChannels,
  plainLink,
  type Channel,
  type Link,
} from "./channel.js";
import type { ProxyDialect } from "./dialect.js";
import {
  withMcpStage,
  type ConductorMcpBridgeFactory,
  type ConductorMcpStdioShim,
} from "./mcp-stage.js";
import { redactSecrets } from "./redact.js";

/** A proxy or agent the conductor starts when the chain is first initialized. */
export interface ConductorComponent {
  /** What the trace and error messages call it (its command, usually). */
  readonly name: string;
  /** Starts it. */
  start(): Promise<StartedComponent>;
}

/** A started {@link ConductorComponent}. */
export interface StartedComponent {
  /** Its messages (its stdio, usually). */
  readonly stream: Stream | Transport;
  /** Resolves, with why, when the component is gone on its own (a process that exited). */
  readonly ended?: Promise<string>;
  /** Stops it. */
  close(): Promise<void>;
}

/** One line of a {@link Conductor}'s trace. */
export type ConductorTraceEvent =
  | {
      /** A message read from (`from` is the component) or written to a component. */
      readonly type: "message";
      /** ISO 8601 time. */
      readonly timestamp: string;
      /** Who sent it: a component's name, `"client"` or `"conductor"`. */
      readonly from: string;
      /** Who it was written to. */
      readonly to: string;
      /** The JSON-RPC message. */
      readonly message: unknown;
    }
  | {
      /** A component started, or ended (with the cause). */
      readonly type: "started" | "ended";
      /** ISO 8601 time. */
      readonly timestamp: string;
      /** The component's name. */
      readonly component: string;
      /** Why it ended. */
      readonly cause?: string;
    };

/** How a {@link Conductor}'s chain ended. */
export interface ConductorEnd {
  /**
   * `"client"`: the client (or the conductor above) left; `"component"`: a component
   * ended on its own or could not start; `"local"`: {@link Conductor.close} was called.
   */
  readonly by: "client" | "component" | "local";
  /** What happened, in words ("my-agent exited with code 3"). */
  readonly reason: string;
}

/** Options of a {@link Conductor}. */
export interface ConductorOptions {
  /** The proxies, client side first. */
  readonly proxies?: readonly ConductorComponent[];
  /** The agent (required in `"agent"` mode, none in `"proxy"` mode). */
  readonly agent?: ConductorComponent;
  /**
   * `"agent"` (default): the conductor is an agent to its client, and the chain ends with
   * `agent`. `"proxy"`: the conductor is itself a proxy under another conductor (nested
   * chains): its proxies come before whatever follows it.
   */
  readonly mode?: "agent" | "proxy";
  /**
   * How it speaks to its proxies (default `"rust"`, the Rust conductor's). In proxy mode
   * it reads its own conductor's dialect from how it is initialized.
   */
  readonly dialect?: ProxyDialect;
  /**
   * Hears every message crossing the conductor (MCP servers' `env` and `headers` values
   * redacted), and each component's start and end.
   */
  readonly trace?: (event: ConductorTraceEvent) => void;
  /** Where the connections' problems go. */
  readonly logger?: Logger;
  /**
   * The MCP stage's bridge (agent mode). When the agent does not advertise `acp` but
   * does advertise `http`, the conductor advertises `acp` to the chain and serves its `acp`
   * declarations to the agent through the bridge this makes, whose MCP requests go up
   * the chain as `mcp/message`. Without it, or when the agent lacks `http` too, a session
   * request with an `acp` declaration is refused with `-32602`, `data: { type: "acp" }`.
   * `acp-kit/node`'s `conductorMcpBridge()` makes loopback HTTP bridges (`acp-kit conductor` uses it).
   */
  readonly mcpBridge?: ConductorMcpBridgeFactory;
  /**
   * With {@link ConductorOptions.mcpBridge}: the stdio MCP shim (`acp-kit mcp-shim`) to
   * serve `acp` declarations through to an agent that advertises neither `acp` nor `http`
   * (it gets stdio entries running this command). Without it such an agent's `acp`
   * declarations are refused.
   */
  readonly mcpStdioShim?: ConductorMcpStdioShim;
}

/**
 * Runs a proxy chain for one client connection. Nothing starts until the client's first
 * `initialize`; then each component is started, each hop gets its own connection (and so
 * its own request ids), `$/cancel_request` is mapped hop by hop, messages keep their
 * order (a response never overtakes the notifications sent before it), and `_meta` is
 * passed as it is. When a component ends on its own, the chain is closed and the trace
 * says why; when the client leaves, every component is stopped. In front of an agent
 * without MCP-over-ACP support, an MCP stage serves the chain's `acp` declarations
 * through a bridge ({@link ConductorOptions.mcpBridge}).
 *
 * ```ts
 * const conductor = new Conductor({
 *   proxies: [commandComponent("node tracing-proxy.js")],
 *   agent: commandComponent("my-agent --acp"),
 * });
 * await conductor.connect(ndJsonStream(stdout, stdin)); // until the client leaves
 * ```
 */
export class Conductor {
  private readonly options: ConductorOptions;
  private readonly started: StartedComponent[] = [];
  private readonly links: Link[] = [];
  /** The MCP stage in front of the agent, once started. */
  private stage: { close(): Promise<void> } | undefined;
  private closing = false;
  private finish: (end: ConductorEnd) => void = () => undefined;
  private readonly done = new Promise<ConductorEnd>((resolve) => (this.finish = resolve));
  private upstream: Link | undefined;
  /** The client's requests not answered yet. */
  private inflight = 0;
  /** Called when the last of them is answered (while closing). */
  private drained: (() => void) | undefined;

  /**
   * Prepares the chain; nothing starts until {@link Conductor.connect} gets an `initialize`.
   *
   * @param options - The components, the mode and the dialect.
   */
  constructor(options: ConductorOptions) {
    const mode = options.mode ?? "agent";
    if (mode === "agent" && options.agent === undefined) {
      throw new TypeError("A conductor in agent mode needs an agent");
    }
    if (mode === "proxy" && options.agent !== undefined) {
      throw new TypeError("A conductor in proxy mode has no agent: what follows it is its agent");
    }
    this.options = { ...options, mode };
  }

  /**
   * Serves the client (or, in proxy mode, the conductor above) on `stream`; resolves once
   * the chain is over, every component stopped, with how it ended. One connection per
   * conductor.
   */
  connect(stream: Stream | Transport): Promise<ConductorEnd> {
    if (this.upstream !== undefined) throw new Error("A Conductor serves one connection");
    const proxyMode = this.options.mode === "proxy";
    const name = proxyMode ? "conductor above" : "client";
    const observe = (direction: "in" | "out", message: unknown): void =>
      this.trace(
        direction === "in" ? name : "conductor",
        direction === "in" ? "conductor" : name,
        message,
      );
    const logger = this.options.logger === undefined ? {} : { logger: this.options.logger };
    const link = proxyMode
      ? linkAsProxy(stream, { ...logger, observe, ...this.dialectOption() })
      : plainLink(stream, { ...logger, observe });
    this.upstream = link;
    this.links.push(link);
    const front = link.plain;
    const back = "wrapped" in link ? (link.wrapped as Channel) : undefined;
    let chain: Promise<Channel> | undefined;
    front.serve({
      request: (method, params, signal) =>
        this.counted(async () => {
          if (method === "initialize") chain ??= this.build(front, back);
          if (chain === undefined) {
            throw RequestError.invalidRequest(
              { method },
              "The chain starts with initialize: send it first",
            );
          }
          return (await chain).request(method, params, signal);
        }),
      notification: async (method, params) => {
        if (chain === undefined) return; // Nothing is there to hear it yet.
        await (await chain).notify(method, params);
      },
    });
    void link.connection.closed.then(() => this.close("the client left", "client"));
    return this.done;
  }

  /**
   * Stops every component and ends the connection: the client's requests still running
   * are answered first (with the error their hop gave), then its connection closes.
   */
  close(reason = "closed", by: ConductorEnd["by"] = "local"): void {
    if (this.closing) return;
    this.closing = true;
    const end: ConductorEnd = { by, reason };
    for (const link of this.links) {
      if (link !== this.upstream) link.connection.close(new Error(reason));
    }
    const closeUpstream = (): void => this.upstream?.connection.close(new Error(reason));
    if (this.inflight === 0) closeUpstream();
    else this.drained = closeUpstream;
    const closing = [...this.started.map((component) => component.close())];
    if (this.stage !== undefined) closing.push(this.stage.close());
    void Promise.allSettled(closing).then(() => this.finish(end));
  }

  /** Runs a request of the client, counted as in flight until it is answered. */
  private async counted<T>(run: () => Promise<T>): Promise<T> {
    this.inflight++;
    try {
      return await run();
    } finally {
      this.inflight--;
      // After the answer is written: the engine writes it once this promise settles, in a
      // microtask after this one; a task later it is in the transport's queue.
      if (this.inflight === 0 && this.drained !== undefined) setTimeout(this.drained, 0);
    }
  }

  /**
   * Starts the components and joins them: returns the channel the front's first messages
   * go to (later ones are piped directly).
   */
  private async build(front: Channel, back: Channel | undefined): Promise<Channel> {
    const dialect = this.options.dialect ?? "rust";
    const logger = this.options.logger === undefined ? {} : { logger: this.options.logger };
    const components = [...(this.options.proxies ?? [])];
    const agent = this.options.agent;
    const channels: Channel[] = [];
    try {
      for (const component of [...components, ...(agent === undefined ? [] : [agent])]) {
        if (this.closing) throw new Error("the conductor was closed while starting");
        const started = await component.start();
        this.started.push(started);
        this.event({ type: "started", component: component.name });
        void started.ended?.then((cause) => {
          this.event({ type: "ended", component: component.name, cause });
          this.close(`${component.name} ${cause}`, "component");
        });
        const observe = (direction: "in" | "out", message: unknown): void =>
          this.trace(
            direction === "in" ? component.name : "conductor",
            direction === "in" ? "conductor" : component.name,
            message,
          );
        if (component === agent) {
          const link = plainLink(started.stream, { ...logger, observe, stripProxyFlag: true });
          this.links.push(link);
          const stage = withMcpStage(link.plain, this.options.mcpBridge, this.options.mcpStdioShim);
          this.stage = stage;
          channels.push(stage);
        } else {
          const link = linkToProxy(started.stream, dialect, { ...logger, observe });
          this.links.push(link);
          channels.push(link.plain, link.wrapped);
        }
      }
    } catch (error) {
      this.close(
        `a component could not start: ${error instanceof Error ? error.message : String(error)}`,
        "component",
      );
      throw RequestError.internalError(
        { details: error instanceof Error ? error.message : String(error) },
        "The conductor could not start its chain",
      );
    }
    if (back !== undefined) channels.push(back);
    // front -> first; each proxy's successor side -> the next one's predecessor side.
    const first = channels[0];
    if (first === undefined) throw RequestError.internalError(undefined, "The chain is empty");
    for (let i = 1; i + 1 < channels.length; i += 2) {
      const from = channels[i];
      const to = channels[i + 1];
      if (from !== undefined && to !== undefined) pipeChannels(from, to);
    }
    // The front's requests reach `first` through its own handlers (counted); what `first`
    // sends toward the client goes straight to the front.
    first.serve({
      request: (method, params, signal) => front.request(method, params, signal),
      notification: (method, params) => front.notify(method, params),
    });
    return first;
  }

  private dialectOption(): { dialect?: ProxyDialect } {
    return this.options.dialect === undefined ? {} : { dialect: this.options.dialect };
  }

  private trace(from: string, to: string, message: unknown): void {
    if (this.options.trace === undefined) return;
    this.options.trace({
      type: "message",
      timestamp: new Date().toISOString(),
      from,
      to,
      // A trace never holds an MCP server's environment or header values.
      message: redactSecrets(message),
    });
  }

  private event(event: { type: "started" | "ended"; component: string; cause?: string }): void {
    this.options.trace?.({ ...event, timestamp: new Date().toISOString() });
  }
}
