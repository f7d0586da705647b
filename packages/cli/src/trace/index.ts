/**
 * `acp-kit trace`: a transparent recording proxy between an editor and an agent, and the
 * viewers of what it records (a text timeline, a self-contained HTML page).
 *
 * @module
 */
export {
  runTraceProxy,
  exitCodeOf,
  DEFAULT_TRACE_MAX_LINE_BYTES,
  type TraceProxyOptions,
  type TraceProxyResult,
} from "./trace-proxy.js";
export { defaultTracePath } from "./trace-path.js";
export { readTrace, parseTrace } from "./read-trace.js";
export { viewTrace, formatTrace } from "./trace-view.js";
export { writeTraceHtml, renderTraceHtml } from "./trace-html.js";
export { escapeHtml } from "./trace-html-assets.js";
export { buildTimeline } from "./trace-timeline.js";
export * from "./trace-format.js";
