/**
 * Reading the CLI's own files (the session list, the agents config) without waiting on
 * something that is not a file at their path: a FIFO opened for reading waits for a
 * writer for ever, and a directory cannot be read. Such a path is opened without
 * blocking, and read only when it is a regular file (after a symbolic link).
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";

/** Flags that open a path for reading without waiting (O_NONBLOCK is Unix's; Windows has no FIFO). */
export const READ_WITHOUT_WAITING =
  constants.O_RDONLY | ((constants.O_NONBLOCK as number | undefined) ?? 0);

/** What a file system entry that is not a regular file is, in words. */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/** Something other than a regular file is at a path that should hold one. */
export class NotAFileError extends Error {
  /**
   * @param path - The path.
   * @param kind - What is there ({@link kindOf}).
   */
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a file`);
    this.name = "NotAFileError";
  }
}

/**
 * The text of the regular file at `path`; undefined when there is nothing there.
 *
 * @throws {@link NotAFileError} when something else is there; the error of `open` or
 *   `read` otherwise (ENXIO for a socket is said as a socket).
 */
export function readRegularFileSync(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_WITHOUT_WAITING);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ENXIO") throw new NotAFileError(path, "a socket");
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new NotAFileError(path, kindOf(info));
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
