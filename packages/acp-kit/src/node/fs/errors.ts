/**
 * The errors a {@link FileSystemHandler} answers with. Each one is a `RequestError`
 * whose `data.reason` says, in a stable machine-readable way, what went wrong.
 *
 * The codes follow one rule:
 * - `-32602` (invalid params): the request cannot be served as asked, and asking
 *   differently can fix it: a relative or malformed path, a path outside the session's
 *   roots, an unknown session, a bad `line`, a directory or device where a file was
 *   expected, a file too large or not UTF-8, a missing parent directory on write.
 *   Refusals stay on this standard code rather than a custom one: every peer already
 *   understands it as "do not retry this as is", and custom codes in the ACP range
 *   (-32000..-32099) could collide with codes a later protocol version defines.
 * - `-32002` (resource not found): the file to read does not exist.
 * - `-32603` (internal error): the operating system refused or failed (permission
 *   denied, disk full, read-only file system, I/O error).
 *
 * @module
 */
import { ErrorCodes } from "../../base/error-codes.js";
import { RequestError } from "../../jsonrpc/errors.js";

/** The values of `error.data.reason` in errors answered by a {@link FileSystemHandler}. */
export const FileSystemErrorReasons = {
  /** The path is not a non-empty string, contains `\0` or a lone UTF-16 surrogate. */
  INVALID_PATH: "invalid_path",
  /** The path is not absolute. */
  RELATIVE_PATH: "relative_path",
  /** The path ends with a separator (it names a directory). */
  TRAILING_SEPARATOR: "trailing_separator",
  /** The path, or a component of it, is longer than the system allows. */
  PATH_TOO_LONG: "path_too_long",
  /** Resolving the path met a loop of symbolic links. */
  SYMLINK_LOOP: "symlink_loop",
  /** The path's real location contains a name that is not valid UTF-8. */
  NON_UTF8_NAME: "non_utf8_name",
  /** The session id is not known to the handler. */
  UNKNOWN_SESSION: "unknown_session",
  /** The path's real location is outside every root of the session. */
  OUTSIDE_ROOTS: "outside_roots",
  /** `sessionId`, `line`, `limit` or `content` has the wrong type or value. */
  INVALID_ARGUMENT: "invalid_argument",
  /** The path names a directory. */
  IS_DIRECTORY: "is_directory",
  /** The path names something other than a regular file (FIFO, device, socket). */
  NOT_REGULAR_FILE: "not_regular_file",
  /** The file, or the requested lines, are larger than `maxReadBytes`. */
  TOO_LARGE: "too_large",
  /** The bytes read are not valid UTF-8. */
  INVALID_UTF8: "invalid_utf8",
  /** The file to read does not exist (code `-32002`). */
  NOT_FOUND: "not_found",
  /** The directory to write into does not exist and `createDirectories` is off. */
  PARENT_MISSING: "parent_missing",
  /** A component of the path that should be a directory is not one. */
  PARENT_NOT_DIRECTORY: "parent_not_directory",
  /** The file to write exists and is read-only, or not writable by this process. */
  READ_ONLY: "read_only",
  /** The operating system refused or failed (code `-32603`). */
  SYSTEM_ERROR: "system_error",
} as const;

/** One of {@link FileSystemErrorReasons}: why a file-system request was refused. */
export type FileSystemErrorReason =
  (typeof FileSystemErrorReasons)[keyof typeof FileSystemErrorReasons];

/**
 * Builds the `-32602` answer for a request that cannot be served as asked.
 *
 * @param reason - The stable reason, sent as `data.reason`.
 * @param message - One sentence saying what happened and what to do.
 * @param details - More fields for `data` (usually `path`).
 */
export function refused(
  reason: FileSystemErrorReason,
  message: string,
  details: Record<string, unknown> = {},
): RequestError {
  return new RequestError(ErrorCodes.INVALID_PARAMS, message, { reason, ...details });
}

/**
 * Builds the `-32002` answer for a file that does not exist. `data.uri` is the path,
 * as in `RequestError.resourceNotFound`, and `data.path` repeats it.
 *
 * @param path - The path as the agent sent it.
 */
export function notFound(path: string): RequestError {
  return new RequestError(
    ErrorCodes.RESOURCE_NOT_FOUND,
    `File not found: ${path}; check the path (to create the file, write it with fs/write_text_file).`,
    { reason: FileSystemErrorReasons.NOT_FOUND, uri: path, path },
  );
}

/** The `code` of a Node.js system error (`ENOENT`, `EACCES`, ...), if it has one. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

const SYSTEM_MESSAGES: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EROFS: "the file system is read-only",
  EIO: "input/output error",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  EBUSY: "the file is busy",
  ETXTBSY: "the file is busy",
};

/**
 * Maps an error thrown by `node:fs` to an answer: errors this module raised pass
 * through; well-known conditions get their specific reason; anything else becomes
 * `-32603` naming the operation, the path and the system's error code.
 *
 * @param error - What was thrown.
 * @param operation - What was being done, such as "read" or "write".
 * @param path - The path as the agent sent it.
 */
export function toRequestError(error: unknown, operation: string, path: string): RequestError {
  if (error instanceof RequestError) return error;
  const code = errnoCode(error);
  switch (code) {
    case "ENAMETOOLONG":
      return refused(
        FileSystemErrorReasons.PATH_TOO_LONG,
        `Cannot ${operation} ${path}: the path or one of its names is too long for the file system; use a shorter path.`,
        { path },
      );
    case "ELOOP":
      return refused(
        FileSystemErrorReasons.SYMLINK_LOOP,
        `Cannot ${operation} ${path}: too many levels of symbolic links (a link loop?); use a path without the loop.`,
        { path },
      );
    case "EISDIR":
      return refused(
        FileSystemErrorReasons.IS_DIRECTORY,
        `Cannot ${operation} ${path}: it is a directory, not a file; name a file inside it.`,
        { path },
      );
    case "ENOTDIR":
      return refused(
        FileSystemErrorReasons.PARENT_NOT_DIRECTORY,
        `Cannot ${operation} ${path}: a component of the path is a file, not a directory; check the path.`,
        { path },
      );
    default: {
      const what = code === undefined ? undefined : SYSTEM_MESSAGES[code];
      const detail = what ?? (error instanceof Error ? error.message : String(error));
      return new RequestError(
        ErrorCodes.INTERNAL_ERROR,
        `Cannot ${operation} ${path}: ${detail}.`,
        {
          reason: FileSystemErrorReasons.SYSTEM_ERROR,
          path,
          ...(code === undefined ? {} : { code }),
        },
      );
    }
  }
}
