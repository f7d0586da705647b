/**
 * Hidden input of one value (an API key for an `env_var` login): each typed character is
 * shown as `•`, Backspace deletes, Enter confirms, Esc leaves. A paste (several characters
 * in one chunk) is taken whole; line breaks in it confirm. The value lives in a ref while
 * typed (keys can come faster than renders) and is handed over only on Enter; it is never
 * printed, logged or stored.
 *
 * @module
 */
import { Box, Text } from "ink";
import { useKeys } from "./keys.js";
import { useRef, useState, type ReactNode } from "react";
import type { KeyPress } from "./line-editor.js";

/** Props of {@link SecretInput}. */
export interface SecretInputProps {
  /** What is asked for (`OPENAI_API_KEY`, or the agent's label for it). */
  readonly label: string;
  /** False: the value is not secret, and is shown as typed. Default true. */
  readonly hidden?: boolean;
  /** Enter, with the value typed (never empty). */
  readonly onSubmit: (value: string) => void;
  /** Esc. */
  readonly onLeave: () => void;
}

/** What a chunk of keys did to a value being typed. */
export type SecretStep =
  | { readonly type: "edit"; readonly value: string }
  | { readonly type: "submit"; readonly value: string }
  | { readonly type: "leave" };

/** `value` without its last character (a whole code point). */
function dropLast(value: string): string {
  return Array.from(value).slice(0, -1).join("");
}

/**
 * Applies one event from Ink (one key, or a run of characters) to `value`. Enter on an
 * empty value does nothing.
 */
export function secretStep(value: string, input: string, key: KeyPress): SecretStep {
  if (key.escape) return { type: "leave" };
  if (key.return) return value === "" ? { type: "edit", value } : { type: "submit", value };
  if (key.backspace || key.delete) return { type: "edit", value: dropLast(value) };
  if (key.ctrl && input === "u") return { type: "edit", value: "" };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) {
    return { type: "edit", value };
  }
  let next = value;
  for (const ch of input) {
    if (ch === "\r" || ch === "\n") {
      if (next !== "") return { type: "submit", value: next };
      continue;
    }
    if (ch === "\u007f" || ch === "\b") next = dropLast(next);
    else if (ch === "\u001b") return { type: "leave" };
    else if ((ch.codePointAt(0) ?? 0) >= 0x20) next += ch;
  }
  return { type: "edit", value: next };
}

/** See the module comment. */
export function SecretInput({
  label,
  hidden = true,
  onSubmit,
  onLeave,
}: SecretInputProps): ReactNode {
  const value = useRef("");
  const done = useRef(false);
  // Only the length is drawn (or the text, for a value that is not secret).
  const [shown, setShown] = useState("");
  useKeys((input, key) => {
    if (done.current) return;
    const step = secretStep(value.current, input, key);
    if (step.type === "leave") {
      done.current = true;
      value.current = "";
      onLeave();
      return;
    }
    value.current = step.value;
    setShown(hidden ? "•".repeat(Array.from(step.value).length) : step.value);
    if (step.type === "submit") {
      done.current = true;
      value.current = "";
      onSubmit(step.value);
    }
  });
  return (
    <Box flexDirection="column">
      <Text>
        {label}: {shown}
        <Text inverse> </Text>
      </Text>
      <Text dimColor>
        {hidden ? "typed characters show as • · " : ""}Enter confirm · Backspace delete · Esc leave
      </Text>
    </Box>
  );
}
