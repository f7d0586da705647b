/**
 * Internals shared with `@acp-kit/cli`, the sibling package released in lockstep with
 * this one. Nothing here is covered by semantic versioning: names and behaviour may change
 * in any release. Use the documented entries (`acp-kit`, `acp-kit/node`, `acp-kit/testing`)
 * instead.
 *
 * @internal
 * @module
 */
export {
  USES_PROCESS_GROUPS,
  endProcessGroup,
  groupRunning,
  signalGroupOf,
  trackGroup,
  untrackGroup,
  type GroupLeader,
} from "./node/process-group.js";
export { settlesWithin } from "./node/settles-within.js";
export { TerminalOutputBuffer } from "./node/terminals/output.js";
export { wrapClient } from "./session/wrap-client.js";
export { toolCallInQuestion } from "./session/tool-calls.js";
export { CLIENT_HANDLER_NAMES } from "./peer/client.js";
export { EnvelopeScanner } from "./transport/envelope-scanner.js";
export { isLoopbackHost } from "./http/server/loopback.js";
export { jsonText, NESTED_TOO_DEEP, type JsonTextOptions } from "./base/json-text.js";
