/**
 * Which agent to talk to: a command after `--`, a name from the agents table, or an id
 * from the ACP registry.
 *
 * @module
 */
import { quoteCommandLine, type RegistryOptions } from "acp-kit/node";
import type { RegistryProgressListener } from "acp-kit/node";
import { findAgent, listAgents, type AgentLaunch } from "./agents.js";
import { printable } from "./terminal-text.js";

/** An agent to launch, with a label for humans. */
export interface AgentTarget extends AgentLaunch {
  /** What to call it in messages: the name, or the command line. */
  readonly label: string;
  /**
   * The command is this CLI's `--url` bridge to a remote agent: its exit codes name what
   * happened to the connection (see `describeFailure`).
   */
  readonly remote?: boolean;
  /**
   * The ACP version to speak (`--protocol`): `"auto"` (the default) asks for v2 and goes on
   * in v1 when the agent speaks only that.
   */
  readonly protocol?: "auto" | 1 | 2;
}

/** A command line mistake (exit code 2). */
export class UsageError extends Error {
  /**
   * Creates the error.
   * @param message - What is wrong and how to fix it.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Resolves the agent from the words of the command line. `dashed` is true when the
 * words came after `--` (a command to run as is); otherwise a single word names an agent.
 */
export function resolveTarget(words: readonly string[], dashed: boolean): AgentTarget {
  if (words.length === 0) {
    throw new UsageError(
      "Which agent? Name one (see `acp-kit agents`) or give its command after `--`.",
    );
  }
  const [first, ...rest] = words as [string, ...string[]];
  if (!dashed) {
    if (rest.length > 0) {
      throw new UsageError(
        `Put the agent's command after \`--\` (for example: acp-kit run -- ${words.join(" ")}).`,
      );
    }
    const named = findAgent(first);
    if (named === undefined) {
      const known = listAgents()
        .map((a) => a.name)
        .join(", ");
      throw new UsageError(
        `No agent named "${first}" (known: ${known}). To run a command, put it after \`--\`.`,
      );
    }
    return { ...named, label: named.name };
  }
  return { command: first, args: rest, label: words.join(" ") };
}

/** Options of {@link resolveAgentTarget}. */
export interface ResolveTargetOptions {
  /** Where the registry and the cache are (default: `ACP_REGISTRY_URL`, the user's cache). */
  readonly registry?: RegistryOptions;
  /** Told about downloads and installs (the CLI prints a progress line on stderr). */
  readonly onProgress?: RegistryProgressListener;
}

/**
 * {@link resolveTarget}, and then the ACP registry: a single word that names no agent of
 * the user's table or the built-in one is looked up as a registry id, installed into the
 * cache when needed, and started from there.
 *
 * @param words - The words of the command line.
 * @param dashed - Whether they came after `--`.
 * @param options - Registry options and a progress listener.
 */
export async function resolveAgentTarget(
  words: readonly string[],
  dashed: boolean,
  options: ResolveTargetOptions = {},
): Promise<AgentTarget> {
  try {
    return resolveTarget(words, dashed);
  } catch (error) {
    const [id] = words;
    if (!(error instanceof UsageError) || dashed || words.length !== 1 || id === undefined)
      throw error;
    const { resolveAgent, RegistryError } = await import("acp-kit/node");
    try {
      const resolved = await resolveAgent(id, {
        ...options.registry,
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      });
      return {
        command: resolved.command,
        args: resolved.args,
        env: resolved.env,
        description: `${printable(`${resolved.agent.name} ${resolved.agent.version}`)} (registry, ${resolved.distribution})`,
        label: id,
        ...(resolved.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {}),
      };
    } catch (registryError) {
      if (registryError instanceof RegistryError && registryError.code === "unknown_agent") {
        // The registry's message says which copy was searched, and why the network was not.
        const detail = printable(registryError.message);
        throw new UsageError(
          error.message.replace(
            /\.( To run a command)/,
            (_, rest: string) => `, nor a registry id (see \`acp-kit agents\`). ${detail}${rest}`,
          ),
        );
      }
      throw registryError;
    }
  }
}

/**
 * `target` run behind a chain of proxies (`--proxy`): this CLI's own `conductor` starts
 * them, client side first, in front of the agent's command. The agent keeps its name in
 * messages; the environment it was given goes to the whole chain.
 */
export function throughProxies(target: AgentTarget, proxies: readonly string[]): AgentTarget {
  if (proxies.length === 0) return target;
  const cli = process.argv[1];
  if (cli === undefined) throw new Error("Cannot find this program's own path to run the chain");
  const agent = quoteCommandLine([target.command, ...target.args]);
  return {
    ...target,
    command: process.execPath,
    args: [cli, "conductor", "agent", ...proxies, agent],
  };
}
