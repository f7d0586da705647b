/**
 * The mode and model a session is to have (`--mode`, `--model`), resolved against the
 * values the agent offers. Where a mode or model lives and which values it takes is the
 * library's decision ({@link sessionSetting}); this file only matches what was typed.
 *
 * @module
 */
import { sessionSetting, type SessionState } from "acp-kit";

/** The mode and model a session is to have once it opens (`--mode`, `--model`). */
export interface SessionSettings {
  readonly mode?: string;
  readonly model?: string;
}

/** A `--mode` or `--model` value the agent does not offer (exit code 2, a usage error). */
export class SettingValueError extends Error {
  /**
   * @param kind - `mode` or `model`.
   * @param message - What is wrong and which values are valid.
   */
  constructor(
    readonly kind: "mode" | "model",
    message: string,
  ) {
    super(message);
    this.name = "SettingValueError";
  }
}

/**
 * The id of the value meant by `typed`: an id, or (ignoring case) an id or a name.
 * Throws {@link SettingValueError} listing the valid values when none matches.
 */
export function resolveSettingValue(
  state: SessionState | undefined,
  kind: "mode" | "model",
  typed: string,
): string {
  const setting = sessionSetting(state, kind);
  if (setting === undefined || setting.values.length === 0) {
    throw new SettingValueError(
      kind,
      `--${kind} ${typed}: this agent offers no choice of ${kind}.`,
    );
  }
  const { values } = setting;
  const lower = typed.toLowerCase();
  const found =
    values.find((v) => v.id === typed) ??
    values.find((v) => v.id.toLowerCase() === lower) ??
    values.find((v) => v.name.toLowerCase() === lower);
  if (found !== undefined) return found.id;
  const list = values.map((v) => (v.name === v.id ? v.id : `${v.id} (${v.name})`)).join(", ");
  throw new SettingValueError(
    kind,
    `--${kind} ${typed}: unknown ${kind}; the agent offers ${list}.`,
  );
}
