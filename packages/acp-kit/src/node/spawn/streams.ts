/**
 * Web streams over a child process's stdio, shaped for the way an agent ends.
 *
 * When an agent exits, its stdout usually reaches end-of-file before Node reports the
 * exit. If the connection saw that end at once, pending requests would fail with a vague
 * "the peer closed the connection" instead of naming the exit code and quoting stderr.
 * So the end of stdout is handed to a callback once every byte before it has been
 * consumed, and the callback decides (after waiting, bounded, for the exit) whether to
 * close the connection itself with the exit as the reason, or to let the stream end.
 *
 * Likewise a write to a dead agent's stdin fails (`EPIPE`) before the exit is known;
 * the write waits for the callback before it rejects, for the same reason. Errors of
 * the Node streams are always handled here, so they never surface as uncaught
 * exceptions.
 *
 * @module
 */
import type { Readable, Writable } from "node:stream";

/**
 * A readable over the agent's stdout. `onEnd` runs when stdout ended and everything
 * before the end was read; it resolves true when it closed the connection itself
 * (the stream then stays open), false to end the stream normally.
 * @internal
 */
export function stdoutReadable(
  stdout: Readable,
  onEnd: () => Promise<boolean>,
): ReadableStream<Uint8Array> {
  let ended = false;
  let finishing = false;
  let cancelled = false;
  // True while the consumer waits in read() on an empty queue: it has handled everything.
  let waiting = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;

  const finish = (): void => {
    if (finishing) return;
    finishing = true;
    onEnd().then(
      (handled) => {
        if (!handled && !cancelled) controller?.close();
      },
      (error: unknown) => {
        if (!cancelled) controller?.error(error);
      },
    );
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        stdout.on("data", (chunk: Buffer) => {
          if (cancelled) return;
          waiting = false;
          c.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((c.desiredSize ?? 0) < 0) stdout.pause();
        });
        stdout.once("end", () => {
          ended = true;
          if (waiting && !cancelled) finish();
        });
        stdout.on("error", (error) => {
          if (cancelled || ended) return;
          cancelled = true;
          c.error(error);
        });
      },
      pull() {
        if (ended) {
          finish();
          return;
        }
        waiting = true;
        stdout.resume();
      },
      cancel() {
        cancelled = true;
        // Keep draining (and discarding) so that the agent never blocks on a full pipe.
        stdout.resume();
      },
    },
    // No read-ahead: `pull` runs only when the consumer asks for more.
    { highWaterMark: 0 },
  );
}

/**
 * A writable over the agent's stdin. When a write fails, `onError` runs (it may close
 * the connection with a better reason) before the write rejects.
 * @internal
 */
export function stdinWritable(
  stdin: Writable,
  onError: (error: unknown) => Promise<void>,
): WritableStream<Uint8Array> {
  // Failures are reported through the write callbacks; without a listener the same
  // failure would also be emitted as an 'error' event and crash the process.
  stdin.on("error", () => undefined);
  return new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        stdin.write(chunk, (error) => {
          if (error === null || error === undefined) {
            resolve();
            return;
          }
          onError(error).then(
            () => reject(error),
            () => reject(error),
          );
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        if (stdin.destroyed || stdin.writableEnded) {
          resolve();
          return;
        }
        stdin.end(() => resolve());
      });
    },
    abort() {
      stdin.destroy();
    },
  });
}
