/**
 * Extracting a downloaded archive into a directory, refusing anything that would land
 * outside it: entries with absolute paths or `..`, writes through links, and links whose
 * target leaves the directory. One refused entry refuses the whole archive.
 *
 * Libraries: fflate (zip), modern-tar (tar), seek-bzip (bzip2, an optional peer dependency);
 * gzip is Node's own zlib.
 * They are loaded when an archive is extracted, not with acp-kit/node (modern-tar is an
 * ES module only: a dynamic import loads it from CommonJS too, on every Node 20).
 *
 * @module
 */
import { createReadStream } from "node:fs";
import { chmod, copyFile, lstat, mkdir, open, readFile, symlink, unlink } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import type { TarHeader } from "modern-tar";
import { RegistryError } from "./errors.js";

/** The archive formats acp-kit extracts. */
export type ArchiveFormat = "zip" | "tar.gz" | "tar.bz2" | "tar" | "raw";

/**
 * The format of an archive, from its first bytes (the URL's ending decides only between a
 * plain tar and a bare executable).
 *
 * @param head - The archive's first bytes (at least 4).
 * @param url - Where it came from.
 */
export function archiveFormat(head: Uint8Array, url: string): ArchiveFormat {
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return "zip";
  if (head[0] === 0x1f && head[1] === 0x8b) return "tar.gz";
  if (head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68) return "tar.bz2";
  return /\.tar$/i.test(new URL(url).pathname) ? "tar" : "raw";
}

function unsafe(name: string, why: string): RegistryError {
  return new RegistryError(
    "unsafe_archive",
    `The archive was refused: its entry ${JSON.stringify(name)} ${why}. Nothing was installed.`,
  );
}

/**
 * The bzip2 decoder. `seek-bzip` is an optional peer dependency of acp-kit (it would bring
 * a command-line parser along with it): the `acp-kit` command installs it, and a library
 * user who launches agents shipped as `.tar.bz2` adds it to their project.
 */
async function loadSeekBzip(): Promise<{ decode(input: Uint8Array): Uint8Array }> {
  try {
    // A CommonJS module: its functions are on the default export.
    return (await import("seek-bzip")).default;
  } catch (error) {
    throw new RegistryError(
      "tool_missing",
      "This agent ships as a .tar.bz2 archive, which needs the seek-bzip package: npm install seek-bzip",
      { cause: error },
    );
  }
}

/** The path of an entry inside `root`, or an error when it would not be inside. */
export function entryPath(root: string, name: string): string {
  const parts = name.split(/[/\\]+/);
  if (isAbsolute(name) || /^[a-zA-Z]:/.test(name) || name.startsWith("\\") || name.startsWith("/"))
    throw unsafe(name, "has an absolute path");
  if (parts.includes("..")) throw unsafe(name, 'climbs out with ".."');
  const path = resolve(root, ...parts.filter((p) => p !== "" && p !== "."));
  if (path !== root && !path.startsWith(root + sep)) throw unsafe(name, "leaves the directory");
  return path;
}

/**
 * Checks a symbolic link's target. `..` is allowed only at its start (as in
 * `../lib/libx.so`), where it climbs real directories, so the lexical check is the
 * physical one: a `..` after a component that may itself be a link could climb elsewhere.
 */
export function checkLinkTarget(
  root: string,
  linkPath: string,
  name: string,
  target: string,
): void {
  if (isAbsolute(target) || /^[a-zA-Z]:/.test(target) || target.startsWith("\\"))
    throw unsafe(name, `links to the absolute path ${JSON.stringify(target)}`);
  const parts = target.split(/[/\\]+/).filter((p) => p !== "" && p !== ".");
  const firstOther = parts.findIndex((p) => p !== "..");
  if (firstOther !== -1 && parts.slice(firstOther).includes(".."))
    throw unsafe(name, `links to ${JSON.stringify(target)}, with ".." after a name`);
  const resolved = resolve(dirname(linkPath), ...parts);
  if (resolved !== root && !resolved.startsWith(root + sep))
    throw unsafe(name, `links to ${JSON.stringify(target)}, outside the directory`);
}

/** Refuses to write through a link: every directory between `root` and `path` is real. */
async function checkParents(root: string, path: string, name: string): Promise<void> {
  let dir = dirname(path);
  while (dir !== root && dir.startsWith(root + sep)) {
    const stats = await lstat(dir).catch(() => undefined);
    if (stats?.isSymbolicLink() === true) throw unsafe(name, "would be written through a link");
    dir = dirname(dir);
  }
}

/** Makes room for a new entry: a link or file already there is replaced, not followed. */
async function prepare(root: string, path: string, name: string): Promise<void> {
  await checkParents(root, path, name);
  await mkdir(dirname(path), { recursive: true });
  const existing = await lstat(path).catch(() => undefined);
  if (existing !== undefined && !existing.isDirectory()) await unlink(path);
}

async function writeStream(
  path: string,
  body: ReadableStream<Uint8Array>,
  mode: number | undefined,
): Promise<void> {
  const file = await open(path, "w", mode === undefined ? 0o644 : (mode & 0o777) | 0o600);
  try {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await file.write(value);
    }
  } finally {
    await file.close();
  }
  if (mode !== undefined) await chmod(path, (mode & 0o777) | 0o600);
}

async function extractTarEntry(
  root: string,
  header: TarHeader,
  body: ReadableStream<Uint8Array>,
): Promise<void> {
  const name = header.name;
  const type = header.type ?? "file";
  if (type === "directory") {
    const path = entryPath(root, name);
    await checkParents(root, join(path, "x"), name);
    await mkdir(path, { recursive: true });
    await body.cancel();
    return;
  }
  const path = entryPath(root, name);
  if (path === root) throw unsafe(name, "replaces the directory itself");
  if (type === "symlink") {
    const target = header.linkname ?? "";
    checkLinkTarget(root, path, name, target);
    await prepare(root, path, name);
    await symlink(target, path);
    await body.cancel();
    return;
  }
  if (type === "link") {
    const source = entryPath(root, header.linkname ?? "");
    await checkParents(root, source, name);
    const stats = await lstat(source).catch(() => undefined);
    if (stats?.isFile() !== true)
      throw unsafe(name, "is a hard link to something not a file in the archive");
    await prepare(root, path, name);
    await copyFile(source, path);
    await chmod(path, stats.mode & 0o777);
    await body.cancel();
    return;
  }
  if (type !== "file") {
    // Devices and pipes have no place in an agent's files.
    throw unsafe(name, `is a ${type}`);
  }
  await prepare(root, path, name);
  await writeStream(path, body, header.mode);
}

async function extractTar(root: string, tar: ReadableStream<Uint8Array>): Promise<void> {
  const { createTarDecoder } = await import("modern-tar");
  const decoder = createTarDecoder();
  const piping = tar.pipeTo(decoder.writable);
  const reader = decoder.readable.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await extractTarEntry(root, value.header, value.body);
    }
    await piping;
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    await piping.catch(() => undefined);
    throw error;
  }
}

async function extractZip(root: string, archive: string): Promise<void> {
  const { unzipSync } = await import("fflate");
  const files = unzipSync(new Uint8Array(await readFile(archive)));
  // Check every name before writing anything.
  const paths = Object.keys(files).map((name) => [name, entryPath(root, name)] as const);
  for (const [name, path] of paths) {
    const data = files[name];
    if (name.endsWith("/") || name.endsWith("\\")) {
      await mkdir(path, { recursive: true });
    } else if (data !== undefined) {
      await prepare(root, path, name);
      const file = await open(path, "w", 0o644);
      try {
        await file.write(data);
      } finally {
        await file.close();
      }
    }
  }
}

function webStream(stream: Readable): ReadableStream<Uint8Array> {
  return Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
}

/**
 * Extracts an archive into `root` (which exists and is empty). A bare executable is copied
 * as `rawName`. Rejects with a {@link RegistryError} (`unsafe_archive`, `bad_archive`).
 *
 * @param archive - The downloaded file.
 * @param root - The directory to extract into (absolute).
 * @param format - Its format, from {@link archiveFormat}.
 * @param rawName - The file name of a bare executable.
 */
export async function extractArchive(
  archive: string,
  root: string,
  format: ArchiveFormat,
  rawName: string,
): Promise<void> {
  try {
    switch (format) {
      case "zip":
        return await extractZip(root, archive);
      case "tar.gz":
        return await extractTar(root, webStream(createReadStream(archive).pipe(createGunzip())));
      case "tar.bz2": {
        const tar = (await loadSeekBzip()).decode(await readFile(archive));
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(tar);
            controller.close();
          },
        });
        return await extractTar(root, stream);
      }
      case "tar":
        return await extractTar(root, webStream(createReadStream(archive)));
      case "raw": {
        const path = entryPath(root, rawName);
        await copyFile(archive, path);
        await chmod(path, 0o755);
        return;
      }
    }
  } catch (error) {
    if (error instanceof RegistryError) throw error;
    throw new RegistryError(
      "bad_archive",
      `The archive could not be extracted as ${format}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
