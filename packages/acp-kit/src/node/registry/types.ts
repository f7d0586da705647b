/**
 * The ACP agent registry's format, as typed values: one document listing agents, each
 * with one or more ways to be installed and started (a distribution).
 *
 * @module
 */

/** The platforms a binary distribution can name: `<os>-<arch>`. */
export const REGISTRY_PLATFORMS = [
  "darwin-aarch64",
  "darwin-x86_64",
  "linux-aarch64",
  "linux-x86_64",
  "windows-aarch64",
  "windows-x86_64",
] as const;

/** One of {@link REGISTRY_PLATFORMS}. */
export type RegistryPlatform = (typeof REGISTRY_PLATFORMS)[number];

/** A prebuilt archive for one platform. */
export interface BinaryTarget {
  /** Where to download the archive (`.zip`, `.tar.gz`, `.tgz`, `.tar.bz2`, `.tbz2`, or a bare executable). */
  readonly archive: string;
  /** Hex SHA-256 of the archive, when the registry gives one. */
  readonly sha256?: string;
  /** The program inside the extracted archive, relative to its root (for example `./bin/agent`). */
  readonly cmd: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Environment variables to set for it. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A package from a package registry: npm (`npx`) or PyPI (`uvx`). */
export interface PackageDistribution {
  /** The package, usually pinned: `@scope/name@1.2.3` (npm) or `name==1.2.3` (PyPI). */
  readonly package: string;
  /** The package's executable to run, when it is not the package's default one. */
  readonly cmd?: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Environment variables to set for it. */
  readonly env?: Readonly<Record<string, string>>;
}

/** The ways an agent can be installed; at least one is present. */
export interface RegistryDistribution {
  /** Prebuilt archives, by platform. */
  readonly binary?: Readonly<Partial<Record<RegistryPlatform, BinaryTarget>>>;
  /** An npm package. */
  readonly npx?: PackageDistribution;
  /** A PyPI package, run with uv. */
  readonly uvx?: PackageDistribution;
}

/** The kind of a distribution. */
export type DistributionKind = keyof RegistryDistribution;

/** One agent of the registry. Fields the format adds later are kept as they are. */
export interface RegistryAgent {
  /** Its id: lowercase letters, digits and hyphens, starting with a letter. */
  readonly id: string;
  /** Its display name. */
  readonly name: string;
  /** Its version (semantic version). */
  readonly version: string;
  /** A short description. */
  readonly description: string;
  /** Its source repository. */
  readonly repository?: string;
  /** Its home page. */
  readonly website?: string;
  /** Its authors. */
  readonly authors?: readonly string[];
  /** An SPDX licence id, or `proprietary`. */
  readonly license?: string;
  /** Where its icon is. */
  readonly icon?: string;
  /** How to install and start it. */
  readonly distribution: RegistryDistribution;
}

/** A whole registry document (`registry.json`). */
export interface Registry {
  /** The format's version. */
  readonly version: string;
  /** The agents. */
  readonly agents: readonly RegistryAgent[];
}
