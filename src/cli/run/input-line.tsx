/**
 * The input line: typing, history (↑/↓), and slash-command completion (Tab).
 *
 * @module
 */
import { Box, Text, useInput } from "ink";
import { useState, type ReactNode } from "react";
import { completions, type SlashCommand } from "./slash.js";

/** Props of {@link InputLine}. */
export interface InputLineProps {
  /** Whether keys go to the input (not while a question is asked). */
  readonly enabled: boolean;
  /** Whether Enter sends (not while a turn runs). */
  readonly canSubmit: boolean;
  /** Commands offered for completion. */
  readonly commands: readonly SlashCommand[];
  /** Called with the text when Enter is pressed. */
  readonly onSubmit: (text: string) => void;
}

/** See the module comment. */
export function InputLine({ enabled, canSubmit, commands, onSubmit }: InputLineProps): ReactNode {
  const [value, setValue] = useState("");
  const [history, setHistory] = useState<string[]>([]);
  const [back, setBack] = useState(0);
  const suggestions = completions(value, commands).slice(0, 6);

  useInput(
    (input, key) => {
      if (key.ctrl || key.meta) return;
      if (key.return) {
        const text = value.trim();
        if (text === "" || !canSubmit) return;
        onSubmit(text);
        setHistory((h) => [...h, text]);
        setBack(0);
        setValue("");
        return;
      }
      if (key.tab) {
        const first = suggestions[0];
        if (first !== undefined) setValue(`/${first.name} `);
        return;
      }
      if (key.upArrow || key.downArrow) {
        const next = Math.max(0, Math.min(history.length, back + (key.upArrow ? 1 : -1)));
        setBack(next);
        setValue(next === 0 ? "" : (history[history.length - next] ?? ""));
        return;
      }
      if (key.backspace || key.delete) {
        setValue((v) => v.slice(0, -1));
        return;
      }
      if (key.escape || key.leftArrow || key.rightArrow) return;
      // A pasted or fast-typed chunk may carry Enter inside it: send at each newline.
      const parts = input.split(/\r\n|\r|\n/);
      if (parts.length > 1) {
        const text = (value + (parts[0] ?? "")).trim();
        if (text !== "" && canSubmit) {
          onSubmit(text);
          setHistory((h) => [...h, text]);
        }
        setBack(0);
        setValue(parts.slice(1).join(" ").trimStart());
        return;
      }
      setValue((v) => v + input);
    },
    { isActive: enabled },
  );

  return (
    <Box flexDirection="column">
      <Box>
        <Text color={enabled ? "cyan" : "gray"}>{"› "}</Text>
        <Text>{value}</Text>
        {enabled ? <Text inverse> </Text> : null}
        {value === "" && enabled ? <Text dimColor> type a message, / for commands</Text> : null}
      </Box>
      {enabled
        ? suggestions.map((c) => (
            <Text key={c.name} dimColor>
              {"  "}/{c.name}
              {c.hint === undefined ? "" : ` ${c.hint}`} — {c.description}
            </Text>
          ))
        : null}
    </Box>
  );
}
