/**
 * The pickers of `/mode`, `/model` and `/sessions` typed without an argument: what they
 * offer (the session's values, the agent's sessions), and choosing, which runs the
 * command with the value chosen.
 *
 * @module
 */
import { Text } from "ink";
import { useEffect, useState, type ReactNode } from "react";
import type { AgentController } from "../controller.js";
import { failureText } from "../exit-codes.js";
import { runClientCommand } from "./slash-commands.js";
import { OptionPicker, type PickerSpec } from "./option-picker.js";
import { settingPicker, sessionsPicker, type PickerCommand } from "./pickers.js";
import type { UiModel } from "./ui-model.js";

/** Props of {@link CommandPicker}. */
export interface CommandPickerProps {
  readonly command: PickerCommand;
  readonly controller: AgentController;
  readonly ui: UiModel;
  /** The picker is done (a value chosen, Esc, or nothing to pick). */
  readonly onDone: () => void;
}

/**
 * What `/name` alone offers now: a picker, or (modes and models) undefined when the agent
 * offers no such choice. The sessions come from the agent: see {@link CommandPicker}.
 */
export function immediatePicker(
  command: "mode" | "model",
  controller: AgentController,
): PickerSpec | undefined {
  return settingPicker(controller.state, command);
}

/** See the module comment. */
export function CommandPicker({ command, controller, ui, onDone }: CommandPickerProps): ReactNode {
  const [spec, setSpec] = useState<PickerSpec | undefined>(() =>
    command === "sessions" ? undefined : immediatePicker(command, controller),
  );
  useEffect(() => {
    if (command !== "sessions") return;
    let live = true;
    controller.listSessions().then(
      (sessions) => {
        if (!live) return;
        if (sessions.length === 0) {
          ui.notify("info", "No sessions.");
          onDone();
        } else setSpec(sessionsPicker(sessions, controller.sessionId));
      },
      (error: unknown) => {
        if (!live) return;
        ui.notify("error", failureText(error));
        onDone();
      },
    );
    return () => {
      live = false;
    };
    // Listed once per picker.
  }, []);
  if (spec === undefined) {
    return command === "sessions" ? <Text dimColor>Listing the sessions…</Text> : null;
  }
  return (
    <OptionPicker
      {...spec}
      onChoose={(item) => {
        onDone();
        void runClientCommand(command, item.value, controller, ui);
      }}
      onLeave={onDone}
    />
  );
}
