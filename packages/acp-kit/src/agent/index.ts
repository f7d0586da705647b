/**
 * Agent-side helpers: a session registry, prompt turns with cancellation, streaming
 * helpers, tool-call handles with minimal updates, plans and permissions. Runtime-neutral.
 *
 * The package root re-exports everything here.
 *
 * @module
 */
export {
  AgentKit,
  type AgentKitOptions,
  type ConcurrentPromptPolicy,
  type KitConnection,
  type TurnFunction,
  type TurnResult,
} from "./agent-kit.js";
export { PromptTurn, type TurnConnection } from "./prompt-turn.js";
export { MessageWriter, type ChunkOptions, type MessageChunkKind } from "./message-writer.js";
export { PlanHandle, type PlanEntryRef, type PlanStep } from "./plan.js";
export {
  ToolCallHandle,
  type ToolCallInit,
  type ToolCallOutcome,
  type ToolCallPatch,
  type ToolCallState,
} from "./tool-call.js";
export {
  toolContent,
  type ToolCallContentBlock,
  type ToolCallDiff,
  type ToolCallTerminal,
} from "./tool-call-content.js";
export {
  DEFAULT_PERMISSION_OPTIONS,
  isAllowed,
  type PermissionChoice,
  type PermissionDecision,
  type PermissionSender,
} from "./permission.js";
export {
  SessionRegistry,
  sessionNotFound,
  type SessionEntry,
  type SessionRegistryOptions,
} from "./session-registry.js";
export { randomHex, isAbsolutePath } from "./ids.js";
