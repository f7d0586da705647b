/**
 * What the pickers of `/mode`, `/model` and `/sessions` offer, and the values the input
 * line completes after those commands.
 *
 * @module
 */
import { sessionSetting, type SessionInfo, type SessionState } from "acp-kit";
import { age } from "../session-memory.js";
import type { PickerSpec } from "./option-picker.js";

/** The commands that open a picker when typed without an argument. */
export const PICKER_COMMANDS = ["mode", "model", "sessions"] as const;

/** One of {@link PICKER_COMMANDS}. */
export type PickerCommand = (typeof PICKER_COMMANDS)[number];

/** Whether `/name` alone opens a picker. */
export function isPickerCommand(name: string): name is PickerCommand {
  return (PICKER_COMMANDS as readonly string[]).includes(name);
}

/**
 * The picker of the session's modes or models, the current one first highlighted;
 * undefined when the agent offers neither.
 */
export function settingPicker(
  state: SessionState | undefined,
  kind: "mode" | "model",
): PickerSpec | undefined {
  const setting = sessionSetting(state, kind);
  if (setting === undefined || setting.values.length === 0) return undefined;
  return {
    title: kind === "mode" ? "Mode" : "Model",
    items: setting.values.map((v) => ({
      value: v.id,
      label: v.name === v.id ? v.id : `${v.name} (${v.id})`,
      ...(v.description === undefined ? {} : { detail: v.description }),
    })),
    current: setting.values.findIndex((v) => v.id === setting.current),
  };
}

/** The picker of the agent's sessions (title or id, age), the open one first highlighted. */
export function sessionsPicker(
  sessions: readonly SessionInfo[],
  currentId: string | undefined,
  now = Date.now(),
): PickerSpec {
  return {
    title: "Sessions (Enter loads or resumes one)",
    items: sessions.map((s) => {
      const title = s.title == null || s.title === "" ? undefined : s.title;
      const when = age(s.updatedAt ?? undefined, new Date(now));
      return {
        value: s.sessionId,
        label: title ?? s.sessionId,
        detail: [title === undefined ? "" : s.sessionId, when].filter((p) => p !== "").join(" · "),
      };
    }),
    current: sessions.findIndex((s) => s.sessionId === currentId),
  };
}

/**
 * The values the input line completes after `/mode `, `/model ` and `/sessions `: the
 * session's mode and model ids, and the session ids known (from the last list).
 */
export function completionValues(
  state: SessionState | undefined,
  sessionIds: readonly string[],
): Readonly<Partial<Record<PickerCommand, readonly string[]>>> {
  return {
    mode: sessionSetting(state, "mode")?.values.map((v) => v.id) ?? [],
    model: sessionSetting(state, "model")?.values.map((v) => v.id) ?? [],
    sessions: sessionIds,
  };
}
