/**
 * Confinement of agent-supplied paths to a session's roots, by real path.
 *
 * A path is checked for shape (absolute, no `\0`, no lone surrogate, no trailing
 * separator), normalised lexically (`.`, `..` and repeated separators are removed, so
 * `/r/a/../b` is `/r/b` whatever `a` is), then resolved to its real location: every
 * symbolic link is followed, including a dangling one at the end (so writing through a
 * link cannot create its target outside the roots). For a file that does not exist yet,
 * the nearest existing ancestor is resolved and the rest re-appended. The real location
 * must be inside the real path of one of the roots. Callers then operate on that real
 * location, never on the path as sent.
 *
 * Real paths are read as bytes: a name that is not valid UTF-8 (Linux allows any bytes)
 * cannot be expressed in a JSON string, and decoding it lossily could name another
 * file, so such a location is refused rather than approximated.
 *
 * Limits: the check and the operation are separate system calls, so a local process
 * that swaps a checked directory for a link in between could race them (the final name
 * is opened without following links, which narrows this). A hard link inside a root to
 * a file elsewhere is indistinguishable from any other file and can be read; writes
 * replace the directory entry and so never change the linked file.
 *
 * @module
 */
import { readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { FileSystemErrorReasons, errnoCode, refused } from "./errors.js";

/** A path the agent sent, checked against the session's roots. */
export interface ConfinedPath {
  /** The path as the agent sent it. */
  readonly requested: string;
  /** Its real location (no symbolic links, no `.` or `..`): what to operate on. */
  readonly real: string;
  /** The real path of the root that contains it. */
  readonly root: string;
}

/** How many dangling symbolic links are followed by hand before giving up (as `ELOOP`). */
const MAX_LINK_HOPS = 40;
const caseInsensitive = process.platform === "win32";
/** Lone UTF-16 surrogates: they have no UTF-8 encoding, so no file name matches them. */
const LONE_SURROGATE = /\p{Cs}/u;

function isSeparator(char: string | undefined): boolean {
  return char === "/" || (path.sep === "\\" && char === "\\");
}

/**
 * Checks the shape of roots given for a session; throws a `TypeError` naming the bad one.
 *
 * @param roots - The session's `cwd` and `additionalDirectories`.
 */
export function checkRoots(roots: readonly string[]): readonly string[] {
  if (!Array.isArray(roots))
    throw new TypeError("Session roots must be an array of absolute paths.");
  return roots.map((root: unknown, index) => {
    if (typeof root !== "string" || root === "" || root.includes("\0")) {
      throw new TypeError(
        `Session root #${index} must be a non-empty path without NUL characters.`,
      );
    }
    if (!path.isAbsolute(root)) {
      throw new TypeError(`Session root #${index} (${root}) must be an absolute path.`);
    }
    return path.resolve(root);
  });
}

/**
 * Checks the shape of a path sent by the agent and normalises it lexically.
 *
 * @param raw - The `path` param as received.
 * @param roots - The session's roots; the first (the `cwd`) is used to suggest an
 *   absolute path when a relative one is sent.
 * @param directory - The path names a directory (a terminal's `cwd`): `/p/sub/` and
 *   `/p/.` are accepted.
 */
export function checkPath(raw: unknown, roots: readonly string[], directory = false): string {
  if (typeof raw !== "string" || raw === "") {
    throw refused(
      FileSystemErrorReasons.INVALID_PATH,
      "The path must be a non-empty string; send an absolute path such as /project/src/main.ts.",
    );
  }
  if (raw.includes("\0")) {
    throw refused(
      FileSystemErrorReasons.INVALID_PATH,
      `The path ${JSON.stringify(raw)} contains a NUL character, which no file name can hold; remove it.`,
      { path: raw },
    );
  }
  if (LONE_SURROGATE.test(raw)) {
    throw refused(
      FileSystemErrorReasons.INVALID_PATH,
      `The path ${JSON.stringify(raw)} contains a lone UTF-16 surrogate, which no file name can hold; send well-formed text.`,
      { path: raw },
    );
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw refused(
      FileSystemErrorReasons.INVALID_PATH,
      `The path ${raw} is a URI; send an absolute file path instead (for a file:// URI, its path part).`,
      { path: raw },
    );
  }
  if (!path.isAbsolute(raw)) {
    const cwd = roots[0];
    const hint =
      cwd === undefined ? "" : ` (relative to the session's cwd: ${path.resolve(cwd, raw)})`;
    throw refused(
      FileSystemErrorReasons.RELATIVE_PATH,
      `The path ${raw} is relative; ACP file paths must be absolute${hint}.`,
      { path: raw, ...(cwd === undefined ? {} : { suggestion: path.resolve(cwd, raw) }) },
    );
  }
  const last = raw.slice(raw.lastIndexOf(path.sep === "\\" ? "\\" : "/") + 1);
  const isRoot = path.parse(raw).root === raw;
  if (!directory && !isRoot && (isSeparator(raw.at(-1)) || last === ".")) {
    throw refused(
      FileSystemErrorReasons.TRAILING_SEPARATOR,
      `The path ${raw} ends with a separator, so it names a directory; name a file (remove the trailing "/").`,
      { path: raw },
    );
  }
  return path.resolve(raw);
}

/** Decodes a byte path, refusing names that do not survive the round trip through UTF-8. */
function decodeStrict(bytes: Buffer, requested: string): string {
  const text = bytes.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(bytes)) {
    throw refused(
      FileSystemErrorReasons.NON_UTF8_NAME,
      `The path ${requested} resolves to a location whose name is not valid UTF-8 (${text}); such files cannot be addressed over ACP.`,
      { path: requested },
    );
  }
  return text;
}

async function realpathStrict(target: string, requested: string): Promise<string> {
  return decodeStrict(await realpath(target, { encoding: "buffer" }), requested);
}

/** The link's target, or undefined when `target` is not a symbolic link (or is missing). */
async function readlinkIfLink(target: string, requested: string): Promise<string | undefined> {
  try {
    return decodeStrict(await readlink(target, { encoding: "buffer" }), requested);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EINVAL" || code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * The real location of an absolute, normalised path that may not exist yet: the real
 * path of its nearest existing ancestor with the rest re-appended, following dangling
 * symbolic links by hand. System errors other than "missing" (`ELOOP`, `ENAMETOOLONG`,
 * `EACCES`) are thrown as is.
 *
 * @param target - An absolute, normalised path.
 * @param requested - The path as sent, for error messages.
 * @param hops - Dangling links followed so far (internal; leave it out).
 */
export async function resolveReal(target: string, requested: string, hops = 0): Promise<string> {
  try {
    return await realpathStrict(target, requested);
  } catch (error) {
    const code = errnoCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  const realParent = await resolveReal(parent, requested, hops);
  const candidate = path.join(realParent, path.basename(target));
  const link = await readlinkIfLink(candidate, requested);
  if (link === undefined) return candidate;
  if (hops >= MAX_LINK_HOPS) throw Object.assign(new Error("too many links"), { code: "ELOOP" });
  return resolveReal(path.resolve(realParent, link), requested, hops + 1);
}

/**
 * True when `target` is `root` or inside it. Both must be real, normalised paths;
 * `/tmp/root-evil` is not inside `/tmp/root`.
 *
 * @param target - The real location to check.
 * @param root - The real path of a root.
 */
export function isInside(target: string, root: string): boolean {
  const t = caseInsensitive ? target.toLowerCase() : target;
  const r = caseInsensitive ? root.toLowerCase() : root;
  if (t === r) return true;
  return t.startsWith(isSeparator(r.at(-1)) ? r : r + path.sep);
}

/**
 * The real paths of the roots that exist; a root that cannot be resolved is skipped.
 * Resolve them once, when a session is added, and pass the result to
 * {@link confinePath}: a root swapped for a link afterwards is then not followed.
 *
 * @param roots - The session's roots (absolute).
 */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(
    roots.map(async (root) => {
      try {
        return await realpathStrict(root, root);
      } catch {
        return undefined; // fail closed: a missing or unreadable root contains nothing
      }
    }),
  );
  return resolved.filter((root) => root !== undefined);
}

/**
 * Checks `raw` and resolves it to a real location inside one of `roots`, or throws the
 * `RequestError` to answer with (`-32602`, `data.reason` `"outside_roots"` and others).
 * A refusal names only the path the agent asked for, never where a link leads: that is
 * told to `onRefusedTarget` (the local log), not to the agent.
 *
 * @param raw - The `path` param as received.
 * @param roots - The session's roots (absolute, as registered).
 * @param resolvedRoots - Their real paths, resolved when the session was added (default:
 *   resolved now).
 * @param onRefusedTarget - Told the real location of a path refused because it resolves
 *   outside the roots.
 * @param directory - The path names a directory (see {@link checkPath}).
 */
export async function confinePath(
  raw: unknown,
  roots: readonly string[],
  resolvedRoots?: readonly string[],
  onRefusedTarget?: (requested: string, real: string) => void,
  directory = false,
): Promise<ConfinedPath> {
  const normalised = checkPath(raw, roots, directory);
  const requested = raw as string;
  const list = roots.length === 0 ? "the session has no roots" : `roots: ${roots.join(", ")}`;
  const reals = resolvedRoots ?? (await realRoots(roots));
  // A path that is not even written inside a root is refused before the disk is touched:
  // resolving it would tell the agent where links outside the project lead.
  if (![...roots, ...reals].some((root) => isInside(normalised, root))) {
    throw refused(
      FileSystemErrorReasons.OUTSIDE_ROOTS,
      `Access denied: ${requested} is outside the session's roots (${list}); only files inside them can be read or written.`,
      { path: requested, roots: [...roots] },
    );
  }
  const real = await resolveReal(normalised, requested);
  const root = reals.find((candidate) => isInside(real, candidate));
  if (root !== undefined) return { requested, real, root };
  onRefusedTarget?.(requested, real);
  throw refused(
    FileSystemErrorReasons.OUTSIDE_ROOTS,
    `Access denied: ${requested} leads outside the session's roots (${list}) through a symbolic link; only files inside them can be read or written.`,
    { path: requested, roots: [...roots] },
  );
}
