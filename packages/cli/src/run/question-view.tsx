/**
 * A permission request as a keyboard selection among the agent's options.
 *
 * @module
 */
import { Box, Text, useStdout } from "ink";
import stringWidth from "string-width";
import { useKeys } from "./keys.js";
import type { ReactNode } from "react";
import type { PermissionOption } from "acp-kit";
import type { SessionState } from "acp-kit";
import { toolCallInQuestion } from "acp-kit/internal";
import { useSelection } from "./selection.js";
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
function escapeOption(options: readonly PermissionOption[]): PermissionOption | undefined {
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

/**
 * How many rows `text` takes when wrapped at `width` columns, at word boundaries (a word
 * longer than the width is broken), as Ink wraps it; at least one.
 */
export function wrappedRows(text: string, width: number): number {
  const room = Math.max(1, width);
  let rows = 0;
  for (const line of text.split("\n")) {
    rows++;
    let used = 0;
    for (const word of line.split(" ")) {
      const w = stringWidth(word);
      const needed = used === 0 ? w : used + 1 + w;
      if (needed <= room) {
        used = needed;
        continue;
      }
      if (used > 0) rows++;
      rows += Math.floor(Math.max(0, w - 1) / room);
      used = w % room === 0 && w > 0 ? room : w % room;
    }
  }
  return rows;
}

/** The least diff lines the box shows, however small the screen. */
const MIN_DIFF_LINES = 1;

/**
 * How many diff lines the permission box can show on a screen of `rows` x `columns` with
 * the status and input lines under it: the screen less the box's frame, the tool call's
 * title, the options (as they wrap) and the keys' line.
 */
export function diffBudget(
  rows: number,
  columns: number,
  title: string,
  options: readonly PermissionOption[],
): number {
  // The box's border and padding, and the option's "❯ 1. " before its name.
  const inner = columns - 4;
  const optionRows = options.reduce(
    (sum, option) => sum + wrappedRows(option.name, inner - `❯ ${options.length}. `.length),
    0,
  );
  // The tool call's row: its mark and kind (up to 9 columns), then its title.
  const titleRows = wrappedRows(title, inner - 9);
  // Around them: 2 spare rows and 3 for the status and input lines (see `app.tsx`), the
  // box's margin and border (3), "Permission requested", the diff's path and hunk line,
  // the gap above the options, the keys' line, and one for a status line that wraps.
  const fixed = 2 + 3 + 3 + 1 + 2 + 1 + 1 + 1;
  return Math.max(MIN_DIFF_LINES, rows - fixed - titleRows - optionRows);
}

/** See the module comment. */
export function QuestionView({
  question,
  state,
  terminals,
}: {
  question: PendingQuestion;
  /** The session's state: the question shows the tool call as the thread has it. */
  state: SessionState | undefined;
  terminals: ReadonlyMap<string, string>;
}): ReactNode {
  const { request } = question;
  const options = request.options;
  // The box must fit on the screen with the status and input lines, or its top (the
  // border, what is asked) would be cut off: the diff gets what the rest leaves.
  const { stdout } = useStdout();
  const rows = stdout.rows || 24;
  const columns = stdout.columns || 80;
  const choose = (option: PermissionOption | undefined): void => {
    question.answer(
      option === undefined
        ? { outcome: "cancelled" }
        : { outcome: "selected", optionId: option.optionId },
    );
  };
  // The highlighted option is read when the key comes, not from the last render: `↓` and
  // `Enter` in one chunk must choose the option below (see `selection.ts`).
  const { index, onKey } = useSelection(
    options.length,
    {
      onChoose: (i) => choose(options[i]),
      onEscape: () => choose(escapeOption(options)),
    },
    true,
    safeDefaultOption(options),
  );
  useKeys(onKey);
  const call = toolCallInQuestion(state, request.toolCall);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1} marginTop={1}>
      <Text bold color="yellow">
        Permission requested
      </Text>
      <ToolCallView
        call={call}
        terminals={terminals}
        expanded
        maxDiffLines={diffBudget(rows, columns, call.title, options)}
      />
      <Box flexDirection="column" marginTop={1}>
        {options.map((option, i) => (
          // A long name wraps under itself, inside the box.
          <Box key={option.optionId} flexDirection="row">
            <Box flexShrink={0}>
              <Text color={i === index ? "cyan" : KIND_COLORS[option.kind]}>
                {i === index ? "❯ " : "  "}
                {`${i + 1}. `}
              </Text>
            </Box>
            <Box flexShrink={1}>
              <Text color={i === index ? "cyan" : KIND_COLORS[option.kind]}>{option.name}</Text>
            </Box>
          </Box>
        ))}
      </Box>
      <Text dimColor>{`↑↓ choose · Enter confirm · 1-${options.length} pick · Esc reject`}</Text>
    </Box>
  );
}

/**
 * The oldest permission question waiting, if any. Each question gets a view of its own
 * (keyed by its id), so that no selection carries over from one question to the next.
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
    />
  );
}
