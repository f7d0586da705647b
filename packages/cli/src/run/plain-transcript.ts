/**
 * A plain transcript of a session, for when stdout is not a terminal: agent text streams
 * as it arrives, and tool calls, plans, permission answers and the end of each turn are
 * printed as lines.
 *
 * @module
 */
import type {
  ContentBlock,
  PlanEntry,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "acp-kit";
import type { SessionStoreEvent } from "acp-kit";
import { threadItem, threadLength, threadSlice, type ThreadItem } from "acp-kit";
import { agentText, blocksText, contentText, typedText } from "./text.js";

/** The length of a message's text, as {@link blocksText} would give it. */
function textLength(blocks: readonly ContentBlock[]): number {
  let length = 0;
  for (const block of blocks) length += contentText(block).length;
  return length;
}

/** The plan as printed. */
function planText(plan: readonly PlanEntry[]): string {
  return plan
    .map((e) => {
      const mark = e.status === "completed" ? "x" : e.status === "in_progress" ? "~" : " ";
      return `  [${mark}] ${typeof e.content === "string" ? e.content : ""}`;
    })
    .join("\n");
}

/**
 * Prints a session's changes as plain lines to `out`.
 *
 * Incremental: an update looks only at the thread items it can have touched (the last one,
 * new ones, the one its tool call or message id names), and streamed text is printed from
 * the chunk itself, so a turn costs time linear in its updates, however long it grows.
 */
export class PlainTranscript {
  /** What was printed of each thread item: text length for messages, status for tool calls. */
  private readonly printed = new Map<number, string | number>();
  /** Where each tool call and message id is in the thread (as last seen). */
  private readonly toolCalls = new Map<string, number>();
  private readonly messageIds = new Map<string, number>();
  private lastPlan = "";
  private midLine = false;

  /** @param out - Where to print. */
  constructor(private readonly out: NodeJS.WritableStream) {}

  /** Prints a line of the client's own. */
  line(text: string): void {
    this.endLine();
    this.out.write(`${text}\n`);
  }

  /** Prints how a permission request was answered (by a policy, or as cancelled). */
  permission(request: RequestPermissionRequest, response: RequestPermissionResponse): void {
    const { outcome } = response;
    const chosen =
      outcome.outcome === "selected"
        ? request.options.find((o) => o.optionId === outcome.optionId)
        : undefined;
    const title = request.toolCall.title ?? request.toolCall.toolCallId;
    const answer = chosen === undefined ? outcome.outcome : `${chosen.name} (${chosen.kind})`;
    this.line(`[permission] ${title}: ${answer}`);
  }

  /** Prints what changed since the last call. */
  update = (event: SessionStoreEvent): void => {
    const { state, previous, change } = event;
    const length = threadLength(state);
    const beforeLength = previous === undefined ? 0 : threadLength(previous);
    if (
      (change.type !== "update" && change.type !== "update_v2") ||
      previous === undefined ||
      beforeLength > length
    ) {
      threadSlice(state).forEach((item, index) => this.item(item, index));
    } else {
      const update = change.update;
      const candidates = new Set<number>();
      for (let i = beforeLength; i < length; i++) candidates.add(i);
      candidates.add(length - 1);
      const { toolCallId, messageId } = update as { toolCallId?: unknown; messageId?: unknown };
      const known =
        typeof toolCallId === "string"
          ? this.toolCalls.get(toolCallId)
          : typeof messageId === "string"
            ? this.messageIds.get(messageId)
            : undefined;
      if (known !== undefined) candidates.add(known);
      const chunk =
        update.sessionUpdate === "agent_message_chunk" ||
        update.sessionUpdate === "user_message_chunk" ||
        update.sessionUpdate === "agent_thought_chunk"
          ? contentText(update.content as ContentBlock)
          : undefined;
      for (const index of candidates) {
        const item = threadItem(state, index);
        if (item !== undefined && item !== threadItem(previous, index)) {
          this.item(item, index, chunk);
        }
      }
    }
    const plan = state.plan;
    if (plan !== null && plan !== previous?.plan) {
      const text = planText(plan);
      if (text !== this.lastPlan) {
        this.lastPlan = text;
        this.line(`plan:\n${text}`);
      }
    }
  };

  /**
   * Prints what is new of one item. `chunk` is the text of the chunk just folded, when the
   * change was a message chunk: when the item grew by exactly that, it is what is printed
   * (no walk over the whole text).
   */
  private item(item: ThreadItem, index: number, chunk?: string): void {
    if (item.type === "message" && item.role === "user") {
      // As typed (a replayed slash command's markup undone: see `typedText`); user
      // messages are short, so the whole text is looked at each time.
      const text = typedText(blocksText(item.content));
      const done = (this.printed.get(index) as number | undefined) ?? 0;
      if (text.length <= done) return;
      if (done === 0) {
        this.endLine();
        this.out.write("> ");
      }
      const fresh = text.slice(done);
      this.out.write(fresh);
      this.midLine = !fresh.endsWith("\n");
      this.printed.set(index, text.length);
      return;
    }
    if (item.type === "message") {
      if (item.messageId !== null) this.messageIds.set(item.messageId, index);
      const length = textLength(item.content);
      const done = (this.printed.get(index) as number | undefined) ?? 0;
      if (length <= done) return;
      if (done === 0) {
        this.endLine();
        this.out.write(item.role === "thought" ? "(thinking) " : "");
      }
      const fresh =
        chunk !== undefined && length === done + chunk.length
          ? chunk
          : blocksText(item.content).slice(done);
      // Counted raw (above), printed cleaned: the markup comes whole in a chunk.
      const shown = agentText(fresh);
      this.out.write(shown);
      if (shown !== "") this.midLine = !shown.endsWith("\n");
      this.printed.set(index, length);
      return;
    }
    if (item.type === "tool_call") {
      this.toolCalls.set(item.toolCallId, index);
      const key = `${item.status}${item.cancelled ? "/cancelled" : ""}`;
      if (this.printed.get(index) === key) return;
      this.printed.set(index, key);
      this.line(`[${item.kind}] ${item.title} (${item.cancelled ? "cancelled" : item.status})`);
    }
  }

  private endLine(): void {
    if (this.midLine) this.out.write("\n");
    this.midLine = false;
  }
}
