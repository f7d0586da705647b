/**
 * What permission rules and remembered answers look at in a tool call: its kind, the
 * paths it touches (normalised, absolute and relative to the session's cwd) and, for
 * `execute` calls, its command text.
 *
 * Paths are handled as POSIX paths. A Windows path with a drive letter (`C:\x`) has its
 * backslashes turned into `/` first. Nothing touches the file system: symbolic links are
 * not resolved.
 *
 * @module
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolCallUpdate } from "../../schema/types.gen.js";
import { isAbsolutePath } from "../../agent/ids.js";

/** One path a tool call touches, in the two forms path rules match against. */
export interface PermissionPath {
  /**
   * The normalised absolute path (`.` and `..` segments resolved, `/` separators, no
   * trailing `/`); `undefined` for a relative path when the session's cwd is unknown.
   */
  readonly absolute: string | undefined;
  /**
   * The path relative to the session's cwd (`.` for the cwd itself); `undefined` when
   * the path is outside the cwd or the cwd is unknown.
   */
  readonly relative: string | undefined;
}

const DRIVE = /^[A-Za-z]:[\\/]/;

/** The tool call's kind, or `other` (the protocol's default) when it has none. */
export function toolCallKind(toolCall: ToolCallUpdate): string {
  const kind: unknown = toolCall.kind;
  return typeof kind === "string" && kind !== "" ? kind : "other";
}

/** `p` with `.`/`..` segments resolved, `/` separators and no trailing `/`. */
export function normalizeAbsolutePath(p: string): string {
  const slashed = DRIVE.test(p) ? p.replaceAll("\\", "/") : p;
  const drive = DRIVE.test(slashed) ? slashed.slice(0, 2) : "";
  const rest = path.posix.normalize(slashed.slice(drive.length));
  return drive + (rest.length > 1 && rest.endsWith("/") ? rest.slice(0, -1) : rest);
}

/**
 * The paths a tool call touches: each `locations[].path` and the `path` of each `diff`
 * in its `content`, without duplicates. A relative path (the protocol wants absolute
 * ones) is resolved against `cwd`.
 *
 * @param cwd - The session's working directory (absolute), if known.
 * @param nocase - Compare against `cwd` ignoring case.
 */
export function toolCallPaths(
  toolCall: ToolCallUpdate,
  cwd: string | undefined,
  nocase = false,
): PermissionPath[] {
  const base = cwd !== undefined && isAbsolutePath(cwd) ? normalizeAbsolutePath(cwd) : undefined;
  const seen = new Set<string>();
  const paths: PermissionPath[] = [];
  for (const raw of rawPaths(toolCall)) {
    const subject = toPermissionPath(raw, base, nocase);
    const key = `${subject.absolute ?? ""}\0${subject.relative ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    paths.push(subject);
  }
  return paths;
}

function rawPaths(toolCall: ToolCallUpdate): string[] {
  const found: string[] = [];
  for (const location of toolCall.locations ?? []) {
    if (typeof location.path === "string" && location.path !== "") found.push(location.path);
  }
  for (const item of toolCall.content ?? []) {
    const record = item as Record<string, unknown>;
    if (record.type === "diff" && typeof record.path === "string" && record.path !== "") {
      found.push(record.path);
    }
  }
  return found;
}

/** `~/x`, `$HOME/x`, `%APPDATA%\\x`: a path whose start a shell would expand. */
const EXPANDED_START = /^[~$%]/;
/** A URI other than `file:` (a Windows drive letter `C:` is not a scheme). */
const URI_SCHEME = /^[a-z][a-z0-9+.-]+:/i;

function toPermissionPath(input: string, cwd: string | undefined, nocase: boolean): PermissionPath {
  let raw = input;
  if (/^file:/i.test(raw)) {
    try {
      raw = fileURLToPath(raw);
    } catch {
      return { absolute: undefined, relative: undefined };
    }
  }
  // Not a place we can tell: no rule about paths can allow it (deny rules for any path do
  // still apply).
  if (EXPANDED_START.test(raw) || URI_SCHEME.test(raw)) {
    return { absolute: undefined, relative: undefined };
  }
  if (!isAbsolutePath(raw) && cwd === undefined) {
    const relative = path.posix.normalize(raw).replace(/\/$/, "");
    const outside = relative === ".." || relative.startsWith("../");
    return { absolute: undefined, relative: outside ? undefined : relative };
  }
  const absolute = normalizeAbsolutePath(isAbsolutePath(raw) ? raw : `${cwd ?? ""}/${raw}`);
  return { absolute, relative: cwd === undefined ? undefined : relativeTo(absolute, cwd, nocase) };
}

function relativeTo(absolute: string, cwd: string, nocase: boolean): string | undefined {
  const a = nocase ? absolute.toLowerCase() : absolute;
  const c = nocase ? cwd.toLowerCase() : cwd;
  if (a === c) return ".";
  const prefix = c.endsWith("/") ? c : `${c}/`;
  return a.startsWith(prefix) ? absolute.slice(prefix.length) : undefined;
}

/**
 * The command an `execute` tool call runs, as rules match it: `rawInput.command` when
 * it is a string (or an array of strings, joined with spaces), otherwise the call's
 * `title` (without one pair of enclosing backticks). Leading and trailing blanks are
 * removed and runs of spaces and tabs become one space; newlines are kept. `undefined`
 * when there is nothing to match.
 */
export function toolCallCommand(toolCall: ToolCallUpdate): string | undefined {
  const input = toolCall.rawInput;
  let text: string | undefined;
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const command = (input as Record<string, unknown>).command;
    if (typeof command === "string") text = command;
    else if (isStringArray(command) && command.length > 0) text = command.join(" ");
  }
  if (text === undefined && typeof toolCall.title === "string") {
    text = /^`([^`]*)`$/.exec(toolCall.title.trim())?.[1] ?? toolCall.title;
  }
  const normalized = text === undefined ? "" : normalizeCommand(text);
  return normalized === "" ? undefined : normalized;
}

/** Trims `text` and turns runs of spaces and tabs into one space (newlines stay). */
export function normalizeCommand(text: string): string {
  return text.replace(/[ \t]+/g, " ").trim();
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/**
 * The key under which an `allow_always` / `reject_always` answer is remembered for a
 * session, or `undefined` when the call cannot be told apart from others well enough
 * to remember anything:
 *
 * - `execute`: the kind and the exact command ({@link toolCallCommand}), so "always"
 *   for `npm test` never covers `rm -rf /`;
 * - `other` and kinds unknown to the protocol: the kind and the tool `name`, or the
 *   `title` when there is no name;
 * - every other kind (`read`, `edit`, ...): the kind, and the tool `name` when given.
 */
export function permissionMemoryKey(toolCall: ToolCallUpdate): string | undefined {
  const kind = toolCallKind(toolCall);
  const name = nonEmpty(toolCall.name);
  if (kind === "execute") {
    const command = toolCallCommand(toolCall);
    return command === undefined ? undefined : JSON.stringify([kind, "command", command]);
  }
  if (!KIND_WIDE.has(kind)) {
    if (name !== undefined) return JSON.stringify([kind, "name", name]);
    const title = nonEmpty(toolCall.title);
    return title === undefined ? undefined : JSON.stringify([kind, "title", title]);
  }
  return JSON.stringify(name === undefined ? [kind] : [kind, "name", name]);
}

/** Kinds whose "always" answers cover the whole kind (narrowed by tool name if known). */
const KIND_WIDE: ReadonlySet<string> = new Set([
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "think",
  "fetch",
  "switch_mode",
]);

function nonEmpty(value: string | null | undefined): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
