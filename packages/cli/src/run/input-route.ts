/**
 * Where a line sent from the composer goes, decided from the line and the moment alone: a
 * shell command, a client command, a picker, the queue, or the agent.
 *
 * @module
 */
import { existsSync } from "node:fs";
import type { ControllerPhase } from "../controller.js";
import { isPickerCommand, type PickerCommand } from "./pickers.js";
import { CLIENT_COMMANDS, parseSlash } from "./slash.js";

/** What to do with a line sent. */
export type InputRoute =
  /** `!command`: run it locally (an empty one: say how). */
  | { readonly kind: "shell"; readonly command: string }
  /** Wait: a turn runs, or the agent is starting. */
  | { readonly kind: "queue" }
  /** The agent needs a login first. */
  | { readonly kind: "needs-login" }
  /** `/mode`, `/model` or `/sessions` alone: open its picker (when there is a choice). */
  | { readonly kind: "picker"; readonly command: PickerCommand }
  /** `/login`: open the login chooser. */
  | { readonly kind: "login" }
  /** One of the client's own commands (`/help`, `/new`, `/quit`, ...). */
  | { readonly kind: "client"; readonly command: string; readonly args: string }
  /** A command that is neither the client's nor the agent's: said, not sent. */
  | { readonly kind: "unknown"; readonly command: string }
  /** A prompt for the agent. */
  | { readonly kind: "prompt"; readonly text: string };

/** What {@link routeInput} needs to know of the moment. */
export interface RouteContext {
  readonly phase: ControllerPhase;
  /** The names of the agent's own commands. */
  readonly agentCommands: readonly string[];
  /**
   * Whether a `/name` is a command rather than a path (default: a plain word that is not an
   * existing top-level path, see {@link isCommandName}).
   */
  readonly isCommand?: (name: string) => boolean;
}

/**
 * Whether what follows a leading `/` names a command: a plain word that is not an
 * existing top-level path (`/etc/hosts: what is this?` and `/tmp is it full?` are prompts).
 */
export function isCommandName(name: string): boolean {
  return /^[\w-]+$/.test(name) && !existsSync(`/${name}`);
}

/** Whether `/name` is one of the client's commands (or `/exit`). */
function isClientCommand(name: string): boolean {
  return name === "exit" || CLIENT_COMMANDS.some((c) => c.name === name);
}

/** Where the line `text` goes now (see {@link InputRoute}). */
export function routeInput(text: string, context: RouteContext): InputRoute {
  // `!command` runs at once, whatever the agent is doing.
  if (text.startsWith("!")) return { kind: "shell", command: text.slice(1).trim() };
  const own = parseSlash(text)?.name.toLowerCase();
  const clientCommand = own !== undefined && isClientCommand(own);
  const { phase } = context;
  // During a turn, prompts wait for it to end (the client's commands run at once).
  if (phase === "prompting" && !clientCommand) return { kind: "queue" };
  // While the agent starts (type-ahead), prompts and commands wait for the session; only
  // leaving and help do not.
  if (phase === "starting" && own !== "quit" && own !== "exit" && own !== "help") {
    return { kind: "queue" };
  }
  if (phase === "auth-required" && !clientCommand) return { kind: "needs-login" };
  // "//text" sends "/text" as it is, whatever the commands.
  if (text.startsWith("//")) return { kind: "prompt", text: text.slice(1) };
  const slash = parseSlash(text);
  const isCommand = context.isCommand ?? isCommandName;
  if (slash !== undefined && isCommand(slash.name)) {
    const name = slash.name.toLowerCase();
    if (slash.args === "" && isPickerCommand(name)) return { kind: "picker", command: name };
    if (name === "login") return { kind: "login" };
    if (isClientCommand(name)) return { kind: "client", command: name, args: slash.args };
    if (!context.agentCommands.includes(slash.name)) {
      return { kind: "unknown", command: slash.name };
    }
  }
  return { kind: "prompt", text };
}

/**
 * Whether a line typed ahead (while the agent started) runs on its own once the session is
 * ready, without waiting for a turn: the client's commands, but not `/login` or a picker,
 * which take the keys.
 */
export function runsAlone(text: string): { command: string; args: string } | undefined {
  const slash = parseSlash(text);
  const name = slash?.name.toLowerCase();
  if (slash === undefined || name === undefined) return undefined;
  if (!CLIENT_COMMANDS.some((c) => c.name === name) || name === "login") return undefined;
  if (slash.args === "" && isPickerCommand(name)) return undefined;
  return { command: name, args: slash.args };
}
