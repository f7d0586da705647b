/**
 * In-memory connections: two linked streams, for tests and for running an agent and a
 * client in one process.
 *
 * @module
 */
import type { Stream } from "../jsonrpc/messages.js";
import { ndJsonStream, type NdJsonStreamOptions } from "./ndjson.js";

/** Two linked {@link Stream}s: what one side writes, the other reads. */
export interface StreamPair {
  /** The agent's end. */
  readonly agent: Stream;
  /** The client's end. */
  readonly client: Stream;
}

/**
 * Two streams linked by in-memory byte pipes, framed as newline-delimited JSON exactly
 * as over stdio (so tests exercise the real framing).
 */
export function memoryStreamPair(options?: NdJsonStreamOptions): StreamPair {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  return {
    agent: ndJsonStream(toClient.writable, toAgent.readable, options),
    client: ndJsonStream(toAgent.writable, toClient.readable, options),
  };
}
