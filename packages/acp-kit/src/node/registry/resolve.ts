/**
 * {@link resolveAgent}: from a registry id to the exact command, arguments and environment
 * that start the agent on this machine, installing it into the cache first when needed.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { RegistryError } from "./errors.js";
import {
  installAgent,
  installDir,
  readInstall,
  type InstallLimits,
  type InstallRecord,
} from "./install.js";
import { loadRegistry, type LoadedRegistry, type RegistryOptions } from "./load.js";
import { defaultCacheDir, registryPlatform } from "./platform.js";
import type { DistributionKind, RegistryAgent } from "./types.js";
import { findOnPath } from "./which.js";
import { isBatchFile, windowsBatchCommand } from "./windows-command.js";

/** Options of {@link resolveAgent}. */
export interface ResolveAgentOptions extends RegistryOptions {
  /** Install when it is not installed yet (default `true`; with `false` it rejects instead). */
  readonly install?: boolean;
  /** Which distribution to use (default: the binary for this platform, else npx, else uvx). */
  readonly distribution?: DistributionKind;
  /** The platform to resolve for (default: this process's). */
  readonly platform?: NodeJS.Platform;
  /** The CPU architecture to resolve for (default: this process's). */
  readonly arch?: string;
  /** An already loaded registry, instead of loading it. */
  readonly registry?: LoadedRegistry;
  /** Aborts downloads. */
  readonly signal?: AbortSignal;
  /** Time and size limits of the install's download and archive. */
  readonly limits?: Partial<InstallLimits>;
}

/** How to start an agent from the registry. */
export interface ResolvedAgent {
  /** The registry entry. */
  readonly agent: RegistryAgent;
  /** Which distribution is used. */
  readonly distribution: DistributionKind;
  /** The program to start. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /**
   * Environment variables the registry sets for it, less those the launcher's environment
   * (`env`, default `process.env`) already has: a registry entry adds variables, it never
   * replaces one of the launcher's.
   */
  readonly env: Readonly<Record<string, string>>;
  /** True when `args` are already quoted for `cmd.exe` (a batch file on Windows). */
  readonly windowsVerbatimArguments: boolean;
  /** The install directory in the cache. */
  readonly dir: string;
  /** The install's record. */
  readonly install: InstallRecord;
  /** Where the registry came from. */
  readonly registrySource: LoadedRegistry["source"];
}

/**
 * The distribution used for an agent on a platform: its binary when it has one for the
 * platform, else npx, else uvx; `undefined` when none fits.
 */
export function chooseDistribution(
  agent: RegistryAgent,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): DistributionKind | undefined {
  const key = registryPlatform(platform, arch);
  if (key !== undefined && agent.distribution.binary?.[key] !== undefined) return "binary";
  if (agent.distribution.npx !== undefined) return "npx";
  if (agent.distribution.uvx !== undefined) return "uvx";
  return undefined;
}

/**
 * Finds an agent in a loaded registry, or throws `unknown_agent`; when the registry could
 * not be fetched, the message says why and which copy was searched instead.
 */
export function findRegistryAgent(loaded: LoadedRegistry, id: string): RegistryAgent {
  const agent = loaded.registry.agents.find((a) => a.id === id);
  if (agent === undefined) {
    const where =
      loaded.source === "snapshot"
        ? "the snapshot shipped with acp-kit"
        : loaded.source === "cache"
          ? `the cached copy of ${loaded.url}`
          : loaded.url;
    const why =
      loaded.fetchError === undefined || loaded.fetchError === "offline"
        ? ""
        : ` The registry could not be fetched (${loaded.fetchError}), so ${where} was searched instead.`;
    throw new RegistryError(
      "unknown_agent",
      `The registry (${where}) has no agent ${JSON.stringify(id)}.${why}`,
    );
  }
  return agent;
}

/** The registry's variables that `launcher` does not set already (names compared as the platform does). */
function registryEnv(
  given: Readonly<Record<string, string>> | undefined,
  launcher: NodeJS.ProcessEnv,
): Record<string, string> {
  const result: Record<string, string> = {};
  if (given === undefined) return result;
  const windows = process.platform === "win32";
  const taken = new Set(Object.keys(launcher).map((name) => (windows ? name.toUpperCase() : name)));
  for (const [name, value] of Object.entries(given)) {
    if (!taken.has(windows ? name.toUpperCase() : name)) result[name] = value;
  }
  return result;
}

/**
 * The launch of an installed agent: command, arguments, environment (the registry's
 * variables that `env` does not set already).
 */
export function launchOf(
  agent: RegistryAgent,
  distribution: DistributionKind,
  dir: string,
  install: InstallRecord,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
  env: NodeJS.ProcessEnv = process.env,
): Pick<ResolvedAgent, "command" | "args" | "env" | "windowsVerbatimArguments"> {
  const key = registryPlatform(platform, arch);
  const source =
    distribution === "binary"
      ? key === undefined
        ? undefined
        : agent.distribution.binary?.[key]
      : agent.distribution[distribution];
  const agentArgs = source?.args ?? [];
  const agentEnv = registryEnv(source?.env, env);
  const program = join(dir, install.program);
  if (install.viaNode) {
    return {
      command: process.execPath,
      args: [program, ...agentArgs],
      env: agentEnv,
      windowsVerbatimArguments: false,
    };
  }
  if (platform === "win32" && isBatchFile(program)) {
    const batch = windowsBatchCommand(program, agentArgs, env.ComSpec ?? "cmd.exe");
    return {
      command: batch.command,
      args: batch.args,
      env: agentEnv,
      windowsVerbatimArguments: true,
    };
  }
  return { command: program, args: agentArgs, env: agentEnv, windowsVerbatimArguments: false };
}

/**
 * Resolves a registry id to the exact command, arguments and environment that start the
 * agent here. The agent is installed into the cache first when this version is not (a
 * binary downloaded, checked and extracted; an npm or PyPI package installed), unless
 * `install: false`. Rejects with a {@link RegistryError}.
 *
 * ```ts
 * const resolved = await resolveAgent("codex-acp", { onProgress: console.error });
 * spawn(resolved.command, resolved.args, { env: { ...process.env, ...resolved.env } });
 * ```
 *
 * @param id - The agent's registry id.
 * @param options - Registry, cache, platform, distribution.
 */
export async function resolveAgent(
  id: string,
  options: ResolveAgentOptions = {},
): Promise<ResolvedAgent> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const cacheDir = resolve(options.cacheDir ?? defaultCacheDir(env));
  const loaded = options.registry ?? (await loadRegistry(options));
  const agent = findRegistryAgent(loaded, id);
  const distribution = options.distribution ?? chooseDistribution(agent, platform, arch);
  if (distribution === undefined || agent.distribution[distribution] === undefined) {
    throw new RegistryError(
      "unsupported_platform",
      `${id} has no ${distribution ?? "distribution"} for ${registryPlatform(platform, arch) ?? `${platform}-${arch}`}.`,
    );
  }
  let dir = installDir(cacheDir, agent, distribution, platform, arch);
  let install = options.refresh === true ? undefined : await readInstall(dir);
  if (install === undefined) {
    if (options.install === false) {
      throw new RegistryError(
        "install_failed",
        `${id} ${agent.version} is not installed (acp-kit agents install ${id}).`,
      );
    }
    if (distribution === "uvx" && findOnPath("uv", env, platform) === undefined) {
      throw new RegistryError(
        "tool_missing",
        `${id} is a Python package run with uv, which is not on the PATH. Install uv (https://docs.astral.sh/uv/) and try again.`,
      );
    }
    ({ dir, record: install } = await installAgent(agent, distribution, {
      cacheDir,
      env,
      platform,
      arch,
      ...(options.refresh === undefined ? {} : { refresh: options.refresh }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
    }));
  }
  return {
    agent,
    distribution,
    dir,
    install,
    registrySource: loaded.source,
    ...launchOf(agent, distribution, dir, install, platform, arch, env),
  };
}
