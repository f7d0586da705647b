/**
 * {@link agentStdioStream}: the stream an agent speaks ACP on: messages in on
 * `process.stdin`, out on `process.stdout`, with stdout kept clean for the protocol.
 *
 * @module
 */
import { Readable } from "node:stream";
import type { Stream } from "../base/messages.js";
import { ndJsonStream, type NdJsonStreamOptions } from "../transport/ndjson.js";

/** Options of {@link agentStdioStream}. */
export interface AgentStdioOptions extends NdJsonStreamOptions {
  /**
   * Send everything else this process writes to stdout (`console.log`, `console.info`,
   * `console.debug`, `console.dir`, `console.table`, `process.stdout.write`, ...) to stderr
   * instead, so that it cannot corrupt the protocol. Default `true`; `false` leaves stdout
   * alone, and then nothing but ACP messages may be written there.
   */
  readonly redirectStdout?: boolean;
}

type WriteFunction = typeof process.stdout.write;

type ChunkWriter = (chunk: Uint8Array, done: (error?: Error | null) => void) => void;

/** Set once the stream exists: stdin and stdout carry one connection per process. */
let used = false;

/** Makes `process.stdout.write` (and so `console.log` & co.) write to stderr. */
function redirectStdout(): void {
  const redirected = function write(...args: unknown[]): boolean {
    // Looked up at each call, so that a later replacement of stderr's writer is honoured.
    return (process.stderr.write as (...a: unknown[]) => boolean)(...args);
  } as WriteFunction;
  process.stdout.write = redirected;
  // The console writes through `process.stdout.write`, but a console method replaced
  // before (or bound to the old writer) is pointed at stderr explicitly too.
  for (const name of ["log", "info", "debug"] as const) {
    console[name] = (...args: unknown[]) => console.error(...args);
  }
}

/**
 * A writable that writes through the saved writer, one chunk at a time: each write
 * resolves on its own callback, once Node has taken the chunk. Not `Writable.toWeb`: on
 * Node 20 its sink skips the chunk (and resolves) while stdout needs a drain, which other
 * code writing to stdout is enough to cause.
 */
function protocolWritable(write: ChunkWriter): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        write(chunk, (error) => {
          if (error === null || error === undefined) resolve();
          else reject(error);
        });
      });
    },
    // stdout belongs to the process: it is not ended when the connection closes.
  });
}

/**
 * The {@link Stream} of an agent that speaks ACP on its stdio: pass it to
 * `AgentSideConnection`. It reads `process.stdin` and writes `process.stdout`, like
 * `ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin))`, and
 * makes sure nothing else writes to stdout.
 *
 * By default (`redirectStdout: true`) everything else the process writes through
 * `process.stdout.write`, including `console.log`, `console.info` and `console.debug`,
 * goes to stderr from now on, for the life of the process; the protocol keeps a private
 * handle to the real writer. What writes to file descriptor 1 directly is not covered:
 * `fs.writeSync(1, ...)`, native code, and child processes started with
 * `stdio: "inherit"` (start them with `stdio: ["pipe", 2, 2]` or `["ignore", 2, 2]`, so
 * that their stdout goes to stderr).
 *
 * A write error on stdout (the client went away: `EPIPE`) closes the connection; it is
 * never thrown as an uncaught exception.
 *
 * ```ts
 * import { AgentSideConnection } from "acp-kit";
 * import { agentStdioStream } from "acp-kit/node";
 *
 * const connection = new AgentSideConnection((client) => new MyAgent(client), agentStdioStream());
 * console.log("this goes to stderr, not into the protocol");
 * await connection.closed;
 * ```
 *
 * @param options - Redirection, message size limit and logger.
 * @returns The stream. Only one can exist per process: stdin carries one connection.
 * @throws Error when called a second time in the same process.
 */
export function agentStdioStream(options: AgentStdioOptions = {}): Stream {
  if (used) {
    throw new Error(
      "agentStdioStream() was already called: process.stdin and process.stdout carry one " +
        "connection per process. Create the stream once and share the connection.",
    );
  }
  used = true;
  const stdout = process.stdout;
  // The private handle to the real writer, taken before stdout is redirected.
  const original = stdout.write.bind(stdout) as (chunk: Uint8Array, done: () => void) => boolean;
  const protocolWrite: ChunkWriter = (chunk, done) => {
    original(chunk, done);
  };
  // Failures reach the write callbacks; without a listener they would also crash the
  // process as uncaught 'error' events.
  stdout.on("error", () => undefined);
  if (options.redirectStdout !== false) redirectStdout();
  const streamOptions: NdJsonStreamOptions = {
    ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
  return ndJsonStream(
    protocolWritable(protocolWrite),
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    streamOptions,
  );
}
