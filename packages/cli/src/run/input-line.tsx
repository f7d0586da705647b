/**
 * The input line, a view of the {@link Composer}: editing (see `line-editor.ts`), history
 * (↑/↓, Ctrl-R), completion of slash commands, of the values of some and of `@file`
 * mentions (Tab, again for the next match), new lines (`\` + Enter, Shift-Enter) and
 * pastes.
 *
 * @module
 */
import { Box, Text } from "ink";
import { useKeys } from "./keys.js";
import { useRef, useSyncExternalStore, type ReactNode } from "react";
import { Composer } from "./composer.js";
import { completeLine, completions, valueCompletions, type SlashCommand } from "./slash.js";

/** Props of {@link InputLine}. */
export interface InputLineProps {
  /** Whether keys go to the input (not while a question is asked). */
  readonly enabled: boolean;
  /** Whether Enter sends (while a turn runs, the view queues what is sent). */
  readonly canSubmit: boolean;
  /** Commands offered for completion. */
  readonly commands: readonly SlashCommand[];
  /** Values completed after a command and a space (`/mode ` → the mode ids), by command. */
  readonly values?: Readonly<Record<string, readonly string[] | undefined>>;
  /** Called with the text when Enter is pressed. */
  readonly onSubmit: (text: string) => void;
  /** The most lines of a multi-line text shown at once (around the cursor). */
  readonly maxLines?: number;
  /** The composer whose text this line shows and edits (default: one of its own). */
  readonly composer?: Composer;
}

/** The lines of `text` to show: at most `max`, the cursor's line among them. */
function visibleWindow(
  text: string,
  cursor: number,
  max: number,
): { text: string; cursor: number; above: number; below: number } {
  const lines = text.split("\n");
  if (lines.length <= max) return { text, cursor, above: 0, below: 0 };
  const cursorLine = text.slice(0, cursor).split("\n").length - 1;
  const start = Math.max(0, Math.min(cursorLine - max + 1, lines.length - max));
  const end = start + max;
  const offset = lines.slice(0, start).reduce((n, line) => n + line.length + 1, 0);
  return {
    text: lines.slice(start, end).join("\n"),
    cursor: cursor - offset,
    above: start,
    below: lines.length - end,
  };
}

/** See the module comment. */
export function InputLine({
  enabled,
  canSubmit,
  commands,
  onSubmit,
  maxLines = 8,
  values = {},
  composer: given,
}: InputLineProps): ReactNode {
  const own = useRef<Composer | undefined>(undefined);
  const composer = given ?? (own.current ??= new Composer());
  // Keys can arrive faster than React renders (a pasted line, or text and Enter sent
  // together by a terminal multiplexer): the composer changes at once, and is drawn as
  // it is when React draws.
  useSyncExternalStore(composer.subscribe, composer.snapshot);
  const line = composer.line;
  const search = composer.search;
  const suggestions = completions(line.text, commands).slice(0, 6);
  const valueSuggestions = valueCompletions(line.text, values)?.values.slice(0, 6) ?? [];
  const files = enabled ? composer.mentionMenu() : [];

  useKeys(
    (input, key) => {
      for (const text of composer.key(input, key, {
        canSubmit,
        complete: (typed) => completeLine(typed, commands, values),
      })) {
        onSubmit(text);
      }
    },
    { isActive: enabled },
  );

  if (search !== undefined) {
    const found = composer.searchMatch();
    return (
      <Box flexDirection="column">
        <Box>
          <Box flexShrink={0}>
            <Text color="cyan">{"history search: "}</Text>
          </Box>
          <Text>
            {search.query}
            <Text inverse> </Text>
          </Text>
        </Box>
        <Text dimColor>
          {found === undefined
            ? search.query === ""
              ? "  type to search the prompts sent here · Esc goes back"
              : "  (no match)"
            : `  ${found.split("\n").join(" ⏎ ")}`}
        </Text>
        <Text dimColor>{"  Ctrl-R: older · Enter: take it · Esc: back"}</Text>
      </Box>
    );
  }

  const { text, cursor, above, below } = visibleWindow(line.text, line.cursor, maxLines);
  const under = text.slice(cursor, cursor + 1);
  return (
    <Box flexDirection="column">
      {above > 0 ? <Text dimColor>{`  … ${above} more lines above`}</Text> : null}
      <Box>
        <Box flexShrink={0}>
          <Text color={enabled ? "cyan" : "gray"}>{"› "}</Text>
        </Box>
        <Text>
          {text.slice(0, cursor)}
          {enabled ? <Text inverse>{under === "" || under === "\n" ? " " : under}</Text> : under}
          {under === "\n" ? "\n" : ""}
          {text.slice(cursor + 1)}
        </Text>
        {text === "" && enabled ? (
          <Text dimColor> type a message, / for commands, @ for files, ! for a shell</Text>
        ) : null}
      </Box>
      {below > 0 ? <Text dimColor>{`  … ${below} more lines below`}</Text> : null}
      {enabled
        ? suggestions.map((c) => (
            <Text key={c.name} dimColor>
              {"  "}/{c.name}
              {c.hint === undefined ? "" : ` ${c.hint}`} — {c.description}
            </Text>
          ))
        : null}
      {files.map((file) => (
        <Text key={`@${file}`} dimColor>
          {"  @"}
          {file}
        </Text>
      ))}
      {enabled
        ? valueSuggestions.map((value) => (
            <Text key={value} dimColor>
              {"  "}
              {value}
            </Text>
          ))
        : null}
    </Box>
  );
}
