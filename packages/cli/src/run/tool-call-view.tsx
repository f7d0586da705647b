/**
 * Tool calls as live rows: status, kind and title, then their content — text, a coloured
 * diff, or the live output of an embedded terminal.
 *
 * @module
 */
import { structuredPatch } from "diff";
import { Box, Text } from "ink";
import Spinner from "ink-spinner";
import type { ReactNode } from "react";
import type { ToolCallContent } from "acp-kit";
import type { ThreadToolCall } from "acp-kit";
import { contentText, toolText } from "./text.js";

const KIND_LABELS: Readonly<Record<string, string>> = {
  read: "read",
  edit: "edit",
  delete: "delete",
  move: "move",
  search: "search",
  execute: "run",
  think: "think",
  fetch: "fetch",
  switch_mode: "mode",
  other: "tool",
};

/**
 * How many lines of a diff, text content or terminal output a row shows at most: folded
 * (the default: a read result shows its start, a command the end of its output), and with
 * the output shown in full (Ctrl-O, see `tool-output-key.ts`; still bounded, a result may
 * be megabytes).
 */
const MAX_DIFF_LINES = 40;
const FOLDED_TEXT_LINES = 4;
const FOLDED_TERMINAL_LINES = 5;
const FULL_LINES = 2000;

/** The key that shows tool output in full, as the fold line names it. */
export const EXPAND_KEY = "Ctrl-O";

/** "… N more lines", with the key to expand them while they are folded. */
function moreText(hidden: number, which: "more" | "earlier", folded: boolean): string {
  const lines = `${hidden} ${which} ${hidden === 1 ? "line" : "lines"}`;
  return folded ? `… ${lines} (${EXPAND_KEY} to expand)` : `… ${lines}`;
}

function StatusIcon({ call }: { call: ThreadToolCall }): ReactNode {
  if (call.cancelled && call.status !== "completed" && call.status !== "failed") {
    return <Text color="gray">⊘</Text>;
  }
  switch (call.status) {
    case "completed":
      return <Text color="green">✓</Text>;
    case "failed":
      return <Text color="red">✗</Text>;
    case "in_progress":
      return (
        <Text color="cyan">
          <Spinner type="dots" />
        </Text>
      );
    default:
      return <Text color="yellow">○</Text>;
  }
}

/** A coloured unified diff of `oldText` → `newText` for `path`. */
export function DiffView({
  path,
  oldText,
  newText,
  maxLines = MAX_DIFF_LINES,
  folded = false,
}: {
  path: string;
  oldText: string | null;
  newText: string;
  /** The most diff lines shown (default 40). */
  maxLines?: number;
  /** Whether the lines left out can be shown with {@link EXPAND_KEY} (it says so). */
  folded?: boolean;
}): ReactNode {
  const patch = structuredPatch(path, path, oldText ?? "", newText, "", "", { context: 2 });
  const lines: ReactNode[] = [];
  let shown = 0;
  let hidden = 0;
  patch.hunks.forEach((hunk, h) => {
    const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
    if (shown < maxLines) {
      lines.push(
        <Text key={`h${h}`} color="cyan" dimColor>
          {header}
        </Text>,
      );
    }
    hunk.lines.forEach((line, i) => {
      // "\ No newline at end of file" is a patch's note for tools, not a change.
      if (line.startsWith("\\")) return;
      if (shown >= maxLines) {
        hidden++;
        return;
      }
      shown++;
      const color = line.startsWith("+") ? "green" : line.startsWith("-") ? "red" : undefined;
      lines.push(
        <Text
          key={`${h}.${i}`}
          color={color}
          dimColor={color === undefined}
          wrap={folded ? "truncate-end" : "wrap"}
        >
          {line}
        </Text>,
      );
    });
  });
  return (
    <Box flexDirection="column">
      <Text dimColor>{oldText === null ? `new file ${path}` : path}</Text>
      {patch.hunks.length === 0 ? (
        <Text dimColor>(no changes: the file already has this text)</Text>
      ) : null}
      {lines}
      {hidden > 0 ? <Text dimColor>{moreText(hidden, "more", folded)}</Text> : null}
    </Box>
  );
}

/** One file of an ACP v2 diff: what happened to it. */
interface V2DiffChange {
  readonly operation: string;
  readonly path: string;
  readonly oldPath?: string;
}

/** An ACP v2 diff (a list of changed files, and maybe a git patch), as a v2 agent sends it. */
interface V2Diff {
  readonly changes: readonly V2DiffChange[];
  readonly patch?: { readonly format: string; readonly text: string } | null;
}

function isV2Diff(content: object): content is V2Diff {
  return Array.isArray((content as { changes?: unknown }).changes);
}

function changeLabel(change: V2DiffChange): string {
  const path = clip(change.path);
  switch (change.operation) {
    case "add":
      return `new file ${path}`;
    case "delete":
      return `deleted ${path}`;
    case "move":
      return `moved ${clip(change.oldPath ?? "?")} → ${path}`;
    case "copy":
      return `copied ${clip(change.oldPath ?? "?")} → ${path}`;
    default:
      return path;
  }
}

/**
 * An ACP v2 diff: the files it changes, then its patch coloured (hunks and their lines;
 * the patch's own headers and "\ No newline at end of file" markers are left out).
 */
export function PatchView({
  diff,
  maxLines = MAX_DIFF_LINES,
  folded = false,
}: {
  diff: V2Diff;
  /** The most patch lines shown (default 40). */
  maxLines?: number;
  /** Whether the lines left out can be shown with {@link EXPAND_KEY} (it says so). */
  folded?: boolean;
}): ReactNode {
  const shown: ReactNode[] = [];
  let hidden = 0;
  let inHunk = false;
  const text = diff.patch?.text ?? "";
  for (const [i, line] of text.split("\n").entries()) {
    if (line.startsWith("diff --git ")) inHunk = false;
    if (line.startsWith("@@")) inHunk = true;
    if (!inHunk || line.startsWith("\\ ")) continue;
    if (shown.length >= maxLines) {
      hidden++;
      continue;
    }
    const color = line.startsWith("@@")
      ? "cyan"
      : line.startsWith("+")
        ? "green"
        : line.startsWith("-")
          ? "red"
          : undefined;
    shown.push(
      <Text
        key={i}
        color={color}
        dimColor={color === undefined || color === "cyan"}
        wrap={folded ? "truncate-end" : "wrap"}
      >
        {clip(line, MAX_LINE_CHARS)}
      </Text>,
    );
  }
  return (
    <Box flexDirection="column">
      {diff.changes.map((change, i) => (
        <Text key={`c${i}`} dimColor>
          {changeLabel(change)}
        </Text>
      ))}
      {shown}
      {hidden > 0 ? <Text dimColor>{moreText(hidden, "more", folded)}</Text> : null}
    </Box>
  );
}

function tail(text: string, max: number): { lines: string[]; hidden: number } {
  const all = text.replace(/\n$/, "").split("\n");
  return { lines: all.slice(-max), hidden: Math.max(0, all.length - max) };
}

function head(text: string, max: number): { lines: string[]; hidden: number } {
  const all = text.replace(/\n$/, "").split("\n");
  return { lines: all.slice(0, max), hidden: Math.max(0, all.length - max) };
}

function ContentView({
  content,
  terminals,
  maxDiffLines,
  full,
}: {
  content: ToolCallContent;
  terminals: ReadonlyMap<string, string>;
  maxDiffLines?: number | undefined;
  full: boolean;
}): ReactNode {
  switch (content.type) {
    case "diff":
      if (isV2Diff(content)) {
        return (
          <PatchView
            diff={content}
            maxLines={full ? FULL_LINES : (maxDiffLines ?? MAX_DIFF_LINES)}
            folded={!full}
          />
        );
      }
      return (
        <DiffView
          path={content.path}
          oldText={content.oldText ?? null}
          newText={content.newText}
          maxLines={full ? FULL_LINES : (maxDiffLines ?? MAX_DIFF_LINES)}
          folded={!full}
        />
      );
    case "terminal": {
      const output = terminals.get(content.terminalId) ?? "";
      const { lines, hidden } = tail(output, full ? FULL_LINES : FOLDED_TERMINAL_LINES);
      return (
        <Box flexDirection="column" borderStyle="single" borderColor="gray" paddingX={1}>
          {hidden > 0 ? <Text dimColor>{moreText(hidden, "earlier", !full)}</Text> : null}
          {output === "" ? (
            <Text dimColor>(no output yet)</Text>
          ) : (
            lines.map((l, i) => (
              <Text key={i} wrap={full ? "wrap" : "truncate-end"}>
                {clip(l, MAX_LINE_CHARS)}
              </Text>
            ))
          )}
        </Box>
      );
    }
    case "content": {
      // Made for a model or an editor: Claude's reminders and fences go (see `toolText`).
      const text = toolText(contentText(content.content));
      const { lines, hidden } = head(text, full ? FULL_LINES : FOLDED_TEXT_LINES);
      return (
        <Box flexDirection="column">
          {lines.map((l, i) => (
            <Text key={i} dimColor wrap={full ? "wrap" : "truncate-end"}>
              {clip(l, MAX_LINE_CHARS)}
            </Text>
          ))}
          {hidden > 0 ? <Text dimColor>{moreText(hidden, "more", !full)}</Text> : null}
        </Box>
      );
    }
    default:
      return <Text dimColor>(content of a kind this version does not show)</Text>;
  }
}

function lineCount(text: string): number {
  return text.replace(/\n$/, "").split("\n").length;
}

/** Whether `call`'s content, folded, leaves lines out (which {@link EXPAND_KEY} shows). */
export function foldsOutput(call: ThreadToolCall, terminals: ReadonlyMap<string, string>): boolean {
  return call.content.some((content) => {
    switch (content.type) {
      case "terminal":
        return lineCount(terminals.get(content.terminalId) ?? "") > FOLDED_TERMINAL_LINES;
      case "content":
        return lineCount(toolText(contentText(content.content))) > FOLDED_TEXT_LINES;
      case "diff": {
        if (isV2Diff(content)) return lineCount(content.patch?.text ?? "") > MAX_DIFF_LINES;
        const patch = structuredPatch("", "", content.oldText ?? "", content.newText, "", "", {
          context: 2,
        });
        return patch.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0) > MAX_DIFF_LINES;
      }
      default:
        return false;
    }
  });
}

/** The most characters of a title or a location shown on a tool call's line. */
const MAX_LABEL_CHARS = 500;

/** The most characters of one line of content or terminal output shown. */
const MAX_LINE_CHARS = 2000;

/** `text` cut to `max` characters (a title or a line may be megabytes: it stays short). */
function clip(text: string, max = MAX_LABEL_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * One tool call. `expanded` shows its content: folded to a few lines, or in full with
 * `full` (see {@link EXPAND_KEY}).
 */
export function ToolCallView({
  call,
  terminals,
  expanded,
  maxDiffLines,
  full = false,
}: {
  call: ThreadToolCall;
  terminals: ReadonlyMap<string, string>;
  expanded: boolean;
  /** The most lines of a diff shown while folded (default 40). */
  maxDiffLines?: number | undefined;
  /** Shows the content in full (up to a bound), not folded. */
  full?: boolean | undefined;
}): ReactNode {
  const locations = call.locations.map((l) =>
    clip(l.line == null ? l.path : `${l.path}:${l.line}`),
  );
  return (
    <Box flexDirection="column">
      {/* A long title wraps under itself, after the mark and the kind. */}
      <Box flexDirection="row">
        <Box flexShrink={0}>
          <Text>
            <StatusIcon call={call} />{" "}
            <Text color="magenta">{KIND_LABELS[call.kind] ?? call.kind}</Text>{" "}
          </Text>
        </Box>
        <Box flexShrink={1}>
          <Text>
            <Text bold>{clip(call.title === "" ? call.toolCallId : call.title)}</Text>
            {locations.length > 0 && !call.content.some((c) => c.type === "diff") ? (
              <Text dimColor> {locations.join(", ")}</Text>
            ) : null}
          </Text>
        </Box>
      </Box>
      {expanded && call.content.length > 0 ? (
        <Box flexDirection="column" marginLeft={2}>
          {call.content.map((content, i) => (
            <ContentView
              key={i}
              content={content}
              terminals={terminals}
              maxDiffLines={maxDiffLines}
              full={full}
            />
          ))}
        </Box>
      ) : null}
    </Box>
  );
}
