/**
 * Serving `terminal/*` requests: processes in their own groups, output limits, cleanup.
 *
 * @module
 */
export { TerminalManager } from "./manager.js";
export {
  DEFAULT_TERMINAL_OUTPUT_BYTE_LIMIT,
  MAX_TERMINAL_OUTPUT_BYTE_LIMIT,
  DEFAULT_MAX_TERMINALS,
  DEFAULT_EXIT_DRAIN_MS,
  type TerminalManagerOptions,
  type TerminalInfo,
  type TerminalOutputEvent,
  type TerminalExitEvent,
} from "./options.js";
export type { TerminalStream } from "./output.js";
export { resolveCommand, type ResolvedCommand } from "./command.js";
