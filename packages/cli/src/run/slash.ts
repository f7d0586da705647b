/**
 * Slash commands: the client's own (`/help`, `/mode`, `/model`, `/config`, `/sessions`,
 * `/login`, `/logout`, `/restart`, `/quit`) and the agent's (from `available_commands_update`), with
 * completion.
 *
 * @module
 */
import type { AvailableCommand } from "acp-kit";

/** A command the user can type after `/`. */
export interface SlashCommand {
  readonly name: string;
  readonly description: string;
  /** What to type after the name. */
  readonly hint?: string;
  /** `client`: handled here; `agent`: sent to the agent as prompt text. */
  readonly source: "client" | "agent";
}

/** The client's own commands. */
export const CLIENT_COMMANDS: readonly SlashCommand[] = [
  { name: "help", description: "list the commands and keys", source: "client" },
  {
    name: "mode",
    description: "switch the session's mode (alone: a picker)",
    hint: "[mode]",
    source: "client",
  },
  {
    name: "model",
    description: "switch the model (alone: a picker)",
    hint: "[value]",
    source: "client",
  },
  {
    name: "config",
    description: "show or set config options",
    hint: "[option value]",
    source: "client",
  },
  { name: "new", description: "start a new session with the same agent", source: "client" },
  {
    name: "sessions",
    description: "load or resume a session (alone: a picker)",
    hint: "[session id]",
    source: "client",
  },
  { name: "login", description: "log in with one of the agent's methods", source: "client" },
  {
    name: "logout",
    description: "log out (the agent's logout; drops variables given at a login)",
    source: "client",
  },
  { name: "restart", description: "restart the agent", source: "client" },
  { name: "quit", description: "end the agent and exit", source: "client" },
];

/** The longest description shown for a command (help, completion). */
const DESCRIPTION_CHARS = 80;

/**
 * A command's description on one line: its first non-empty line, cut to
 * {@link DESCRIPTION_CHARS} characters (agents send paragraphs, Markdown included).
 */
export function oneLine(description: string): string {
  const first =
    description
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find((line) => line !== "") ?? "";
  const more = first !== description.trim();
  if (first.length > DESCRIPTION_CHARS)
    return `${first.slice(0, DESCRIPTION_CHARS - 1).trimEnd()}…`;
  return more ? `${first} …` : first;
}

/** Every command available now: the client's, then the agent's. */
export function allCommands(agentCommands: readonly AvailableCommand[] | null): SlashCommand[] {
  const agent = (agentCommands ?? [])
    .filter((c) => !CLIENT_COMMANDS.some((own) => own.name === c.name))
    .map((c) => {
      const command: SlashCommand = {
        name: c.name,
        description: oneLine(c.description),
        source: "agent",
      };
      const hint = c.input != null && "hint" in c.input ? c.input.hint : undefined;
      return hint === undefined ? command : { ...command, hint };
    });
  return [...CLIENT_COMMANDS, ...agent];
}

/** The commands matching what was typed so far (`/mo` → `mode`, `model`). */
export function completions(input: string, commands: readonly SlashCommand[]): SlashCommand[] {
  if (!input.startsWith("/") || input.includes(" ")) return [];
  const typed = input.slice(1);
  return commands.filter((c) => c.name.startsWith(typed) && c.name !== typed);
}

/**
 * The values of a command matching what was typed after it (`/mode c` → `code`), from
 * `values` (by command name); none when the line is not `/name partial`.
 */
export function valueCompletions(
  input: string,
  values: Readonly<Record<string, readonly string[] | undefined>>,
): { command: string; values: string[] } | undefined {
  const match = /^\/(\S+) (\S*)$/.exec(input);
  if (match === null) return undefined;
  const command = match[1] ?? "";
  const typed = match[2] ?? "";
  const list = values[command];
  if (list === undefined) return undefined;
  return { command, values: list.filter((v) => v.startsWith(typed) && v !== typed) };
}

/**
 * The lines Tab offers for what was typed: a command's name (`/mo` → `/mode `), or one of
 * its values (`/mode c` → `/mode code`).
 */
export function completeLine(
  input: string,
  commands: readonly SlashCommand[],
  values: Readonly<Record<string, readonly string[] | undefined>>,
): string[] {
  const byValue = valueCompletions(input, values);
  if (byValue !== undefined) return byValue.values.map((v) => `/${byValue.command} ${v}`);
  return completions(input, commands).map((c) => `/${c.name} `);
}

/** Splits `/name rest of line` into name and argument text. */
export function parseSlash(input: string): { name: string; args: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(input.trim());
  if (match === null) return undefined;
  return { name: match[1] ?? "", args: (match[2] ?? "").trim() };
}
