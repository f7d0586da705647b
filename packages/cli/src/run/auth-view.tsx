/**
 * The login chooser: the agent's authentication methods as a keyboard choice.
 *
 * @module
 */
import { Box, Text, useInput } from "ink";
import type { ReactNode } from "react";
import type { AuthMethod } from "acp-kit";
import { isTerminalAuth } from "../controller.js";
import { useChoice } from "./choice.js";

/** What a method does when chosen, in a few words. */
function methodNote(method: AuthMethod): string {
  if (isTerminalAuth(method)) return " (runs a login command here)";
  const type = (method as { type?: unknown }).type;
  if (type === "env_var") {
    const vars = (method as { vars?: readonly { name?: unknown }[] }).vars ?? [];
    const names = vars.map((v) => v.name).filter((n): n is string => typeof n === "string");
    return names.length === 0 ? " (environment variables)" : ` (sets ${names.join(", ")})`;
  }
  return "";
}

/** Props of {@link AuthView}. */
export interface AuthViewProps {
  readonly methods: readonly AuthMethod[];
  /**
   * A method was chosen. While the promise it returns is pending, further keys are
   * ignored; when it settles (a failed login leaves the chooser up), they count again.
   */
  readonly onChoose: (method: AuthMethod) => void | Promise<unknown>;
  /** Esc: leave the chooser without logging in. */
  readonly onLeave?: () => void;
}

/** See the module comment. */
export function AuthView({ methods, onChoose, onLeave }: AuthViewProps): ReactNode {
  // The highlighted method is read when the key comes (see `choice.ts`): `↓` and `Enter`
  // in one chunk choose the method below.
  const { index, onKey } = useChoice(
    methods.length,
    {
      onChoose: (i) => {
        const method = methods[i];
        return method === undefined ? undefined : onChoose(method);
      },
      ...(onLeave === undefined ? {} : { onEscape: onLeave }),
    },
    false,
  );
  useInput(onKey);
  const hints = [
    "↑↓ choose",
    "Enter log in",
    ...(methods.length > 0 ? [`1-${Math.min(9, methods.length)} pick`] : []),
    ...(onLeave === undefined ? [] : ["Esc leave"]),
  ];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold>The agent needs you to log in. Choose a method:</Text>
      {methods.length === 0 ? (
        <Text dimColor>(the agent offered none; /restart or /quit)</Text>
      ) : null}
      {methods.map((m, i) => (
        <Text key={m.id} color={i === index ? "cyan" : undefined}>
          {i === index ? "❯ " : "  "}
          {i + 1}. {m.name}
          {methodNote(m)}
          {m.description == null ? "" : ` — ${m.description}`}
        </Text>
      ))}
      <Text dimColor>{hints.join(" · ")}</Text>
    </Box>
  );
}
