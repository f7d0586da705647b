/**
 * `acp-kit prompt`: its options and its action (see `prompt.ts`); a prompt to a named
 * session goes to the session's owner (see `../owner/`).
 *
 * @module
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import type { PermissionPrompt } from "acp-kit/node";
import { EXIT_CODE_HELP } from "../../exit-codes.js";
import { policiesFromFlags, type PolicyFlags } from "../../policy-flags.js";
import { withRemoteOptions, type RemoteFlags } from "../../remote-target.js";
import type { SessionMemory } from "../../session-memory.js";
import { UsageError } from "../../target.js";
import { agentTarget, fail, sessionMemory } from "../context.js";
import type { OwnerFlags } from "../owner/owner.js";
import {
  directory,
  duration,
  mcpServersOf,
  settingsOf,
  withPolicyOptions,
  withProtocol,
  withProtocolOptions,
  withSettingOptions,
  type ProtocolFlags,
  type SettingFlags,
} from "../options.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The prompt of `prompt`: the text, or stdin for `-`; an empty one is a usage error. */
async function promptText(text: string): Promise<string> {
  const prompt = text === "-" ? await readStdin() : text;
  if (prompt.trim() === "") {
    throw new UsageError(
      text === "-" ? "The prompt read from stdin is empty." : "The prompt is empty.",
    );
  }
  return prompt;
}

/**
 * `prompt --session NAME` / `--continue` without `--json` or `--auth` (on Unix): sent
 * to the session's owner, started when none runs; undefined when the prompt is to run
 * here (`ACP_KIT_SESSION_OWNER=0`, or nothing to continue).
 */
async function ownedPrompt(
  words: readonly string[],
  opts: OwnerFlags &
    PolicyFlags & { json?: boolean; timeout?: number; wait: boolean; idle?: number },
  memory: SessionMemory,
  text: string,
  ask: PermissionPrompt | undefined,
): Promise<number | undefined> {
  const session = {
    ...(opts.session === undefined ? {} : { name: opts.session }),
    ...(opts.continue === true ? { continue: true } : {}),
  };
  if (session.name === undefined && session.continue !== true) return undefined;
  if (opts.json === true || opts.auth !== undefined) return undefined;
  if (process.platform === "win32") {
    return undefined;
  }
  if (process.env.ACP_KIT_SESSION_OWNER === "0") return undefined;
  const owner = await import("../owner/owner.js");
  const key = await owner.sessionOwnerKey(memory, session);
  if (key === undefined) return undefined;
  const agentWords =
    words[0] !== "--" && process.argv.includes("--") ? ["--", ...words] : [...words];
  const { yes, allowReads, denyAll, policy, wait, idle, json: _json, ...rest } = opts;
  return owner.promptViaOwner({
    memory,
    spec: {
      words: agentWords,
      opts: {
        ...rest,
        ...(opts.mcpConfig === undefined ? {} : { mcpConfig: resolve(opts.mcpConfig) }),
      },
      key,
      idleMs: owner.ownerIdleMs(idle),
    },
    text,
    noWait: !wait,
    flags: {
      ...(yes === undefined ? {} : { yes }),
      ...(allowReads === undefined ? {} : { allowReads }),
      ...(denyAll === undefined ? {} : { denyAll }),
      ...(policy === undefined ? {} : { policy }),
    },
    out: process.stdout,
    err: process.stderr,
    sessionWords: owner.sessionWordsOf(session, words),
    ...(ask === undefined ? {} : { ask }),
    ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout }),
  });
}

/** Adds `prompt`: one turn without interaction. */
export function addPromptCommand(program: Command): void {
  withPolicyOptions(
    withSettingOptions(
      withProtocolOptions(withRemoteOptions(program.command("prompt")))
        .description("one turn without interaction: prints the agent's text, or JSON events")
        .argument("<text>", "the prompt; - reads it from stdin")
        .argument("[agent...]", "an agent name, or its command after --")
        .option("--json", "one JSON event per line: updates, requests and answers, the stop reason")
        .option("--cwd <dir>", "the session's working directory", directory, process.cwd())
        .option("--verbose", "copy the agent's stderr to stderr")
        .option(
          "--session <name>",
          "send to the session of this name (for this agent and directory); it is opened and named the first time",
        )
        .option("--continue", "send to the most recent session of this agent in this directory")
        .option(
          "--auth <method>",
          "log in first with this method (id or name); an env_var method reads its variables from the environment",
        )
        .option(
          "--timeout <duration>",
          "end the run after this long: 90 (seconds), 5m, 1h",
          duration,
        )
        .option("--fail-on-refusal", "exit 14 when a permission request was refused")
        .option(
          "--no-wait",
          "with --session or --continue: queue the prompt to the session's owner and return",
        )
        .option(
          "--idle <duration>",
          "with --session or --continue: how long the session's owner keeps the agent warm (default 10m)",
          duration,
        ),
    ).addHelpText(
      "after",
      `
Examples:
  acp-kit prompt "What does this project do?" claude
  acp-kit prompt --session review "Now look at the tests" claude
  git diff | acp-kit prompt --json - -- node my-agent.js

On a terminal, the permission requests no policy flag answers are asked there; elsewhere
they are rejected. The agent's messages go to stdout; a line per tool call (done, failed,
refused, cancelled), per permission answer and how the turn ended go to stderr.

${EXIT_CODE_HELP}`,
    ),
  ).action(
    async (
      text: string,
      words: string[],
      opts: PolicyFlags &
        RemoteFlags &
        SettingFlags &
        ProtocolFlags & {
          json?: boolean;
          cwd: string;
          verbose?: boolean;
          session?: string;
          continue?: boolean;
          auth?: string;
          timeout?: number;
          failOnRefusal?: boolean;
          wait: boolean;
          idle?: number;
        },
    ) => {
      try {
        if (opts.session !== undefined && opts.continue === true) {
          throw new UsageError("Give --session NAME or --continue, not both.");
        }
        const target = withProtocol(await agentTarget(words, opts), opts.protocol, opts.proxy);
        const memory = await sessionMemory(target, words, opts);
        const { runPromptCommand } = await import("./prompt.js");
        const { terminalAsker } = await import("../../terminal-permission.js");
        const promptedText = await promptText(text);
        const ask = opts.json === true ? undefined : terminalAsker();
        const owned = await ownedPrompt(words, opts, memory, promptedText, ask);
        if (owned !== undefined) {
          process.exitCode = owned;
          return;
        }
        if (!opts.wait) throw new UsageError("--no-wait needs --session NAME or --continue.");
        process.exitCode = await runPromptCommand({
          text: promptedText,
          json: opts.json === true,
          target,
          cwd: opts.cwd,
          policies: policiesFromFlags(ask === undefined ? { denyAll: true, ...opts } : opts),
          ...(ask === undefined ? {} : { ask }),
          ...(opts.auth === undefined ? {} : { auth: opts.auth }),
          ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout }),
          failOnRefusal: opts.failOnRefusal === true,
          out: process.stdout,
          err: process.stderr,
          verbose: opts.verbose === true,
          settings: settingsOf(opts),
          ...(await mcpServersOf(opts)),
          sessions: {
            memory,
            ...(opts.session === undefined ? {} : { name: opts.session }),
            ...(opts.continue === true ? { continue: true } : {}),
          },
        });
      } catch (error) {
        fail(error);
      }
    },
  );
}
