/**
 * Client sessions: a {@link SessionClient} that sends every session request (new, load,
 * resume, list, prompt, cancel, mode, config options, model, close) and keeps each
 * session's state in step with the answers and updates; a pure reducer folding a
 * session's `session/update` stream into a thread (messages assembled from chunks, tool
 * calls merged by id, the current plan, mode, commands, config options, usage, info); a
 * {@link SessionStore} that keeps it for every session a client sees; and authentication
 * (`AuthRequiredError`, login plans). Runtime-neutral, no I/O of its own.
 *
 * @module
 */
export type {
  AgentTerminal,
  MessageRole,
  SessionActivity,
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
export { emptySessionState, threadItem, threadLength, threadSlice } from "./state.js";
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
  selectOptionValues,
  sessionSetting,
  type SessionSetting,
  type SettingValue,
} from "./settings.js";
export {
  SessionStore,
  type SessionAgent,
  type SessionChange,
  type SessionStoreEvent,
  type SessionStoreListener,
  type SessionStoreOptions,
} from "./store.js";
export {
  ClientSession,
  DEFAULT_SESSION_SETUP_TIMEOUT_MS,
  SessionClient,
  UnsupportedByAgentError,
  type PromptInput,
  type RestoredSession,
  type SessionClientEvent,
  type SessionClientOptions,
  type SessionConnection,
  type SessionHooks,
  type SessionRoots,
} from "./session-client.js";
export {
  AuthRequiredError,
  envVarsOf,
  isAuthRequired,
  isTerminalAuth,
  loginPlan,
  terminalLoginCommand,
  type AgentLaunch,
  type AuthEnvVar,
  type LoginCommand,
  type LoginPlan,
} from "./auth.js";
