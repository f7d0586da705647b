/**
 * Which agent to talk to: a command after `--`, or a name from the agents table.
 *
 * @module
 */
import { findAgent, listAgents, type AgentLaunch } from "./agents.js";

/** An agent to launch, with a label for humans. */
export interface AgentTarget extends AgentLaunch {
  /** What to call it in messages: the name, or the command line. */
  readonly label: string;
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
