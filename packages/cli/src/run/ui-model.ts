/**
 * The state of the interactive view that is not protocol state: the permission and
 * authentication questions waiting for the user, notices, terminal output, and view
 * toggles. Lives outside React so that the view can be unmounted and mounted again.
 *
 * @module
 */
import type { RequestPermissionOutcome, RequestPermissionRequest } from "acp-kit";
import type { PermissionPromptInfo } from "acp-kit/node";
import type { TerminalOutputEvent } from "acp-kit/node";
import type { PlanEntry } from "acp-kit";
import { threadSlice, type AgentTerminal, type SessionState, type ThreadItem } from "acp-kit";
import { terminalOutputText } from "acp-kit/v2";
import { ViewState } from "../view-state.js";

/** A permission request waiting for the user's answer. */
export interface PendingQuestion {
  /** Unique per question, so that a view of one is never reused for the next. */
  readonly id: number;
  readonly request: RequestPermissionRequest;
  /** Answers the request (an option id, or cancelled). */
  readonly answer: (outcome: RequestPermissionOutcome) => void;
}

/** A line the client itself shows (not from the agent). */
export interface Notice {
  readonly id: number;
  readonly level: "info" | "warn" | "error";
  readonly text: string;
}

/** Something printed once, above the live area, in order. */
export type TranscriptEntry =
  | { readonly key: string; readonly kind: "item"; readonly item: ThreadItem }
  | { readonly key: string; readonly kind: "notice"; readonly notice: Notice }
  | { readonly key: string; readonly kind: "plan"; readonly entries: readonly PlanEntry[] };

/**
 * What of a plan is shown (each entry's status, priority and content), as one string, to
 * tell a changed plan from a repeated one. Only those fields: an entry's `_meta` may nest
 * without limit and is never shown, so it is never walked.
 */
function planKey(plan: readonly PlanEntry[]): string {
  return plan
    .map((e) => {
      const text = typeof e.content === "string" ? e.content : "";
      return `${e.status}\u0000${e.priority}\u0000${text}`;
    })
    .join("\u0001");
}

/** The most terminal output kept per terminal for display. */
const TERMINAL_TAIL_CHARS = 8 * 1024;

/** See the module comment. */
export class UiModel extends ViewState {
  /** Permission requests waiting for an answer, oldest first. */
  questions: PendingQuestion[] = [];
  /** What has been printed above the live area (append-only). */
  transcript: TranscriptEntry[] = [];
  /**
   * How many {@link UiModel.transcript} entries a view has printed, over every time it was
   * mounted (a terminal login unmounts it for a while): a view mounted again prints only
   * the entries after these.
   */
  printedEntries = 0;
  /** How many thread items of each session are in the transcript. */
  private readonly settled = new Map<string, number>();
  /** The plan printed last for each session (its {@link planKey}), so that an unchanged one is not repeated. */
  private readonly printedPlans = new Map<string, string>();
  /** Bumped by each replay, so that a replayed item gets a new key. */
  private readonly generations = new Map<string, number>();
  /** The recent output of each terminal, by terminal id. */
  readonly terminals = new Map<string, string>();
  /** The v2 agent terminals last read by {@link UiModel.followAgentTerminals}, by id. */
  private readonly agentTerminals = new Map<string, AgentTerminal>();
  /** Whether thoughts are shown in full (Ctrl-T). */
  showThoughts = false;
  /** Whether tool output is shown in full rather than folded to a few lines (Ctrl-O). */
  showToolOutput = false;
  /** Set when the view is to close: it draws its last frame without the live area. */
  leaving = false;
  private nextNotice = 0;
  private nextQuestion = 0;

  /** The permission prompt to hand to the broker: queues the question for the user. */
  askPermission = (
    request: RequestPermissionRequest,
    info: PermissionPromptInfo,
  ): Promise<RequestPermissionOutcome | undefined> =>
    new Promise((resolve) => {
      // A turn cancelled before the question was even shown: nothing to ask.
      if (info.signal.aborted) {
        resolve({ outcome: "cancelled" });
        return;
      }
      let settled = false;
      const onAbort = (): void => question.answer({ outcome: "cancelled" });
      const question: PendingQuestion = {
        id: this.nextQuestion++,
        request,
        answer: (outcome) => {
          if (settled) return;
          settled = true;
          info.signal.removeEventListener("abort", onAbort);
          this.questions = this.questions.filter((q) => q !== question);
          this.changed();
          resolve(outcome);
        },
      };
      info.signal.addEventListener("abort", onAbort, { once: true });
      this.questions = [...this.questions, question];
      this.changed();
    });

  /** Prints a notice. */
  notify(level: Notice["level"], text: string): void {
    const notice = { id: this.nextNotice++, level, text };
    this.transcript = [...this.transcript, { key: `n${notice.id}`, kind: "notice", notice }];
    this.changed();
  }

  /** How many thread items of a session have been printed. */
  settledCount(sessionId: string): number {
    return this.settled.get(sessionId) ?? 0;
  }

  /**
   * Prints the session's thread items from the last settled one up to `upTo` (they stop
   * changing on screen), then `plan` when given and different from the one printed last.
   * Only those items are read from `state`, never the whole thread.
   */
  settle(
    sessionId: string,
    state: SessionState,
    upTo: number,
    plan: readonly PlanEntry[] | null,
  ): void {
    const from = this.settledCount(sessionId);
    const prefix = `${sessionId}#${this.generations.get(sessionId) ?? 0}`;
    const added: TranscriptEntry[] = threadSlice(state, from, upTo).map((item, i) => ({
      key: `${prefix}:${from + i}`,
      kind: "item" as const,
      item,
    }));
    const planText = plan === null || plan.length === 0 ? undefined : planKey(plan);
    if (planText !== undefined && planText !== this.printedPlans.get(sessionId)) {
      this.printedPlans.set(sessionId, planText);
      added.push({ key: `${prefix}:plan:${this.nextNotice++}`, kind: "plan", entries: plan ?? [] });
    }
    if (added.length === 0) return;
    this.transcript = [...this.transcript, ...added];
    this.settled.set(sessionId, Math.max(from, upTo));
    this.changed();
  }

  /**
   * Prints a session's thread again from its start at the next {@link UiModel.settle}:
   * for a session being loaded, whose history the agent replays.
   */
  replay(sessionId: string): void {
    this.settled.set(sessionId, 0);
    this.generations.set(sessionId, (this.generations.get(sessionId) ?? 0) + 1);
  }

  /** Records terminal output. */
  onTerminalOutput = (event: TerminalOutputEvent): void => {
    const previous = this.terminals.get(event.terminalId) ?? "";
    const next = previous + event.text;
    this.terminals.set(
      event.terminalId,
      next.length > TERMINAL_TAIL_CHARS ? next.slice(-TERMINAL_TAIL_CHARS) : next,
    );
    this.changed();
  };

  /**
   * Takes the output of a v2 agent's own terminals from `state` (decoded) into
   * {@link UiModel.terminals}, where tool calls that embed them find it. Only terminals
   * that changed since the last call are decoded again. Does not signal a change: call it
   * while drawing the state it reads.
   */
  followAgentTerminals(state: SessionState): void {
    for (const terminal of state.terminals) {
      if (this.agentTerminals.get(terminal.terminalId) === terminal) continue;
      this.agentTerminals.set(terminal.terminalId, terminal);
      const text = terminalOutputText(terminal);
      this.terminals.set(
        terminal.terminalId,
        text.length > TERMINAL_TAIL_CHARS ? text.slice(-TERMINAL_TAIL_CHARS) : text,
      );
    }
  }

  /** Closes the view (see {@link UiModel.leaving}). */
  leave(): void {
    if (this.leaving) return;
    this.leaving = true;
    this.changed();
  }

  /** Toggles full thoughts. */
  toggleThoughts(): void {
    this.showThoughts = !this.showThoughts;
    this.changed();
  }

  /** Toggles full tool output. */
  toggleToolOutput(): void {
    this.showToolOutput = !this.showToolOutput;
    this.changed();
  }

  /**
   * Prints a thread item again, below what is printed (printed rows cannot change: a row
   * shown in full after all is printed anew).
   */
  printAgain(item: ThreadItem): void {
    const key = `again${this.nextNotice++}`;
    this.transcript = [...this.transcript, { key, kind: "item", item }];
    this.changed();
  }
}
