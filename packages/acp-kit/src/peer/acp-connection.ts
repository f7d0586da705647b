/**
 * What {@link AgentSideConnection} and {@link ClientSideConnection} share: a JSON-RPC
 * connection routed by the protocol's method table, typed calls to the peer with their
 * results validated, and the connection's life cycle.
 *
 * @module
 */
import {
  JsonRpcConnection,
  type ConnectionOptions,
  type EngineOptions,
  type MessageObserver,
  type SendRequestOptions,
} from "../jsonrpc/connection.js";
import type { NotificationRoute, RequestRoute, Router } from "../jsonrpc/dispatch.js";
import type { Stream } from "../base/messages.js";
import type { ResultShape } from "../jsonrpc/pending.js";
import type { Transport } from "../transport/transport.js";
import type { MethodHandler, MethodSpec } from "../schema/method-spec.js";
import { SALVAGE_CHECK } from "../schema/salvage.js";
import { V1_SPECS, outboundSpecs } from "./router.js";

/** Options of an {@link AgentSideConnection} or {@link ClientSideConnection}. */
export type AcpConnectionOptions = ConnectionOptions;

type PeerSide = Exclude<MethodHandler, "both">;

/** How to check the result of each request a side handles; built once per table and side. */
const RESULT_SHAPES = new WeakMap<
  readonly MethodSpec[],
  Map<PeerSide, ReadonlyMap<string, ResultShape>>
>();

function resultShapesOf(
  peerSide: PeerSide,
  specs: readonly MethodSpec[],
): ReadonlyMap<string, ResultShape> {
  let bySide = RESULT_SHAPES.get(specs);
  if (bySide === undefined) {
    bySide = new Map();
    RESULT_SHAPES.set(specs, bySide);
  }
  let shapes = bySide.get(peerSide);
  if (shapes === undefined) {
    shapes = new Map(
      [...outboundSpecs(peerSide, "request", specs)].map(([method, spec]) => [
        method,
        { validate: spec.validateResult, emptyResult: spec.emptyResult },
      ]),
    );
    bySide.set(peerSide, shapes);
  }
  return shapes;
}

/**
 * A router built on first use: the implementation is created after the connection (it
 * may want a reference to it), and reading starts asynchronously. (A class rather than
 * closures, so that calls into it stay monomorphic from one connection to the next.)
 */
class LazyRouter implements Router {
  private built: Router | undefined;

  constructor(private readonly build: () => Router) {}

  request(method: string): RequestRoute | undefined {
    return (this.built ??= this.build()).request(method);
  }

  notification(method: string): NotificationRoute | undefined {
    return (this.built ??= this.build()).notification(method);
  }
}

/** @internal */
export class AcpConnectionCore {
  readonly rpc: JsonRpcConnection;
  /** How to check the result of each protocol request the peer handles. */
  private readonly resultShapes: ReadonlyMap<string, ResultShape>;

  constructor(
    stream: Stream | Transport,
    peerSide: PeerSide,
    router: () => Router,
    options: AcpConnectionOptions | undefined,
    specs: readonly MethodSpec[] = V1_SPECS,
    guard?: (inner: Router) => Router,
  ) {
    this.resultShapes = resultShapesOf(peerSide, specs);
    const lazy = new LazyRouter(router);
    // `lenient` repairs as the protocol's reference decoder does (see schema/salvage.ts).
    const engineOptions: EngineOptions = { ...options, lenientCheck: SALVAGE_CHECK };
    this.rpc = new JsonRpcConnection(
      stream,
      guard === undefined ? lazy : guard(lazy),
      engineOptions,
    );
  }

  /** Sends a request; protocol methods get their result validated. */
  request<T>(method: string, params: unknown, options?: SendRequestOptions): Promise<T> {
    return this.rpc.request<T>(method, params, options, this.resultShapes.get(method));
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.rpc.notify(method, params);
  }

  /** Sees every message in and out; see {@link JsonRpcConnection.observe}. */
  observe(listener: MessageObserver): () => void {
    return this.rpc.observe(listener);
  }
}
