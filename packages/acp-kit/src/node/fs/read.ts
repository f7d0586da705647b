/**
 * Reading a text file, or a range of its lines, for `fs/read_text_file`.
 *
 * Lines end at `\n`; the line terminator stays part of its line, so a CRLF file keeps
 * its `\r\n` and concatenating consecutive ranges gives back the file byte for byte. A
 * lone `\r` does not end a line. After a final `\n` there is no further (empty) line:
 * `"a\nb\n"` and `"a\nb"` both have two lines, and the empty file has none.
 *
 * The file is read in chunks and only the requested lines are kept, so a range of a
 * file larger than the read limit can be read; the limit then applies to the bytes
 * returned.
 *
 * @module
 */
import { constants } from "node:fs";
import { lstat, open, type FileHandle } from "node:fs/promises";
import type { ConfinedPath } from "./confine.js";
import { FileSystemErrorReasons, errnoCode, notFound, refused } from "./errors.js";

/** Which lines to return: the 1-based first line and how many (`Infinity`: to the end). */
export interface LineRange {
  /** The first line to return, counting from 1. */
  readonly first: number;
  /** How many lines to return; `Infinity` means through the end of the file. */
  readonly count: number;
}

/** How to read: the byte limit, what to do with invalid UTF-8, and a cancellation signal. */
export interface ReadSettings {
  /** The most bytes a read returns (and, for a whole-file read, the largest file). */
  readonly maxBytes: number;
  /** `"error"` refuses bytes that are not UTF-8; `"replace"` decodes them as U+FFFD. */
  readonly invalidUtf8: "error" | "replace";
  /** Aborts the read between chunks. */
  readonly signal?: AbortSignal | undefined;
}

const CHUNK_BYTES = 64 * 1024;
const MAX_U32 = 0xffff_ffff;
// Not defined on Windows, where the flags are simply not used.
const NO_FOLLOW = (constants as { O_NOFOLLOW?: number }).O_NOFOLLOW ?? 0;
const NON_BLOCKING = (constants as { O_NONBLOCK?: number }).O_NONBLOCK ?? 0;

function show(value: unknown): string {
  const type = typeof value;
  return type === "number" || type === "string" || type === "boolean" || type === "object"
    ? JSON.stringify(value)
    : type;
}

function checkCount(name: string, value: unknown, min: number, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= MAX_U32) {
    return value;
  }
  const hint =
    name === "line" && value === 0
      ? "lines count from 1, so the first line is line 1"
      : `it must be an integer from ${min} to ${MAX_U32}, or omitted`;
  throw refused(
    FileSystemErrorReasons.INVALID_ARGUMENT,
    `Invalid ${name} ${show(value)} for ${path}: ${hint}.`,
    { path, [name]: value },
  );
}

/**
 * Checks `line` and `limit` as the protocol defines them: `line` is the 1-based first
 * line (omitted or null: 1; `0` is refused rather than guessed at), `limit` the number of
 * lines (omitted or null: all; `0`: none).
 *
 * @param line - The `line` param as received.
 * @param limit - The `limit` param as received.
 * @param path - The path as sent, for error messages.
 */
export function checkLineRange(line: unknown, limit: unknown, path: string): LineRange {
  return {
    first: checkCount("line", line, 1, path) ?? 1,
    count: checkCount("limit", limit, 0, path) ?? Infinity,
  };
}

/**
 * How far into a file a line range is looked for, as a multiple of the read limit: a
 * `line` deep in a huge (or sparse) file must not keep the client scanning for minutes.
 */
const SCAN_LIMIT_FACTOR = 16;

function scannedTooFar(path: string, scanned: number): Error {
  return refused(
    FileSystemErrorReasons.TOO_LARGE,
    `The requested lines of ${path} start more than ${scanned} bytes into the file, too far to look for them; read a smaller file, or an earlier part of this one.`,
    { path, scannedBytes: scanned },
  );
}

function tooLarge(path: string, maxBytes: number, size?: number): Error {
  const message =
    size === undefined
      ? `The requested lines of ${path} are over the ${maxBytes}-byte read limit; ask for fewer lines with limit.`
      : `File ${path} is ${size} bytes, over the ${maxBytes}-byte read limit; read it in parts with line and limit.`;
  return refused(FileSystemErrorReasons.TOO_LARGE, message, {
    path,
    maxBytes,
    ...(size === undefined ? {} : { size }),
  });
}

/**
 * Decodes bytes as UTF-8. A byte order mark is kept (as U+FEFF) so that writing the
 * text back keeps it too.
 *
 * @param bytes - What was read.
 * @param mode - `"error"` to refuse invalid UTF-8, `"replace"` to decode it as U+FFFD.
 * @param path - The path as sent, for error messages.
 */
export function decodeText(bytes: Uint8Array, mode: "error" | "replace", path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: mode === "error", ignoreBOM: true }).decode(bytes);
  } catch {
    throw refused(
      FileSystemErrorReasons.INVALID_UTF8,
      `File ${path} is not valid UTF-8 text (it may be binary or use another encoding), so it cannot be read as text.`,
      { path },
    );
  }
}

/**
 * The lines of `range` in `text` (for unsaved editor buffers), with the same rules as
 * the file reader.
 *
 * @param text - The whole text.
 * @param range - Which lines to return.
 */
export function sliceLines(text: string, range: LineRange): string {
  if (range.count === 0) return "";
  let start = 0;
  for (let line = 1; line < range.first; line++) {
    const newline = text.indexOf("\n", start);
    if (newline === -1) return "";
    start = newline + 1;
  }
  let end = start;
  for (let taken = 0; taken < range.count; taken++) {
    const newline = text.indexOf("\n", end);
    if (newline === -1) return text.slice(start);
    end = newline + 1;
  }
  return text.slice(start, end);
}

/** Reads the bytes of `range` from an open file, chunk by chunk. */
async function readRange(
  handle: FileHandle,
  range: LineRange,
  settings: ReadSettings,
  path: string,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let kept = 0;
  let line = 1;
  const last = range.first + range.count - 1;
  const keep = (bytes: Buffer): void => {
    kept += bytes.length;
    if (kept > settings.maxBytes) throw tooLarge(path, settings.maxBytes);
    parts.push(bytes);
  };
  if (range.count === 0) return Buffer.alloc(0);
  const scanLimit = settings.maxBytes * SCAN_LIMIT_FACTOR;
  let scanned = 0;
  for (;;) {
    settings.signal?.throwIfAborted();
    if (scanned > scanLimit && line < range.first) throw scannedTooFar(path, scanned);
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    scanned += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    let position = 0;
    while (position < chunk.length) {
      if (line >= range.first && last === Infinity) {
        keep(chunk.subarray(position));
        break;
      }
      const newline = chunk.indexOf(0x0a, position);
      const end = newline === -1 ? chunk.length : newline + 1;
      if (line >= range.first) keep(chunk.subarray(position, end));
      position = end;
      if (newline !== -1 && ++line > last) return Buffer.concat(parts, kept);
    }
  }
  return Buffer.concat(parts, kept);
}

/**
 * Reads `range` of the regular file at `target.real` and decodes it. Refuses directories
 * and anything but regular files without reading them (a FIFO is never waited on), and
 * whole files over the limit without reading them.
 *
 * @param target - The confined path.
 * @param range - Which lines to return.
 * @param settings - Limit, UTF-8 handling and cancellation.
 */
export async function readTextRange(
  target: ConfinedPath,
  range: LineRange,
  settings: ReadSettings,
): Promise<string> {
  const path = target.requested;
  let handle: FileHandle;
  try {
    checkRegular(await lstat(target.real), path);
    // Non-blocking so that a file swapped for a FIFO meanwhile cannot hang the read;
    // no-follow so that a final name swapped for a link is refused (ELOOP).
    handle = await open(target.real, constants.O_RDONLY | NO_FOLLOW | NON_BLOCKING);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") throw notFound(path);
    throw error;
  }
  try {
    const stats = await handle.stat();
    checkRegular(stats, path);
    if (range.first === 1 && range.count === Infinity && stats.size > settings.maxBytes) {
      throw tooLarge(path, settings.maxBytes, stats.size);
    }
    const bytes = await readRange(handle, range, settings, path);
    return decodeText(bytes, settings.invalidUtf8, path);
  } finally {
    await handle.close();
  }
}

function checkRegular(
  stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean },
  path: string,
): void {
  if (stats.isFile()) return;
  if (stats.isDirectory()) {
    throw refused(
      FileSystemErrorReasons.IS_DIRECTORY,
      `Cannot read ${path}: it is a directory, not a file; name a file inside it.`,
      { path },
    );
  }
  const kind = stats.isSymbolicLink()
    ? "a symbolic link that changed during the request"
    : "not a regular file (a FIFO, socket or device)";
  throw refused(
    FileSystemErrorReasons.NOT_REGULAR_FILE,
    `Cannot read ${path}: it is ${kind}; only regular files can be read.`,
    { path },
  );
}
