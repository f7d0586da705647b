/**
 * What several commands' actions share: the agent named by a command's trailing words,
 * the session store, the plain-transcript decision, and how an action fails.
 *
 * @module
 */
import { AgentsConfigError } from "../agents.js";
import { ExitCodes } from "../exit-codes.js";
import { plainReason } from "../live-view.js";
import { remoteTarget, type RemoteFlags } from "../remote-target.js";
import type { SessionMemory } from "../session-memory.js";
import { resolveAgentTarget, UsageError, type AgentTarget } from "../target.js";
import { printable } from "../terminal-text.js";

/**
 * Resolves the agent from a command's trailing words: a command, a name, or a registry id
 * (installed first when needed, with a progress line on stderr). Commander drops a `--`
 * that comes before any positional argument but keeps one that follows a positional (as
 * in `prompt "text" -- cmd`), so both shapes are accepted here.
 */
export async function agentTarget(
  words: readonly string[],
  remote: RemoteFlags = {},
): Promise<AgentTarget> {
  const viaUrl = remoteTarget(remote, words);
  if (viaUrl !== undefined) return viaUrl;
  const { progressLine } = await import("./agents/registry.js");
  const options = { onProgress: progressLine(process.stderr) };
  if (words[0] === "--") return resolveAgentTarget(words.slice(1), true, options);
  return resolveAgentTarget(words, process.argv.includes("--"), options);
}

/**
 * `run` and `demo`: true for a plain transcript. When the reason is not plain to see (a
 * terminal, but CI set), it is said on stderr.
 */
export function plainMode(flag: boolean | undefined): boolean {
  const reason = plainReason(flag);
  if (reason !== undefined && reason !== "") process.stderr.write(`acp-kit: ${reason}\n`);
  return reason !== undefined;
}

/**
 * Ends the program on an action's error: a usage error (a bad word, a bad agents file)
 * with exit code 2, anything else with 1, the message on stderr.
 */
export function fail(error: unknown): never {
  // Messages quote registries, agents and servers: no escape sequence of theirs reaches the terminal.
  if (error instanceof UsageError || error instanceof AgentsConfigError) {
    process.stderr.write(`acp-kit: ${printable(error.message, true)}\n`);
    process.exit(ExitCodes.USAGE);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`acp-kit: ${printable(message, true)}\n`);
  process.exit(ExitCodes.FAILURE);
}

/**
 * The session store, and how this agent in this directory is named on a `run` command
 * line (for the command that resumes a session).
 */
export async function sessionMemory(
  target: AgentTarget,
  words: readonly string[],
  opts: RemoteFlags & { cwd: string },
): Promise<SessionMemory> {
  const { RecentSessions, agentKey } = await import("../recent-sessions.js");
  const cwd = opts.cwd === process.cwd() ? [] : ["--cwd", opts.cwd];
  let runArgs: string[];
  if (opts.url !== undefined) {
    runArgs = [
      ...cwd,
      "--url",
      // target.label is the URL without its secrets (credentials, query values).
      target.label,
      ...(opts.tokenEnv === undefined ? [] : ["--token-env", opts.tokenEnv]),
      ...(opts.remoteFs === true ? ["--remote-fs"] : []),
      ...(opts.remoteTerminal === true ? ["--remote-terminal"] : []),
    ];
  } else if (words[0] === "--" || process.argv.includes("--")) {
    runArgs = [...cwd, "--", ...(words[0] === "--" ? words.slice(1) : words)];
  } else runArgs = [...words, ...cwd];
  return {
    store: new RecentSessions({ warn: (m) => process.stderr.write(`acp-kit: ${m}\n`) }),
    agent: agentKey(target.label),
    cwd: opts.cwd,
    runArgs,
  };
}
