/**
 * A plain transcript of a session, for when stdout is not a terminal: agent text streams
 * as it arrives, and tool calls, plans, permission answers and the end of each turn are
 * printed as lines.
 *
 * @module
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from "acp-kit";
import type { SessionStoreEvent } from "acp-kit";
import type { ThreadItem } from "acp-kit";
import { blocksText } from "./text.js";

/** Prints a session's changes as plain lines to `out`. */
export class PlainTranscript {
  /** What was printed of each thread item: text length for messages, status for tool calls. */
  private readonly printed = new Map<number, string | number>();
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
    event.state.thread.forEach((item, index) => this.item(item, index));
    const plan = event.state.plan;
    if (plan !== null) {
      const text = plan
        .map(
          (e) =>
            `  [${e.status === "completed" ? "x" : e.status === "in_progress" ? "~" : " "}] ${e.content}`,
        )
        .join("\n");
      if (text !== this.lastPlan) {
        this.lastPlan = text;
        this.line(`plan:\n${text}`);
      }
    }
  };

  private item(item: ThreadItem, index: number): void {
    if (item.type === "message") {
      const text = blocksText(item.content);
      const done = (this.printed.get(index) as number | undefined) ?? 0;
      if (text.length <= done) return;
      if (done === 0) {
        this.endLine();
        this.out.write(item.role === "user" ? "> " : item.role === "thought" ? "(thinking) " : "");
      }
      const fresh = text.slice(done);
      this.out.write(fresh);
      this.midLine = !fresh.endsWith("\n");
      this.printed.set(index, text.length);
      return;
    }
    if (item.type === "tool_call") {
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
