/**
 * Serving `fs/*` requests, confined to each session's roots.
 *
 * @module
 */
export {
  FileSystemHandler,
  DEFAULT_MAX_CONCURRENT_READS,
  DEFAULT_MAX_READ_BYTES,
  type FileSystemHandlerOptions,
  type SessionRoots,
} from "./handler.js";
export { FileSystemErrorReasons, type FileSystemErrorReason } from "./errors.js";
