/**
 * The composer of the live view, as a state class the view draws: the text being written
 * (with its cursor, see `line-editor.ts`), bracketed pastes, the prompt history (↑/↓ and
 * Ctrl-R), `@file` completion, the prompts queued while a turn runs or the agent starts,
 * and what Ctrl-C and Esc mean at each moment.
 *
 * Keys can arrive faster than React draws (a paste, or keys a multiplexer sends in one
 * write), so every key works on this object's state at once; the view subscribes to it
 * ({@link Composer.subscribe}) and draws its latest state.
 *
 * @module
 */
import type { ControllerPhase } from "../controller.js";
import {
  EMPTY_LINE,
  editLine,
  insertPaste,
  isPaste,
  type KeyPress,
  type LineState,
} from "./line-editor.js";
import { matchFiles, mentionAt } from "./mentions.js";
import { memoryHistory, type PromptHistory } from "./prompt-history.js";
import { ViewState } from "../view-state.js";

/** Turns bracketed paste on in the terminal: pastes then come between the two markers. */
export const ENABLE_BRACKETED_PASTE = "\u001b[?2004h";
/** Turns bracketed paste off again (on leaving). */
export const DISABLE_BRACKETED_PASTE = "\u001b[?2004l";
/** What hides the cursor (Ink draws its own; an editor run meanwhile may have shown it). */
export const HIDE_CURSOR = "\u001b[?25l";

/** A key as the composer needs it: Ink's key flags (those used), and a paste's marks. */
export interface ComposerKey extends KeyPress {
  /** The start or the end of a bracketed paste (see `routedKey` in keys.tsx). */
  readonly paste?: "start" | "end" | undefined;
}

/** What the composer needs to know besides the key. */
export interface ComposerContext {
  /** Whether Enter sends now. */
  readonly canSubmit: boolean;
  /** Whole-line completions of what is typed (slash commands and their values). */
  readonly complete: (text: string) => readonly string[];
}

/** Options of {@link Composer}. */
export interface ComposerOptions {
  /** The prompts sent before (default: an empty history in memory). */
  readonly history?: PromptHistory;
  /** The files `@` completes, relative to the session's directory (default: none). */
  readonly files?: () => readonly string[];
  /**
   * Whether the terminal was asked for bracketed paste: then a line break outside a paste
   * is Enter, whatever came with it (lines typed ahead are separate prompts). Without it,
   * a chunk with a line break inside is taken as a paste (default: false).
   */
  readonly bracketedPaste?: boolean;
}

/** A Ctrl-R search of the history: what is typed, and the entry found (its index). */
export interface HistorySearch {
  readonly query: string;
  /** The index in the history of the entry shown, if one matches. */
  readonly hit: number | undefined;
  /** The line as it was when the search started (Esc goes back to it). */
  readonly before: LineState;
}

/** What a Ctrl-C did. */
export type InterruptAction = "cancel-turn" | "stop-shell" | "armed" | "quit";

/** What an Esc did. */
export type EscapeAction = "queue-cleared" | "cancel-turn" | "none";

/** Whether input is text only (no control character). */
function isText(input: string): boolean {
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/** A chunk of raw input taken apart into its text runs and control keys, as Ink reports them. */
function splitKeys(raw: string): [string, ComposerKey][] {
  const keys: [string, ComposerKey][] = [];
  let text = "";
  for (let i = 0; i < raw.length; i++) {
    const ch = raw.charAt(i);
    const code = raw.charCodeAt(i);
    if (code >= 0x20 && code !== 0x7f) {
      text += ch;
      continue;
    }
    if (text !== "") keys.push([text, {}]);
    text = "";
    if (ch === "\r" || ch === "\n") keys.push(["", { return: true }]);
    else if (ch === "\t") keys.push(["", { tab: true }]);
    else if (ch === "\u007f" || ch === "\b") keys.push(["", { backspace: true }]);
    else if (ch === "\u001b") keys.push(["", { escape: true }]);
    else if (code >= 1 && code <= 26) {
      keys.push([String.fromCharCode(code + 96), { ctrl: true }]);
    }
  }
  if (text !== "") keys.push([text, {}]);
  return keys;
}

/** Tab cycling through the files an `@mention` may mean. */
interface MentionCycle {
  readonly before: string;
  readonly after: string;
  readonly files: readonly string[];
  readonly index: number;
}

/** See the module comment. */
export class Composer extends ViewState {
  /** The text being written. */
  line: LineState = EMPTY_LINE;
  /** The Ctrl-R search under way, if any. */
  search: HistorySearch | undefined = undefined;
  /** Whether a bracketed paste is coming in (between its markers). */
  pasting = false;
  /** Prompts waiting for the turn to end (or the agent to start), oldest first. */
  queued: readonly string[] = [];
  /** What the last Ctrl-C or Esc did and what comes next, shown above the status line. */
  hint: string | undefined = undefined;
  private interrupts = 0;
  private escapeTaken = false;
  private mentionCycle: MentionCycle | undefined = undefined;
  private readonly history: PromptHistory;
  private readonly files: () => readonly string[];
  private readonly bracketedPaste: boolean;

  /** @param options - See {@link ComposerOptions}. */
  constructor(options: ComposerOptions = {}) {
    super();
    this.history = options.history ?? memoryHistory();
    this.files = options.files ?? (() => []);
    this.bracketedPaste = options.bracketedPaste ?? false;
  }

  // ---- Editing ----

  /**
   * Applies a key (or a chunk of input) to the text; returns the texts sent (Enter on a
   * line that can be sent; none for most keys). Ctrl-C, Ctrl-T and Shift-Tab are the
   * view's and are left alone.
   */
  key(input: string, key: ComposerKey, context: ComposerContext): string[] {
    this.escapeTaken = false;
    if (key.paste !== undefined) {
      this.pasting = key.paste === "start";
      return [];
    }
    // Inside a paste everything is text, line breaks included (an Esc ends a paste whose
    // end never came).
    if (this.pasting && key.escape !== true) {
      const text = key.return === true ? "\n" : key.tab === true ? "\t" : input;
      this.setLine(insertPaste(this.line, text));
      return [];
    }
    this.pasting = false;
    // Keys that came together in one chunk ("draft" and Ctrl-R, or lines typed ahead, as
    // over SSH or from a multiplexer), one by one. (Without bracketed paste, a chunk with a
    // line break inside is a paste.)
    if (input.length > 1 && !isText(input) && (this.bracketedPaste || !isPaste(input))) {
      return splitKeys(input).flatMap(([text, press]) => this.key(text, press, context));
    }
    if (key.ctrl === true && (input === "c" || input === "t")) return [];
    // Ctrl-G is the view's (the editor), except in a history search, which it leaves.
    if (key.ctrl === true && input === "g" && this.search === undefined) return [];
    if (key.tab === true && key.shift === true) return [];
    if (this.search !== undefined) {
      this.searchKey(input, key);
      return [];
    }
    if (key.ctrl === true && input === "r") {
      this.search = { query: "", hit: undefined, before: this.line };
      this.changed();
      return [];
    }
    if (key.tab === true && this.completeMention()) return [];
    const { state, submit } = editLine(this.line, input, key, {
      history: this.history.entries(),
      canSubmit: context.canSubmit,
      complete: context.complete,
    });
    this.setLine(state);
    if (submit === undefined) return [];
    this.history.add(submit);
    return [submit];
  }

  /** Replaces the text being written (the cursor at its end), as the editor left it. */
  replaceText(text: string): void {
    this.search = undefined;
    this.setLine({ text, cursor: text.length, back: 0, draft: "" });
  }

  /** Sets the line; whatever set it, a Tab cycle through mentions ends (it resumes below). */
  private setLine(line: LineState): void {
    this.line = line;
    this.mentionCycle = undefined;
    this.changed();
  }

  /** The files offered for the `@mention` under the cursor (for the menu under the line). */
  mentionMenu(max = 6): string[] {
    const token = mentionAt(this.line.text, this.line.cursor);
    if (token === undefined || this.search !== undefined) return [];
    return matchFiles(this.files(), token.partial, max);
  }

  /** Tab in an `@mention`: the first file it may mean, then the next. */
  private completeMention(): boolean {
    let cycle = this.mentionCycle;
    if (cycle !== undefined) {
      cycle = { ...cycle, index: (cycle.index + 1) % cycle.files.length };
    } else {
      const { text, cursor } = this.line;
      const token = mentionAt(text, cursor);
      if (token === undefined) return false;
      const files = matchFiles(this.files(), token.partial);
      if (files.length === 0) return true;
      const after = text.slice(token.end);
      cycle = {
        before: text.slice(0, token.start),
        after: /^\s/.test(after) ? after : ` ${after}`,
        files,
        index: 0,
      };
    }
    const head = `${cycle.before}@${cycle.files[cycle.index] ?? ""}`;
    this.setLine({
      ...this.line,
      text: head + cycle.after,
      cursor: head.length + 1,
      cycle: undefined,
    });
    this.mentionCycle = cycle;
    return true;
  }

  // ---- History search (Ctrl-R) ----

  /** The entry a search shows, if any. */
  searchMatch(): string | undefined {
    const hit = this.search?.hit;
    return hit === undefined ? undefined : this.history.entries()[hit];
  }

  /** The newest entry before `from` that holds `query` (case-insensitive). */
  private find(query: string, from: number): number | undefined {
    if (query === "") return undefined;
    const entries = this.history.entries();
    const want = query.toLowerCase();
    for (let i = Math.min(from, entries.length - 1); i >= 0; i--) {
      if ((entries[i] ?? "").toLowerCase().includes(want)) return i;
    }
    return undefined;
  }

  private searchKey(input: string, key: ComposerKey): void {
    const search = this.search;
    if (search === undefined) return;
    const newest = this.history.entries().length - 1;
    if (key.escape === true || (key.ctrl === true && input === "g")) {
      // Back to the line as it was.
      this.escapeTaken = key.escape === true;
      this.search = undefined;
      this.setLine(search.before);
      return;
    }
    if (key.ctrl === true && input === "r") {
      // The next older entry that matches (the same one if there is none).
      const older = search.hit === undefined ? undefined : this.find(search.query, search.hit - 1);
      this.search = { ...search, hit: older ?? search.hit };
      this.changed();
      return;
    }
    if (key.backspace === true || key.delete === true) {
      const query = search.query.slice(0, -1);
      this.search = { ...search, query, hit: this.find(query, newest) };
      this.changed();
      return;
    }
    const typed =
      key.ctrl !== true &&
      key.meta !== true &&
      key.return !== true &&
      key.tab !== true &&
      input !== "" &&
      isText(input);
    if (typed) {
      const query = search.query + input;
      // The entry shown stays while it still matches (as a shell's search does).
      const from = search.hit ?? newest;
      this.search = { ...search, query, hit: this.find(query, from) ?? this.find(query, newest) };
      this.changed();
      return;
    }
    // Enter, Tab, an arrow...: the entry found becomes the line, to edit or send.
    const found = this.searchMatch();
    this.search = undefined;
    if (found === undefined) this.setLine(search.before);
    else this.setLine({ text: found, cursor: found.length, back: 0, draft: "" });
  }

  /**
   * Whether the composer used the last key, an Esc, itself (to leave a search): the view
   * must then not also clear the queue or cancel the turn with it. Reading it clears it.
   */
  takeEscape(): boolean {
    const taken = this.escapeTaken;
    this.escapeTaken = false;
    return taken;
  }

  // ---- The queue ----

  /** Queues a prompt (sent when the turn ends, or the agent is ready). */
  enqueue(text: string): void {
    this.queued = [...this.queued, text];
    this.changed();
  }

  /** Takes the oldest queued prompt off the queue. */
  dequeue(): string | undefined {
    const [next, ...rest] = this.queued;
    if (next === undefined) return undefined;
    this.queued = rest;
    this.changed();
    return next;
  }

  /** Empties the queue; returns how many prompts it held. */
  clearQueue(): number {
    const count = this.queued.length;
    if (count > 0) {
      this.queued = [];
      this.changed();
    }
    return count;
  }

  // ---- Ctrl-C and Esc ----

  /** Shows a hint above the status line (or none). */
  setHint(hint: string | undefined): void {
    if (hint === this.hint) return;
    this.hint = hint;
    this.changed();
  }

  /** How many Ctrl-C a key (or a chunk of keys: `"\x03\x03"`) holds. */
  static interruptsIn(input: string, key: ComposerKey): number {
    if (key.ctrl === true && input === "c") return 1;
    let count = 0;
    for (const ch of input) if (ch === "\u0003") count++;
    return count;
  }

  /** Whether a second Ctrl-C has asked to leave. */
  get leaving(): boolean {
    return this.interrupts >= 2;
  }

  /**
   * A Ctrl-C: the first cancels the running turn (with none, stops the `!command`s
   * running; with none of those either, says that a second one exits); the second in a
   * row exits.
   */
  interrupt(phase: ControllerPhase, shellRunning = false): InterruptAction {
    if (phase === "prompting" && this.interrupts === 0) {
      this.interrupts = 1;
      this.setHint("Cancelling the turn… (Ctrl-C again to exit)");
      return "cancel-turn";
    }
    if (shellRunning && this.interrupts === 0) {
      this.interrupts = 1;
      this.setHint("Stopping the shell command… (Ctrl-C again to exit)");
      return "stop-shell";
    }
    if (this.interrupts === 0 && phase !== "exited") {
      this.interrupts = 1;
      this.setHint("Press Ctrl-C again to exit.");
      return "armed";
    }
    this.interrupts = 2;
    return "quit";
  }

  /** Whether a Ctrl-C was pressed last (a second one would exit). */
  get armed(): boolean {
    return this.interrupts !== 0;
  }

  /** Any key but Ctrl-C, or a prompt sent: only two Ctrl-C in a row exit. Clears the hint. */
  resetInterrupts(): void {
    this.interrupts = 0;
    this.setHint(undefined);
  }

  /** Esc: with prompts queued, clears the queue; else cancels the running turn. */
  escape(phase: ControllerPhase): EscapeAction {
    if (this.queued.length > 0) {
      this.clearQueue();
      this.setHint("Queue cleared.");
      return "queue-cleared";
    }
    if (phase === "prompting") {
      this.setHint("Esc: cancelling the turn…");
      return "cancel-turn";
    }
    return "none";
  }

  /** After each change of the controller: once a cancelled turn has ended, the hint says so. */
  phaseIs(phase: ControllerPhase): void {
    if (phase === "prompting") return;
    if (this.hint?.startsWith("Esc: cancelling") === true) this.setHint(undefined);
    // (The transcript says that the turn was cancelled: the hint only says what is next.)
    if (this.hint?.startsWith("Cancelling") === true) this.setHint("Ctrl-C again to exit.");
  }
}
