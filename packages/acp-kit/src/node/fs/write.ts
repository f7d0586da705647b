/**
 * Atomic writes for `fs/write_text_file`.
 *
 * The new text goes to a temporary file in the target's directory (created exclusively,
 * so it cannot follow a planted link), is flushed to disk (`fsync`, unless turned off),
 * and is renamed over the target: readers see the old file or the new one, never a part.
 * On any failure the temporary file is removed and the target is untouched.
 *
 * An existing file keeps its permission bits (setuid, setgid and sticky bits are dropped
 * on purpose: rewritten content should not inherit privileges) and, where the process
 * may, its owner and group. As with any write-by-rename, other hard links to the old
 * file keep the old content.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import {
  access,
  lstat,
  mkdir,
  open,
  realpath,
  rename,
  unlink,
  type FileHandle,
} from "node:fs/promises";
import path from "node:path";
import { isInside, type ConfinedPath } from "./confine.js";
import { FileSystemErrorReasons, errnoCode, refused } from "./errors.js";

/** How to write: directory creation, durability and cancellation. */
export interface WriteSettings {
  /** Create missing parent directories (inside the root) instead of refusing. */
  readonly createDirectories: boolean;
  /** Flush the temporary file to disk before renaming it over the target. */
  readonly fsync: boolean;
  /** Aborts the write before the rename (the temporary file is removed). */
  readonly signal?: AbortSignal | undefined;
}

async function lstatOrUndefined(target: string): Promise<Stats | undefined> {
  try {
    return await lstat(target);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

function notADirectory(target: ConfinedPath, directory: string): Error {
  return refused(
    FileSystemErrorReasons.PARENT_NOT_DIRECTORY,
    `Cannot write ${target.requested}: ${directory} is not a directory; check the path.`,
    { path: target.requested, directory },
  );
}

/** Makes sure the target's directory exists (creating it if allowed) and is a directory. */
async function ensureDirectory(target: ConfinedPath, settings: WriteSettings): Promise<void> {
  const directory = path.dirname(target.real);
  const stats = await lstatOrUndefined(directory);
  if (stats?.isDirectory() === true) return;
  if (stats !== undefined) throw notADirectory(target, directory);
  if (!settings.createDirectories) {
    throw refused(
      FileSystemErrorReasons.PARENT_MISSING,
      `Cannot write ${target.requested}: directory ${directory} does not exist; create it first, or let the client create directories (FileSystemHandler option createDirectories: true).`,
      { path: target.requested, directory },
    );
  }
  await mkdir(directory, { recursive: true });
  // Confinement was checked on the nearest existing ancestor; make sure nothing swapped a
  // component for a link while the directories were being created.
  if (!isInside(await realpath(directory), target.root)) {
    throw refused(
      FileSystemErrorReasons.OUTSIDE_ROOTS,
      `Access denied: ${target.requested} moved outside the session's roots while its directory was being created.`,
      { path: target.requested },
    );
  }
}

/** The existing file's stats, or undefined; refuses directories and non-regular files. */
async function existingFile(target: ConfinedPath): Promise<Stats | undefined> {
  let stats: Stats | undefined;
  try {
    stats = await lstatOrUndefined(target.real);
  } catch (error) {
    if (errnoCode(error) === "ENOTDIR") throw notADirectory(target, path.dirname(target.real));
    throw error;
  }
  if (stats?.isFile() === true) {
    await refuseReadOnly(target, stats);
    return stats;
  }
  if (stats === undefined) return stats;
  if (stats.isDirectory()) {
    throw refused(
      FileSystemErrorReasons.IS_DIRECTORY,
      `Cannot write ${target.requested}: it is a directory; name a file inside it.`,
      { path: target.requested },
    );
  }
  throw refused(
    FileSystemErrorReasons.NOT_REGULAR_FILE,
    `Cannot write ${target.requested}: it is not a regular file (a FIFO, socket, device or a link that changed); only regular files can be written.`,
    { path: target.requested },
  );
}

/**
 * Refuses to replace a file made read-only (no write bit for anyone: how people protect a
 * file, and root would otherwise write it anyway) or one this process may not write. A
 * write by rename needs only the directory's permission, so this is checked here.
 */
async function refuseReadOnly(target: ConfinedPath, stats: Stats): Promise<void> {
  let writable = (stats.mode & 0o222) !== 0;
  if (writable) {
    try {
      await access(target.real, constants.W_OK);
    } catch (error) {
      if (errnoCode(error) !== "EACCES" && errnoCode(error) !== "EPERM") throw error;
      writable = false;
    }
  }
  if (!writable) {
    throw refused(
      FileSystemErrorReasons.READ_ONLY,
      `Cannot write ${target.requested}: the file is read-only (or not writable by this process); make it writable to allow the change.`,
      { path: target.requested },
    );
  }
}

/** A hidden name next to the target; short enough whatever the target's name is. */
function temporaryName(target: string): string {
  const base = Array.from(path.basename(target)).slice(0, 32).join("");
  return path.join(path.dirname(target), `.${base}.${randomBytes(6).toString("hex")}.tmp`);
}

async function keepOwnership(handle: FileHandle, stats: Stats): Promise<void> {
  await handle.chmod(stats.mode & 0o777);
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid === undefined || (stats.uid === uid && stats.gid === gid)) return;
  try {
    await handle.chown(stats.uid, stats.gid);
  } catch {
    // Only the owner's group or root may change ownership; the new file stays ours.
  }
}

/**
 * Writes `content` (as UTF-8) to `target.real` atomically. See the module comment.
 *
 * @param target - The confined path.
 * @param content - The whole new text.
 * @param settings - Directory creation, durability and cancellation.
 */
export async function writeTextAtomically(
  target: ConfinedPath,
  content: string,
  settings: WriteSettings,
): Promise<void> {
  const existing = await existingFile(target);
  if (existing === undefined) await ensureDirectory(target, settings);
  const temporary = temporaryName(target.real);
  let handle: FileHandle | undefined = await open(temporary, "wx", 0o666);
  try {
    if (existing !== undefined) await keepOwnership(handle, existing);
    await handle.writeFile(content, "utf8");
    if (settings.fsync) await handle.sync();
    const closing = handle;
    handle = undefined;
    await closing.close();
    settings.signal?.throwIfAborted();
    await rename(temporary, target.real);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
