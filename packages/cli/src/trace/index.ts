/**
 * `acp-kit trace`: a transparent recording proxy between an editor and an agent, and the
 * viewers of what it records (a text timeline, a self-contained HTML page).
 *
 * @module
 */
export {
  runTraceProxy,
  exitWithStatus,
  exitCodeOf,
  DEFAULT_TRACE_MAX_LINE_BYTES,
  type TraceProxyOptions,
  type TraceProxyResult,
  type ExitStatus,
} from "./trace-proxy.js";
export { defaultTracePath, TRACE_DIRECTORY_NAME } from "./trace-path.js";
export { readTrace, parseTrace, type Trace, type TraceProblem } from "./read-trace.js";
export { viewTrace, formatTrace, DEFAULT_FOLD_CHARS, type ViewTraceOptions } from "./trace-view.js";
export { writeTraceHtml, renderTraceHtml, type TraceHtmlOptions } from "./trace-html.js";
export { escapeHtml } from "./trace-html-assets.js";
export {
  buildTimeline,
  type Timeline,
  type TimelineEntry,
  type TimelineKind,
  type MethodStats,
} from "./trace-timeline.js";
export {
  runTraceCommand,
  runTraceView,
  type TraceCommandOptions,
  type TraceViewCommandOptions,
} from "./trace-command.js";
export * from "./trace-format.js";
