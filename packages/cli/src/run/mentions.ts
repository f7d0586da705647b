/**
 * `@file` mentions: completion from the files under the session's directory (a bounded
 * walk that skips `.git`, `node_modules` and what the top `.gitignore` names), and the
 * blocks a prompt that mentions files is sent as: the text as typed, then for each file a
 * `resource_link`, or its contents as an embedded `resource` when the agent advertises
 * `promptCapabilities.embeddedContext` and the file is small text.
 *
 * @module
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type * as schema from "acp-kit";

/** The `@word` under the cursor: where it starts (the `@`) and ends, and the word. */
export interface MentionToken {
  readonly start: number;
  readonly end: number;
  readonly partial: string;
}

/** The `@mention` the cursor is in or just after, if any. */
export function mentionAt(text: string, cursor: number): MentionToken | undefined {
  let start = cursor;
  while (start > 0 && !/\s/.test(text[start - 1] ?? "")) start--;
  if (text[start] !== "@") return undefined;
  let end = cursor;
  while (end < text.length && !/\s/.test(text[end] ?? "")) end++;
  return { start, end, partial: text.slice(start + 1, end) };
}

/** Directories never walked. */
const SKIPPED = new Set([".git", "node_modules"]);

/** The names of the top `.gitignore` as tests: plain names and simple `*` globs. */
function ignoredNames(cwd: string): (path: string, name: string) => boolean {
  let lines: string[] = [];
  try {
    lines = readFileSync(join(cwd, ".gitignore"), "utf8").split(/\r?\n/);
  } catch {
    // No .gitignore.
  }
  const tests: ((path: string, name: string) => boolean)[] = [];
  for (const raw of lines) {
    const line = raw.trim().replace(/\/$/, "");
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    const anchored = line.startsWith("/");
    const body = anchored ? line.slice(1) : line;
    const pattern = new RegExp(
      `^${body
        .replace(/[.+^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, "[^/]*")
        .replace(/\?/g, "[^/]")}$`,
    );
    tests.push(
      anchored || body.includes("/")
        ? (path) => pattern.test(path)
        : (_path, name) => pattern.test(name),
    );
  }
  return (path, name) => tests.some((test) => test(path, name));
}

/** The most directories read by one {@link listFiles}. */
const MAX_DIRECTORIES = 2000;

/**
 * The files under `cwd` as paths relative to it (with `/`), breadth first, at most `limit`
 * of them, `maxDepth` directories deep (and from at most 2000 directories).
 */
export function listFiles(cwd: string, limit = 5000, maxDepth = 8): string[] {
  const ignored = ignoredNames(cwd);
  const files: string[] = [];
  let level: string[] = [""];
  let read = 0;
  for (let depth = 0; depth <= maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (++read > MAX_DIRECTORIES) return files;
      let entries;
      try {
        entries = readdirSync(join(cwd, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
        if (SKIPPED.has(entry.name) || ignored(path, entry.name)) continue;
        if (entry.isDirectory()) next.push(path);
        else if (entry.isFile()) {
          files.push(path);
          if (files.length >= limit) return files;
        }
      }
    }
    level = next;
  }
  return files;
}

/**
 * The files that `partial` may mean, best first: those whose path starts with it, then
 * those whose name does, then those whose path contains it (case-insensitive).
 */
export function matchFiles(files: readonly string[], partial: string, max = 50): string[] {
  const want = partial.toLowerCase();
  const ranked: [number, string][] = [];
  for (const file of files) {
    const path = file.toLowerCase();
    const name = path.slice(path.lastIndexOf("/") + 1);
    const rank = path.startsWith(want)
      ? 0
      : name.startsWith(want)
        ? 1
        : path.includes(want)
          ? 2
          : 3;
    if (rank < 3) ranked.push([rank, file]);
  }
  ranked.sort((a, b) => a[0] - b[0] || a[1].length - b[1].length || a[1].localeCompare(b[1]));
  return ranked.slice(0, max).map(([, file]) => file);
}

/** The largest file embedded in a prompt; larger ones are sent as links. */
export const MAX_EMBEDDED_BYTES = 64 * 1024;

/** How a prompt's mentions are sent. */
export interface MentionOptions {
  /** The session's directory: mentions are relative to it. */
  readonly cwd: string;
  /** Whether the agent takes embedded `resource` blocks (`promptCapabilities.embeddedContext`). */
  readonly embedded: boolean;
  /** The largest file embedded (default {@link MAX_EMBEDDED_BYTES}). */
  readonly maxBytes?: number;
}

/** The existing files a text mentions (`@path`, relative to `cwd` or absolute), once each. */
export function mentionedFiles(text: string, cwd: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\s)@(\S+)/g)) {
    const word = match[1] ?? "";
    // "@a.ts," or "(see @a.ts)": the punctuation after a name is not part of it.
    for (const candidate of [word, word.replace(/[,.;:!?)\]'"]+$/, "")]) {
      const path = isAbsolute(candidate) ? candidate : resolve(cwd, candidate);
      let isFile = false;
      try {
        isFile = statSync(path).isFile();
      } catch {
        // Not a file: left as text.
      }
      if (isFile) {
        if (!found.includes(path)) found.push(path);
        break;
      }
    }
  }
  return found;
}

/**
 * A file's contents as text; undefined for a binary file (one holding a NUL byte) or one
 * that cannot be read (no permission, gone meanwhile).
 */
function textContents(path: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  if (bytes.includes(0)) return undefined;
  return bytes.toString("utf8");
}

/** A file's size, or undefined when it cannot be read (gone meanwhile). */
function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * The blocks a typed prompt is sent as: the text as typed (mentions kept), then one block
 * per mentioned file (see the module comment).
 */
export function promptBlocks(text: string, options: MentionOptions): schema.ContentBlock[] {
  const blocks: schema.ContentBlock[] = [{ type: "text", text }];
  const maxBytes = options.maxBytes ?? MAX_EMBEDDED_BYTES;
  for (const path of mentionedFiles(text, options.cwd)) {
    const uri = pathToFileURL(path).href;
    const rel = relative(options.cwd, path);
    const name = rel.startsWith("..") || isAbsolute(rel) ? path : rel.split(sep).join("/");
    const size = sizeOf(path);
    const contents =
      options.embedded && size !== undefined && size <= maxBytes ? textContents(path) : undefined;
    if (contents !== undefined) {
      blocks.push({ type: "resource", resource: { uri, text: contents } });
    } else {
      blocks.push({ type: "resource_link", uri, name, ...(size === undefined ? {} : { size }) });
    }
  }
  return blocks;
}
