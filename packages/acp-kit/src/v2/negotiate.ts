/**
 * {@link negotiate}: a client that speaks v1 and v2 asks for v2 and goes on in whatever
 * version the agent answers.
 *
 * @module
 */
import type { MessageObserver } from "../jsonrpc/connection.js";
import { RequestError } from "../jsonrpc/errors.js";
import { isPlainObject, type AnyMessage, type Stream } from "../base/messages.js";
import type { AcpConnectionOptions } from "../peer/acp-connection.js";
import type { Agent as V1Agent } from "../peer/agent.js";
import type { Client as V1Client } from "../peer/client.js";
import { ClientSideConnection as V1ClientSideConnection } from "../peer/client-side-connection.js";
import type * as v1 from "../schema/types.gen.js";
import type * as v2 from "../schema/v2/types.gen.js";
import { DEF_VALIDATORS as V1_VALIDATORS } from "../schema/validators.gen.js";
import { DEF_VALIDATORS as V2_VALIDATORS } from "../schema/v2/validators.gen.js";
import type { Client } from "./agent.js";
import { ClientSideConnection } from "./client-side-connection.js";
import { prepended } from "./prepended.js";

/** Which version to speak: `"auto"` asks for v2 and falls back to v1. */
export type ProtocolChoice = "auto" | 1 | 2;

/** Options of {@link negotiate}. */
export interface NegotiateOptions {
  /** `"auto"` (default): v2 if the agent speaks it, else v1. `1` or `2`: that version only. */
  readonly protocol?: ProtocolChoice;
  /** Who the client is (v2 `info`, v1 `clientInfo`). */
  readonly info: v2.Implementation;
  /** The v2 client capabilities. Default `{}`. */
  readonly capabilities?: v2.ClientCapabilities;
  /** The v1 client capabilities (also sent with the v2 request, see `dualShape`). */
  readonly clientCapabilities?: v1.ClientCapabilities;
  /**
   * Send the v1 fields (`clientInfo`, `clientCapabilities`) with the v2 request too, so an
   * agent that reads it as v1 gets the client's whole v1 capabilities. Default true.
   */
  readonly dualShape?: boolean;
  /** Creates the v1 client when the agent speaks v1. */
  readonly v1: (agent: V1Agent) => V1Client;
  /** Creates the v2 client when the agent speaks v2. */
  readonly v2: (agent: ClientSideConnection) => Client;
  /** Options of the connection made, whichever version. */
  readonly connectionOptions?: AcpConnectionOptions;
  /** Sees the `initialize` exchange(s), which happen before the connection exists. */
  readonly observe?: MessageObserver;
  /** Aborts the negotiation (the stream is released, not closed). */
  readonly signal?: AbortSignal;
}

/** What {@link negotiate} agreed on. */
export type Negotiated =
  | {
      readonly version: 1;
      readonly connection: V1ClientSideConnection;
      readonly request: v1.InitializeRequest;
      readonly response: v1.InitializeResponse;
    }
  | {
      readonly version: 2;
      readonly connection: ClientSideConnection;
      readonly request: v2.InitializeRequest;
      readonly response: v2.InitializeResponse;
    };

/** One `initialize` that did not lead to a connection. */
export interface NegotiationAttempt {
  /** The version asked for. */
  readonly version: 1 | 2;
  /** The error answer, or why there was none. */
  readonly error: RequestError | Error;
}

/** {@link negotiate} failed: no version was agreed. */
export class NegotiationError extends Error {
  /** Each `initialize` sent and why it failed. */
  readonly attempts: readonly NegotiationAttempt[];
  /**
   * True when the agent's output ended (the agent exited): a stdio agent must be started
   * again, and asked for v1 (`protocol: 1`) if the v2 request is what made it leave.
   */
  readonly ended: boolean;

  /**
   * Creates the error.
   *
   * @param message - What failed.
   * @param attempts - The attempts.
   * @param ended - Whether the agent's output ended.
   */
  constructor(message: string, attempts: readonly NegotiationAttempt[], ended: boolean) {
    super(message);
    this.name = "NegotiationError";
    this.attempts = attempts;
    this.ended = ended;
  }
}

/** Reads messages until the answer to `id`, keeping what else comes for the connection. */
class Exchange {
  readonly early: AnyMessage[] = [];
  ended = false;

  constructor(
    private readonly stream: Stream,
    private readonly reader: ReadableStreamDefaultReader<AnyMessage>,
    private readonly observe: MessageObserver | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async ask(id: number, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const request = { jsonrpc: "2.0", id, method: "initialize", params } as AnyMessage;
    this.observe?.("out", request);
    const writer = this.stream.writable.getWriter();
    try {
      await writer.write(request);
    } finally {
      writer.releaseLock();
    }
    for (;;) {
      if (this.signal?.aborted === true) throw new Error("the negotiation was aborted");
      const next = await this.read();
      if (next === undefined) {
        this.ended = true;
        throw new Error("the agent's output ended before it answered initialize");
      }
      this.observe?.("in", next);
      const message = next as unknown;
      if (isPlainObject(message) && message.id === id && !("method" in message)) return message;
      this.early.push(next);
    }
  }

  private read(): Promise<AnyMessage | undefined> {
    const signal = this.signal;
    const reading = this.reader.read().then((r) => (r.done ? undefined : r.value));
    if (signal === undefined) return reading;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(new Error("the negotiation was aborted"));
      signal.addEventListener("abort", onAbort, { once: true });
      reading.then(
        (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** The stream the connection gets: what came early first, then the rest. */
  rest(): Stream {
    return { writable: this.stream.writable, readable: prepended(this.reader, this.early) };
  }
}

function errorOf(answer: Record<string, unknown>): RequestError {
  const error = answer.error;
  if (isPlainObject(error) && typeof error.code === "number" && typeof error.message === "string")
    return new RequestError(error.code, error.message, error.data);
  return RequestError.internalError(
    undefined,
    "the agent answered initialize with a malformed error",
  );
}

function describe(attempts: readonly NegotiationAttempt[]): string {
  return attempts.map((a) => `v${a.version}: ${a.error.message}`).join("; ");
}

/**
 * Agrees on a version with the agent at the other end of `stream`, then returns the
 * connection for it (v1's `ClientSideConnection` or v2's), already initialized.
 *
 * With `protocol: "auto"` it asks for v2 (`initialize` with `protocolVersion: 2`, and the
 * v1 fields too unless `dualShape` is false). An agent that answers `protocolVersion: 1`
 * is spoken to in v1 on the same connection; one that answers with an error is asked
 * again in v1. When the agent's output ends instead, a {@link NegotiationError} with
 * `ended` says to start it again and ask for v1.
 *
 * ```ts
 * const agreed = await negotiate(ndJsonStream(child.stdin, child.stdout), {
 *   info: { name: "my-editor", version: "1.0.0" },
 *   v1: () => myV1Client,
 *   v2: () => myV2Client,
 * });
 * if (agreed.version === 2) await agreed.connection.newSession({ cwd });
 * ```
 */
export async function negotiate(stream: Stream, options: NegotiateOptions): Promise<Negotiated> {
  const agreed = await negotiateStream(stream, options);
  if (agreed.version === 2) {
    const connection = new ClientSideConnection(options.v2, agreed.rest, options.connectionOptions);
    connection.adoptInitialization(agreed.request, agreed.response);
    return { version: 2, connection, request: agreed.request, response: agreed.response };
  }
  return {
    version: 1,
    connection: new V1ClientSideConnection(options.v1, agreed.rest, options.connectionOptions),
    request: agreed.request,
    response: agreed.response,
  };
}

/** What {@link negotiateStream} agreed on: the version, the exchange and the stream after it. */
export type NegotiatedStream =
  | {
      readonly version: 1;
      readonly request: v1.InitializeRequest;
      readonly response: v1.InitializeResponse;
      readonly rest: Stream;
    }
  | {
      readonly version: 2;
      readonly request: v2.InitializeRequest;
      readonly response: v2.InitializeResponse;
      readonly rest: Stream;
    };

/**
 * {@link negotiate} without making the connection: the version agreed, the `initialize`
 * exchange and the stream to go on with (what the agent sent meanwhile comes first).
 *
 * @internal
 */
export async function negotiateStream(
  stream: Stream,
  options: Omit<NegotiateOptions, "v1" | "v2" | "connectionOptions">,
): Promise<NegotiatedStream> {
  const protocol = options.protocol ?? "auto";
  const exchange = new Exchange(
    stream,
    stream.readable.getReader(),
    options.observe,
    options.signal,
  );
  const attempts: NegotiationAttempt[] = [];
  const v1Request: v1.InitializeRequest = {
    protocolVersion: 1,
    clientCapabilities: options.clientCapabilities ?? {},
    clientInfo: options.info,
  };
  let nextId = 0;
  if (protocol !== 1) {
    const v2Request: Record<string, unknown> = {
      protocolVersion: 2,
      info: options.info,
      capabilities: options.capabilities ?? {},
      ...(options.dualShape === false || protocol === 2
        ? {}
        : { clientInfo: v1Request.clientInfo, clientCapabilities: v1Request.clientCapabilities }),
    };
    let answer: Record<string, unknown> | undefined;
    try {
      answer = await exchange.ask(nextId++, v2Request);
    } catch (error) {
      attempts.push({ version: 2, error: error as Error });
      throw new NegotiationError(
        `Could not agree on a protocol version (${describe(attempts)})`,
        attempts,
        exchange.ended,
      );
    }
    if ("error" in answer) {
      attempts.push({ version: 2, error: errorOf(answer) });
    } else {
      const result = answer.result;
      const version = isPlainObject(result) ? result.protocolVersion : undefined;
      if (version === 2 && V2_VALIDATORS.InitializeResponse(result, undefined)) {
        return {
          version: 2,
          request: v2Request as v2.InitializeRequest,
          response: result as v2.InitializeResponse,
          rest: exchange.rest(),
        };
      }
      if (
        version === 1 &&
        protocol === "auto" &&
        V1_VALIDATORS.InitializeResponse(result, undefined)
      ) {
        return {
          version: 1,
          request: v1Request,
          response: result as v1.InitializeResponse,
          rest: exchange.rest(),
        };
      }
      attempts.push({
        version: 2,
        error: RequestError.invalidRequest(
          { receivedProtocolVersion: version },
          `the agent answered a v2 initialize with ${version === 1 || version === 2 ? `an invalid v${version} answer` : `protocolVersion ${JSON.stringify(version)}`}`,
        ),
      });
    }
    if (protocol === 2)
      throw new NegotiationError(
        `The agent does not speak ACP v2 (${describe(attempts)})`,
        attempts,
        false,
      );
  }
  let answer: Record<string, unknown>;
  try {
    answer = await exchange.ask(nextId++, v1Request);
  } catch (error) {
    attempts.push({ version: 1, error: error as Error });
    throw new NegotiationError(
      `Could not agree on a protocol version (${describe(attempts)})`,
      attempts,
      exchange.ended,
    );
  }
  if ("error" in answer) {
    attempts.push({ version: 1, error: errorOf(answer) });
    throw new NegotiationError(
      `The agent refused initialize (${describe(attempts)})`,
      attempts,
      false,
    );
  }
  return {
    version: 1,
    request: v1Request,
    response: answer.result as v1.InitializeResponse,
    rest: exchange.rest(),
  };
}
