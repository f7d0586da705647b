/**
 * Installing an agent into the cache, once per version: a binary archive downloaded,
 * verified and extracted, or an npm package installed with `npm install --prefix`, or a
 * PyPI package installed with `uv tool install`. Each install is built in a staging
 * directory and renamed into place, so a concurrent launch sees either nothing or a
 * complete install, never half of one (uv's environments hold absolute paths and cannot
 * be moved: those are built in place under a lock).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { RegistryError } from "./errors.js";
import { download } from "./download.js";
import { archiveFormat, entryPath, extractArchive } from "./extract.js";
import { registryPlatform } from "./platform.js";
import type { RegistryProgressListener } from "./progress.js";
import type { DistributionKind, PackageDistribution, RegistryAgent } from "./types.js";
import { findOnPath } from "./which.js";
import { isBatchFile, windowsBatchCommand } from "./windows-command.js";

/** The file that marks a complete install. */
export const INSTALL_MARKER = "acp-kit-install.json";

/** What an install recorded about itself. */
export interface InstallRecord {
  /** The agent's id. */
  readonly id: string;
  /** The installed version. */
  readonly version: string;
  /** How it was installed. */
  readonly kind: DistributionKind;
  /** The program, relative to the install directory. */
  readonly program: string;
  /** Whether the program is a JavaScript file run with Node itself. */
  readonly viaNode: boolean;
  /** When it was installed (ISO 8601). */
  readonly installedAt: string;
}

/** Options of an install. */
export interface InstallOptions {
  /** The cache directory (required here; see `defaultCacheDir`). */
  readonly cacheDir: string;
  /** Install again even when this version is installed. */
  readonly refresh?: boolean;
  /** The platform whose binary is wanted (default: this process's). */
  readonly platform?: NodeJS.Platform;
  /** The CPU architecture whose binary is wanted (default: this process's). */
  readonly arch?: string;
  /** The environment of `npm` and `uv` (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Told about downloads and installs. */
  readonly onProgress?: RegistryProgressListener;
  /** Aborts downloads. */
  readonly signal?: AbortSignal;
}

/** The directory of one agent's installs. */
export function agentCacheDir(cacheDir: string, id: string): string {
  return join(cacheDir, "agents", id);
}

/** The directory of one installed version. */
export function installDir(cacheDir: string, agent: RegistryAgent, kind: DistributionKind): string {
  return join(agentCacheDir(cacheDir, agent.id), `${kind}-${agent.version}`);
}

/** The install record in `dir`, or `undefined` when it is not (completely) installed. */
export async function readInstall(dir: string): Promise<InstallRecord | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, INSTALL_MARKER), "utf8")) as InstallRecord;
  } catch {
    return undefined;
  }
}

function failure(code: "install_failed" | "tool_missing", message: string): RegistryError {
  return new RegistryError(code, message);
}

/** Runs a tool (npm, uv) to the end; rejects with its last output lines when it fails. */
async function runTool(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  what: string,
  platform: NodeJS.Platform,
): Promise<void> {
  const found = findOnPath(command, env, platform);
  if (found === undefined) {
    throw failure("tool_missing", `${what} needs \`${command}\`, which is not on the PATH.`);
  }
  const launch =
    platform === "win32" && isBatchFile(found)
      ? windowsBatchCommand(found, args, env.ComSpec ?? "cmd.exe")
      : { command: found, args, windowsVerbatimArguments: false };
  const output: string[] = [];
  const code = await new Promise<number | null>((done, reject) => {
    const child = spawn(launch.command, [...launch.args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
      windowsVerbatimArguments: launch.windowsVerbatimArguments,
    });
    const keep = (chunk: Buffer): void => {
      output.push(chunk.toString("utf8"));
      if (output.length > 200) output.shift();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (status) => done(status));
  });
  if (code !== 0) {
    const tail = output.join("").trim().split("\n").slice(-15).join("\n");
    throw failure(
      "install_failed",
      `${what} failed (\`${command} ${args.join(" ")}\` exited with ${String(code)}):\n${tail}`,
    );
  }
}

/** Moves a finished staging directory into place; when another process was first, keeps theirs. */
async function commit(staging: string, dir: string, refresh: boolean): Promise<void> {
  let old: string | undefined;
  if (refresh && (await readInstall(dir)) !== undefined) {
    old = `${dir}.old-${randomBytes(4).toString("hex")}`;
    await rename(dir, old).catch(() => (old = undefined));
  }
  try {
    await rename(staging, dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    await rm(staging, { recursive: true, force: true });
    // Another launch finished the same install first: use it.
    if ((code === "EEXIST" || code === "ENOTEMPTY" || code === "EPERM") && (await readInstall(dir)))
      return;
    throw error;
  } finally {
    if (old !== undefined) await rm(old, { recursive: true, force: true });
  }
}

async function record(dir: string, entry: Omit<InstallRecord, "installedAt">): Promise<void> {
  const full: InstallRecord = { ...entry, installedAt: new Date().toISOString() };
  await writeFile(join(dir, INSTALL_MARKER), JSON.stringify(full, null, 2) + "\n");
}

/** Turns the registry's `cmd` (`./bin/agent`, `.\\agent.exe`) into a path relative to the install. */
function programPath(root: string, cmd: string): string {
  const path = entryPath(root, cmd);
  return path.slice(root.length + 1);
}

async function installBinary(
  agent: RegistryAgent,
  staging: string,
  options: InstallOptions,
): Promise<Omit<InstallRecord, "installedAt">> {
  const platform = registryPlatform(options.platform, options.arch);
  const target = platform === undefined ? undefined : agent.distribution.binary?.[platform];
  if (platform === undefined || target === undefined) {
    throw new RegistryError(
      "unsupported_platform",
      `${agent.id} has no binary for ${platform ?? `${options.platform ?? process.platform}-${options.arch ?? process.arch}`}.`,
    );
  }
  const files = join(staging, "files");
  await mkdir(files);
  const archive = join(staging, "download");
  const got = await download(target.archive, archive, agent.id, options.onProgress, options.signal);
  if (target.sha256 !== undefined && got.sha256 !== target.sha256.toLowerCase()) {
    throw new RegistryError(
      "checksum_mismatch",
      `The download of ${agent.id} ${agent.version} from ${target.archive} does not match the registry's checksum ` +
        `(expected sha256 ${target.sha256.toLowerCase()}, got ${got.sha256}). Nothing was installed; ` +
        "the file may have been changed or damaged on the way. Try again later, or tell the registry's maintainers.",
    );
  }
  options.onProgress?.({ kind: "extract", agent: agent.id });
  const head = new Uint8Array(4);
  const handle = await open(archive, "r");
  try {
    await handle.read(head, 0, 4, 0);
  } finally {
    await handle.close();
  }
  const rawName = basename(new URL(target.archive).pathname) || "agent";
  await extractArchive(archive, files, archiveFormat(head, target.archive), rawName);
  await rm(archive, { force: true });
  const program = join("files", programPath(files, target.cmd));
  const stats = await stat(join(staging, program)).catch(() => undefined);
  if (stats?.isFile() !== true) {
    throw failure(
      "install_failed",
      `The archive of ${agent.id} has no ${target.cmd} (the registry's \`cmd\`).`,
    );
  }
  // Zip archives carry no Unix permissions that fflate reports: the program must run.
  if ((options.platform ?? process.platform) !== "win32")
    await chmod(join(staging, program), stats.mode | 0o755);
  return { id: agent.id, version: agent.version, kind: "binary", program, viaNode: false };
}

/** The package name of an npm spec: `@scope/name@1.2.3` gives `@scope/name`. */
export function npmPackageName(spec: string): string | undefined {
  const match = /^(@[^/@\s]+\/[^/@\s]+|[^/@\s]+)(?:@.*)?$/.exec(spec);
  return match?.[1];
}

async function packageBin(
  staging: string,
  name: string,
  dist: PackageDistribution,
  agent: RegistryAgent,
): Promise<{ program: string; viaNode: boolean }> {
  const root = join("node_modules", ...name.split("/"));
  const manifest = JSON.parse(await readFile(join(staging, root, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  const unscoped = name.split("/").pop() ?? name;
  const bins: Record<string, string> =
    typeof manifest.bin === "string" ? { [unscoped]: manifest.bin } : (manifest.bin ?? {});
  const names = Object.keys(bins);
  const chosen = dist.cmd ?? (names.length === 1 ? names[0] : names.find((n) => n === unscoped));
  const file = chosen === undefined ? undefined : bins[chosen];
  if (chosen === undefined || file === undefined) {
    throw failure(
      "install_failed",
      `${agent.id}: the package ${name} has ${names.length === 0 ? "no executables" : `the executables ${names.join(", ")}`}` +
        (dist.cmd === undefined ? " and the registry names none (`cmd`)." : `, not ${dist.cmd}.`),
    );
  }
  const program = join(root, file);
  let viaNode = /\.[cm]?js$/i.test(file);
  if (!viaNode) {
    const head = (await readFile(join(staging, program))).subarray(0, 120).toString("utf8");
    viaNode = /^#!.*\bnode\b/.test(head);
  }
  return { program, viaNode };
}

async function installNpm(
  agent: RegistryAgent,
  staging: string,
  options: InstallOptions,
): Promise<Omit<InstallRecord, "installedAt">> {
  const dist = agent.distribution.npx;
  if (dist === undefined) throw failure("install_failed", `${agent.id} has no npx distribution.`);
  const env = options.env ?? process.env;
  const args = [
    "install",
    "--prefix",
    staging,
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    dist.package,
  ];
  options.onProgress?.({ kind: "install", agent: agent.id, command: `npm ${args.join(" ")}` });
  await runTool("npm", args, env, `Installing ${agent.id}`, options.platform ?? process.platform);
  // The name npm saved is right even for specs that do not say it (a file or a URL).
  const saved = JSON.parse(await readFile(join(staging, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const name = Object.keys(saved.dependencies ?? {})[0] ?? npmPackageName(dist.package);
  if (name === undefined) throw failure("install_failed", `${agent.id}: npm installed nothing.`);
  const bin = await packageBin(staging, name, dist, agent);
  return { id: agent.id, version: agent.version, kind: "npx", ...bin };
}

/** The distribution name of a PyPI requirement: `fast-agent-acp==0.10.1` gives `fast-agent-acp`. */
export function pypiPackageName(spec: string): string {
  return spec.split(/[\s=<>!~;[@]/)[0] ?? spec;
}

async function installUv(
  agent: RegistryAgent,
  dir: string,
  options: InstallOptions,
): Promise<Omit<InstallRecord, "installedAt">> {
  const dist = agent.distribution.uvx;
  if (dist === undefined) throw failure("install_failed", `${agent.id} has no uvx distribution.`);
  const platform = options.platform ?? process.platform;
  const env = {
    ...(options.env ?? process.env),
    UV_TOOL_DIR: join(dir, "tools"),
    UV_TOOL_BIN_DIR: join(dir, "bin"),
  };
  const args = ["tool", "install", "--force", dist.package];
  options.onProgress?.({ kind: "install", agent: agent.id, command: `uv ${args.join(" ")}` });
  await runTool("uv", args, env, `Installing ${agent.id}`, platform);
  const cmd = dist.cmd ?? pypiPackageName(dist.package);
  const program = join("bin", platform === "win32" ? `${cmd}.exe` : cmd);
  if ((await stat(join(dir, program)).catch(() => undefined)) === undefined) {
    throw failure("install_failed", `${agent.id}: uv installed no executable named ${cmd}.`);
  }
  return { id: agent.id, version: agent.version, kind: "uvx", program, viaNode: false };
}

/** Holds a directory lock (`mkdir` is atomic) while `work` runs; waits while another holds it. */
async function withLock<T>(
  lock: string,
  work: () => Promise<T>,
  isDone: () => Promise<boolean>,
): Promise<T | undefined> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (await isDone()) return undefined;
      const holder = Number(await readFile(join(lock, "pid"), "utf8").catch(() => "0"));
      const alive =
        holder > 0 &&
        (() => {
          try {
            process.kill(holder, 0);
            return true;
          } catch {
            return false;
          }
        })();
      if (!alive && holder > 0) await rm(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw failure("install_failed", `Gave up waiting for ${lock}.`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * Installs an agent's distribution of the given kind into the cache, unless that version
 * is already installed (or `refresh`). Resolves with the install's directory and record.
 *
 * @param agent - The registry entry.
 * @param kind - Which of its distributions.
 * @param options - Cache directory, platform, progress.
 */
export async function installAgent(
  agent: RegistryAgent,
  kind: DistributionKind,
  options: InstallOptions,
): Promise<{ dir: string; record: InstallRecord }> {
  const dir = installDir(resolve(options.cacheDir), agent, kind);
  const refresh = options.refresh === true;
  const existing = await readInstall(dir);
  if (existing !== undefined && !refresh) return { dir, record: existing };
  await mkdir(join(dir, ".."), { recursive: true });
  if (kind === "uvx") {
    await withLock(
      `${dir}.lock`,
      async () => {
        if (!refresh && (await readInstall(dir)) !== undefined) return;
        await rm(join(dir, INSTALL_MARKER), { force: true });
        await mkdir(dir, { recursive: true });
        await record(dir, await installUv(agent, dir, options));
      },
      async () => !refresh && (await readInstall(dir)) !== undefined,
    );
  } else {
    const staging = `${dir}.staging-${process.pid}-${randomBytes(4).toString("hex")}`;
    await mkdir(staging);
    try {
      const entry =
        kind === "binary"
          ? await installBinary(agent, staging, options)
          : await installNpm(agent, staging, options);
      await record(staging, entry);
      await commit(staging, dir, refresh);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }
  const installed = await readInstall(dir);
  if (installed === undefined) throw failure("install_failed", `${agent.id} was not installed.`);
  options.onProgress?.({ kind: "done", agent: agent.id, dir });
  return { dir, record: installed };
}

/** Removes every installed version of an agent; resolves with whether there was one. */
export async function removeAgent(cacheDir: string, id: string): Promise<boolean> {
  const dir = agentCacheDir(cacheDir, id);
  const there = (await stat(dir).catch(() => undefined)) !== undefined;
  await rm(dir, { recursive: true, force: true });
  return there;
}
