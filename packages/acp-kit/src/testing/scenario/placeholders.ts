/**
 * Placeholders in scenario strings: `${name}` is replaced by a value of the turn, `$${`
 * stands for a literal `${`.
 *
 * Names: `cwd` (the session's working directory), `sessionId`, `turn` (the number of the
 * prompt turn in the session: 1, 2, ...; handy for ids that must stay unique within a
 * session), `prompt` (the prompt's text), `args` (what follows a slash command), `match.<n>` / `match.<name>` (groups of a
 * `regex` match), `error` (the message of the failure an `onError` branch handles), and
 * every name given to `saveAs` (`<name>.exitCode` too for terminals). A name without a
 * value (a read that failed) is replaced by nothing.
 *
 * @module
 */
import { isAbsolutePath } from "../../agent/ids.js";
import { closest } from "./check.js";

/** The placeholder names every turn knows. */
export const BUILTIN_PLACEHOLDERS: readonly string[] = [
  "cwd",
  "sessionId",
  "turn",
  "prompt",
  "args",
  "error",
];

const PATTERN = /\$\$\{|\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][\w-]*(\.[\w-]+)?$/;

/** The names of the placeholders in `text`, in order. @internal */
export function placeholderNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PATTERN)) {
    if (match[1] !== undefined) names.push(match[1]);
  }
  return names;
}

/**
 * Why `name` is not a valid placeholder, or `undefined` when it is.
 *
 * @param name - The text between `${` and `}`.
 * @param saved - The names given to `saveAs` in the scenario.
 * @internal
 */
export function placeholderProblem(name: string, saved: ReadonlySet<string>): string | undefined {
  if (!NAME.test(name)) return `"\${${name}}" is not a placeholder name`;
  const [head = "", tail] = name.split(".");
  if (head === "match" && tail !== undefined) return undefined;
  if (tail === undefined && (BUILTIN_PLACEHOLDERS.includes(name) || saved.has(name))) {
    return undefined;
  }
  if (tail === "exitCode" && saved.has(head)) return undefined;
  const known = [...BUILTIN_PLACEHOLDERS, ...saved];
  const guess = closest(name, known) ?? (saved.has(head) ? head : undefined);
  const hint = guess === undefined ? "" : ` (did you mean "\${${guess}}"?)`;
  return `unknown placeholder "\${${name}}"${hint}`;
}

/**
 * Replaces the placeholders of `text`.
 *
 * @param text - The template.
 * @param lookup - The value of a name, `undefined` when it has none (replaced by nothing).
 * @internal
 */
export function renderTemplate(text: string, lookup: (name: string) => string | undefined): string {
  if (!text.includes("${")) return text;
  return text.replace(PATTERN, (whole, name: string | undefined) =>
    name === undefined ? "${" : (lookup(name) ?? ""),
  );
}

/** The name when `text` is exactly one placeholder (`"${old}"`), else `undefined`. @internal */
export function solePlaceholder(text: string): string | undefined {
  const match = /^\$\{([^}]*)\}$/.exec(text);
  return match?.[1];
}

/**
 * Every string inside `value` rendered (objects and arrays copied, other values kept).
 * @internal
 */
export function renderDeep<T>(value: T, lookup: (name: string) => string | undefined): T {
  if (typeof value === "string") return renderTemplate(value, lookup) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => renderDeep(item, lookup)) as T;
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = renderDeep(item, lookup);
    return copy as T;
  }
  return value;
}

/**
 * `path` resolved against `cwd` when relative (`./` prefixes dropped), kept when absolute.
 * Uses `\` as the separator when `cwd` is a Windows path.
 * @internal
 */
export function resolvePath(cwd: string, path: string): string {
  if (isAbsolutePath(path)) return path;
  const windows = /^[A-Za-z]:\\/.test(cwd) || cwd.startsWith("\\\\");
  const separator = windows ? "\\" : "/";
  let rest = path;
  while (rest.startsWith("./") || rest.startsWith(".\\")) rest = rest.slice(2);
  if (rest === "" || rest === ".") return cwd;
  const base = cwd.endsWith("/") || cwd.endsWith("\\") ? cwd.slice(0, -1) : cwd;
  return `${base}${separator}${windows ? rest.replaceAll("/", "\\") : rest}`;
}
