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
import { closeSync, createReadStream, openSync, readSync, writeSync } from "node:fs";
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  open,
  rm,
  stat,
  symlink,
  unlink,
  type FileHandle,
} from "node:fs/promises";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { Readable } from "node:stream";
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
async function loadSeekBzip(): Promise<typeof import("seek-bzip").default> {
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
): Promise<number> {
  const file = await open(path, "w", mode === undefined ? 0o644 : (mode & 0o777) | 0o600);
  let written = 0;
  try {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await file.write(value);
      written += value.length;
    }
  } finally {
    await file.close();
  }
  if (mode !== undefined) await chmod(path, (mode & 0o777) | 0o600);
  return written;
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
  const written = await writeStream(path, body, header.mode);
  // The decoder ends a cut-off entry's body quietly: its size in the header says so.
  if (written !== header.size) throw truncated(`${JSON.stringify(name)} ends early`);
}

/** How much an archive may expand into, and into how many entries. */
export interface ExtractLimits {
  /** The most bytes the archive's contents may add up to (default 2 GiB). */
  readonly maxBytes: number;
  /** The most entries (files, directories, links) it may have (default 100,000). */
  readonly maxEntries: number;
  /**
   * The most its contents may exceed the archive's own size, as a factor (default 100),
   * once they pass 64 MiB: a bomb expands a thousand times, agents' archives a few.
   */
  readonly maxRatio: number;
}

/** The limits used when none are given. */
export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxBytes: 2 * 1024 ** 3,
  maxEntries: 100_000,
  maxRatio: 100,
};

/** Below this, contents are never refused for their ratio to the archive. */
const RATIO_FLOOR = 64 * 1024 ** 2;

/** Counts what an archive expands into, and refuses it once it passes a limit. */
class Budget {
  private bytes = 0;
  private entries = 0;
  private readonly most: number;

  constructor(
    private readonly limits: ExtractLimits,
    archiveSize: number,
  ) {
    this.most = Math.min(limits.maxBytes, Math.max(RATIO_FLOOR, limits.maxRatio * archiveSize));
  }

  add(count: number): void {
    this.bytes += count;
    if (this.bytes > this.most) {
      const why =
        this.most < this.limits.maxBytes
          ? `more than ${this.limits.maxRatio} times its own size`
          : `more than ${this.limits.maxBytes} bytes`;
      throw new RegistryError(
        "too_large",
        `The archive was refused: it expands to ${why} (a decompression bomb, or an agent too large to install). Nothing was installed.`,
      );
    }
  }

  entry(): void {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) {
      throw new RegistryError(
        "too_large",
        `The archive was refused: it has more than ${this.limits.maxEntries} entries. Nothing was installed.`,
      );
    }
  }
}

function truncated(what: string): RegistryError {
  return new RegistryError(
    "bad_archive",
    `The archive is truncated (${what}): the download may have been cut short. Nothing was installed.`,
  );
}

/** The size of a tar entry's data, from its header block (octal, or base-256 for large sizes). */
function tarEntrySize(header: Uint8Array): number {
  const type = String.fromCharCode(header[156] ?? 0);
  // Links, devices, directories and FIFOs carry no data, whatever the field says.
  if ("123456".includes(type) && type !== "") return 0;
  const field = header.subarray(124, 136);
  if (((field[0] ?? 0) & 0x80) !== 0) {
    let size = (field[0] ?? 0) & 0x7f;
    for (const byte of field.subarray(1)) size = size * 256 + byte;
    return size;
  }
  const text = String.fromCharCode(...field)
    .replace(/[\0 ]+$/g, "")
    .trim();
  const size = text === "" ? 0 : parseInt(text, 8);
  if (!Number.isFinite(size))
    throw new RegistryError("bad_archive", "The tar archive has a header with no size.");
  return size;
}

/**
 * Passes a tar stream through while counting it against the budget, and follows its
 * blocks (a header, then its data rounded up to 512 bytes) to check at the end that it is
 * whole: a tar ends with two zero blocks after its last entry, which a cut-off one lacks
 * (the decoder itself ends quietly either way).
 */
function tarTap(budget: Budget | undefined): TransformStream<Uint8Array, Uint8Array> {
  const header = new Uint8Array(512);
  let filled = 0;
  let skip = 0;
  let zeros = 0;
  let ended = false;
  return new TransformStream({
    transform(chunk, controller) {
      budget?.add(chunk.length);
      let offset = 0;
      while (offset < chunk.length && !ended) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - offset);
          skip -= n;
          offset += n;
          continue;
        }
        const n = Math.min(512 - filled, chunk.length - offset);
        header.set(chunk.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled < 512) continue;
        filled = 0;
        if (header.every((byte) => byte === 0)) {
          zeros += 1;
          ended = zeros === 2;
          continue;
        }
        zeros = 0;
        skip = Math.ceil(tarEntrySize(header) / 512) * 512;
      }
      controller.enqueue(chunk);
    },
    flush() {
      if (!ended) throw truncated("it ends before its end-of-archive blocks");
    },
  });
}

async function extractTar(
  root: string,
  tar: ReadableStream<Uint8Array>,
  budget: Budget,
  counted: boolean,
): Promise<void> {
  const { createTarDecoder } = await import("modern-tar");
  const decoder = createTarDecoder();
  const piping = tar.pipeThrough(tarTap(counted ? undefined : budget)).pipeTo(decoder.writable);
  // Awaited below, after the entries: until then, its failure is not unhandled.
  piping.catch(() => undefined);
  const reader = decoder.readable.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      budget.entry();
      await extractTarEntry(root, value.header, value.body);
    }
    await piping;
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    await piping.catch(() => undefined);
    throw error;
  }
}

/** One file of a zip archive being written. */
class ZipEntryFile {
  private file: FileHandle | undefined;
  done = false;

  constructor(
    private readonly root: string,
    private readonly path: string,
    private readonly name: string,
  ) {}

  async open(): Promise<void> {
    await prepare(this.root, this.path, this.name);
    this.file = await open(this.path, "w", 0o644);
  }

  async write(data: Uint8Array): Promise<void> {
    await this.file?.write(data);
  }

  async close(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    this.done = true;
    await file?.close();
  }
}

/**
 * Extracts a zip archive as a stream: 4 KiB of the archive at a time are inflated and
 * written before the next is read, so memory stays small whatever the archive expands to
 * (a deflate stream expands at most about a thousand times).
 */
async function extractZip(root: string, archive: string, budget: Budget): Promise<void> {
  const { Unzip, UnzipInflate, UnzipPassThrough } = await import("fflate");
  const work: (() => Promise<void>)[] = [];
  const files: ZipEntryFile[] = [];
  let failure: unknown;
  const unzip = new Unzip((entry) => {
    try {
      budget.entry();
      const name = entry.name;
      const path = entryPath(root, name);
      if (name.endsWith("/") || name.endsWith("\\")) {
        work.push(async () => {
          await checkParents(root, join(path, "x"), name);
          await mkdir(path, { recursive: true });
        });
        return;
      }
      const file = new ZipEntryFile(root, path, name);
      files.push(file);
      work.push(() => file.open());
      entry.ondata = (error, data, final) => {
        if (failure !== undefined) return;
        if (error !== null) {
          failure = error;
          return;
        }
        try {
          budget.add(data.length);
        } catch (refused) {
          failure = refused;
          entry.terminate();
          return;
        }
        if (data.length > 0) work.push(() => file.write(data));
        if (final) work.push(() => file.close());
      };
      entry.start();
    } catch (error) {
      failure ??= error;
    }
  });
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  const handle = await open(archive, "r");
  try {
    for (;;) {
      const chunk = new Uint8Array(4 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      unzip.push(chunk.subarray(0, bytesRead), bytesRead === 0);
      if (failure !== undefined)
        throw failure instanceof Error ? failure : new Error("the zip archive could not be read");
      for (let step = work.shift(); step !== undefined; step = work.shift()) await step();
      if (bytesRead === 0) break;
    }
    if (files.some((file) => !file.done)) throw truncated("an entry ends early");
  } finally {
    await handle.close();
    for (const file of files) await file.close().catch(() => undefined);
  }
}

/** The parts of seek-bzip's stream objects that its decoder calls. */
interface ByteSource {
  readByte(): number;
  read(buffer: Uint8Array, offset: number, length: number): number;
  eof(): boolean;
}

/**
 * Decompresses a bzip2 archive into a file, 64 KiB at a time, counting against the
 * budget: seek-bzip decodes synchronously into the output object it is given, so a
 * refused archive stops the decoder where it is, with nothing held in memory.
 */
async function bunzipToFile(archive: string, out: string, budget: Budget): Promise<void> {
  const seekBzip = await loadSeekBzip();
  const input = openSync(archive, "r");
  const output = openSync(out, "w");
  try {
    const inBuffer = Buffer.alloc(64 * 1024);
    let inPos = 0;
    let inLength = 0;
    let atEnd = false;
    const fill = (): void => {
      if (inPos < inLength || atEnd) return;
      inLength = readSync(input, inBuffer, 0, inBuffer.length, null);
      inPos = 0;
      atEnd = inLength === 0;
    };
    const source: ByteSource = {
      readByte: () => {
        fill();
        return inPos < inLength ? (inBuffer[inPos++] ?? -1) : -1;
      },
      read(buffer, offset, length) {
        let count = 0;
        while (count < length) {
          const byte = this.readByte();
          if (byte < 0) break;
          buffer[offset + count++] = byte;
        }
        return count === 0 && length > 0 ? -1 : count;
      },
      eof: () => {
        fill();
        return inPos >= inLength;
      },
    };
    const outBuffer = Buffer.alloc(64 * 1024);
    let outPos = 0;
    const flush = (): void => {
      budget.add(outPos);
      writeSync(output, outBuffer, 0, outPos);
      outPos = 0;
    };
    const sink = {
      writeByte: (byte: number): void => {
        outBuffer[outPos++] = byte;
        if (outPos === outBuffer.length) flush();
      },
    };
    seekBzip.decode(source, sink, true);
    flush();
  } finally {
    closeSync(input);
    closeSync(output);
  }
}

function webStream(stream: Readable): ReadableStream<Uint8Array> {
  return Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
}

/**
 * Extracts an archive into `root` (which exists and is empty). A bare executable is copied
 * as `rawName`. Rejects with a {@link RegistryError} (`unsafe_archive`, `bad_archive`, `too_large`).
 *
 * @param archive - The downloaded file.
 * @param root - The directory to extract into (absolute).
 * @param format - Its format, from {@link archiveFormat}.
 * @param rawName - The file name of a bare executable.
 * @param limits - How much it may expand into (see {@link ExtractLimits}).
 */
export async function extractArchive(
  archive: string,
  root: string,
  format: ArchiveFormat,
  rawName: string,
  limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS,
): Promise<void> {
  const budget = new Budget(limits, (await stat(archive)).size);
  try {
    switch (format) {
      case "zip":
        return await extractZip(root, archive, budget);
      case "tar.gz":
        return await extractTar(
          root,
          webStream(createReadStream(archive)).pipeThrough(
            new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
          ),
          budget,
          false,
        );
      case "tar.bz2": {
        const tar = `${archive}.tar`;
        try {
          await bunzipToFile(archive, tar, budget);
          return await extractTar(root, webStream(createReadStream(tar)), budget, true);
        } finally {
          await rm(tar, { force: true });
        }
      }
      case "tar":
        return await extractTar(root, webStream(createReadStream(archive)), budget, false);
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
