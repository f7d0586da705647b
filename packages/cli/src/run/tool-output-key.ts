/**
 * Ctrl-O: tool output folded to a few lines, or shown in full. Rows still changing follow
 * at once; rows already printed cannot change, so the last folded one is printed again in
 * full below.
 *
 * @module
 */
import type { ThreadToolCall } from "acp-kit";
import { useKeys } from "./keys.js";
import { EXPAND_KEY, foldsOutput } from "./tool-call-view.js";
import type { UiModel } from "./ui-model.js";

/** The tool call printed last whose output was folded, if any. */
function lastFolded(ui: UiModel): ThreadToolCall | undefined {
  for (let i = ui.transcript.length - 1; i >= 0; i--) {
    const entry = ui.transcript[i];
    if (entry?.kind !== "item" || entry.item.type !== "tool_call") continue;
    if (foldsOutput(entry.item, ui.terminals)) return entry.item;
  }
  return undefined;
}

/** Toggles {@link UiModel.showToolOutput} on Ctrl-O (see the module comment). */
export function useToolOutputKey(ui: UiModel): void {
  useKeys((input, key) => {
    if (!(key.ctrl && input === "o")) return;
    ui.toggleToolOutput();
    if (!ui.showToolOutput) {
      ui.notify("info", `Tool output is folded to a few lines (${EXPAND_KEY} to show it in full).`);
      return;
    }
    const call = lastFolded(ui);
    if (call !== undefined) {
      ui.notify("info", `Tool output is shown in full (${EXPAND_KEY} to fold it); the last:`);
      ui.printAgain(call);
    } else {
      ui.notify("info", `Tool output is shown in full (${EXPAND_KEY} to fold it).`);
    }
  });
}
