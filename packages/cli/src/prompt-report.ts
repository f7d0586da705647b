/**
 * What `acp-kit prompt` prints of a turn without `--json`: the agent's messages on stdout
 * (each message apart from the one before), and on stderr one line per tool call with
 * its outcome, one per permission decision, and how the turn ended.
 *
 * @module
 */
import type { RequestPermissionRequest, RequestPermissionResponse, StopReason } from "acp-kit";
import type { SessionStoreEvent, ThreadItem, ThreadToolCall } from "acp-kit";
import { threadItem, threadLength } from "acp-kit";
import { printable } from "./terminal-text.js";
import { agentText, contentText, toolText } from "./run/text.js";

/** Who answered a permission request. */
export type PermissionDecider =
  | { readonly by: "you" }
  | { readonly by: "policy"; readonly source: string | undefined }
  | { readonly by: "nobody" };

/** How a tool call ended, as {@link PromptReport} counts it. */
export type ToolOutcome = "done" | "failed" | "refused" | "cancelled" | "unfinished";

/** A refusal of a tool call's permission, and who refused. */
interface Refusal {
  readonly decider: PermissionDecider;
}

function deciderText(decider: PermissionDecider): string {
  switch (decider.by) {
    case "you":
      return "you";
    case "policy":
      return decider.source === undefined ? "a policy" : `a policy (${decider.source})`;
    case "nobody":
      return "default (nobody to ask)";
  }
}

/** The first line of a failed tool call's text content, shortened, or `undefined`. */
function failureReason(call: ThreadToolCall): string | undefined {
  for (const item of call.content) {
    if (item.type !== "content") continue;
    const line = toolText(contentText(item.content))
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "");
    if (line !== undefined) return line.length > 100 ? `${line.slice(0, 99)}…` : line;
  }
  return undefined;
}

/** See the module comment. */
export class PromptReport {
  /** Where this turn's items start in the session's thread; `undefined` before the turn. */
  private start: number | undefined;
  private sessionId: string | undefined;
  /** Agent text printed per thread item. */
  private readonly printed = new Map<number, number>();
  /** Tool calls of the turn, by id: their index, and their outcome once printed. */
  private readonly toolCalls = new Map<string, { index: number; outcome?: ToolOutcome }>();
  private readonly refusals = new Map<string, Refusal>();
  private readonly messageIds = new Map<string, number>();
  private lastMessage: number | undefined;
  /** What stdout last ended with: nothing yet, the middle of a line, a line, a blank line. */
  private outEnd: "none" | "mid" | "line" | "blank" = "none";
  /** Permission requests refused in this turn (by anyone). */
  refused = 0;

  /**
   * Creates a report; nothing is printed before {@link PromptReport.beginTurn}.
   *
   * @param out - The agent's messages (stdout).
   * @param err - Tool calls, permissions, the end (stderr).
   * @param sameTerminal - Whether `out` and `err` are the same terminal: a line on `err`
   *   then first ends a message's line on `out`.
   */
  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly err: NodeJS.WritableStream,
    private readonly sameTerminal: boolean,
  ) {}

  /** The turn starts: items of the session's thread from `start` on are the turn's. */
  beginTurn(sessionId: string, start: number): void {
    this.sessionId = sessionId;
    this.start = start;
  }

  /** Prints a line on stderr (after ending a message's line on the same terminal). */
  line(text: string): void {
    this.endOutLine();
    this.err.write(`${text}\n`);
  }

  /** Ends a message's line on stdout when stderr goes to the same place (before a question). */
  endOutLine(): void {
    if (this.sameTerminal && this.outEnd === "mid") {
      this.out.write("\n");
      this.outEnd = "line";
    }
  }

  /**
   * Prints a permission decision; a refusal is remembered for the tool call's line.
   *
   * @returns Whether the answer refused the tool call.
   */
  permission(
    request: RequestPermissionRequest,
    response: RequestPermissionResponse,
    decider: PermissionDecider,
  ): boolean {
    const { outcome } = response;
    const chosen =
      outcome.outcome === "selected"
        ? request.options.find((o) => o.optionId === outcome.optionId)
        : undefined;
    const title = printable(request.toolCall.title ?? request.toolCall.toolCallId);
    // A policy's no to an agent that offered no reject option is answered `cancelled`.
    const refused =
      chosen === undefined
        ? decider.by === "policy"
        : chosen.kind === "reject_once" || chosen.kind === "reject_always";
    const answer =
      chosen === undefined
        ? refused
          ? "refused"
          : "cancelled"
        : `${printable(chosen.name)} (${chosen.kind})`;
    const by = chosen === undefined && !refused ? "" : `, by ${deciderText(decider)}`;
    this.line(`[permission] ${title}: ${answer}${by}`);
    if (refused) {
      this.refused++;
      this.refusals.set(request.toolCall.toolCallId, { decider });
    }
    return refused;
  }

  /** Set when the turn was cancelled (then a `cancelled` answer is no refusal). */
  private turnCancelled = false;

  /** The turn is being cancelled (Ctrl-C, `--timeout`). */
  cancelling(): void {
    this.turnCancelled = true;
  }

  /** Prints what the change added to the turn. */
  update = (event: SessionStoreEvent): void => {
    const { start, sessionId } = this;
    if (start === undefined || event.sessionId !== sessionId) return;
    const { state, previous, change } = event;
    const length = threadLength(state);
    const before = previous === undefined ? 0 : threadLength(previous);
    const candidates = new Set<number>();
    if (change.type !== "update" || previous === undefined || before > length) {
      for (let i = start; i < length; i++) candidates.add(i);
    } else {
      for (let i = Math.max(start, before); i < length; i++) candidates.add(i);
      if (length > 0) candidates.add(length - 1);
      const { toolCallId, messageId } = change.update as {
        toolCallId?: unknown;
        messageId?: unknown;
      };
      const known =
        typeof toolCallId === "string"
          ? this.toolCalls.get(toolCallId)?.index
          : typeof messageId === "string"
            ? this.messageIds.get(messageId)
            : undefined;
      if (known !== undefined) candidates.add(known);
    }
    for (const index of [...candidates].sort((a, b) => a - b)) {
      if (index < start) continue;
      const item = threadItem(state, index);
      if (item !== undefined && item !== (previous && threadItem(previous, index))) {
        this.item(item, index);
      }
    }
  };

  private item(item: ThreadItem, index: number): void {
    if (item.type === "message" && item.role === "agent") {
      if (item.messageId !== null) this.messageIds.set(item.messageId, index);
      const text = item.content.map(contentText).join("");
      const done = this.printed.get(index) ?? 0;
      if (text.length <= done) return;
      if (this.lastMessage !== index) {
        // A new message: apart from the one before, by a blank line.
        if (this.outEnd === "mid") this.out.write("\n\n");
        else if (this.outEnd === "line") this.out.write("\n");
        this.lastMessage = index;
      }
      // Counted raw, printed without a local command's markup (whole in a chunk).
      const fresh = agentText(text.slice(done));
      this.printed.set(index, text.length);
      if (fresh === "") return;
      this.out.write(fresh);
      this.outEnd = fresh.endsWith("\n\n") ? "blank" : fresh.endsWith("\n") ? "line" : "mid";
      return;
    }
    if (item.type === "tool_call") {
      const entry = this.toolCalls.get(item.toolCallId) ?? { index };
      entry.index = index;
      this.toolCalls.set(item.toolCallId, entry);
      if (entry.outcome !== undefined) return;
      const ended = item.status === "completed" || item.status === "failed" || item.cancelled;
      if (ended) this.toolLine(item, entry);
    }
  }

  /** Prints a tool call's line with its outcome. */
  private toolLine(call: ThreadToolCall, entry: { outcome?: ToolOutcome }): void {
    const refusal = this.refusals.get(call.toolCallId);
    let outcome: ToolOutcome;
    let words: string;
    if (call.status === "completed") {
      outcome = "done";
      words = "done";
    } else if (refusal !== undefined) {
      outcome = "refused";
      words = `refused by ${deciderText(refusal.decider)}`;
    } else if (call.status === "failed") {
      outcome = "failed";
      const reason = failureReason(call);
      words = reason === undefined ? "failed" : `failed: ${printable(reason)}`;
    } else if (call.cancelled || this.turnCancelled) {
      outcome = "cancelled";
      words = "cancelled";
    } else {
      outcome = "unfinished";
      words = `not finished (${call.status})`;
    }
    entry.outcome = outcome;
    const title = printable(call.title === "" ? call.toolCallId : call.title);
    this.line(`[${call.kind}] ${title}: ${words}`);
  }

  /**
   * The turn ended (`stopReason`) or failed (`undefined`): prints the lines of the tool
   * calls still open, ends stdout's last line, and (when `always`, or when there is
   * anything to say) how the turn ended.
   */
  finish(
    stopReason: StopReason | undefined,
    always: boolean,
    state?: SessionStoreEvent["state"],
  ): void {
    if (stopReason === "cancelled") this.turnCancelled = true;
    for (const [, entry] of this.toolCalls) {
      if (entry.outcome !== undefined || state === undefined) continue;
      const item = threadItem(state, entry.index);
      if (item?.type === "tool_call") this.toolLine(item, entry);
    }
    if (this.outEnd === "mid") {
      this.out.write("\n");
      this.outEnd = "line";
    }
    if (stopReason === undefined) return;
    const counts = new Map<ToolOutcome, number>();
    for (const { outcome } of this.toolCalls.values()) {
      if (outcome !== undefined) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    }
    const total = this.toolCalls.size;
    const parts = (["done", "failed", "refused", "cancelled", "unfinished"] as const)
      .filter((o) => (counts.get(o) ?? 0) > 0)
      .map((o) => `${counts.get(o) ?? 0} ${o === "unfinished" ? "not finished" : o}`);
    const calls =
      total === 0 ? "" : `; ${total} tool call${total === 1 ? "" : "s"}: ${parts.join(", ")}`;
    const refusals =
      this.refused === 0
        ? ""
        : `; ${this.refused} permission${this.refused === 1 ? "" : "s"} refused`;
    if (always || stopReason !== "end_turn" || total > 0 || this.refused > 0) {
      this.line(`(stop reason: ${stopReason}${calls}${refusals})`);
    }
  }
}
