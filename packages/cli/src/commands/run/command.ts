/**
 * `acp-kit run`: its options and its action. The interactive session itself lives in
 * `src/run/`.
 *
 * @module
 */
import type { Command } from "commander";
import { useColor } from "../../color.js";
import { policiesFromFlags, type PolicyFlags } from "../../policy-flags.js";
import { withRemoteOptions, type RemoteFlags } from "../../remote-target.js";
import { UsageError } from "../../target.js";
import { agentTarget, fail, plainMode, sessionMemory } from "../context.js";
import {
  directory,
  mcpServersOf,
  settingsOf,
  withPolicyOptions,
  withProtocol,
  withProtocolOptions,
  withSettingOptions,
  type ProtocolFlags,
  type SettingFlags,
} from "../options.js";

const RUN_EXAMPLES = `
Examples:
  acp-kit run claude                       a named agent (see \`acp-kit agents\`)
  acp-kit run claude "fix the tests"       start with this task
  echo "fix it" | acp-kit run claude       run the task from stdin, exit after the answer
  acp-kit run claude --continue            go on with the last session here
  acp-kit run -- node my-agent.js --flag   any command that speaks ACP on stdio
  acp-kit run --allow-reads gemini         reads are allowed; you answer the other requests
  acp-kit run --policy rules.txt codex     rules like "allow edit src/**", "deny execute *"
  acp-kit run --mode plan --model o3 codex start in this mode, with this model
  acp-kit run claude --resume              choose a recent session of claude here to go on with
  acp-kit run claude --resume 3f2a         a session by id, start of an id, or name

Keys: Enter sends (during a turn: queues), \\ Enter or Shift-Enter starts a new line, Tab
completes a slash command (and the values of /mode, /model, /sessions) or an @file mention,
↑↓ and Ctrl-R recall earlier prompts (kept per directory), Esc cancels the turn, Ctrl-C
cancels the turn (twice: exit), Ctrl-T shows or hides thoughts, Ctrl-O shows tool output in
full; !command runs a shell command here (never sent to the agent). Slash commands: /help,
/mode, /model, /config, /new, /sessions, /login, /logout, /restart, /quit, and the agent's own
commands. /mode, /model and /sessions alone open a picker (↑↓, Enter, Esc).
An unknown --mode or --model value exits with code 2, naming the values the agent offers.`;

/** The options of `run`. */
type RunFlags = PolicyFlags &
  RemoteFlags &
  SettingFlags &
  ProtocolFlags & {
    cwd: string;
    plain?: boolean;
    resume?: string | true;
    continue?: boolean;
  };

/**
 * The words of `run`: the agent's and the task's. `run claude fix the tests`: the agent's
 * name, then the task; `run "fix the tests" -- node agent.js`: the task before `--`, the
 * agent's command after it (commander hands both over as one list); with `--url` (no agent
 * word), every word is the task's.
 */
function runWords(
  words: readonly string[],
  argv: readonly string[],
  remote: boolean,
): { words: string[]; task?: string } {
  const dash = argv.indexOf("--");
  let agent: string[];
  let taskWords: readonly string[];
  if (remote && dash < 0) {
    agent = [];
    taskWords = words;
  } else if (words[0] === "--") {
    agent = [...words];
    taskWords = [];
  } else if (dash >= 0) {
    const after = Math.min(words.length, argv.length - dash - 1);
    agent = words.slice(words.length - after);
    taskWords = words.slice(0, words.length - after);
  } else {
    agent = words.slice(0, 1);
    taskWords = words.slice(1);
  }
  const task = taskWords.join(" ");
  return task.trim() === "" ? { words: agent } : { words: agent, task };
}

/** What `run` does with its words and options. */
async function runAction(allWords: string[], flags: RunFlags): Promise<void> {
  let opts = flags;
  const split = runWords(allWords, process.argv, opts.url !== undefined);
  const task = split.task;
  let words = split.words;
  // `run --resume claude`: an agent is needed, so the word is the agent, not an id.
  if (typeof opts.resume === "string" && words.length === 0) {
    words = [opts.resume];
    opts = { ...opts, resume: true };
  }
  if (opts.resume !== undefined && opts.continue === true) {
    throw new UsageError("Give --resume or --continue, not both.");
  }
  const target = withProtocol(await agentTarget(words, opts), opts.protocol, opts.proxy);
  const memory = await sessionMemory(target, words, opts);
  const { runInteractive } = await import("../../run/run-command.js");
  process.exitCode = await runInteractive({
    target,
    cwd: opts.cwd,
    policies: policiesFromFlags(opts),
    plain: plainMode(opts.plain),
    color: useColor(process.stdout),
    settings: settingsOf(opts),
    ...(await mcpServersOf(opts)),
    ...(task === undefined ? {} : { initialPrompt: task }),
    sessions: {
      memory,
      ...(opts.resume === undefined ? {} : { resume: opts.resume }),
      ...(opts.continue === true ? { continue: true } : {}),
    },
  });
}

/** Adds `run`: an interactive session with an ACP agent. */
export function addRunCommand(program: Command): void {
  withPolicyOptions(
    withSettingOptions(
      withProtocolOptions(withRemoteOptions(program.command("run")))
        .description("an interactive session with an ACP agent")
        .usage('[options] <agent> ["task"]  |  [options] ["task"] -- <agent command...>')
        .argument(
          "[agent...]",
          'an agent name and the task to start with (run claude "fix the tests"), or the agent\'s command after -- (the task before it)',
        )
        .option("--cwd <dir>", "the session's working directory", directory, process.cwd())
        .option("--plain", "print a plain transcript instead of the live view")
        .option(
          "--resume [id]",
          "open an earlier session: its id, a start of it, or its name; without one, choose among the recent ones",
        )
        .option("--continue", "go on with the most recent session of this agent in this directory"),
    ).addHelpText("after", RUN_EXAMPLES),
  ).action(async (words: string[], opts: RunFlags) => {
    try {
      await runAction(words, opts);
    } catch (error) {
      fail(error);
    }
  });
}
