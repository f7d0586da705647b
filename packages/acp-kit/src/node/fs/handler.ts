/**
 * {@link FileSystemHandler}: `fs/read_text_file` and `fs/write_text_file` for a client,
 * confined to each session's roots.
 *
 * @module
 */
import type { Logger } from "../../base/logger.js";
import type { MaybePromise } from "../../base/messages.js";
import type { RequestContext } from "../../peer/agent.js";
import type {
  ReadTextFileRequest,
  ReadTextFileResponse,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from "../../schema/types.gen.js";
import { ConcurrencyLimit } from "../concurrency-limit.js";
import { checkRoots, confinePath, realRoots, type ConfinedPath } from "./confine.js";
import { FileSystemErrorReasons, refused, toRequestError } from "./errors.js";
import { checkLineRange, readTextRange, sliceLines } from "./read.js";
import { writeTextAtomically } from "./write.js";

/** The default {@link FileSystemHandlerOptions.maxReadBytes}: 10 MiB. */
export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

/** The default {@link FileSystemHandlerOptions.maxConcurrentReads}. */
export const DEFAULT_MAX_CONCURRENT_READS = 4;

/** A session's roots: its `cwd` first, then its `additionalDirectories`. */
export type SessionRoots =
  | readonly string[]
  | { readonly cwd: string; readonly additionalDirectories?: readonly string[] | null };

/** Options of a {@link FileSystemHandler}. */
export interface FileSystemHandlerOptions {
  /**
   * Roots of sessions not registered with {@link FileSystemHandler.addSession}: return
   * the session's `[cwd, ...additionalDirectories]`, or `undefined` for an unknown session
   * (refused). Registered sessions take precedence.
   */
  roots?: (sessionId: string) => readonly string[] | undefined;
  /**
   * The most bytes a read returns; a whole-file read of a larger file is refused without
   * reading it (the agent can then read it in parts with `line` and `limit`). Default
   * {@link DEFAULT_MAX_READ_BYTES}.
   */
  maxReadBytes?: number;
  /**
   * How many reads are served at once; later ones wait their turn (a cancelled request
   * leaves the queue). With `maxReadBytes`, this bounds the memory that reads take
   * however many requests an agent sends at once. A read's turn includes the
   * {@link FileSystemHandlerOptions.unsavedText} callback. Default
   * {@link DEFAULT_MAX_CONCURRENT_READS}; `Infinity` for no limit.
   */
  maxConcurrentReads?: number;
  /**
   * Create missing parent directories (inside the roots) when writing. Default `false`:
   * writing into a directory that does not exist is refused with a clear error.
   */
  createDirectories?: boolean;
  /**
   * What to do with bytes that are not valid UTF-8: `"error"` (default) refuses the read,
   * so that an agent cannot read a binary file as mangled text and write it back;
   * `"replace"` decodes them as U+FFFD.
   */
  invalidUtf8?: "error" | "replace";
  /** Flush each written file to disk before renaming it into place. Default `true`. */
  fsync?: boolean;
  /**
   * The editor's unsaved text for a file, if any: reads then return (lines of) it instead
   * of the disk content, as the protocol asks. Called with the file's real path, after
   * the roots check.
   */
  unsavedText?: (realPath: string, sessionId: string) => MaybePromise<string | undefined>;
  /**
   * The local log. A refusal never tells the agent where a link leads; the real location
   * of a path refused for leading outside the roots is logged here instead (`warn`).
   * Default: nothing is logged.
   */
  logger?: Logger;
}

/**
 * Serves `fs/read_text_file` and `fs/write_text_file` from the local disk, confined to
 * each session's roots (its `cwd` and `additionalDirectories`) by real path.
 *
 * - Paths must be absolute; the real location (symbolic links followed, including one
 *   that does not resolve yet) must lie inside the real path of one of the session's
 *   roots. A link from one root into another root of the same session is allowed; into
 *   another session's roots, or anywhere else, it is refused. Unknown sessions are
 *   refused. Refusals answer `-32602` with a `data.reason` from
 *   {@link FileSystemErrorReasons}; a missing file answers `-32002` with `data.uri` and
 *   `data.path`; operating-system failures answer `-32603`.
 * - `line` is the 1-based first line (`0` is refused), `limit` the number of lines (`0`
 *   gives `""`); a `line` past the end gives `""`. Line terminators are kept as they are
 *   (CRLF stays CRLF).
 * - Writes are atomic (temporary file + rename), keep the file's permission bits and do
 *   not create directories unless {@link FileSystemHandlerOptions.createDirectories}.
 *
 * @example
 * ```ts
 * const files = new FileSystemHandler();
 * const client: Client = {
 *   requestPermission: ...,
 *   sessionUpdate: ...,
 *   readTextFile: (p) => files.readTextFile(p),
 *   writeTextFile: (p) => files.writeTextFile(p),
 * };
 * const agent = new ClientSideConnection(() => client, stream);
 * const { sessionId } = await agent.newSession({ cwd, mcpServers: [] });
 * files.addSession(sessionId, { cwd });
 * ```
 */
export class FileSystemHandler {
  private readonly sessions = new Map<string, readonly string[]>();
  /** The real paths of each added session's roots, resolved when it was added. */
  private readonly resolvedRoots = new Map<string, Promise<string[]>>();
  private readonly maxReadBytes: number;
  private readonly options: FileSystemHandlerOptions;
  private readonly reads: ConcurrencyLimit;

  /**
   * Creates a handler; add each session's roots with {@link addSession} (or give a
   * {@link FileSystemHandlerOptions.roots} function) before the agent uses them.
   *
   * @param options - Roots lookup, limits and write behaviour.
   */
  constructor(options: FileSystemHandlerOptions = {}) {
    const max = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    if (!Number.isSafeInteger(max) || max < 0) {
      throw new RangeError(`maxReadBytes must be a non-negative integer, got ${String(max)}.`);
    }
    this.maxReadBytes = max;
    const reads = options.maxConcurrentReads ?? DEFAULT_MAX_CONCURRENT_READS;
    if (!(reads === Infinity || (Number.isSafeInteger(reads) && reads > 0))) {
      throw new RangeError(
        `maxConcurrentReads must be a whole number above 0 or Infinity, got ${String(reads)}.`,
      );
    }
    this.reads = new ConcurrencyLimit(reads);
    this.options = options;
  }

  /**
   * Sets (or replaces) the roots of a session, with the same `cwd` and
   * `additionalDirectories` that were sent to the agent; duplicates are dropped. For
   * `session/new`, call it when the response brings the id; for `session/load` and
   * `session/resume`, call it before sending (the agent may read files while replaying).
   *
   * @param sessionId - The session's id.
   * @param roots - `[cwd, ...additionalDirectories]` or `{ cwd, additionalDirectories }`;
   *   every entry must be absolute (a `TypeError` says which is not).
   */
  addSession(sessionId: string, roots: SessionRoots): void {
    const list = "cwd" in roots ? [roots.cwd, ...(roots.additionalDirectories ?? [])] : roots;
    const checked = [...new Set(checkRoots(list))];
    this.sessions.set(sessionId, checked);
    // Resolved once, now: a root swapped for a link later is not followed.
    this.resolvedRoots.set(sessionId, realRoots(checked));
  }

  /**
   * Forgets a session: its files can no longer be read or written.
   *
   * @param sessionId - The session's id.
   * @returns Whether the session was registered.
   */
  removeSession(sessionId: string): boolean {
    this.resolvedRoots.delete(sessionId);
    return this.sessions.delete(sessionId);
  }

  /**
   * The roots a session's paths are confined to, or `undefined` for an unknown session.
   *
   * @param sessionId - The session's id.
   */
  rootsOf(sessionId: string): readonly string[] | undefined {
    return this.sessions.get(sessionId) ?? this.lookupRoots(sessionId);
  }

  /**
   * The real location a read or write of `filePath` in the session would touch, after the
   * same checks; throws the same `RequestError` the request would be answered with. A
   * directory may be named with a trailing separator or `/.` (`/project/sub/`), as a
   * terminal's `cwd` often is.
   *
   * @param sessionId - The session's id.
   * @param filePath - An absolute path.
   */
  async resolvePath(sessionId: string, filePath: string): Promise<string> {
    return (await this.confine(sessionId, filePath, "resolve", true)).real;
  }

  /**
   * `fs/read_text_file`: the file's text, or the lines `line` to `line + limit - 1`. Waits
   * its turn while {@link FileSystemHandlerOptions.maxConcurrentReads} reads are underway.
   *
   * @param params - The request's params.
   * @param context - The request context; its signal cancels a long read.
   */
  readTextFile(
    params: ReadTextFileRequest,
    context?: RequestContext,
  ): Promise<ReadTextFileResponse> {
    return this.reads.run(() => this.read(params, context), context?.signal);
  }

  private async read(
    params: ReadTextFileRequest,
    context: RequestContext | undefined,
  ): Promise<ReadTextFileResponse> {
    const requested = describe(params.path);
    try {
      const range = checkLineRange(params.line, params.limit, requested);
      const target = await this.confine(params.sessionId, params.path, "read");
      const unsaved = await this.options.unsavedText?.(target.real, params.sessionId);
      if (unsaved !== undefined) {
        const content = sliceLines(unsaved, range);
        if (Buffer.byteLength(content) > this.maxReadBytes) {
          throw refused(
            FileSystemErrorReasons.TOO_LARGE,
            `The requested text of ${requested} is over the ${this.maxReadBytes}-byte read limit; read it in parts with line and limit.`,
            { path: requested, maxBytes: this.maxReadBytes },
          );
        }
        return { content };
      }
      const content = await readTextRange(target, range, {
        maxBytes: this.maxReadBytes,
        invalidUtf8: this.options.invalidUtf8 ?? "error",
        signal: context?.signal,
      });
      return { content };
    } catch (error) {
      if (context?.signal.aborted === true) throw error;
      throw toRequestError(error, "read", requested);
    }
  }

  /**
   * `fs/write_text_file`: replaces the file's content (creating the file if needed)
   * atomically.
   *
   * @param params - The request's params.
   * @param context - The request context; if it aborts before the rename, nothing changes.
   */
  async writeTextFile(
    params: WriteTextFileRequest,
    context?: RequestContext,
  ): Promise<WriteTextFileResponse> {
    const requested = describe(params.path);
    try {
      if (typeof (params.content as unknown) !== "string") {
        throw refused(
          FileSystemErrorReasons.INVALID_ARGUMENT,
          `Cannot write ${requested}: content must be a string (the whole new text).`,
          { path: requested },
        );
      }
      const target = await this.confine(params.sessionId, params.path, "write");
      await writeTextAtomically(target, params.content, {
        createDirectories: this.options.createDirectories ?? false,
        fsync: this.options.fsync ?? true,
        signal: context?.signal,
      });
      return {};
    } catch (error) {
      if (context?.signal.aborted === true) throw error;
      throw toRequestError(error, "write", requested);
    }
  }

  private lookupRoots(sessionId: string): readonly string[] | undefined {
    const roots = this.options.roots?.(sessionId);
    return roots === undefined ? undefined : checkRoots(roots);
  }

  private async confine(
    sessionId: unknown,
    filePath: unknown,
    operation: string,
    directory = false,
  ): Promise<ConfinedPath> {
    if (typeof sessionId !== "string") {
      throw refused(FileSystemErrorReasons.INVALID_ARGUMENT, "sessionId must be a string.");
    }
    const roots = this.rootsOf(sessionId);
    if (roots === undefined) {
      throw refused(
        FileSystemErrorReasons.UNKNOWN_SESSION,
        `Cannot ${operation} ${describe(filePath)}: unknown session ${sessionId}, so it has no roots to allow access in; use the id of an open session.`,
        { sessionId, path: filePath },
      );
    }
    const resolved = this.sessions.has(sessionId) ? this.resolvedRoots.get(sessionId) : undefined;
    return confinePath(
      filePath,
      roots,
      await resolved,
      (requested, real) =>
        this.options.logger?.warn?.("Refused a path that leads outside the session's roots", {
          sessionId,
          path: requested,
          realPath: real,
        }),
      directory,
    );
  }
}

/** The path for messages, whatever was sent. */
function describe(value: unknown): string {
  return typeof value === "string" ? value : String(value);
}
