/**
 * A permission request as a keyboard choice among the agent's options.
 *
 * @module
 */
import { Box, Text, useStdout } from "ink";
import { useKeys } from "./keys.js";
import type { ReactNode } from "react";
import type { PermissionOption } from "acp-kit";
import type { SessionState } from "acp-kit";
import { toolCallInQuestion } from "acp-kit/internal";
import { useChoice } from "./choice.js";
import { ToolCallView } from "./tool-call-view.js";
import type { SessionStore } from "acp-kit";
import type { PendingQuestion, UiModel } from "./ui-model.js";

const KIND_COLORS: Readonly<Record<string, string>> = {
  allow_once: "green",
  allow_always: "green",
  reject_once: "red",
  reject_always: "red",
};

/** Esc picks a reject option when there is one, else cancels. */
function escapeChoice(options: readonly PermissionOption[]): PermissionOption | undefined {
  return (
    options.find((o) => o.kind === "reject_once") ?? options.find((o) => o.kind === "reject_always")
  );
}

/**
 * The option highlighted when the box opens, whatever order the agent lists them in: the
 * first one-time allow, else the first one-time reject, else the first option that is not
 * an "always" one (an Enter pressed without looking must never grant or refuse for the
 * rest of the session). Only when every option is an "always" one is the first
 * highlighted.
 */
export function safeDefaultOption(options: readonly PermissionOption[]): number {
  const at = (test: (option: PermissionOption) => boolean): number => options.findIndex(test);
  for (const index of [
    at((o) => o.kind === "allow_once"),
    at((o) => o.kind === "reject_once"),
    at((o) => o.kind !== "allow_always" && o.kind !== "reject_always"),
  ]) {
    if (index >= 0) return index;
  }
  return 0;
}

/** See the module comment. */
export function QuestionView({
  question,
  state,
  terminals,
  full = false,
}: {
  question: PendingQuestion;
  /** The session's state: the question shows the tool call as the thread has it. */
  state: SessionState | undefined;
  terminals: ReadonlyMap<string, string>;
  /** Shows the tool call's output in full, not folded (Ctrl-O). */
  full?: boolean;
}): ReactNode {
  const { request } = question;
  const options = request.options;
  // The box must fit on the screen with the status and input lines.
  const rows = useStdout().stdout.rows || 24;
  const choose = (option: PermissionOption | undefined): void => {
    question.answer(
      option === undefined
        ? { outcome: "cancelled" }
        : { outcome: "selected", optionId: option.optionId },
    );
  };
  // The highlighted option is read when the key comes, not from the last render: `↓` and
  // `Enter` in one chunk must choose the option below (see `choice.ts`).
  const { index, onKey } = useChoice(
    options.length,
    {
      onChoose: (i) => choose(options[i]),
      onEscape: () => choose(escapeChoice(options)),
    },
    true,
    safeDefaultOption(options),
  );
  useKeys(onKey);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1} marginTop={1}>
      <Text bold color="yellow">
        Permission requested
      </Text>
      <ToolCallView
        call={toolCallInQuestion(state, request.toolCall)}
        terminals={terminals}
        expanded
        full={full}
        maxDiffLines={Math.max(6, rows - 14 - options.length)}
      />
      <Box flexDirection="column" marginTop={1}>
        {options.map((option, i) => (
          <Text key={option.optionId} color={i === index ? "cyan" : KIND_COLORS[option.kind]}>
            {i === index ? "❯ " : "  "}
            {i + 1}. {option.name}
          </Text>
        ))}
      </Box>
      <Text dimColor>↑↓ choose · Enter confirm · 1-{options.length} pick · Esc reject</Text>
    </Box>
  );
}

/**
 * The oldest permission question waiting, if any. Each question gets a view of its own
 * (keyed by its id), so that no choice carries over from one question to the next.
 */
export function FirstQuestion({
  ui,
  sessions,
}: {
  ui: UiModel;
  sessions: SessionStore;
}): ReactNode {
  const question = ui.questions[0];
  if (question === undefined) return null;
  return (
    <QuestionView
      key={question.id}
      question={question}
      state={sessions.get(question.request.sessionId)}
      terminals={ui.terminals}
      full={ui.showToolOutput}
    />
  );
}
