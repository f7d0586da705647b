/**
 * {@link sessionSetting}: where a session's mode or model lives and which values it can
 * take, decided once for every client (the {@link SessionClient}'s `setMode`, a picker, a
 * command-line flag).
 *
 * @module
 */
import type * as schema from "../schema/types.gen.js";
import { withState, type SessionState } from "./state.js";

/** One value a session's mode or model can take. */
export interface SettingValue {
  /** What is sent to the agent (a mode id, or a select option's value). */
  readonly id: string;
  /** What the agent calls it. */
  readonly name: string;
  /** The agent's description, when it gave one. */
  readonly description?: string;
}

/** A session's mode or model: how it is set, its values and the current one. */
export interface SessionSetting {
  /**
   * The config option that holds it (set with `session/set_config_option`), or
   * `undefined` for the legacy modes (set with `session/set_mode`).
   */
  readonly configId: string | undefined;
  /** The values the agent offers, groups flattened, in its order. */
  readonly values: readonly SettingValue[];
  /** The current value's id, when the agent said. */
  readonly current: string | undefined;
}

/** The values of a select config option, groups flattened, in the agent's order. */
export function selectOptionValues(
  option: schema.SessionConfigOption,
): schema.SessionConfigSelectOption[] {
  if (option.type !== "select") return [];
  const list: readonly (schema.SessionConfigSelectOption | schema.SessionConfigSelectGroup)[] =
    option.options;
  return list.flatMap((entry) => ("options" in entry ? entry.options : [entry]));
}

/**
 * Where the session's mode or model lives. The config option of that category comes
 * first: the protocol says a client that understands config options SHOULD prefer them
 * and ignore `modes` when an agent sends both. Without one, a mode falls back to the
 * session's `modes` (`session/set_mode`); the protocol has no other place for a model.
 * Undefined when the session offers neither.
 */
export function sessionSetting(
  state: SessionState | undefined,
  kind: "mode" | "model",
): SessionSetting | undefined {
  const option = state?.configOptions?.find((o) => o.category === kind && o.type === "select");
  if (option?.type === "select") {
    return {
      configId: option.id,
      values: selectOptionValues(option).map((v) => ({
        id: v.value,
        name: v.name,
        ...(v.description == null ? {} : { description: v.description }),
      })),
      current: option.currentValue,
    };
  }
  if (kind === "mode" && state?.availableModes != null) {
    return {
      configId: undefined,
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

/**
 * The state with its `currentModeId` following the mode config option, when the session
 * offers both and the option's value is one of its modes: they are one setting, whichever
 * way it was changed (`session/set_config_option`, the agent's `config_option_update`).
 */
export function withModeFromOption(state: SessionState): SessionState {
  const setting = sessionSetting(state, "mode");
  const current = setting?.configId === undefined ? undefined : setting.current;
  if (
    current === undefined ||
    current === state.currentModeId ||
    state.availableModes?.some((mode) => mode.id === current) !== true
  ) {
    return state;
  }
  return withState(state, { currentModeId: current });
}
