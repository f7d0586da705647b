/**
 * The ACP agent registry: its format, loading it (cached), installing agents from it, and
 * resolving an id to the command that starts the agent.
 *
 * @module
 */
export {
  REGISTRY_PLATFORMS,
  type RegistryPlatform,
  type Registry,
  type RegistryAgent,
  type RegistryDistribution,
  type DistributionKind,
  type BinaryTarget,
  type PackageDistribution,
} from "./types.js";
export {
  parseRegistry,
  agentProblems,
  isRegistryAgent,
  distributionKinds,
  RegistryFormatError,
  type ParsedRegistry,
} from "./validate.js";
export { RegistryError, type RegistryErrorCode } from "./errors.js";
export type { RegistryProgress, RegistryProgressListener } from "./progress.js";
export { registryPlatform, defaultCacheDir } from "./platform.js";
export {
  loadRegistry,
  registryUrl,
  DEFAULT_REGISTRY_URL,
  DEFAULT_REGISTRY_MAX_AGE_MS,
  DEFAULT_REGISTRY_TIMEOUT_MS,
  DEFAULT_REGISTRY_MAX_BYTES,
  type RegistryOptions,
  type LoadedRegistry,
  type RegistrySource,
} from "./load.js";
export {
  installAgent,
  removeAgent,
  readInstall,
  installDir,
  agentCacheDir,
  npmPackageName,
  pypiPackageName,
  INSTALL_MARKER,
  DEFAULT_INSTALL_LIMITS,
  type InstallLimits,
  type InstallOptions,
  type InstallRecord,
} from "./install.js";
export {
  resolveAgent,
  chooseDistribution,
  findRegistryAgent,
  launchOf,
  type ResolveAgentOptions,
  type ResolvedAgent,
} from "./resolve.js";
export { archiveFormat, type ArchiveFormat } from "./extract.js";
export {
  windowsBatchCommand,
  quoteWindowsArg,
  escapeForCmd,
  isBatchFile,
  type WindowsCommand,
} from "./windows-command.js";
export { findOnPath } from "./which.js";
