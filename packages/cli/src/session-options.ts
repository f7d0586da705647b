/**
 * The mode and model of a session as choices among the values the agent offers: for the
 * `--mode` and `--model` flags, the `/mode` and `/model` pickers and the completion of
 * their values.
 *
 * @module
 */
import type { SessionConfigOption, SessionState } from "acp-kit";

/** One value a session's mode or model can take. */
export interface SessionChoice {
  /** What is sent to the agent. */
  readonly id: string;
  /** What the agent calls it. */
  readonly name: string;
  /** The agent's description, when it gave one. */
  readonly description?: string;
}

/** The mode and model a session is to have once it opens (`--mode`, `--model`). */
export interface SessionChoices {
  readonly mode?: string;
  readonly model?: string;
}

/** The flat list of values of a select config option. */
export function selectValues(
  option: SessionConfigOption,
): { value: string; name: string; description?: string | null }[] {
  if (option.type !== "select") return [];
  const list = option.options as readonly (
    | { value: string; name: string; description?: string | null }
    | { options: { value: string; name: string; description?: string | null }[] }
  )[];
  return list.flatMap((entry) => ("options" in entry ? entry.options : [entry]));
}

/**
 * The values of the session's mode or model and the current one: the config option of
 * that category, or (modes) the older `modes` of the session. Undefined when the agent
 * offers no such choice.
 */
export function sessionChoices(
  state: SessionState | undefined,
  kind: "mode" | "model",
): { readonly values: readonly SessionChoice[]; readonly current: string | undefined } | undefined {
  const option = state?.configOptions?.find((o) => o.category === kind);
  if (option?.type === "select") {
    return {
      values: selectValues(option).map((v) => ({
        id: v.value,
        name: v.name,
        ...(v.description == null ? {} : { description: v.description }),
      })),
      current: option.currentValue,
    };
  }
  if (kind === "mode" && state?.availableModes != null) {
    return {
      values: state.availableModes.map((m) => ({
        id: m.id,
        name: m.name,
        ...(m.description == null ? {} : { description: m.description }),
      })),
      current: state.currentModeId ?? undefined,
    };
  }
  return undefined;
}

/** A `--mode` or `--model` value the agent does not offer (exit code 2, a usage error). */
export class SessionChoiceError extends Error {
  /**
   * @param kind - `mode` or `model`.
   * @param message - What is wrong and which values are valid.
   */
  constructor(
    readonly kind: "mode" | "model",
    message: string,
  ) {
    super(message);
    this.name = "SessionChoiceError";
  }
}

/**
 * The id of the value meant by `typed`: an id, or (ignoring case) an id or a name.
 * Throws {@link SessionChoiceError} listing the valid values when none matches.
 */
export function resolveChoice(
  state: SessionState | undefined,
  kind: "mode" | "model",
  typed: string,
): string {
  const choices = sessionChoices(state, kind);
  if (choices === undefined || choices.values.length === 0) {
    throw new SessionChoiceError(
      kind,
      `--${kind} ${typed}: this agent offers no choice of ${kind}.`,
    );
  }
  const { values } = choices;
  const lower = typed.toLowerCase();
  const found =
    values.find((v) => v.id === typed) ??
    values.find((v) => v.id.toLowerCase() === lower) ??
    values.find((v) => v.name.toLowerCase() === lower);
  if (found !== undefined) return found.id;
  const list = values.map((v) => (v.name === v.id ? v.id : `${v.id} (${v.name})`)).join(", ");
  throw new SessionChoiceError(
    kind,
    `--${kind} ${typed}: unknown ${kind}; the agent offers ${list}.`,
  );
}
