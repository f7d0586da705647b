/**
 * The `acp-kit` command line: talk to any ACP agent, run the demo, trace traffic, and
 * check conformance.
 *
 * @module
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { VERSION } from "acp-kit";
import type { AcpResumableOptions } from "acp-kit/http";
import { AgentsConfigError } from "./agents.js";
import { useColor } from "./color.js";
import { EXIT_CODE_HELP, ExitCodes } from "./exit-codes.js";
import { plainReason } from "./live-view.js";
import { policiesFromFlags, type PolicyFlags } from "./policy-flags.js";
import type { SessionChoices } from "./session-options.js";
import { resolveAgentTarget, throughProxies, UsageError, type AgentTarget } from "./target.js";
import { remoteTarget, withRemoteOptions, type RemoteFlags } from "./remote-target.js";
import { printable } from "./terminal-text.js";

/**
 * Resolves the agent from a command's trailing words: a command, a name, or a registry id
 * (installed first when needed, with a progress line on stderr). Commander drops a `--`
 * that comes before any positional argument but keeps one that follows a positional (as
 * in `prompt "text" -- cmd`), so both shapes are accepted here.
 */
async function agentTarget(
  words: readonly string[],
  remote: RemoteFlags = {},
): Promise<AgentTarget> {
  const viaUrl = remoteTarget(remote, words);
  if (viaUrl !== undefined) return viaUrl;
  const { progressLine } = await import("./registry-command.js");
  const options = { onProgress: progressLine(process.stderr) };
  if (words[0] === "--") return resolveAgentTarget(words.slice(1), true, options);
  return resolveAgentTarget(words, process.argv.includes("--"), options);
}

/** `--cwd`: made absolute (the protocol wants absolute paths), and it must be a directory. */
function directory(value: string): string {
  const path = resolve(value);
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) throw new InvalidArgumentError(`${path} does not exist.`);
  if (!stats.isDirectory()) throw new InvalidArgumentError(`${path} is not a directory.`);
  return path;
}

/**
 * `run` and `demo`: true for a plain transcript. When the reason is not plain to see (a
 * terminal, but CI set), it is said on stderr.
 */
function plainMode(flag: boolean | undefined): boolean {
  const reason = plainReason(flag);
  if (reason !== undefined && reason !== "") process.stderr.write(`acp-kit: ${reason}\n`);
  return reason !== undefined;
}

/** A whole number, zero or more (`--port`). */
function nonNegativeInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError("Give a whole number, 0 or more.");
  return n;
}

/** A number, zero or more (`--retention-window`). */
function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError("Give a number, 0 or more.");
  return n;
}

const SIZE_UNITS: Record<string, number> = { "": 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** A size in bytes, or with KiB, MiB or GiB (`--retention-bytes 64MiB`). */
function byteSize(value: string): number {
  const match = /^(\d+)\s*(kib|mib|gib)?$/i.exec(value.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? "").toLowerCase()];
  if (match === null || unit === undefined)
    throw new InvalidArgumentError("Give a size in bytes, or with KiB, MiB or GiB (64MiB).");
  return Number(match[1]) * unit;
}

/** A whole number above zero (`--request-timeout`). */
function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError("Give a whole number above 0.");
  return n;
}

const DURATION_UNITS: Record<string, number> = {
  "": 1000,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A duration in seconds, or with ms, s, m or h (`--timeout 90`, `--timeout 5m`); in ms. */
function duration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(value.trim());
  const unit = DURATION_UNITS[(match?.[2] ?? "").toLowerCase()];
  const ms = match === null || unit === undefined ? 0 : Number(match[1]) * unit;
  if (!(ms > 0))
    throw new InvalidArgumentError("Give a duration above 0: 90 (seconds), 90s, 5m, 1h.");
  return Math.ceil(ms);
}

/** `--protocol`: auto, 1 or 2. */
function protocolChoice(value: string): "auto" | 1 | 2 {
  if (value === "auto") return "auto";
  if (value === "1" || value === "v1") return 1;
  if (value === "2" || value === "v2") return 2;
  throw new InvalidArgumentError("Give auto, 1 or 2.");
}

/** `--protocol`: which ACP version to speak with the agent. */
function withProtocolOption(command: Command): Command {
  return command
    .option(
      "--protocol <version>",
      "the ACP version to speak: auto (v2 when the agent speaks it, else v1), 1 or 2",
      protocolChoice,
      "auto",
    )
    .option(
      "--proxy <command>",
      "run through this proxy (one command line; repeat for a chain, client side first)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
}

/** The target with the `--protocol` chosen, behind the `--proxy` chain when given. */
function withProtocol(
  target: AgentTarget,
  protocol: "auto" | 1 | 2 | undefined,
  proxies?: readonly string[],
): AgentTarget {
  const chained = proxies === undefined ? target : throughProxies(target, proxies);
  return protocol === undefined ? chained : { ...chained, protocol };
}

/** `--mode` and `--model`: set right after the session opens. */
function withChoiceOptions(command: Command): Command {
  return command
    .option("--mode <id>", "the session's mode (an id or name the agent offers)")
    .option("--model <id>", "the session's model (an id or name the agent offers)")
    .option(
      "--mcp-config <file>",
      "MCP servers for the agent: a JSON file with an mcpServers object, as editors use",
    );
}

/** The servers of `--mcp-config`, if given. */
async function mcpServersOf(
  opts: ChoiceFlags,
): Promise<{ mcpServers?: import("./mcp-config.js").McpServers }> {
  if (opts.mcpConfig === undefined) return {};
  const { readMcpConfig } = await import("./mcp-config.js");
  return { mcpServers: await readMcpConfig(opts.mcpConfig) };
}

/** The `--mode` and `--model` values given. */
function choicesOf(opts: ChoiceFlags): SessionChoices {
  return {
    ...(opts.mode === undefined ? {} : { mode: opts.mode }),
    ...(opts.model === undefined ? {} : { model: opts.model }),
  };
}

function withPolicyOptions(command: Command): Command {
  return command
    .option("-y, --yes", "allow every permission request")
    .option("--allow-reads", "allow read-only tool calls (read, search, think)")
    .option("--policy <file>", "permission rules, one per line: allow|deny <kind|*> <glob>")
    .option("--deny-all", "reject every permission request no rule allows");
}

function fail(error: unknown): never {
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
 * Makes a closed stdout (`acp-kit prompt --json ... | head`) end the program quietly, as
 * command-line tools do, instead of crashing on `EPIPE`. Exiting runs the exit hook that
 * ends the agent's process group. Errors on stderr are ignored: there is nowhere left to
 * report them. Not for `trace`, which keeps proxying and recording on its own terms.
 */
function exitOnBrokenPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? ExitCodes.OK);
    throw error;
  });
  process.stderr.on("error", () => undefined);
}

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

Keys: Enter sends, Tab completes a slash command (and the values of /mode, /model, /sessions),
Ctrl-C cancels the turn (twice: exit), Ctrl-T shows or hides thoughts. Slash commands: /help,
/mode, /model, /config, /new, /sessions, /login, /logout, /restart, /quit, and the agent's own
commands. /mode, /model and /sessions alone open a picker (↑↓, Enter, Esc).
An unknown --mode or --model value exits with code 2, naming the values the agent offers.`;

/** `--mode` and `--model`. */
type ChoiceFlags = { mode?: string; model?: string; mcpConfig?: string };

/** The options of `run`. */
type RunFlags = PolicyFlags &
  RemoteFlags &
  ChoiceFlags & {
    cwd: string;
    plain?: boolean;
    resume?: string | true;
    continue?: boolean;
    protocol?: "auto" | 1 | 2;
    proxy?: string[];
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

/**
 * The session store, and how this agent in this directory is named on a `run` command
 * line (for the command that resumes a session).
 */
async function sessionMemory(
  target: AgentTarget,
  words: readonly string[],
  opts: RemoteFlags & { cwd: string },
): Promise<import("./session-memory.js").SessionMemory> {
  const { RecentSessions, agentKey } = await import("./recent-sessions.js");
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

/**
 * `prompt --session NAME` / `--continue` without `--json` or `--auth` (on Unix): sent
 * to the session's owner, started when none runs; undefined when the prompt is to run
 * here (`ACP_KIT_SESSION_OWNER=0`, or nothing to continue).
 */
async function ownedPrompt(
  words: readonly string[],
  opts: import("./owner-command.js").OwnerFlags &
    PolicyFlags & { json?: boolean; timeout?: number; wait: boolean; idle?: number },
  memory: import("./session-memory.js").SessionMemory,
  text: string,
  ask: import("acp-kit/node").PermissionPrompt | undefined,
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
  const owner = await import("./owner-command.js");
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

/** Which remembered sessions `sessions` means: an agent (as `run` names it) and a directory. */
function sessionsScope(
  words: readonly string[],
  opts: { cwd: string; all?: boolean },
): { agent?: string; cwd?: string } {
  const agentWords = words[0] === "--" ? words.slice(1) : words;
  return {
    ...(agentWords.length === 0 ? {} : { agent: agentWords.join(" ") }),
    ...(opts.all === true ? {} : { cwd: opts.cwd }),
  };
}

/** Builds the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("acp-kit")
    .description(
      "Talk to Agent Client Protocol agents: an interactive client, a demo, a traffic tracer and a conformance checker.",
    )
    .version(VERSION, "-v, --version")
    .showHelpAfterError("(run with --help for usage)")
    .enablePositionalOptions()
    // Commander's own errors (an unknown option, a bad --cwd) are usage errors: exit 2.
    // Set before the commands are added, which inherit it.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : ExitCodes.USAGE))
    .hook("preAction", (_program, action) => {
      if (action.name() !== "trace") exitOnBrokenPipe();
    });

  withPolicyOptions(
    withChoiceOptions(
      withProtocolOption(withRemoteOptions(program.command("run")))
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
  ).action(async (allWords: string[], opts: RunFlags) => {
    try {
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
      const { runInteractive } = await import("./run/run-command.js");
      process.exitCode = await runInteractive({
        target,
        cwd: opts.cwd,
        policies: policiesFromFlags(opts),
        plain: plainMode(opts.plain),
        color: useColor(process.stdout),
        choices: choicesOf(opts),
        ...(await mcpServersOf(opts)),
        ...(task === undefined ? {} : { initialPrompt: task }),
        sessions: {
          memory,
          ...(opts.resume === undefined ? {} : { resume: opts.resume }),
          ...(opts.continue === true ? { continue: true } : {}),
        },
      });
    } catch (error) {
      fail(error);
    }
  });

  withPolicyOptions(
    program
      .command("demo")
      .description(
        "run against the built-in demo agent in a temporary directory (no account, no network)",
      )
      .option("--plain", "print a plain transcript instead of the live view")
      .option("--fast", "no pauses between the demo's steps")
      .option("--keep", "keep the temporary directory when the demo ends")
      .addHelpText(
        "after",
        `
The demo agent shows a plan, reads a file, proposes an edit as a diff and applies it only
with your permission, runs a harmless command in a terminal, and has a /explain command
and two modes. It only touches files in its temporary directory, which is removed when the
demo ends (unless --keep). When stdout is not a terminal (or CI is set), it prints a
plain transcript (and, unless a permission flag says otherwise, grants permission requests
inside that directory).`,
      ),
  ).action(async (opts: PolicyFlags & { plain?: boolean; fast?: boolean; keep?: boolean }) => {
    try {
      const { runDemo } = await import("./demo-command.js");
      process.exitCode = await runDemo({
        plain: plainMode(opts.plain),
        fast: opts.fast === true,
        keep: opts.keep === true,
        flags: opts,
        color: useColor(process.stdout),
      });
    } catch (error) {
      fail(error);
    }
  });

  withPolicyOptions(
    withChoiceOptions(
      withProtocolOption(withRemoteOptions(program.command("prompt")))
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
        ChoiceFlags & {
          json?: boolean;
          cwd: string;
          verbose?: boolean;
          session?: string;
          continue?: boolean;
          protocol?: "auto" | 1 | 2;
          proxy?: string[];
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
        const { runPromptCommand } = await import("./prompt-command.js");
        const { terminalAsker } = await import("./terminal-permission.js");
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
          choices: choicesOf(opts),
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

  program
    .command("conductor")
    .usage(
      '[--trace FILE] [--dialect rust|rfd|thinkwell] agent ["PROXY" ...] "AGENT"  |  proxy "PROXY" ...',
    )
    .description(
      "run a chain of ACP proxies in front of an agent on stdio (the Rust conductor's arguments)",
    )
    .argument(
      "<mode>",
      "agent (the last command is the agent) or proxy (a chain nested in another)",
    )
    .argument("<commands...>", "one command line per component, client side first")
    .option("--trace <file>", "append every message crossing the conductor to FILE (JSON lines)")
    .option(
      "--no-mcp-bridge",
      "do not serve acp MCP servers to an agent without MCP-over-ACP over loopback HTTP",
    )
    .option(
      "--dialect <dialect>",
      "how to speak to the proxies: rust (_proxy/*), rfd (proxy/*) or thinkwell",
      (value: string) => {
        if (value === "rust" || value === "rfd" || value === "thinkwell") return value;
        throw new InvalidArgumentError("Give rust, rfd or thinkwell.");
      },
      "rust",
    )
    .addHelpText(
      "after",
      `
Put it in your editor's agent settings in place of the agent's command:
  acp-kit conductor agent "node tracing-proxy.js" "npx -y @agentclientprotocol/claude-agent-acp"
Each component is one command line (quoted as a shell would). docs/proxies.md says more.`,
    )
    .action(
      async (
        mode: string,
        commands: string[],
        opts: { trace?: string; dialect: "rust" | "rfd" | "thinkwell"; mcpBridge: boolean },
      ) => {
        try {
          if (mode !== "agent" && mode !== "proxy")
            throw new UsageError(`The mode is agent or proxy, not ${JSON.stringify(mode)}.`);
          if (mode === "agent" && commands.length === 0)
            throw new UsageError("Give the agent's command (after the proxies' ones).");
          const { runConductorCommand } = await import("./conductor-command.js");
          process.exitCode = await runConductorCommand(mode, commands, {
            dialect: opts.dialect,
            mcpBridge: opts.mcpBridge,
            ...(opts.trace === undefined ? {} : { trace: opts.trace }),
          });
        } catch (error) {
          fail(error);
        }
      },
    );

  program
    .command("mcp-shim")
    .description(
      "MCP over stdio to one server of a loopback MCP-over-ACP bridge (run by agents, not by hand)",
    )
    .requiredOption("--url <url>", "the server's bridge URL")
    .requiredOption("--token-env <name>", "the environment variable holding its bearer token")
    .action(async (opts: { url: string; tokenEnv: string }) => {
      try {
        const { runMcpShimCommand } = await import("./mcp-shim-command.js");
        await runMcpShimCommand(opts.url, opts.tokenEnv);
      } catch (error) {
        fail(error);
      }
    });

  program
    .command("bridge")
    .usage("--as v1|v2 [--protocol auto|1|2] <agent> | --as v1|v2 -- <agent command...>")
    .description(
      "serve an editor in one ACP version and the agent in the version it speaks, translating between v1 and v2",
    )
    .argument("[command...]", "an agent name or registry id, or the agent's command after --")
    .requiredOption("--as <version>", "the version to speak to the editor: v1 or v2", (value) => {
      const version = protocolChoice(value);
      if (version === "auto") throw new InvalidArgumentError("Give v1 or v2.");
      return version;
    })
    .option(
      "--protocol <version>",
      "the version to ask the agent for: auto (the one it speaks), 1 or 2",
      protocolChoice,
      "auto",
    )
    .option("--quiet", "no notes on stderr (the agent's stderr still passes)")
    .addHelpText(
      "after",
      `
Put it in your editor's agent settings in place of the real command. An editor that
speaks v1 using an agent that speaks v2:
  acp-kit bridge --as v1 -- npx -y @agentclientprotocol/codex-acp
What v1 cannot show of v2 (and the reverse) is counted and summed up on stderr at the end;
docs/v2.md lists each step.`,
    )
    .action(
      async (words: string[], opts: { as: 1 | 2; protocol: "auto" | 1 | 2; quiet?: boolean }) => {
        try {
          const target = await agentTarget(words);
          const { runBridgeCommand } = await import("./bridge-command.js");
          process.exitCode = await runBridgeCommand(target, {
            as: opts.as,
            protocol: opts.protocol,
            ...(opts.quiet === true ? { quiet: true } : {}),
          });
        } catch (error) {
          fail(error);
        }
      },
    );

  const trace = withRemoteOptions(program.command("trace"))
    .usage(
      "[--out FILE] <agent> | [--out FILE] -- <agent command...>  |  trace view FILE [--html PAGE] [--full]",
    )
    .description("a transparent proxy that records every message between an editor and an agent")
    .argument("[command...]", "an agent name or registry id, or the agent's command after --")
    .option("--out <file>", "where to write the trace (ndjson)")
    .addHelpText(
      "after",
      `
Put it in your editor's agent settings in place of the real command:
  acp-kit trace --out /tmp/claude.ndjson -- npx -y @agentclientprotocol/claude-agent-acp
Then read it:
  acp-kit trace view /tmp/claude.ndjson
  acp-kit trace view /tmp/claude.ndjson --html trace.html`,
    )
    .action(async (words: string[], opts: RemoteFlags & { out?: string }) => {
      try {
        // A named agent or registry id (`acp-kit trace claude`), --url, or a command after `--`.
        const target = await agentTarget(words, opts);
        const { runTraceCommand } = await import("./trace/trace-command.js");
        process.exitCode = await runTraceCommand(target, opts);
      } catch (error) {
        fail(error);
      }
    });
  trace
    .command("view")
    .description("print a readable timeline of a trace file")
    .argument("<file>", "a trace written by acp-kit trace")
    .option("--html <file>", "write a self-contained HTML page instead")
    .option("--full", "do not fold long payloads")
    .action(async (file: string, opts: { html?: string; full?: boolean }) => {
      try {
        const { runTraceView } = await import("./trace/trace-command.js");
        process.exitCode = await runTraceView(file, { ...opts, color: useColor(process.stdout) });
      } catch (error) {
        fail(error);
      }
    });

  withProtocolOption(withRemoteOptions(program.command("check")))
    .description("run the conformance checks against an agent")
    .argument("[agent...]", "an agent name, or its command after --")
    .option("--json", "print the report as JSON")
    .option("--cwd <dir>", "the working directory for the agent's sessions", directory)
    .option(
      "--request-timeout <ms>",
      "how long to wait for the answer to an ordinary request (default 30000)",
      positiveInteger,
    )
    .option(
      "--auth <method>",
      "log in with this method of the agent first (env_var methods read their variables from this environment)",
    )
    .addHelpText(
      "after",
      `
Examples:
  acp-kit check -- node my-agent.js
  acp-kit check --json claude > report.json
  acp-kit check --protocol 2 -- node my-v2-agent.js
  CODEX_API_KEY=... acp-kit check --auth codex-api-key codex

Results are MUST failures (not conformant), SHOULD warnings, INCONCLUSIVE (no login,
network, an offline model: run again), passes and skips; see docs/checklist.md.
Exit code 0 when no MUST check failed, ${ExitCodes.CHECK_FAILED} when one failed.`,
    )
    .action(
      async (
        words: string[],
        opts: RemoteFlags & {
          json?: boolean;
          cwd?: string;
          requestTimeout?: number;
          auth?: string;
          protocol?: "auto" | 1 | 2;
        },
      ) => {
        try {
          const target = await agentTarget(words, opts);
          const { runCheckCommand } = await import("./check-command.js");
          // The progress lines go to stderr: colour them by what stderr is.
          process.exitCode = await runCheckCommand(target, {
            ...(opts.json === undefined ? {} : { json: opts.json }),
            ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
            ...(opts.requestTimeout === undefined ? {} : { requestTimeoutMs: opts.requestTimeout }),
            ...(opts.auth === undefined ? {} : { auth: opts.auth }),
            ...(opts.protocol === undefined ? {} : { protocol: opts.protocol }),
            color: useColor(process.stderr),
          });
        } catch (error) {
          fail(error);
        }
      },
    );

  program
    .command("check-client")
    .description(
      "a probe agent to configure in your editor: on the first prompt it checks the editor",
    )
    .option("--report <file>", "where to write the JSON report")
    .addHelpText(
      "after",
      `
Configure your editor's agent command as: acp-kit check-client
Then send any prompt; the probe exercises the editor and answers with its report.`,
    )
    .action(async (opts: { report?: string }) => {
      try {
        const { runCheckClient } = await import("./check-command.js");
        process.exitCode = await runCheckClient(opts);
      } catch (error) {
        fail(error);
      }
    });

  program
    .command("serve")
    .description("serve a stdio agent over HTTP and WebSocket (one agent process per connection)")
    .usage("[--host 127.0.0.1] [--port N] [--token-env NAME] <agent> | -- <agent command...>")
    .argument("<command...>", "an agent name or registry id, or the agent's command after --")
    .option("--host <host>", "where to listen; beyond loopback a token is required", "127.0.0.1")
    .option("--port <port>", "the port (0: any free one, printed)", nonNegativeInteger, 8787)
    .option(
      "--token-env <name>",
      "the environment variable holding the bearer token clients must send",
    )
    .option(
      "--idle-timeout <ms>",
      "end a connection and its agent after this long idle",
      positiveInteger,
      600_000,
    )
    .option("--max-connections <n>", "connections open at once", positiveInteger, 64)
    .option("--no-resume", "do not keep sent messages for clients that reconnect")
    .option(
      "--retention-messages <n>",
      "each stream keeps its last n sent messages for clients that resume (default 1000)",
      nonNegativeInteger,
    )
    .option(
      "--retention-window <seconds>",
      "and every message it sent in the last this many seconds, however many (default 60)",
      nonNegativeNumber,
    )
    .option(
      "--retention-bytes <size>",
      "within this size per stream: bytes, or with KiB, MiB, GiB (default 128MiB)",
      byteSize,
    )
    .option(
      "--resume-wait <seconds>",
      "how long a WebSocket connection whose socket dropped waits for a resume (default 300)",
      nonNegativeNumber,
    )
    .addHelpText(
      "after",
      `
Prints the endpoint URL on stdout. Clients: acp-kit run --url http://127.0.0.1:8787/acp
(or ws://... for a WebSocket), or any ACP client with Streamable HTTP or WebSocket support.`,
    )
    .action(
      async (
        words: string[],
        opts: {
          host: string;
          port: number;
          tokenEnv?: string;
          idleTimeout: number;
          maxConnections: number;
          resume: boolean;
          retentionMessages?: number;
          retentionWindow?: number;
          retentionBytes?: number;
          resumeWait?: number;
        },
      ) => {
        try {
          if (words.length === 0) throw new UsageError("Give the agent's command after `--`.");
          const retention: AcpResumableOptions = {
            ...(opts.retentionMessages === undefined
              ? {}
              : { retentionMessages: opts.retentionMessages }),
            ...(opts.retentionWindow === undefined
              ? {}
              : { retentionWindowSeconds: opts.retentionWindow }),
            ...(opts.retentionBytes === undefined ? {} : { retentionBytes: opts.retentionBytes }),
            ...(opts.resumeWait === undefined ? {} : { retentionSeconds: opts.resumeWait }),
          };
          if (!opts.resume && Object.keys(retention).length > 0)
            throw new UsageError(
              "--retention-* and --resume-wait set what is kept for clients that resume; --no-resume keeps nothing.",
            );
          // A named agent or registry id (`acp-kit serve codex-acp`), or a command after `--`;
          // each connection's agent gets this process's environment and the agent's own
          // variables, not the token's (see runServe).
          const target = await agentTarget(words);
          // The agent's own variables (a named or registry agent's) add to this environment,
          // never replace one of it, and never set the variable that holds the server's
          // token (runServe also keeps that variable from the agents).
          const agentEnv = Object.fromEntries(
            Object.entries(target.env ?? {}).filter(
              ([name]) => name !== opts.tokenEnv && process.env[name] === undefined,
            ),
          );
          const { runServe } = await import("./serve-command.js");
          process.exitCode = await runServe({
            command: target.command,
            args: target.args,
            env: agentEnv,
            ...(target.windowsVerbatimArguments === true ? { windowsVerbatimArguments: true } : {}),
            host: opts.host,
            port: opts.port,
            ...(opts.tokenEnv === undefined ? {} : { tokenEnv: opts.tokenEnv }),
            idleTimeoutMs: opts.idleTimeout,
            maxConnections: opts.maxConnections,
            resumable: opts.resume,
            retention,
            out: process.stdout,
            err: process.stderr,
          });
        } catch (error) {
          fail(error);
        }
      },
    );

  program
    .command("session-owner", { hidden: true })
    .description("the owner of a session (prompt --session): its spec on stdin")
    .action(async () => {
      try {
        const owner = await import("./owner-command.js");
        const spec = await owner.readOwnerSpec();
        const target = withProtocol(await agentTarget(spec.words, spec.opts), spec.opts.protocol);
        // The session list's warnings go to the callers waiting.
        const warnings: { to?: (message: string) => void } = {};
        const { RecentSessions } = await import("./recent-sessions.js");
        const memory = {
          ...(await sessionMemory(target, spec.words, spec.opts)),
          store: new RecentSessions({ warn: (m) => warnings.to?.(m) }),
        };
        const { runSessionOwner } = await import("./session-owner.js");
        await runSessionOwner({
          target,
          memory,
          paths: owner.pathsOf(spec.key),
          ...(spec.opts.session === undefined ? {} : { name: spec.opts.session }),
          ...(spec.opts.continue === true ? { continue: true } : {}),
          choices: choicesOf(spec.opts),
          ...(await mcpServersOf(spec.opts)),
          idleMs: spec.idleMs,
          warnings,
        });
        process.exit(0);
      } catch (error) {
        fail(error);
      }
    });

  for (const [name, description] of [
    ["status", "what a session's owner runs and has queued (every running session without one)"],
    ["cancel", "cancel the turn a session's owner runs (from any shell)"],
  ] as const) {
    withRemoteOptions(program.command(name))
      .description(description)
      .argument("[agent...]", "an agent name, or its command after --")
      .option("--session <name>", "the session of this name (for this agent and directory)")
      .option("--continue", "the most recent session of this agent in this directory")
      .option("--cwd <dir>", "the session's working directory", directory, process.cwd())
      .option("--json", "status as JSON")
      .action(
        async (
          words: string[],
          opts: RemoteFlags & { session?: string; continue?: boolean; cwd: string; json?: boolean },
        ) => {
          try {
            const owner = await import("./owner-command.js");
            const session = {
              ...(opts.session === undefined ? {} : { name: opts.session }),
              ...(opts.continue === true ? { continue: true } : {}),
            };
            const named = session.name !== undefined || session.continue === true;
            if (named && words.length === 0 && opts.url === undefined) {
              throw new UsageError("Name the agent too: --session NAME AGENT.");
            }
            let key: string | undefined;
            if (named) {
              const target = await agentTarget(words, opts);
              const memory = await sessionMemory(target, words, opts);
              key = await owner.sessionOwnerKey(memory, session);
              if (key === undefined) throw new UsageError("No session to continue here.");
            }
            if (name === "status") {
              process.exitCode = await owner.runStatusCommand(
                key,
                process.stdout,
                opts.json === true,
              );
            } else {
              if (key === undefined)
                throw new UsageError("Say which session: --session NAME AGENT.");
              process.exitCode = await owner.runCancelCommand(key, process.stdout);
            }
          } catch (error) {
            fail(error);
          }
        },
      );
  }

  program
    .command("remote-stdio", { hidden: true })
    .description("the --url bridge: ACP on stdio to a remote agent")
    .argument("<url>", "the endpoint (only shown, with --url-env)")
    .option("--url-env <name>", "the environment variable holding the endpoint")
    .option("--token-env <name>")
    .option("--remote-fs")
    .option("--remote-terminal")
    .action(async (url: string, opts: RemoteFlags & { urlEnv?: string }) => {
      try {
        const { runRemoteStdio } = await import("./remote-target.js");
        process.exitCode = await runRemoteStdio(url, opts);
        // Done: stdin is not read any more. A WebSocket's closing handshake may still be
        // under way (exiting now would cut it, and the server would keep the connection
        // for a resume); anything else left (a socket the server keeps open) may hold the
        // process no longer than this.
        process.stdin.destroy();
        setTimeout(() => process.exit(), 1_500).unref();
      } catch (error) {
        fail(error);
      }
    });

  const agents = program
    .command("agents")
    .description(
      "list the named agents (yours and built-in) and the ACP registry's; install or remove registry agents",
    )
    .addOption(new Option("--json", "print them as JSON"))
    .option("--refresh", "fetch the registry now instead of using the cached copy")
    .addHelpText(
      "after",
      `
The registry is fetched from ACP_REGISTRY_URL (default: the public ACP registry) and cached
under your cache directory; see docs/registry.md. Any registry id works wherever a name does:
  acp-kit run codex-acp`,
    )
    .action(async (opts: { json?: boolean; refresh?: boolean }) => {
      try {
        const { runAgentsList } = await import("./registry-command.js");
        process.exitCode = await runAgentsList(opts);
      } catch (error) {
        fail(error);
      }
    });
  agents
    .command("install")
    .description("install a registry agent into the cache (once per version)")
    .argument("<id>", "the agent's registry id")
    .option("--refresh", "fetch the registry now and install again")
    .action(async (id: string, opts: { refresh?: boolean }) => {
      try {
        const { runAgentsInstall } = await import("./registry-command.js");
        process.exitCode = await runAgentsInstall(id, opts);
      } catch (error) {
        fail(error);
      }
    });
  agents
    .command("remove")
    .description("remove every installed version of a registry agent from the cache")
    .argument("<id>", "the agent's registry id")
    .action(async (id: string) => {
      try {
        const { runAgentsRemove } = await import("./registry-command.js");
        process.exitCode = await runAgentsRemove(id);
      } catch (error) {
        fail(error);
      }
    });

  const sessions = program
    .command("sessions")
    .description(
      "the sessions run and prompt remember, by agent and directory: show, export, close, forget",
    )
    .argument("[agent...]", "only this agent's: its name, or its command after --")
    .option("--cwd <dir>", "only this directory's", directory, process.cwd())
    .option("--all", "every directory's")
    .addOption(new Option("--json", "print them as JSON"))
    .addHelpText(
      "after",
      `
Examples:
  acp-kit sessions                 the sessions remembered here, of every agent
  acp-kit sessions claude --all    claude's sessions, in every directory
  acp-kit sessions forget 3f2a     forget one (by id, start of an id, or name)
  acp-kit sessions show review     what was said in the session named review
  acp-kit sessions export 3f2a > session.md
  acp-kit sessions close review    end its owner (see prompt --session)

The list lives in acp-kit's state directory; see "The session list" in docs/cli.md.`,
    )
    .action(async (words: string[], opts: { cwd: string; all?: boolean; json?: boolean }) => {
      try {
        const { runSessionsList } = await import("./sessions-command.js");
        process.exitCode = await runSessionsList({
          ...sessionsScope(words, opts),
          ...(opts.json === true ? { json: true } : {}),
          out: process.stdout,
        });
      } catch (error) {
        fail(error);
      }
    });
  sessions
    .command("forget")
    .description("forget a remembered session (the agent keeps it)")
    .argument("<session>", "its id, a start of it, or its name")
    .argument("[agent...]", "the agent, when several remember the session")
    .option("--cwd <dir>", "the session's directory", directory, process.cwd())
    .option("--all", "look in every directory")
    .action(async (session: string, words: string[], opts: { cwd: string; all?: boolean }) => {
      try {
        const { runSessionsForget } = await import("./sessions-command.js");
        process.exitCode = await runSessionsForget({
          ...sessionsScope(words, opts),
          session,
          out: process.stdout,
        });
      } catch (error) {
        fail(error);
      }
    });
  for (const [name, description, as] of [
    ["show", "print what acp-kit recorded of a session (without opening the agent)", "show"],
    ["history", "the prompts sent to a session, numbered", "history"],
  ] as const) {
    sessions
      .command(name)
      .description(description)
      .argument("<session>", "its id, a start of it, or its name")
      .argument("[agent...]", "the agent, when several remember the session")
      .option("--cwd <dir>", "the session's directory", directory, process.cwd())
      .option("--all", "look in every directory")
      .action(async (session: string, words: string[], opts: { cwd: string; all?: boolean }) => {
        try {
          const { runSessionsTranscript } = await import("./sessions-command.js");
          process.exitCode = await runSessionsTranscript({
            ...sessionsScope(words, opts),
            session,
            as,
            out: process.stdout,
          });
        } catch (error) {
          fail(error);
        }
      });
  }
  sessions
    .command("export")
    .description("a session's recorded transcript as Markdown (or JSON)")
    .argument("<session>", "its id, a start of it, or its name")
    .argument("[agent...]", "the agent, when several remember the session")
    .option("--cwd <dir>", "the session's directory", directory, process.cwd())
    .option("--all", "look in every directory")
    .addOption(new Option("--format <format>", "markdown or json").choices(["markdown", "json"]))
    .action(
      async (
        session: string,
        words: string[],
        opts: { cwd: string; all?: boolean; format?: "markdown" | "json" },
      ) => {
        try {
          const { runSessionsTranscript } = await import("./sessions-command.js");
          process.exitCode = await runSessionsTranscript({
            ...sessionsScope(words, opts),
            session,
            as: opts.format ?? "markdown",
            out: process.stdout,
          });
        } catch (error) {
          fail(error);
        }
      },
    );
  sessions
    .command("close")
    .description("end a session's owner: its turn is cancelled and the agent closes the session")
    .argument("<session>", "its id, a start of it, or its name")
    .argument("[agent...]", "the agent, when several remember the session")
    .option("--cwd <dir>", "the session's directory", directory, process.cwd())
    .option("--all", "look in every directory")
    .action(async (session: string, words: string[], opts: { cwd: string; all?: boolean }) => {
      try {
        const { sessionRecord } = await import("./sessions-command.js");
        const { runCloseCommand } = await import("./owner-command.js");
        const record = await sessionRecord(sessionsScope(words, opts), session);
        process.exitCode = await runCloseCommand(record, process.stdout);
      } catch (error) {
        fail(error);
      }
    });

  return program;
}

await buildProgram().parseAsync(process.argv);
