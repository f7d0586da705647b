/**
 * Folding message chunks (`user_message_chunk`, `agent_message_chunk`,
 * `agent_thought_chunk`) into thread messages.
 *
 * @module
 */
import type { ContentChunk } from "../schema/types.gen.js";
import {
  threadItem,
  threadLength,
  type MessageRole,
  type SessionState,
  type ThreadMessage,
} from "./state.js";
import { appendBlock, appendItem, findKeyed, replaceItem } from "./thread-ops.js";

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
export function echoTarget(state: SessionState): number {
  const turn = state.turns[state.turns.length - 1];
  if (turn?.prompt == null) return -1;
  const index = turn.threadStart;
  const item = threadItem(state, index);
  if (index !== threadLength(state) - 1 || item?.type !== "message") return -1;
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

  if (id !== null) {
    const at = findKeyed(
      state,
      `m\u0000${role}\u0000${id}`,
      (item) => item.type === "message" && item.role === role && item.messageId === id,
    );
    const found = threadItem(state, at);
    if (found?.type === "message") {
      return replaceItem(state, at, {
        ...found,
        content: appendBlock(found.content, chunk.content),
      });
    }
  }

  if (role === "user") {
    const echo = echoTarget(state);
    const prompt = threadItem(state, echo);
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
    const lastIndex = threadLength(state) - 1;
    const last = threadItem(state, lastIndex);
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
