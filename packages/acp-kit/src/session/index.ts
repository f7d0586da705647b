/**
 * Session state: a pure reducer folding a session's `session/update` stream into a thread
 * (messages assembled from chunks, tool calls merged by id, the current plan, mode,
 * commands, config options, usage, info), and a {@link SessionStore} that keeps it for
 * every session a client sees. Runtime-neutral, no I/O.
 *
 * @module
 */
export type {
  MessageRole,
  SessionInfoState,
  SessionState,
  SessionTurn,
  SessionUsage,
  SubagentState,
  ThreadCompaction,
  ThreadItem,
  ThreadMessage,
  ThreadSessionMessage,
  ThreadToolCall,
} from "./state.js";
export { emptySessionState } from "./state.js";
export { reduceSession, foldSession } from "./reduce.js";
export {
  applySetup,
  beginLoad,
  beginTurn,
  cancelTurn,
  endTurn,
  type SessionSetup,
} from "./turns.js";
export { messageText } from "./thread-ops.js";
export {
  SessionStore,
  type SessionAgent,
  type SessionChange,
  type SessionStoreEvent,
  type SessionStoreListener,
  type SessionStoreOptions,
} from "./store.js";
