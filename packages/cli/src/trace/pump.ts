/**
 * {@link pump}: forwards the bytes of a Node readable to a writable exactly as they come,
 * chunk by chunk, with backpressure, and shows each chunk to a tap after it was handed on.
 *
 * A tap that throws loses that chunk's recording, never the proxy.
 *
 * When the writable breaks (the agent died: `EPIPE`; the editor went away), the readable is
 * still drained, and its bytes discarded, so that the writer on the other side never
 * blocks on a full pipe.
 *
 * @module
 */
import type { Readable, Writable } from "node:stream";

/** Options of {@link pump}. */
export interface PumpOptions {
  /** Sees every chunk, after it was written on. */
  readonly tap: (chunk: Buffer) => void;
  /** Called once when the readable ended (or closed, or failed). */
  readonly onEnd?: () => void;
  /** End the writable when the readable ends (default false). */
  readonly end?: boolean;
}

/** A running {@link pump}. */
export interface Pump {
  /** Resolves when the readable has ended (or closed, or failed). */
  readonly done: Promise<void>;
  /** True once the readable has ended. */
  readonly ended: boolean;
  /** Stops reading and forgets both streams (listeners are removed). */
  stop(): void;
}

/** See the module comment. */
export function pump(source: Readable, sink: Writable, options: PumpOptions): Pump {
  let broken = false;
  let ended = false;
  let waitingForDrain = false;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));

  const resume = (): void => {
    waitingForDrain = false;
    if (!ended) source.resume();
  };
  const onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    if (!broken && !sink.destroyed && !sink.writableEnded) {
      if (!sink.write(bytes) && !waitingForDrain) {
        waitingForDrain = true;
        source.pause();
        sink.once("drain", resume);
      }
    }
    try {
      options.tap(bytes);
    } catch {
      // Recording must never end the proxy: the bytes were forwarded already.
    }
  };
  const onSinkBroken = (): void => {
    if (broken) return;
    broken = true;
    sink.removeListener("drain", resume);
    if (waitingForDrain) resume();
  };
  const onEnd = (): void => {
    if (ended) return;
    ended = true;
    options.onEnd?.();
    if (options.end === true && !broken && !sink.writableEnded) sink.end();
    finish();
  };

  source.on("data", onData);
  source.once("end", onEnd);
  source.once("close", onEnd);
  source.on("error", onEnd);
  sink.on("error", onSinkBroken);
  sink.once("close", onSinkBroken);
  source.resume();

  return {
    done,
    get ended() {
      return ended;
    },
    stop() {
      source.removeListener("data", onData);
      source.removeListener("end", onEnd);
      source.removeListener("close", onEnd);
      source.pause();
      sink.removeListener("drain", resume);
      sink.removeListener("close", onSinkBroken);
      // Late errors of either stream must not crash the process.
      source.removeListener("error", onEnd);
      source.on("error", () => undefined);
      sink.removeListener("error", onSinkBroken);
      sink.on("error", () => undefined);
    },
  };
}
