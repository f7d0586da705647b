/**
 * Where things go on this machine: the registry's platform key, and the cache directory.
 *
 * @module
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { RegistryPlatform } from "./types.js";

const OS: Partial<Record<NodeJS.Platform, string>> = {
  darwin: "darwin",
  linux: "linux",
  win32: "windows",
};
const ARCH: Partial<Record<string, string>> = { arm64: "aarch64", x64: "x86_64" };

/**
 * The registry's name for a platform (`linux-x86_64`, `darwin-aarch64`, ...), or
 * `undefined` when the registry has none for it.
 *
 * @param platform - Default: this process's.
 * @param arch - Default: this process's.
 */
export function registryPlatform(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): RegistryPlatform | undefined {
  const os = OS[platform];
  const cpu = ARCH[arch];
  return os === undefined || cpu === undefined ? undefined : (`${os}-${cpu}` as RegistryPlatform);
}

/**
 * The user's cache directory for acp-kit: `$XDG_CACHE_HOME/acp-kit` (default
 * `~/.cache/acp-kit`) on Linux and other Unixes, `~/Library/Caches/acp-kit` on macOS,
 * `%LOCALAPPDATA%\acp-kit\Cache` on Windows. `ACP_KIT_CACHE_DIR` overrides all of them.
 *
 * @param env - Default: `process.env`.
 * @param platform - Default: this process's.
 */
export function defaultCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.ACP_KIT_CACHE_DIR !== undefined && env.ACP_KIT_CACHE_DIR !== "")
    return env.ACP_KIT_CACHE_DIR;
  const home = (platform === "win32" ? env.USERPROFILE : env.HOME) ?? homedir();
  if (platform === "win32") {
    const local = env.LOCALAPPDATA ?? join(home, "AppData", "Local");
    return join(local, "acp-kit", "Cache");
  }
  if (platform === "darwin") return join(home, "Library", "Caches", "acp-kit");
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec: a relative path is invalid and is to be ignored.
  const base = xdg?.startsWith("/") === true ? xdg : join(home, ".cache");
  return join(base, "acp-kit");
}
