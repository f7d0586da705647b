/**
 * How a `terminal/create` request becomes a program, its arguments, environment and
 * working directory.
 *
 * @module
 */
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { RequestError } from "../../jsonrpc/errors.js";
import type { EnvVariable } from "../../schema/types.gen.js";

/** A command ready to spawn. */
export interface ResolvedCommand {
  /** The program to execute. */
  file: string;
  /** Its arguments. */
  args: string[];
  /** `true` when `command` is run by the shell (see {@link resolveCommand}). */
  viaShell: boolean;
}

/**
 * Characters that only make sense to a shell: whitespace, quotes, escapes, expansions,
 * redirections, pipes, separators, globs, comments, grouping.
 */
const SHELL_SYNTAX = /[\s"'`\\$|&;<>(){}*?[\]#~!]/;

/** The default shell: `/bin/sh` on POSIX, `%ComSpec%` (or `cmd.exe`) on Windows. */
export function defaultShell(): string {
  return process.platform === "win32" ? (process.env.ComSpec ?? "cmd.exe") : "/bin/sh";
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Decides how to run a command.
 *
 * - With a non-empty `args`, `command` is the program and is executed directly: no shell,
 *   no word splitting, `args` reach it verbatim.
 * - Without `args` (absent or `[]`), a `command` containing whitespace or shell syntax
 *   (quotes, `$`, `|`, `&`, `;`, `<`, `>`, globs, ...) is a command line: it runs as
 *   `shell -c command` (`/bin/sh` by default). Agents commonly send `"npm test -- --watch"`
 *   or `"ls | wc -l"` this way. An exception: a `command` naming an existing file (such as
 *   `/opt/My Tools/run`) is executed directly.
 * - Otherwise (`"ls"`, `"/usr/bin/env"`) the program is executed directly.
 *
 * With `shell: false` no command ever goes through a shell. The shell is no security
 * boundary either way: an agent may run `sh -c ...` with `args` just as well; decide
 * what may run before calling the terminal manager (for example with a permission
 * request).
 *
 * @param command - The request's `command`.
 * @param args - The request's `args`.
 * @param cwd - The directory the command will run in (to find relative program paths).
 * @param shell - The shell to use, or `false` to never use one.
 */
export function resolveCommand(
  command: string,
  args: readonly string[] | undefined,
  cwd: string,
  shell: string | false,
): ResolvedCommand {
  if (command === "") throw RequestError.invalidParams({ field: "command" }, "empty command");
  if (args !== undefined && args.length > 0) {
    return { file: command, args: [...args], viaShell: false };
  }
  if (shell === false || !SHELL_SYNTAX.test(command) || isFile(resolve(cwd, command))) {
    return { file: command, args: [], viaShell: false };
  }
  if (process.platform === "win32") {
    return { file: shell, args: ["/d", "/s", "/c", command], viaShell: true };
  }
  return { file: shell, args: ["-c", command], viaShell: true };
}

/**
 * The environment of a command: `base` (by default the client's own environment) with
 * the request's variables set over it, in order (a later duplicate wins).
 *
 * @param base - The environment to start from.
 * @param vars - The request's `env`.
 */
export function mergeEnv(
  base: NodeJS.ProcessEnv,
  vars: readonly EnvVariable[] | undefined,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const variable of vars ?? []) {
    if (variable.name === "" || variable.name.includes("=") || variable.name.includes("\0")) {
      throw RequestError.invalidParams(
        { field: "env", name: variable.name },
        "invalid environment variable name",
      );
    }
    env[variable.name] = variable.value;
  }
  return env;
}

/**
 * The working directory of a command: the request's `cwd` when given (it must be absolute
 * and name a directory), else `fallback`.
 *
 * @param cwd - The request's `cwd`.
 * @param fallback - The directory to use when the request gives none.
 */
export function resolveCwd(cwd: string | null | undefined, fallback: string): string {
  const dir = cwd ?? fallback;
  if (!isAbsolute(dir)) {
    throw RequestError.invalidParams({ field: "cwd", cwd: dir }, "cwd must be an absolute path");
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) {
    throw RequestError.invalidParams({ field: "cwd", cwd: dir }, "cwd is not a directory");
  }
  return dir;
}

/**
 * The retention limit for one terminal: the request's `outputByteLimit` (capped at `max`)
 * or `fallback` when it gives none.
 *
 * @param requested - The request's `outputByteLimit`.
 * @param fallback - The limit when the request gives none.
 * @param max - The largest limit granted.
 */
export function resolveOutputLimit(
  requested: number | null | undefined,
  fallback: number,
  max: number,
): number {
  if (requested === undefined || requested === null) return Math.min(fallback, max);
  if (!Number.isSafeInteger(requested) || requested < 0) {
    throw RequestError.invalidParams(
      { field: "outputByteLimit" },
      "outputByteLimit must be a non-negative integer",
    );
  }
  return Math.min(requested, max);
}
