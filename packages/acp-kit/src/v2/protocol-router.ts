/**
 * {@link protocolRouter}: one agent program serving ACP v1 and v2 clients, choosing the
 * version from the client's first `initialize`.
 *
 * @module
 */
import type { AnyMessage, Stream } from "../base/messages.js";
import { isPlainObject } from "../base/messages.js";
import { RequestError } from "../jsonrpc/errors.js";
import type { AcpConnectionOptions } from "../peer/acp-connection.js";
import type { Agent as V1Agent } from "../peer/agent.js";
import { AgentSideConnection as V1AgentSideConnection } from "../peer/agent-side-connection.js";
import { DEF_VALIDATORS as V1_VALIDATORS } from "../schema/validators.gen.js";
import { DEF_VALIDATORS as V2_VALIDATORS } from "../schema/v2/validators.gen.js";
import { runValidator } from "../base/validation.js";
import type { Agent } from "./agent.js";
import { AgentSideConnection } from "./agent-side-connection.js";
import { prepended } from "./prepended.js";

/** The versions a {@link protocolRouter} serves, each by the factory of its agent. */
export interface ProtocolRouterOptions {
  /** Creates the v1 agent (the classic `Agent` of `acp-kit`) for a v1 client. */
  readonly v1?: (connection: V1AgentSideConnection) => V1Agent;
  /** Creates the v2 agent for a v2 client. */
  readonly v2?: (connection: AgentSideConnection) => Agent;
  /** Options of the connection, whichever version it speaks. */
  readonly connectionOptions?: AcpConnectionOptions;
}

/** The connection a {@link ProtocolRouter} made, once a client's `initialize` chose one. */
export type RoutedConnection =
  | { readonly version: 1; readonly connection: V1AgentSideConnection }
  | { readonly version: 2; readonly connection: AgentSideConnection };

/** One client served by a {@link ProtocolRouter}. */
export interface RoutedSession {
  /**
   * Resolves with the version and connection the client's `initialize` chose, or
   * `undefined` when the client went away before choosing.
   */
  readonly chosen: Promise<RoutedConnection | undefined>;
  /** Resolves when the connection is over (never rejects). */
  readonly closed: Promise<void>;
  /** Ends the connection (before or after the choice). */
  close(reason?: unknown): void;
}

const MAX_PROTOCOL_VERSION = 0xffff;
const UNKNOWN = { name: "unknown", version: "unknown" };

type Routed =
  | { readonly reject: { readonly id: unknown; readonly error: RequestError } | undefined }
  | { readonly version: 1 | 2; readonly initialize: AnyMessage };

/** Drops `null` and `undefined` members and empty arrays, recursively (`_meta` as is). */
function canonical(value: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null || member === undefined) continue;
    if (key === "_meta") result[key] = member;
    else if (Array.isArray(member)) {
      if (member.length > 0) result[key] = member.map(canonicalValue);
    } else result[key] = canonicalValue(member);
  }
  return result;
}

function canonicalValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalValue);
  return isPlainObject(value) ? canonical(value) : value;
}

function invalidParams(detail: string): RequestError {
  return RequestError.invalidParams(`invalid initialize params: ${detail}`);
}

/** A v2 `initialize` for a newer version: `info` gets a stand-in when it is malformed. */
function newerV2(params: Record<string, unknown>): {
  request: Record<string, unknown>;
  hasInfo: boolean;
} {
  const hasInfo = V2_VALIDATORS.Implementation(params.info, undefined);
  return { request: { ...params, info: hasInfo ? params.info : UNKNOWN }, hasInfo };
}

function checkedV2(request: Record<string, unknown>): Record<string, unknown> {
  const outcome = runValidator(V2_VALIDATORS.InitializeRequest, request);
  if (!outcome.ok)
    throw invalidParams(outcome.issues.map((i) => `${i.path} ${i.message}`).join("; "));
  return request;
}

/** What a v1 agent gets from a v2-shaped `initialize`, as the official router projects it. */
function v2ToV1(request: Record<string, unknown>, hasInfo: boolean): Record<string, unknown> {
  const capabilities = isPlainObject(request.capabilities) ? request.capabilities : {};
  const auth = isPlainObject(capabilities.auth) ? capabilities.auth : undefined;
  const clientCapabilities: Record<string, unknown> = {
    fs: { readTextFile: false, writeTextFile: false },
    terminal: false,
    session: { configOptions: { boolean: {} } },
    plan: {},
    auth: {
      terminal: auth?.terminal !== undefined && auth.terminal !== null,
      ...(auth?._meta === undefined || auth._meta === null ? {} : { _meta: auth._meta }),
    },
  };
  if (capabilities.elicitation !== undefined && capabilities.elicitation !== null)
    clientCapabilities.elicitation = capabilities.elicitation;
  if (capabilities._meta !== undefined && capabilities._meta !== null)
    clientCapabilities._meta = capabilities._meta;
  return canonical({
    protocolVersion: 1,
    clientCapabilities,
    clientInfo: hasInfo ? request.info : undefined,
    _meta: request._meta,
  });
}

/**
 * Serves v1 and v2 clients from one agent program. The first `initialize` chooses:
 * only v1 configured → v1; v2 configured and asked for 2 or more → v2; v1 configured and
 * asked for 1 or more → v1; anything else `-32022` with the versions served. A v2-shaped
 * `initialize` routed to v1 is projected onto v1 (no file system or terminals, the auth
 * and elicitation capabilities kept). Before the choice, batches, other requests and bad
 * versions are answered as the official SDK's router answers them, and the client may try
 * again; notifications and responses are ignored. After it, every message goes to the
 * chosen connection unchanged.
 *
 * ```ts
 * import { protocolRouter, ndJsonStream } from "acp-kit/v2";
 * protocolRouter({
 *   v1: (connection) => new MyV1Agent(connection),
 *   v2: (connection) => new MyV2Agent(connection),
 * }).connect(ndJsonStream(stdout, stdin));
 * ```
 */
export class ProtocolRouter {
  /**
   * Creates a router for the versions in `options`.
   *
   * @param options - The versions served and the connection options.
   */
  constructor(private readonly options: ProtocolRouterOptions) {
    if (options.v1 === undefined && options.v2 === undefined)
      throw new TypeError("protocolRouter needs a v1 agent, a v2 agent or both");
  }

  /** Serves one client over `stream`. */
  connect(stream: Stream): RoutedSession {
    let finish: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (finish = resolve));
    const state: {
      connection?: RoutedConnection;
      closed: boolean;
      reader?: ReadableStreamDefaultReader<AnyMessage>;
    } = {
      closed: false,
    };
    const chosen = this.route(stream, state).then(
      (routed) => {
        if (routed === undefined) finish();
        else void routed.connection.closed.then(finish);
        return routed;
      },
      () => {
        finish();
        return undefined;
      },
    );
    return {
      chosen,
      closed,
      close: (reason?: unknown) => {
        state.closed = true;
        if (state.connection !== undefined) state.connection.connection.close(reason);
        else void state.reader?.cancel(reason).catch(() => undefined);
      },
    };
  }

  private async route(
    stream: Stream,
    state: {
      connection?: RoutedConnection;
      closed: boolean;
      reader?: ReadableStreamDefaultReader<AnyMessage>;
    },
  ): Promise<RoutedConnection | undefined> {
    const reader = stream.readable.getReader();
    state.reader = reader;
    for (;;) {
      let next: ReadableStreamReadResult<AnyMessage>;
      try {
        next = await reader.read();
      } catch {
        reader.releaseLock();
        return undefined;
      }
      if (next.done || state.closed) {
        reader.releaseLock();
        await stream.writable.close().catch(() => undefined);
        return undefined;
      }
      const routed = this.routeInitialize(next.value);
      if ("reject" in routed) {
        if (routed.reject !== undefined) {
          const { error, id } = routed.reject;
          const writer = stream.writable.getWriter();
          try {
            await writer.write({
              jsonrpc: "2.0",
              id,
              error: {
                code: error.code,
                message: error.message,
                ...(error.data === undefined ? {} : { data: error.data }),
              },
            } as AnyMessage);
          } finally {
            writer.releaseLock();
          }
        }
        continue;
      }
      const routedStream: Stream = {
        readable: prepended(reader, [routed.initialize]),
        writable: stream.writable,
      };
      const { v1, v2, connectionOptions } = this.options;
      let connection: RoutedConnection;
      if (routed.version === 2 && v2 !== undefined)
        connection = {
          version: 2,
          connection: new AgentSideConnection(v2, routedStream, connectionOptions),
        };
      else if (v1 !== undefined)
        connection = {
          version: 1,
          connection: new V1AgentSideConnection(v1, routedStream, connectionOptions),
        };
      else throw new Error("the chosen version has no agent");
      state.connection = connection;
      return connection;
    }
  }

  private routeInitialize(message: unknown): Routed {
    if (Array.isArray(message))
      return {
        reject: {
          id: null,
          error: RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported"),
        },
      };
    if (!isPlainObject(message)) return { reject: undefined };
    const isRequest = typeof message.method === "string" && "id" in message;
    if (
      !isRequest &&
      (typeof message.method === "string" || "result" in message || "error" in message)
    )
      return { reject: undefined };
    if (!isRequest)
      return {
        reject: {
          id: null,
          error: RequestError.invalidRequest("first ACP message must be an initialize request"),
        },
      };
    const id = message.id;
    if (message.method !== "initialize")
      return {
        reject: { id, error: RequestError.invalidRequest("first ACP request must be initialize") },
      };
    const params = message.params;
    const requested = isPlainObject(params) ? params.protocolVersion : undefined;
    if (
      !isPlainObject(params) ||
      typeof requested !== "number" ||
      !Number.isInteger(requested) ||
      requested < 0 ||
      requested > MAX_PROTOCOL_VERSION
    )
      return {
        reject: {
          id,
          error: RequestError.invalidParams(
            "initialize.protocolVersion must be a valid ACP protocol version",
          ),
        },
      };
    const version = this.select(requested);
    if (version === undefined)
      return {
        reject: {
          id,
          error: RequestError.unsupportedProtocolVersion(requested, [
            ...(this.options.v1 === undefined ? [] : [1]),
            ...(this.options.v2 === undefined ? [] : [2]),
          ]),
        },
      };
    if (version === 2 && (id === null || (typeof id === "number" && !Number.isInteger(id))))
      return {
        reject: {
          id: null,
          error: RequestError.invalidRequest(
            undefined,
            "ACP v2 request IDs must be strings or integers",
          ),
        },
      };
    try {
      return {
        version,
        initialize: { ...message, params: project(params, requested, version) } as AnyMessage,
      };
    } catch (error) {
      if (error instanceof RequestError) return { reject: { id, error } };
      throw error;
    }
  }

  private select(requested: number): 1 | 2 | undefined {
    if (this.options.v1 !== undefined && this.options.v2 === undefined) return 1;
    if (this.options.v2 !== undefined && requested >= 2) return 2;
    if (this.options.v1 !== undefined && requested >= 1) return 1;
    return undefined;
  }
}

/** The `initialize` params the chosen version's agent gets. */
function project(
  params: Record<string, unknown>,
  requested: number,
  version: 1 | 2,
): Record<string, unknown> {
  if (version === 1) {
    if (requested < 2) {
      const outcome = runValidator(V1_VALIDATORS.InitializeRequest, params);
      if (!outcome.ok)
        throw invalidParams(outcome.issues.map((i) => `${i.path} ${i.message}`).join("; "));
      return canonical({ ...params, protocolVersion: 1 });
    }
    const { request, hasInfo } = newerV2(params);
    return v2ToV1(checkedV2(request), hasInfo);
  }
  const request = requested > 2 ? newerV2(params).request : params;
  return canonical({ ...checkedV2(request), protocolVersion: 2 });
}

/** A {@link ProtocolRouter} for `options`: see there. */
export function protocolRouter(options: ProtocolRouterOptions): ProtocolRouter {
  return new ProtocolRouter(options);
}
