/**
 * Finding programs on the `PATH`, as the system would when starting them.
 *
 * @module
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

function runnable(path: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform !== "win32") accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The full path of a program as the system would find it: a path with a separator is
 * checked as it is; a bare name is looked up in each `PATH` directory (on Windows also
 * with each `PATHEXT` extension). `undefined` when it is not found.
 *
 * @param command - A program name or path.
 * @param env - Default: `process.env`.
 * @param platform - Default: this process's.
 */
export function findOnPath(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const extensions =
    platform === "win32"
      ? ["", ...(env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";").filter((e) => e !== "")]
      : [""];
  const hasSeparator = command.includes("/") || (platform === "win32" && command.includes("\\"));
  if (hasSeparator || isAbsolute(command)) {
    return extensions.map((e) => command + e).find((p) => runnable(p, platform));
  }
  const pathVar = (platform === "win32" ? (env.Path ?? env.PATH) : env.PATH) ?? "";
  const sep = platform === "win32" ? ";" : delimiter;
  for (const dir of pathVar.split(sep)) {
    if (dir === "") continue;
    for (const ext of extensions) {
      const candidate = join(dir, command + ext);
      if (runnable(candidate, platform)) return candidate;
    }
  }
  return undefined;
}
