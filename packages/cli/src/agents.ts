/**
 * Named agents: `acp-kit run claude` resolves `claude` from the user's config file or a
 * small built-in table of well-known agents' launch commands.
 *
 * @module
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { findOnPath } from "acp-kit/node";
import builtInAgents from "./built-in-agents.json";
import { NotAFileError, readRegularFileSync } from "./regular-file.js";

/** How to launch an agent. */
export interface AgentLaunch {
  /** The program. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
  /** A human description. */
  readonly description?: string;
  /**
   * Windows: the arguments are already quoted for `cmd.exe` (a registry agent whose
   * program is a batch file); pass it to `spawn` as `windowsVerbatimArguments`.
   */
  readonly windowsVerbatimArguments?: boolean;
}

/** A named agent and where its definition came from. */
export interface NamedAgent extends AgentLaunch {
  readonly name: string;
  readonly source: "config" | "built-in";
}

/**
 * Well-known agents and their ACP launch commands, kept in one data file
 * (`built-in-agents.json`). Agents that come as npm packages run through `npx -y` (the
 * first run downloads them, which can take a while); the registry ids that `acp-kit agents`
 * lists install them once into the cache instead.
 */
export const BUILT_IN_AGENTS: Readonly<Record<string, AgentLaunch>> = builtInAgents;

/**
 * Where a named agent's program is on this machine (looked up on the `PATH` as the system
 * would), or `undefined` when it is not found.
 *
 * @param launch - The agent's launch command.
 */
export function agentProgramPath(launch: AgentLaunch): string | undefined {
  return findOnPath(launch.command);
}

/** Where the user's agent definitions live: `$XDG_CONFIG_HOME/acp-kit/agents.json`. */
export function agentsConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME ?? join(env.HOME ?? homedir(), ".config");
  return join(base, "acp-kit", "agents.json");
}

/** Raised when the agents file exists but cannot be used. */
export class AgentsConfigError extends Error {
  /**
   * Creates the error.
   * @param path - The config file.
   * @param problem - What is wrong with it.
   */
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(
      `${path}: ${problem}. Expected {"agents": {"<name>": {"command": "...", "args": ["..."], "env": {...}}}}`,
    );
    this.name = "AgentsConfigError";
  }
}

function parseLaunch(path: string, name: string, value: unknown): AgentLaunch {
  if (typeof value !== "object" || value === null)
    throw new AgentsConfigError(path, `agent "${name}" must be an object`);
  const v = value as Record<string, unknown>;
  if (typeof v.command !== "string" || v.command === "") {
    throw new AgentsConfigError(path, `agent "${name}" needs a "command" string`);
  }
  const args = v.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
    throw new AgentsConfigError(path, `"args" of agent "${name}" must be an array of strings`);
  }
  const env = v.env ?? {};
  if (typeof env !== "object" || !Object.values(env).every((e) => typeof e === "string")) {
    throw new AgentsConfigError(path, `"env" of agent "${name}" must map names to strings`);
  }
  const launch: AgentLaunch = {
    command: v.command,
    args,
    env: env as Record<string, string>,
  };
  return typeof v.description === "string" ? { ...launch, description: v.description } : launch;
}

/** The user's agents, from the config file (an empty table when there is none). */
export function readAgentsConfig(path = agentsConfigPath()): Record<string, AgentLaunch> {
  let text: string | undefined;
  try {
    // Not readFileSync: a FIFO at the path made every command that reads it wait for ever.
    text = readRegularFileSync(path);
  } catch (error) {
    if (error instanceof NotAFileError) {
      throw new AgentsConfigError(path, `is ${error.kind}, not a file`);
    }
    throw new AgentsConfigError(path, `cannot be read (${(error as Error).message})`);
  }
  if (text === undefined) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new AgentsConfigError(path, `is not valid JSON (${(error as Error).message})`);
  }
  const agents = (data as { agents?: unknown } | null)?.agents;
  if (typeof agents !== "object" || agents === null) {
    throw new AgentsConfigError(path, 'has no "agents" object');
  }
  const out: Record<string, AgentLaunch> = {};
  for (const [name, value] of Object.entries(agents)) out[name] = parseLaunch(path, name, value);
  return out;
}

/** Every named agent: the user's first (they override built-ins of the same name). */
export function listAgents(path = agentsConfigPath()): NamedAgent[] {
  const config = readAgentsConfig(path);
  const named: NamedAgent[] = Object.entries(config).map(([name, launch]) => ({
    ...launch,
    name,
    source: "config" as const,
  }));
  for (const [name, launch] of Object.entries(BUILT_IN_AGENTS)) {
    if (config[name] === undefined) named.push({ ...launch, name, source: "built-in" });
  }
  return named;
}

/** The agent called `name`, or undefined. */
export function findAgent(name: string, path = agentsConfigPath()): NamedAgent | undefined {
  return listAgents(path).find((a) => a.name === name);
}
