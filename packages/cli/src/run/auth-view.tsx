/**
 * The login chooser: the agent's authentication methods as a keyboard selection. For an
 * `env_var` method whose variables are not set, it then asks for each value with hidden
 * input (see `secret-input.tsx`). Esc leaves it in every state.
 *
 * @module
 */
import { Box, Text } from "ink";
import { useKeys } from "./keys.js";
import { useState, type ReactNode } from "react";
import { envVarsOf, type AuthEnvVar, type AuthMethod } from "acp-kit";
import { isTerminalAuth } from "../controller.js";
import { useSelection } from "./selection.js";
import { SecretInput } from "./secret-input.js";

/** What a method does when chosen, in a few words. */
function methodNote(method: AuthMethod): string {
  if (isTerminalAuth(method)) return " (runs a login command here)";
  const vars = envVarsOf(method);
  if (vars !== undefined) {
    const names = vars.map((v) => v.name);
    return names.length === 0 ? " (environment variables)" : ` (sets ${names.join(", ")})`;
  }
  return "";
}

/** Props of {@link AuthView}. */
export interface AuthViewProps {
  readonly methods: readonly AuthMethod[];
  /**
   * A method was chosen (with the values typed for its variables, for an `env_var`
   * method). While the promise it returns is pending, keys other than Esc are ignored;
   * when it settles (a failed login leaves the chooser up), they count again.
   */
  readonly onChoose: (
    method: AuthMethod,
    values: Readonly<Record<string, string>>,
  ) => void | Promise<unknown>;
  /** Esc: leave the chooser without logging in. */
  readonly onLeave: () => void;
  /**
   * The variables of an `env_var` method to ask for (required and not set). Default: none
   * (the login reports what is missing).
   */
  readonly missingVars?: (method: AuthMethod) => readonly AuthEnvVar[];
  /** True when the user asked for it (`/login`), not the agent. */
  readonly requested?: boolean;
}

/** Asking for the values of an `env_var` method's variables, one after the other. */
interface Asking {
  readonly method: AuthMethod;
  readonly vars: readonly AuthEnvVar[];
  readonly index: number;
  readonly values: Readonly<Record<string, string>>;
}

function MethodList({
  methods,
  initial,
  active,
  onChoose,
  onLeave,
}: {
  methods: readonly AuthMethod[];
  initial: number;
  active: boolean;
  onChoose: (index: number) => void;
  onLeave: () => void;
}): ReactNode {
  // The highlighted method is read when the key comes (see `selection.ts`): `↓` and `Enter`
  // in one chunk choose the method below.
  const { index, onKey } = useSelection(
    methods.length,
    { onChoose, onEscape: onLeave },
    false,
    initial,
  );
  useKeys(onKey, { isActive: active });
  return (
    <>
      {methods.map((m, i) => (
        <Text key={m.id} color={i === index ? "cyan" : undefined}>
          {i === index ? "❯ " : "  "}
          {i + 1}. {m.name}
          {methodNote(m)}
          {m.description == null ? "" : ` — ${m.description}`}
        </Text>
      ))}
    </>
  );
}

/** See the module comment. */
export function AuthView({
  methods,
  onChoose,
  onLeave,
  missingVars = () => [],
  requested = false,
}: AuthViewProps): ReactNode {
  const [asking, setAsking] = useState<Asking | undefined>(undefined);
  const [pending, setPending] = useState(false);
  // A new list (its key) after each attempt, highlighting the method tried last.
  const [attempt, setAttempt] = useState({ key: 0, index: 0 });
  // While a login runs, only Esc counts (it hides the chooser; the login goes on).
  useKeys(
    (input, key) => {
      if (key.escape || input.includes("\u001b")) onLeave();
    },
    { isActive: pending },
  );

  /** Logs in; once that settles, a fresh list takes keys again. */
  const login = (
    method: AuthMethod,
    index: number,
    values: Readonly<Record<string, string>>,
  ): void => {
    const again = (): void => {
      setPending(false);
      setAttempt(({ key }) => ({ key: key + 1, index }));
    };
    const result = onChoose(method, values);
    if (!(result instanceof Promise)) {
      again();
      return;
    }
    setPending(true);
    result.then(again, again);
  };

  const choose = (index: number): void => {
    const method = methods[index];
    if (method === undefined) return;
    const vars = missingVars(method);
    if (vars.length > 0) {
      setAttempt(({ key }) => ({ key, index }));
      setAsking({ method, vars, index: 0, values: {} });
      return;
    }
    login(method, index, {});
  };

  const typed = (value: string): void => {
    if (asking === undefined) return;
    const name = asking.vars[asking.index]?.name ?? "";
    const values = { ...asking.values, [name]: value };
    if (asking.index + 1 < asking.vars.length) {
      setAsking({ ...asking, index: asking.index + 1, values });
      return;
    }
    setAsking(undefined);
    login(asking.method, attempt.index, values);
  };

  const variable = asking?.vars[asking.index];
  const hints = [
    "↑↓ choose",
    "Enter log in",
    ...(methods.length > 0 ? [`1-${Math.min(9, methods.length)} pick`] : []),
    "Esc leave",
  ];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold>
        {requested
          ? "Log in to the agent. Choose a method:"
          : "The agent needs you to log in. Choose a method:"}
      </Text>
      {methods.length === 0 ? (
        <Text dimColor>(the agent offered none; /restart or /quit)</Text>
      ) : null}
      <MethodList
        key={attempt.key}
        methods={methods}
        initial={attempt.index}
        active={asking === undefined && !pending}
        onChoose={choose}
        onLeave={onLeave}
      />
      {asking !== undefined && variable !== undefined ? (
        <Box flexDirection="column" marginTop={1}>
          <Text>
            {asking.method.name} needs {asking.vars.map((v) => v.name).join(", ")} (used for this
            run only, never stored):
          </Text>
          <SecretInput
            key={variable.name}
            label={variable.label ?? variable.name}
            hidden={variable.secret}
            onSubmit={typed}
            onLeave={onLeave}
          />
        </Box>
      ) : null}
      {pending ? <Text color="cyan">Logging in… (Esc hides this)</Text> : null}
      {asking === undefined && !pending ? <Text dimColor>{hints.join(" · ")}</Text> : null}
    </Box>
  );
}
