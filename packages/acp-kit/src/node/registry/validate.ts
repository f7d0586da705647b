/**
 * Checks registry documents against the registry's format. A malformed agent is left out
 * (and reported), so that one bad entry does not make the whole registry unusable.
 *
 * @module
 */
import {
  REGISTRY_PLATFORMS,
  type Registry,
  type RegistryAgent,
  type RegistryDistribution,
} from "./types.js";

/** Thrown when a registry document is not a registry at all. */
export class RegistryFormatError extends Error {
  /**
   * Creates the error.
   * @param message - What is wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "RegistryFormatError";
  }
}

/** A registry and what was wrong in it. */
export interface ParsedRegistry {
  /** The registry, without the agents that did not pass. */
  readonly registry: Registry;
  /** One line per problem: `agents[3] (foo).distribution.npx.package: ...`. */
  readonly problems: readonly string[];
}

/**
 * A registry id, whole: the registry's own pattern, anchored at both ends. Ids name
 * directories of the cache, so nothing else may pass.
 */
export const AGENT_ID = /^[a-z][a-z0-9-]*$/;
/**
 * A version, whole: `MAJOR.MINOR.PATCH` with semver's optional pre-release and build
 * parts. The registry's schema anchors only the start (`1.0.0/../../x` would pass it);
 * versions name directories of the cache, so this one is anchored at both ends.
 */
export const AGENT_VERSION =
  /^[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
/** Ids and versions longer than this are refused (they become file names). */
export const MAX_NAME_LENGTH = 128;
const ID = AGENT_ID;
const VERSION = AGENT_VERSION;
const SHA256 = /^[a-fA-F0-9]{64}$/;

type Problems = string[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown, path: string, problems: Problems, nonEmpty = true): boolean {
  if (typeof value === "string" && (!nonEmpty || value !== "")) return true;
  problems.push(`${path}: must be a ${nonEmpty ? "non-empty " : ""}string`);
  return false;
}

function optionalStrings(value: unknown, path: string, problems: Problems): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    problems.push(`${path}: must be an array of strings`);
  }
}

function optionalEnv(value: unknown, path: string, problems: Problems): void {
  if (value === undefined) return;
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === "string")) {
    problems.push(`${path}: must map variable names to strings`);
  }
}

function checkBinaryTarget(value: unknown, path: string, problems: Problems): void {
  if (!isObject(value)) {
    problems.push(`${path}: must be an object`);
    return;
  }
  if (text(value.archive, `${path}.archive`, problems)) {
    try {
      const url = new URL(value.archive as string);
      if (url.protocol !== "https:" && url.protocol !== "http:" && url.protocol !== "file:") {
        problems.push(`${path}.archive: must be an http(s) or file URL`);
      }
    } catch {
      problems.push(`${path}.archive: is not a URL`);
    }
  }
  if (
    value.sha256 !== undefined &&
    (typeof value.sha256 !== "string" || !SHA256.test(value.sha256))
  )
    problems.push(`${path}.sha256: must be 64 hexadecimal digits`);
  text(value.cmd, `${path}.cmd`, problems);
  optionalStrings(value.args, `${path}.args`, problems);
  optionalEnv(value.env, `${path}.env`, problems);
}

function checkPackage(value: unknown, path: string, problems: Problems): void {
  if (!isObject(value)) {
    problems.push(`${path}: must be an object`);
    return;
  }
  text(value.package, `${path}.package`, problems);
  if (value.cmd !== undefined) text(value.cmd, `${path}.cmd`, problems);
  optionalStrings(value.args, `${path}.args`, problems);
  optionalEnv(value.env, `${path}.env`, problems);
}

function checkDistribution(value: unknown, path: string, problems: Problems): void {
  if (!isObject(value)) {
    problems.push(`${path}: must be an object`);
    return;
  }
  // Kinds this version does not know are ignored (the format may add some later).
  if (value.binary === undefined && value.npx === undefined && value.uvx === undefined)
    problems.push(`${path}: names no binary, npx or uvx distribution`);
  if (value.binary !== undefined) {
    if (!isObject(value.binary) || Object.keys(value.binary).length === 0) {
      problems.push(`${path}.binary: must map platforms to archives`);
    } else {
      for (const [platform, target] of Object.entries(value.binary)) {
        if (!(REGISTRY_PLATFORMS as readonly string[]).includes(platform)) {
          problems.push(`${path}.binary.${platform}: is not a known platform`);
        } else checkBinaryTarget(target, `${path}.binary.${platform}`, problems);
      }
    }
  }
  if (value.npx !== undefined) checkPackage(value.npx, `${path}.npx`, problems);
  if (value.uvx !== undefined) checkPackage(value.uvx, `${path}.uvx`, problems);
}

/**
 * The problems of one agent entry (empty when it is valid).
 *
 * @param value - The entry, as parsed from JSON.
 * @param path - Where it is, for the messages (default `agent`).
 */
export function agentProblems(value: unknown, path = "agent"): string[] {
  const problems: Problems = [];
  if (!isObject(value)) return [`${path}: must be an object`];
  if (text(value.id, `${path}.id`, problems) && !ID.test(value.id as string))
    problems.push(`${path}.id: must be lowercase letters, digits and hyphens`);
  else if (typeof value.id === "string" && value.id.length > MAX_NAME_LENGTH)
    problems.push(`${path}.id: must be at most ${MAX_NAME_LENGTH} characters`);
  text(value.name, `${path}.name`, problems);
  if (text(value.version, `${path}.version`, problems) && !VERSION.test(value.version as string))
    problems.push(`${path}.version: must be a semantic version`);
  else if (typeof value.version === "string" && value.version.length > MAX_NAME_LENGTH)
    problems.push(`${path}.version: must be at most ${MAX_NAME_LENGTH} characters`);
  text(value.description, `${path}.description`, problems);
  for (const key of ["repository", "website", "license", "icon"] as const) {
    if (value[key] !== undefined) text(value[key], `${path}.${key}`, problems, false);
  }
  optionalStrings(value.authors, `${path}.authors`, problems);
  checkDistribution(value.distribution, `${path}.distribution`, problems);
  return problems;
}

/**
 * Whether a value is a valid agent entry.
 *
 * @param value - The entry, as parsed from JSON.
 */
export function isRegistryAgent(value: unknown): value is RegistryAgent {
  return agentProblems(value).length === 0;
}

/**
 * Checks a registry document. Throws a {@link RegistryFormatError} when it is not a
 * registry (not an object, no `agents` array); agents that do not pass are left out
 * and listed in `problems`, as are duplicate ids (the first one is kept).
 *
 * @param data - The document, as parsed from JSON.
 */
export function parseRegistry(data: unknown): ParsedRegistry {
  if (!isObject(data)) throw new RegistryFormatError("The registry is not a JSON object.");
  if (!Array.isArray(data.agents))
    throw new RegistryFormatError('The registry has no "agents" array.');
  const problems: string[] = [];
  const agents: RegistryAgent[] = [];
  const seen = new Set<string>();
  data.agents.forEach((entry: unknown, index) => {
    const id = isObject(entry) && typeof entry.id === "string" ? entry.id : "?";
    const found = agentProblems(entry, `agents[${index}] (${id})`);
    if (found.length > 0) problems.push(...found);
    else if (seen.has(id)) problems.push(`agents[${index}] (${id}): the id is used twice`);
    else {
      seen.add(id);
      agents.push(entry as RegistryAgent);
    }
  });
  const version = typeof data.version === "string" ? data.version : "";
  return { registry: { version, agents }, problems };
}

/** The distribution kinds of an agent, in the order they are preferred. */
export function distributionKinds(
  distribution: RegistryDistribution,
): ("binary" | "npx" | "uvx")[] {
  return (["binary", "npx", "uvx"] as const).filter((kind) => distribution[kind] !== undefined);
}
