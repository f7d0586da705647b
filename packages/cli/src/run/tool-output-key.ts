/**
 * Ctrl-O: tool output folded to a few lines, or shown in full. Rows still changing follow
 * at once; rows already printed cannot change, so the last folded one is printed again in
 * full below. The permission box stays folded (it must fit on the screen): the tool call
 * it asks about is the one printed in full, above it.
 *
 * @module
 */
import type { SessionStore, ThreadToolCall } from "acp-kit";
import { toolCallInQuestion } from "acp-kit/internal";
import { useKeys } from "./keys.js";
import { EXPAND_KEY, foldsOutput } from "./tool-call-view.js";
import type { UiModel } from "./ui-model.js";

/**
 * The tool call to print again in full: the one a permission question asks about, else the
 * one printed last whose output was folded; `undefined` when there is none.
 */
function foldedCall(ui: UiModel, sessions: SessionStore): ThreadToolCall | undefined {
  const question = ui.questions[0];
  if (question !== undefined) {
    const { sessionId, toolCall } = question.request;
    const call = toolCallInQuestion(sessions.get(sessionId), toolCall);
    // (The box folds a diff to what fits the screen, often fewer lines than a row would.)
    return call.content.length > 0 ? call : undefined;
  }
  for (let i = ui.transcript.length - 1; i >= 0; i--) {
    const entry = ui.transcript[i];
    if (entry?.kind !== "item" || entry.item.type !== "tool_call") continue;
    if (foldsOutput(entry.item, ui.terminals)) return entry.item;
  }
  return undefined;
}

/** Toggles {@link UiModel.showToolOutput} on Ctrl-O (see the module comment). */
export function useToolOutputKey(ui: UiModel, sessions: SessionStore): void {
  useKeys((input, key) => {
    if (!(key.ctrl && input === "o")) return;
    ui.toggleToolOutput();
    if (!ui.showToolOutput) {
      ui.notify("info", `Tool output is folded to a few lines (${EXPAND_KEY} to show it in full).`);
      return;
    }
    ui.notify("info", `Tool output is shown in full (${EXPAND_KEY} to fold it).`);
    const call = foldedCall(ui, sessions);
    if (call !== undefined) ui.printAgain(call);
  });
}
