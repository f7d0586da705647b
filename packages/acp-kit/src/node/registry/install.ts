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
import {
  chmod,
  mkdir,
  open,
  readFile,
  readdir,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { basename, join, resolve, sep } from "node:path";
import { RegistryError } from "./errors.js";
import { DEFAULT_DOWNLOAD_LIMITS, download, isSecureSource } from "./download.js";
import { archiveFormat, DEFAULT_EXTRACT_LIMITS, entryPath, extractArchive } from "./extract.js";
import { registryPlatform } from "./platform.js";
import type { RegistryProgressListener } from "./progress.js";
import type { DistributionKind, PackageDistribution, RegistryAgent } from "./types.js";
import { AGENT_ID, AGENT_VERSION, MAX_NAME_LENGTH } from "./validate.js";
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
  /** Time and size limits of downloads and archives (see {@link InstallLimits}). */
  readonly limits?: Partial<InstallLimits>;
}

/** The limits of an install: how long a download may stall, how much it and its archive may hold. */
export interface InstallLimits {
  /** Milliseconds to wait for a download server's answer (default 30 000). */
  readonly connectTimeoutMs: number;
  /** Milliseconds a download may go without a byte (default 30 000). */
  readonly idleTimeoutMs: number;
  /** The largest archive downloaded, in bytes (default 1 GiB). */
  readonly maxDownloadBytes: number;
  /** The most an archive's contents may add up to, in bytes (default 2 GiB). */
  readonly maxExtractedBytes: number;
  /** The most entries an archive may have (default 100 000). */
  readonly maxEntries: number;
  /**
   * How many times its own size an archive may expand to, once its contents pass 64 MiB
   * (default 100; a decompression bomb expands about a thousand times).
   */
  readonly maxRatio: number;
}

/** The limits used where none are given. */
export const DEFAULT_INSTALL_LIMITS: InstallLimits = {
  connectTimeoutMs: DEFAULT_DOWNLOAD_LIMITS.connectTimeoutMs,
  idleTimeoutMs: DEFAULT_DOWNLOAD_LIMITS.idleTimeoutMs,
  maxDownloadBytes: DEFAULT_DOWNLOAD_LIMITS.maxBytes,
  maxExtractedBytes: DEFAULT_EXTRACT_LIMITS.maxBytes,
  maxEntries: DEFAULT_EXTRACT_LIMITS.maxEntries,
  maxRatio: DEFAULT_EXTRACT_LIMITS.maxRatio,
};

function invalid(message: string): RegistryError {
  return new RegistryError("invalid_entry", message);
}

/** An id, when it is one the registry allows (it names a directory of the cache). */
function checkedId(id: string): string {
  if (typeof id !== "string" || id.length > MAX_NAME_LENGTH || !AGENT_ID.test(id)) {
    throw invalid(
      `${JSON.stringify(id)} is not a registry id (lowercase letters, digits and hyphens, starting with a letter).`,
    );
  }
  return id;
}

/**
 * `path` resolved, when it lies strictly inside `root` (also resolved); otherwise an
 * error. Every path built from a registry's words goes through here before it is used.
 */
export function insideDir(root: string, path: string): string {
  const base = resolve(root);
  const full = resolve(path);
  if (!full.startsWith(base + sep)) {
    throw invalid(`Refused: ${JSON.stringify(full)} is not inside ${JSON.stringify(base)}.`);
  }
  return full;
}

/**
 * The directory of one agent's installs. Throws a {@link RegistryError} (`invalid_entry`)
 * when `id` is not a registry id: no id reaches outside the cache.
 */
export function agentCacheDir(cacheDir: string, id: string): string {
  const agents = join(resolve(cacheDir), "agents");
  return insideDir(agents, join(agents, checkedId(id)));
}

/** The cache's name for a platform: the registry's key, or `os-arch` made safe for a file name. */
function platformKey(platform: NodeJS.Platform, arch: string): string {
  return registryPlatform(platform, arch) ?? `${platform}-${arch}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * The directory of one installed version, for one platform (a cache shared between
 * machines of different kinds keeps one install of each). Throws a {@link RegistryError}
 * (`invalid_entry`) when the agent's id or version is not one the registry allows.
 *
 * @param cacheDir - The cache directory.
 * @param agent - The registry entry.
 * @param kind - Which of its distributions.
 * @param platform - Default: this process's.
 * @param arch - Default: this process's.
 */
export function installDir(
  cacheDir: string,
  agent: RegistryAgent,
  kind: DistributionKind,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string {
  const parent = agentCacheDir(cacheDir, agent.id);
  const version = agent.version;
  if (
    typeof version !== "string" ||
    version.length > MAX_NAME_LENGTH ||
    !AGENT_VERSION.test(version)
  ) {
    throw invalid(`${agent.id}: ${JSON.stringify(version)} is not a version (MAJOR.MINOR.PATCH).`);
  }
  // Callers without types may pass anything.
  if (!(["binary", "npx", "uvx"] as readonly string[]).includes(kind)) {
    throw invalid(`${agent.id}: ${JSON.stringify(kind)} is not a distribution kind.`);
  }
  return insideDir(parent, join(parent, `${kind}-${version}-${platformKey(platform, arch)}`));
}

/**
 * The install record in `dir`, or `undefined` when it is not (completely) installed, or
 * when the record is not one an install writes (its program outside `dir`, say).
 */
export async function readInstall(dir: string): Promise<InstallRecord | undefined> {
  try {
    const record = JSON.parse(await readFile(join(dir, INSTALL_MARKER), "utf8")) as unknown;
    if (typeof record !== "object" || record === null) return undefined;
    const { program } = record as Partial<InstallRecord>;
    if (typeof program !== "string") return undefined;
    insideDir(dir, join(dir, program));
    return record as InstallRecord;
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
  const secure = isSecureSource(new URL(target.archive));
  if (!secure && target.sha256 === undefined) {
    throw new RegistryError(
      "insecure_download",
      `${agent.id} ${agent.version}: its archive ${target.archive} is plain http from another machine, and the registry gives no sha256 to check it with, so anyone on the way could replace it. Refused; ask the registry's maintainers for an https URL or a sha256.`,
    );
  }
  const limits = { ...DEFAULT_INSTALL_LIMITS, ...options.limits };
  const files = join(staging, "files");
  await mkdir(files);
  const archive = join(staging, "download");
  const got = await download(
    target.archive,
    archive,
    agent.id,
    options.onProgress,
    options.signal,
    {
      connectTimeoutMs: limits.connectTimeoutMs,
      idleTimeoutMs: limits.idleTimeoutMs,
      maxBytes: limits.maxDownloadBytes,
    },
    target.sha256 === undefined,
  );
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
  await extractArchive(archive, files, archiveFormat(head, target.archive), rawName, {
    maxBytes: limits.maxExtractedBytes,
    maxEntries: limits.maxEntries,
    maxRatio: limits.maxRatio,
  });
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
  insideDir(join(staging, root), join(staging, program));
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
  insideDir(join(dir, "bin"), join(dir, program));
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
      if (holder > 0 && !isRunning(holder)) await rm(lock, { recursive: true, force: true });
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

/** Whether a process runs with this id. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the staging directories of installs of `dir` whose process is gone: an install
 * interrupted by a signal or a crash leaves its half-built tree behind, named with its pid.
 */
async function removeAbandoned(dir: string): Promise<void> {
  const prefix = `${basename(dir)}.staging-`;
  const names = await readdir(join(dir, "..")).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(\d+)-[0-9a-f]{8}$/.exec(name.slice(prefix.length));
    const pid = Number(match?.[1]);
    if (match === null || pid === process.pid || isRunning(pid)) continue;
    await rm(join(dir, "..", name), { recursive: true, force: true });
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
  const dir = installDir(
    resolve(options.cacheDir),
    agent,
    kind,
    options.platform ?? process.platform,
    options.arch ?? process.arch,
  );
  const refresh = options.refresh === true;
  const existing = await readInstall(dir);
  if (existing !== undefined && !refresh) return { dir, record: existing };
  await mkdir(join(dir, ".."), { recursive: true });
  await removeAbandoned(dir);
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

/**
 * Removes every installed version of an agent; resolves with whether there was one.
 * Rejects with a {@link RegistryError} (`invalid_entry`) when `id` is not a registry id,
 * so that nothing outside the cache's `agents` directory is ever removed.
 */
export async function removeAgent(cacheDir: string, id: string): Promise<boolean> {
  const dir = agentCacheDir(cacheDir, id);
  const there = (await stat(dir).catch(() => undefined)) !== undefined;
  await rm(dir, { recursive: true, force: true });
  return there;
}
