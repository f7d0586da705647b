/**
 * The input line: typing, history (↑/↓), and slash-command completion (Tab).
 *
 * @module
 */
import { Box, Text, useInput } from "ink";
import { useRef, useState, type ReactNode } from "react";
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

/** Without control characters (a Ctrl-C that came with other keys, ...): they are not text. */
function withoutControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, "");
}

/** See the module comment. */
export function InputLine({ enabled, canSubmit, commands, onSubmit }: InputLineProps): ReactNode {
  // Keys can arrive faster than React renders (a pasted line, or text and Enter sent
  // together by a terminal multiplexer), so the handler works on refs that change at
  // once, and the state only drives what is drawn.
  const [value, setValueState] = useState("");
  const current = useRef("");
  const history = useRef<string[]>([]);
  const back = useRef(0);
  const suggestions = completions(value, commands).slice(0, 6);

  const setValue = (next: string): void => {
    current.current = next;
    setValueState(next);
  };
  const submit = (text: string): void => {
    if (text !== "" && canSubmit) {
      onSubmit(text);
      history.current.push(text);
    }
  };

  useInput(
    (input, key) => {
      if (key.ctrl || key.meta) return;
      if (key.return) {
        const text = current.current.trim();
        if (text === "" || !canSubmit) return;
        submit(text);
        back.current = 0;
        setValue("");
        return;
      }
      if (key.tab) {
        const first = completions(current.current, commands)[0];
        if (first !== undefined) setValue(`/${first.name} `);
        return;
      }
      if (key.upArrow || key.downArrow) {
        const past = history.current;
        const next = Math.max(0, Math.min(past.length, back.current + (key.upArrow ? 1 : -1)));
        back.current = next;
        setValue(next === 0 ? "" : (past[past.length - next] ?? ""));
        return;
      }
      if (key.backspace || key.delete) {
        setValue(current.current.slice(0, -1));
        return;
      }
      if (key.escape || key.leftArrow || key.rightArrow) return;
      // A pasted or fast-typed chunk may carry Enter inside it: send at the first newline
      // (while a turn runs nothing is sent, and the text stays on the line).
      const parts = input.split(/\r\n|\r|\n/).map(withoutControls);
      if (parts.length > 1 && canSubmit) {
        submit((current.current + (parts[0] ?? "")).trim());
        back.current = 0;
        setValue(parts.slice(1).join(" ").trimStart());
        return;
      }
      const text = parts.join(" ");
      if (text !== "") setValue(current.current + text);
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
