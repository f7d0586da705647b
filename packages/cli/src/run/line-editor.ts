/**
 * The editing of the input line, as pure functions over its state: a cursor, the usual
 * terminal keys (←/→, Home/End, Ctrl-A/E/U/K/W, Backspace), history with the draft kept,
 * Tab cycling through completions (slash commands, and the values of some), and pastes (several lines arrive at
 * once and are kept, not sent line by line).
 *
 * Keys reach it as Ink reports them; a chunk of raw input that holds several keys (a
 * held Backspace, text and Tab sent together) is taken apart here.
 *
 * @module
 */

/** The keys of a key press, as Ink reports them (the ones used here). */
export interface KeyPress {
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly leftArrow?: boolean;
  readonly rightArrow?: boolean;
  readonly home?: boolean;
  readonly end?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly shift?: boolean;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  readonly tab?: boolean;
  readonly backspace?: boolean;
  readonly delete?: boolean;
}

/** The input line. */
export interface LineState {
  readonly text: string;
  /** Where the cursor is, in UTF-16 units, at a code point boundary. */
  readonly cursor: number;
  /** Steps back into the history (0: the line being written). */
  readonly back: number;
  /** The line being written, kept while the history is browsed. */
  readonly draft: string;
  /** Tab cycling: the completed lines offered and the one shown, while Tab is pressed. */
  readonly cycle?: { readonly lines: readonly string[]; readonly index: number } | undefined;
}

/** An empty line. */
export const EMPTY_LINE: LineState = { text: "", cursor: 0, back: 0, draft: "" };

/** What one key press did. */
export interface EditResult {
  readonly state: LineState;
  /** Text to send (Enter on a line that can be sent). */
  readonly submit?: string;
}

/** What the editor needs to know besides the key. */
export interface EditContext {
  /** Sent lines, oldest first. */
  readonly history: readonly string[];
  /**
   * The lines completing what is typed, each replacing the whole line (`/mo` → `/mode `,
   * `/model `; `/mode c` → `/mode code`).
   */
  readonly complete: (text: string) => readonly string[];
  /** Whether Enter sends now (not while a turn runs). */
  readonly canSubmit: boolean;
}

function at(state: LineState, text: string, cursor: number): LineState {
  return { ...state, text, cursor, cycle: undefined };
}

function insert(state: LineState, chars: string): LineState {
  const { text, cursor } = state;
  return at(state, text.slice(0, cursor) + chars + text.slice(cursor), cursor + chars.length);
}

/** The index one code point before `i`. */
function before(text: string, i: number): number {
  if (i <= 0) return 0;
  const low = text.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? i - 2 : i - 1;
}

/** The index one code point after `i`. */
function after(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const high = text.charCodeAt(i);
  return high >= 0xd800 && high <= 0xdbff && i + 2 <= text.length ? i + 2 : i + 1;
}

function backspace(state: LineState): LineState {
  const { text, cursor } = state;
  const from = before(text, cursor);
  return at(state, text.slice(0, from) + text.slice(cursor), from);
}

/** Deletes the word before the cursor (and the spaces after it), like a shell's Ctrl-W. */
function deleteWord(state: LineState): LineState {
  const { text, cursor } = state;
  let from = cursor;
  while (from > 0 && /\s/.test(text[from - 1] ?? "")) from--;
  while (from > 0 && !/\s/.test(text[from - 1] ?? "")) from--;
  return at(state, text.slice(0, from) + text.slice(cursor), from);
}

/** `cursor` moved back to a code point boundary (not between the halves of a pair). */
function boundary(text: string, cursor: number): number {
  const low = text.charCodeAt(cursor);
  return low >= 0xdc00 && low <= 0xdfff ? cursor - 1 : cursor;
}

/** The cursor on the line above, in the same column (or that line's end); none on the first. */
function lineAbove(state: LineState): LineState | undefined {
  const { text, cursor } = state;
  const start = text.lastIndexOf("\n", cursor - 1) + 1;
  if (start === 0) return undefined;
  const above = text.lastIndexOf("\n", start - 2) + 1;
  const column = Math.min(cursor - start, start - 1 - above);
  return at(state, text, boundary(text, above + column));
}

/** The cursor on the line below, in the same column (or that line's end); none on the last. */
function lineBelow(state: LineState): LineState | undefined {
  const { text, cursor } = state;
  const end = text.indexOf("\n", cursor);
  if (end === -1) return undefined;
  const start = text.lastIndexOf("\n", cursor - 1) + 1;
  const next = end + 1;
  const nextEnd = text.indexOf("\n", next);
  const column = Math.min(cursor - start, (nextEnd === -1 ? text.length : nextEnd) - next);
  return at(state, text, boundary(text, next + column));
}

function browse(state: LineState, delta: number, history: readonly string[]): LineState {
  const back = Math.max(0, Math.min(history.length, state.back + delta));
  if (back === state.back) return state;
  const draft = state.back === 0 ? state.text : state.draft;
  const text = back === 0 ? draft : (history[history.length - back] ?? "");
  return { text, cursor: text.length, back, draft, cycle: undefined };
}

function complete(state: LineState, context: EditContext): LineState {
  if (state.cycle !== undefined && state.cycle.lines.length > 0) {
    const index = (state.cycle.index + 1) % state.cycle.lines.length;
    const text = state.cycle.lines[index] ?? "";
    return { ...state, text, cursor: text.length, cycle: { lines: state.cycle.lines, index } };
  }
  const lines = context.complete(state.text);
  const first = lines[0];
  if (first === undefined) return state;
  return { ...state, text: first, cursor: first.length, cycle: { lines, index: 0 } };
}

function enter(state: LineState, context: EditContext): EditResult {
  // `\` then Enter: a new line instead of the backslash (as in a shell).
  if (state.text.slice(0, state.cursor).endsWith("\\")) {
    const { text, cursor } = state;
    return { state: at(state, `${text.slice(0, cursor - 1)}\n${text.slice(cursor)}`, cursor) };
  }
  const text = state.text.trim();
  if (text === "" || !context.canSubmit) return { state };
  return { state: EMPTY_LINE, submit: text };
}

/**
 * Inserts pasted text at the cursor (a bracketed paste): its line breaks are kept, as `\n`,
 * and other control characters dropped.
 */
export function insertPaste(state: LineState, raw: string): LineState {
  return insert(state, pasteText(raw));
}

/** Keeps text, tabs and line breaks (as `\n`) of a paste; drops other control characters. */
function pasteText(raw: string): string {
  return (
    raw
      .replace(/\r\n?/g, "\n")
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
  );
}

/**
 * A chunk with a line break before its end is a paste (from a terminal without bracketed
 * paste): its lines are kept together.
 */
export function isPaste(raw: string): boolean {
  const body = raw.replace(/(\r\n|\r|\n)$/, "");
  return /[\r\n]/.test(body);
}

/** Takes a chunk of raw characters apart: text, and the control keys among it. */
function applyRaw(state: LineState, raw: string, context: EditContext): EditResult {
  if (isPaste(raw)) return { state: insert(state, pasteText(raw)) };
  let current = state;
  let text = "";
  const flush = (): void => {
    if (text !== "") current = insert(current, text);
    text = "";
  };
  for (const ch of raw) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x20 && code !== 0x7f) {
      text += ch;
      continue;
    }
    flush();
    if (ch === "\r" || ch === "\n") return enter(current, context);
    if (ch === "\u007f" || ch === "\b") current = backspace(current);
    else if (ch === "\t") current = complete(current, context);
    else if (ch === "\u0015") current = at(current, current.text.slice(current.cursor), 0);
    else if (ch === "\u0017") current = deleteWord(current);
    else if (ch === "\u0001") current = at(current, current.text, 0);
    else if (ch === "\u0005") current = at(current, current.text, current.text.length);
    else if (ch === "\u000b") {
      current = at(current, current.text.slice(0, current.cursor), current.cursor);
    }
    // Other control characters (a Ctrl-C that came with other keys, ...) are not text.
  }
  flush();
  return { state: current };
}

/** Applies one key press (or one chunk of input) to the line. */
export function editLine(
  state: LineState,
  input: string,
  key: KeyPress,
  context: EditContext,
): EditResult {
  const { text, cursor } = state;
  // Shift-Enter (kitty's `CSI 13;2u`; xterm's `CSI 27;2;13~`, see `routedKey`), or Alt-Enter
  // (`ESC CR`, what some terminals send for Shift-Enter): a new line.
  if (key.return && (key.shift === true || key.meta === true))
    return { state: insert(state, "\n") };
  if (key.return) return enter(state, context);
  if (key.tab) return { state: complete(state, context) };
  // In a text of several lines, ↑/↓ move between its lines; from its first (last) line
  // they walk the history.
  if (key.upArrow) return { state: lineAbove(state) ?? browse(state, 1, context.history) };
  if (key.downArrow) return { state: lineBelow(state) ?? browse(state, -1, context.history) };
  if (key.leftArrow) return { state: at(state, text, before(text, cursor)) };
  if (key.rightArrow) return { state: at(state, text, after(text, cursor)) };
  if (key.home) return { state: at(state, text, 0) };
  if (key.end) return { state: at(state, text, text.length) };
  // Terminals send Backspace as DEL, which Ink reports as `delete`: both delete backwards.
  if (key.backspace || key.delete) return { state: backspace(state) };
  if (key.escape) return { state: { ...state, cycle: undefined } };
  if (key.ctrl) {
    switch (input) {
      case "a":
        return { state: at(state, text, 0) };
      case "e":
        return { state: at(state, text, text.length) };
      case "u":
        return { state: at(state, text.slice(cursor), 0) };
      case "k":
        return { state: at(state, text.slice(0, cursor), cursor) };
      case "w":
        return { state: deleteWord(state) };
      default:
        return { state };
    }
  }
  if (key.meta) return { state };
  return applyRaw(state, input, context);
}
