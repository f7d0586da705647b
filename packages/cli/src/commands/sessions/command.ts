/**
 * `acp-kit sessions` and its subcommands (`forget`, `show`, `history`, `export`, `close`):
 * their options and actions (see `sessions.ts`).
 *
 * @module
 */
import { Option, type Command } from "commander";
import { fail } from "../context.js";
import { directory } from "../options.js";

/** Which remembered sessions `sessions` means: an agent (as `run` names it) and a directory. */
function sessionsScope(
  words: readonly string[],
  opts: ScopeFlags,
): { agent?: string; cwd?: string } {
  const agentWords = words[0] === "--" ? words.slice(1) : words;
  return {
    ...(agentWords.length === 0 ? {} : { agent: agentWords.join(" ") }),
    ...(opts.all === true ? {} : { cwd: opts.cwd }),
  };
}

/** `--cwd` and `--all`: where the subcommands look for the session. */
interface ScopeFlags {
  readonly cwd: string;
  readonly all?: boolean;
}

/** The options of a subcommand about one session (`--format`: `export`'s). */
type SubcommandFlags = ScopeFlags & { readonly format?: "markdown" | "json" };

/**
 * A subcommand about one remembered session (`forget`, `show`, `export`, ...): the
 * session's id, start of an id or name, the agent when several remember it, `--cwd` and
 * `--all`. Its action gets the session, its scope and the options.
 */
function sessionSubcommand(
  sessions: Command,
  name: string,
  description: string,
  action: (
    session: string,
    scope: { agent?: string; cwd?: string },
    opts: SubcommandFlags,
  ) => Promise<number>,
  more: (command: Command) => Command = (command) => command,
): void {
  more(
    sessions
      .command(name)
      .description(description)
      .argument("<session>", "its id, a start of it, or its name")
      .argument("[agent...]", "the agent, when several remember the session")
      .option("--cwd <dir>", "the session's directory", directory, process.cwd())
      .option("--all", "look in every directory"),
  ).action(async (session: string, words: string[], opts: SubcommandFlags) => {
    try {
      process.exitCode = await action(session, sessionsScope(words, opts), opts);
    } catch (error) {
      fail(error);
    }
  });
}

/** Adds `sessions` and its subcommands. */
export function addSessionsCommands(program: Command): void {
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
        const { runSessionsList } = await import("./sessions.js");
        process.exitCode = await runSessionsList({
          ...sessionsScope(words, opts),
          ...(opts.json === true ? { json: true } : {}),
          out: process.stdout,
        });
      } catch (error) {
        fail(error);
      }
    });
  sessionSubcommand(
    sessions,
    "forget",
    "forget a remembered session (the agent keeps it)",
    async (session, scope) => {
      const { runSessionsForget } = await import("./sessions.js");
      return runSessionsForget({ ...scope, session, out: process.stdout });
    },
  );
  for (const [name, description, as] of [
    ["show", "print what acp-kit recorded of a session (without opening the agent)", "show"],
    ["history", "the prompts sent to a session, numbered", "history"],
  ] as const) {
    sessionSubcommand(sessions, name, description, async (session, scope) => {
      const { runSessionsTranscript } = await import("./sessions.js");
      return runSessionsTranscript({ ...scope, session, as, out: process.stdout });
    });
  }
  sessionSubcommand(
    sessions,
    "export",
    "a session's recorded transcript as Markdown (or JSON)",
    async (session, scope, opts) => {
      const { runSessionsTranscript } = await import("./sessions.js");
      return runSessionsTranscript({
        ...scope,
        session,
        as: opts.format ?? "markdown",
        out: process.stdout,
      });
    },
    (command) =>
      command.addOption(
        new Option("--format <format>", "markdown or json").choices(["markdown", "json"]),
      ),
  );
  sessionSubcommand(
    sessions,
    "close",
    "end a session's owner: its turn is cancelled and the agent closes the session",
    async (session, scope) => {
      const { sessionRecord } = await import("./sessions.js");
      const { runCloseCommand } = await import("../owner/owner.js");
      return runCloseCommand(await sessionRecord(scope, session), process.stdout);
    },
  );
}
