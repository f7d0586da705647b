/**
 * The input line: editing (see `line-editor.ts`), history (↑/↓), completion of slash
 * commands and of the values of some (Tab, again for the next match) and multi-line pastes.
 *
 * @module
 */
import { Box, Text } from "ink";
import { useKeys } from "./keys.js";
import { useRef, useState, type ReactNode } from "react";
import { EMPTY_LINE, editLine, type LineState } from "./line-editor.js";
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
}: InputLineProps): ReactNode {
  // Keys can arrive faster than React renders (a pasted line, or text and Enter sent
  // together by a terminal multiplexer), so the handler works on a ref that changes at
  // once, and the state only drives what is drawn.
  const [line, setLineState] = useState<LineState>(EMPTY_LINE);
  const current = useRef<LineState>(EMPTY_LINE);
  const history = useRef<string[]>([]);
  const suggestions = completions(line.text, commands).slice(0, 6);
  const valueSuggestions = valueCompletions(line.text, values)?.values.slice(0, 6) ?? [];

  useKeys(
    (input, key) => {
      // Ctrl-C, Ctrl-T and Shift-Tab (modes) belong to the view.
      if (key.ctrl && (input === "c" || input === "t")) return;
      if (key.tab && key.shift) return;
      const { state, submit } = editLine(current.current, input, key, {
        history: history.current,
        canSubmit,
        complete: (text) => completeLine(text, commands, values),
      });
      current.current = state;
      setLineState(state);
      if (submit !== undefined) {
        history.current.push(submit);
        onSubmit(submit);
      }
    },
    { isActive: enabled },
  );

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
        {text === "" && enabled ? <Text dimColor> type a message, / for commands</Text> : null}
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
