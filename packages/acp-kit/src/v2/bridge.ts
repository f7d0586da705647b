/**
 * {@link bridge}: serves a client in one ACP version and speaks to the agent in whatever
 * version the agent negotiates, translating when they differ.
 *
 * @module
 */
import { RequestError } from "../jsonrpc/errors.js";
import type { Logger } from "../base/logger.js";
import { isPlainObject, type AnyMessage, type Stream } from "../base/messages.js";
import type { AcpConnectionOptions } from "../peer/acp-connection.js";
import { AgentSideConnection as V1AgentSideConnection } from "../peer/agent-side-connection.js";
import { ClientSideConnection as V1ClientSideConnection } from "../peer/client-side-connection.js";
import type * as v1 from "../schema/types.gen.js";
import type * as v2 from "../schema/v2/types.gen.js";
import { AgentSideConnection } from "./agent-side-connection.js";
import { prepended } from "./prepended.js";
import { V1ViewOfV2Agent } from "./bridge-v1-client.js";
import { V2ViewOfV1Agent } from "./bridge-v2-client.js";
import { ClientSideConnection } from "./client-side-connection.js";
import { LossyCounter, type LossyEvent } from "./lossy.js";
import {
  negotiateStream,
  NegotiationError,
  type NegotiatedStream,
  type ProtocolChoice,
} from "./negotiate.js";

/** Options of a {@link bridge}. */
export interface BridgeOptions {
  /** The version served to the client: its `initialize` is read as this version. */
  readonly as: 1 | 2;
  /** Which version to ask the agent for: `"auto"` (default) takes the one it speaks. */
  readonly protocol?: ProtocolChoice;
  /**
   * Starts the agent again: called when it left during the negotiation (some v1 agents
   * exit on a v2 `initialize`), to ask the new one for v1.
   */
  readonly restart?: () => Stream | Promise<Stream>;
  /** Hears each lossy step as it happens (also counted in {@link Bridge.lossy}). */
  readonly onLossy?: (event: LossyEvent) => void;
  /**
   * Hears each `session/update` of a v2 agent served to a v1 client as the agent sent it,
   * before the bridge shows it in v1: a client that can fold v2 itself (a `SessionStore`'s
   * `applyV2`) loses nothing of it. Not called when the agent speaks v1. What it throws is
   * ignored.
   */
  readonly onAgentUpdate?: (notification: v2.UpdateSessionNotification) => void;
  /** Where the bridge's own notes go (lossy steps at debug level). */
  readonly logger?: Logger;
  /** Options of the connections the bridge makes. */
  readonly connectionOptions?: AcpConnectionOptions;
}

/** What a {@link bridge} agreed on. */
export interface BridgeVersions {
  /** The version spoken with the client. */
  readonly client: 1 | 2;
  /** The version spoken with the agent. */
  readonly agent: 1 | 2;
  /** True when they differ and the bridge translates (false: it relays as is). */
  readonly translating: boolean;
}

/** A running {@link bridge}. */
export interface Bridge {
  /** Resolves once both sides agreed; rejects when the agent could not be initialized. */
  readonly ready: Promise<BridgeVersions>;
  /** The lossy steps so far, by kind (see docs/v2.md for the list). */
  readonly lossy: Readonly<Record<string, number>>;
  /** The number of lossy steps so far. */
  readonly lossyTotal: number;
  /** Resolves when both connections are over (never rejects). */
  readonly closed: Promise<void>;
  /** Ends both connections. */
  close(reason?: unknown): void;
}

const UNKNOWN = { name: "unknown", version: "unknown" };

async function write(stream: Stream, message: unknown): Promise<void> {
  const writer = stream.writable.getWriter();
  try {
    await writer.write(message as AnyMessage);
  } finally {
    writer.releaseLock();
  }
}

function errorMessage(id: unknown, error: RequestError): unknown {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    },
  };
}

/** The client's `initialize` params, as what to ask the agent. */
function askFor(as: 1 | 2, params: Record<string, unknown>) {
  if (as === 1) {
    const clientCapabilities = (
      isPlainObject(params.clientCapabilities) ? params.clientCapabilities : {}
    ) as v1.ClientCapabilities;
    const auth = isPlainObject(clientCapabilities.auth) ? clientCapabilities.auth : {};
    const capabilities: Record<string, unknown> = {};
    if (auth.terminal === true) capabilities.auth = { terminal: {} };
    if (isPlainObject(clientCapabilities.elicitation))
      capabilities.elicitation = clientCapabilities.elicitation;
    return {
      info: (isPlainObject(params.clientInfo) ? params.clientInfo : UNKNOWN) as v2.Implementation,
      capabilities: capabilities as v2.ClientCapabilities,
      clientCapabilities,
      dropsClientServices:
        clientCapabilities.terminal === true ||
        clientCapabilities.fs?.readTextFile === true ||
        clientCapabilities.fs?.writeTextFile === true,
    };
  }
  const capabilities = (
    isPlainObject(params.capabilities) ? params.capabilities : {}
  ) as v2.ClientCapabilities;
  const auth = isPlainObject(capabilities.auth) ? capabilities.auth : undefined;
  return {
    info: (isPlainObject(params.info) ? params.info : UNKNOWN) as v2.Implementation,
    capabilities,
    // What a v1 agent gets, as the official router projects a v2 client onto v1.
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      auth: { terminal: auth?.terminal !== undefined && auth.terminal !== null },
      ...(isPlainObject(capabilities.elicitation) ? { elicitation: capabilities.elicitation } : {}),
    } as v1.ClientCapabilities,
    dropsClientServices: false,
  };
}

/**
 * Serves the client at `upstream` as an agent of version `options.as`, and the agent at
 * `downstream` as a client of the version it negotiates. When both speak the same version
 * the bridge relays every message as is (after answering the client's `initialize` with
 * the agent's answer). When they differ it translates: a v1 client uses a v2 agent, or a
 * v2 client a v1 agent, with what cannot be represented counted in {@link Bridge.lossy}
 * (the list and the mapping are in docs/v2.md).
 *
 * ```ts
 * import { bridge, ndJsonStream } from "acp-kit/v2";
 * // An editor speaking v1 on our stdio, a v2 agent as a child process:
 * const running = bridge(ndJsonStream(stdout, stdin), ndJsonStream(child.stdin, child.stdout), { as: 1 });
 * console.error(await running.ready); // { client: 1, agent: 2, translating: true }
 * ```
 */
export function bridge(upstream: Stream, downstream: Stream, options: BridgeOptions): Bridge {
  const lossy = new LossyCounter(options.logger, options.onLossy);
  const closers: ((reason?: unknown) => void)[] = [];
  const closings: Promise<void>[] = [];
  let closedFlag = false;
  let finish: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (finish = resolve));
  const ready = run(upstream, downstream, options, lossy, closers, closings, () => closedFlag);
  void ready.then(
    () => void Promise.all(closings).then(finish),
    () => finish(),
  );
  return {
    ready,
    get lossy() {
      return lossy.snapshot();
    },
    get lossyTotal() {
      return lossy.total;
    },
    closed,
    close(reason?: unknown) {
      closedFlag = true;
      for (const close of closers) close(reason);
    },
  };
}

async function run(
  upstream: Stream,
  firstDownstream: Stream,
  options: BridgeOptions,
  lossy: LossyCounter,
  closers: ((reason?: unknown) => void)[],
  closings: Promise<void>[],
  isClosed: () => boolean,
): Promise<BridgeVersions> {
  const reader = upstream.readable.getReader();
  closers.push((reason) => void reader.cancel(reason).catch(() => undefined));
  // The client's initialize: other requests before it are refused, as the router does.
  let initialize: Record<string, unknown>;
  for (;;) {
    const next = await reader.read();
    if (next.done || isClosed()) throw new Error("the client left before it sent initialize");
    const message = next.value as unknown;
    if (Array.isArray(message)) {
      await write(
        upstream,
        errorMessage(
          null,
          RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported"),
        ),
      );
      continue;
    }
    if (!isPlainObject(message) || !("id" in message) || typeof message.method !== "string")
      continue;
    if (message.method !== "initialize") {
      await write(
        upstream,
        errorMessage(
          message.id,
          RequestError.invalidRequest("first ACP request must be initialize"),
        ),
      );
      continue;
    }
    initialize = message;
    break;
  }
  const params = isPlainObject(initialize.params) ? initialize.params : {};
  const ask = askFor(options.as, params);
  let downstream = firstDownstream;
  let agreed: NegotiatedStream;
  try {
    try {
      agreed = await negotiateStream(downstream, {
        protocol: options.protocol ?? "auto",
        info: ask.info,
        capabilities: ask.capabilities,
        clientCapabilities: ask.clientCapabilities,
      });
    } catch (error) {
      if (!(
        error instanceof NegotiationError &&
        error.ended &&
        options.restart !== undefined &&
        options.protocol !== 2
      ))
        throw error;
      downstream = await options.restart();
      agreed = await negotiateStream(downstream, {
        protocol: 1,
        info: ask.info,
        clientCapabilities: ask.clientCapabilities,
      });
    }
  } catch (error) {
    const attempts = error instanceof NegotiationError ? error.attempts : [];
    const last = attempts[attempts.length - 1]?.error;
    const answer =
      last instanceof RequestError
        ? last
        : RequestError.internalError(
            undefined,
            `the agent could not be initialized: ${error instanceof Error ? error.message : String(error)}`,
          );
    await write(upstream, errorMessage(initialize.id, answer)).catch(() => undefined);
    reader.releaseLock();
    await upstream.writable.close().catch(() => undefined);
    throw error;
  }
  const rest = agreed.rest;
  if (agreed.version === options.as) {
    // Same version: answer the client's initialize with the agent's answer, then relay.
    await write(upstream, { jsonrpc: "2.0", id: initialize.id, result: agreed.response });
    closings.push(
      relay(reader, rest, closers),
      relay(rest.readable.getReader(), upstream, closers),
    );
    return { client: options.as, agent: agreed.version, translating: false };
  }
  const upstreamStream: Stream = {
    readable: prepended(reader, [initialize as AnyMessage]),
    writable: upstream.writable,
  };
  if (ask.dropsClientServices) lossy.count("client_fs_terminal_dropped", undefined);
  if (options.as === 1 && agreed.version === 2) {
    const holder: { view?: V1ViewOfV2Agent } = {};
    const view = (): V1ViewOfV2Agent => settled(holder.view);
    const agent = new ClientSideConnection(
      () => V1ViewOfV2Agent.client(view, options.onAgentUpdate),
      rest,
      options.connectionOptions,
    );
    agent.adoptInitialization(agreed.request, agreed.response);
    const client = new V1AgentSideConnection(
      (connection) => {
        holder.view = new V1ViewOfV2Agent(connection, agent, params as v1.InitializeRequest, lossy);
        return holder.view;
      },
      upstreamStream,
      options.connectionOptions,
    );
    link(client, agent, closers, closings);
    return { client: 1, agent: 2, translating: true };
  }
  const holder: { view?: V2ViewOfV1Agent } = {};
  const view = (): V2ViewOfV1Agent => settled(holder.view);
  const agent = new V1ClientSideConnection(
    () => V2ViewOfV1Agent.client(view),
    rest,
    options.connectionOptions,
  );
  const client = new AgentSideConnection(
    (connection) => {
      holder.view = new V2ViewOfV1Agent(
        connection,
        agent,
        agreed.response as v1.InitializeResponse,
        lossy,
      );
      return holder.view;
    },
    upstreamStream,
    options.connectionOptions,
  );
  link(client, agent, closers, closings);
  return { client: 2, agent: 1, translating: true };
}

/** The view, which exists once the client's connection made it (before any message). */
function settled<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the bridge is not set up yet");
  return value;
}

/** When one side closes the other does. */
function link(
  a: { closed: Promise<void>; close(reason?: unknown): void },
  b: { closed: Promise<void>; close(reason?: unknown): void },
  closers: ((reason?: unknown) => void)[],
  closings: Promise<void>[],
): void {
  void a.closed.then(() => b.close(new Error("the client's connection closed")));
  void b.closed.then(() => a.close(new Error("the agent's connection closed")));
  closers.push((reason) => {
    a.close(reason);
    b.close(reason);
  });
  closings.push(a.closed, b.closed);
}

/** Copies messages from `from` to `to` until either ends; then ends the other. */
async function relay(
  from: ReadableStreamDefaultReader<AnyMessage>,
  to: Stream,
  closers: ((reason?: unknown) => void)[],
): Promise<void> {
  const writer = to.writable.getWriter();
  closers.push((reason) => void from.cancel(reason).catch(() => undefined));
  try {
    for (;;) {
      const next = await from.read();
      if (next.done) break;
      await writer.write(next.value);
    }
  } catch {
    // Either side failed: the relay ends.
  } finally {
    await writer.close().catch(() => undefined);
    for (const close of closers) close();
  }
}
