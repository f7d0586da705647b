/**
 * Folding message chunks (`user_message_chunk`, `agent_message_chunk`,
 * `agent_thought_chunk`) into thread messages.
 *
 * @module
 */
import type { ContentChunk } from "../schema/types.gen.js";
import type { MessageRole, SessionState, ThreadMessage } from "./state.js";
import { appendBlock, appendItem, findLastItem, replaceItem } from "./thread-ops.js";

/** Index of the first thread item of the latest turn (0 without turns). */
function turnFloor(state: SessionState): number {
  const turn = state.turns[state.turns.length - 1];
  return turn === undefined ? 0 : turn.threadStart;
}

/**
 * The prompt recorded by `beginTurn`, when the latest turn has one that nothing followed
 * yet: a user chunk arriving then is the agent echoing the prompt (agents that support
 * message ids tag accepted prompts that way), so it takes the recorded message over.
 */
function echoTarget(state: SessionState): number {
  const turn = state.turns[state.turns.length - 1];
  if (turn?.prompt == null) return -1;
  const index = turn.threadStart;
  const item = state.thread[index];
  if (index !== state.thread.length - 1 || item?.type !== "message") return -1;
  return item.role === "user" && item.origin === "client" ? index : -1;
}

/**
 * Adds one chunk of `role` to the thread, by the grouping rules documented on
 * `reduceSession`: by message id when present, else continuing the last id-less message
 * of the same role, and taking over a just-recorded prompt when the agent echoes it.
 */
export function applyChunk(
  state: SessionState,
  role: MessageRole,
  chunk: ContentChunk,
): SessionState {
  const id = typeof chunk.messageId === "string" ? chunk.messageId : null;
  const { thread } = state;

  if (id !== null) {
    const at = findLastItem(
      thread,
      (item) => item.type === "message" && item.role === role && item.messageId === id,
    );
    const found = thread[at];
    if (found?.type === "message") {
      return replaceItem(state, at, {
        ...found,
        content: appendBlock(found.content, chunk.content),
      });
    }
  }

  if (role === "user") {
    const echo = echoTarget(state);
    const prompt = thread[echo];
    if (prompt?.type === "message") {
      return replaceItem(state, echo, {
        ...prompt,
        messageId: id,
        content: [chunk.content],
        origin: "agent",
      });
    }
  }

  if (id === null) {
    const lastIndex = thread.length - 1;
    const last = thread[lastIndex];
    if (
      last?.type === "message" &&
      last.role === role &&
      last.messageId === null &&
      last.origin === "agent" &&
      lastIndex >= turnFloor(state)
    ) {
      return replaceItem(state, lastIndex, {
        ...last,
        content: appendBlock(last.content, chunk.content),
      });
    }
  }

  const message: ThreadMessage = {
    type: "message",
    role,
    messageId: id,
    content: [chunk.content],
    origin: "agent",
  };
  return appendItem(state, message);
}
