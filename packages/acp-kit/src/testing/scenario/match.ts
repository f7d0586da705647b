/**
 * Choosing the scenario turn that answers a prompt.
 *
 * @module
 */
import type * as schema from "../../schema/types.gen.js";
import type { PromptMatcher, ScenarioTurn } from "./types.js";

/** The turn chosen for a prompt, and the placeholder values its match produced. */
export interface ChosenTurn {
  /** The turn. */
  readonly turn: ScenarioTurn;
  /** Its index in the scenario's `turns`. */
  readonly index: number;
  /** True when it was taken in order (it has no `match`). */
  readonly ordered: boolean;
  /** `prompt`, `args`, `match.*` values. */
  readonly values: ReadonlyMap<string, string>;
}

/**
 * The text a prompt is matched against: its text blocks joined with newlines, trimmed.
 *
 * @param prompt - The prompt's blocks.
 */
export function promptText(prompt: readonly schema.ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of prompt) if (block.type === "text") parts.push(block.text);
  return parts.join("\n").trim();
}

/**
 * The slash command of a prompt text: `/name` or `/name args...`.
 *
 * @param text - The prompt's text.
 */
export function parseSlashCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(text);
  if (match?.[1] === undefined) return undefined;
  return { name: match[1], args: (match[2] ?? "").trim() };
}

/**
 * The placeholder values when `matcher` matches `text`, `undefined` when it does not.
 *
 * @param matcher - The turn's matcher.
 * @param text - The prompt's text.
 */
export function matchPrompt(matcher: PromptMatcher, text: string): Map<string, string> | undefined {
  const values = new Map<string, string>();
  if ("exact" in matcher) return text === matcher.exact ? values : undefined;
  if ("contains" in matcher) return text.includes(matcher.contains) ? values : undefined;
  if ("command" in matcher) {
    const command = parseSlashCommand(text);
    if (command?.name !== matcher.command) return undefined;
    values.set("args", command.args);
    return values;
  }
  const found = new RegExp(matcher.regex, matcher.flags).exec(text);
  if (found === null) return undefined;
  // Groups that did not take part in the match are undefined at run time.
  found.forEach((group: string | undefined, index) => values.set(`match.${index}`, group ?? ""));
  for (const [name, group] of Object.entries(found.groups ?? {}) as [
    string,
    string | undefined,
  ][]) {
    values.set(`match.${name}`, group ?? "");
  }
  return values;
}

/**
 * The turn for a prompt: the first whose `match` matches; else the `position`-th turn
 * without `match` (the last of them once they run out); `undefined` when there is none.
 *
 * @param turns - The scenario's turns.
 * @param prompt - The prompt's blocks.
 * @param position - How many turns the session has taken in order so far.
 */
export function chooseTurn(
  turns: readonly ScenarioTurn[],
  prompt: readonly schema.ContentBlock[],
  position: number,
): ChosenTurn | undefined {
  const text = promptText(prompt);
  const base = (): Map<string, string> => {
    const values = new Map<string, string>([["prompt", text]]);
    values.set("args", parseSlashCommand(text)?.args ?? "");
    return values;
  };
  for (const [index, turn] of turns.entries()) {
    if (turn.match === undefined) continue;
    const found = matchPrompt(turn.match, text);
    if (found === undefined) continue;
    const values = base();
    for (const [name, value] of found) values.set(name, value);
    return { turn, index, ordered: false, values };
  }
  const ordered = [...turns.entries()].filter(([, turn]) => turn.match === undefined);
  const picked = ordered[Math.min(position, ordered.length - 1)];
  if (picked === undefined) return undefined;
  return { turn: picked[1], index: picked[0], ordered: true, values: base() };
}
