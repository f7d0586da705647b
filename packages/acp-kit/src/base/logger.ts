/**
 * Logging goes only through an injectable {@link Logger}. The library never writes to the
 * console by itself: the default is {@link silentLogger}.
 *
 * Log records carry method names, ids, sizes and validation paths, never message
 * payloads, so secrets such as MCP server `env` values and HTTP headers are never logged.
 *
 * @module
 */

/** Structured context of a log record (never contains message payloads). */
export type LogFields = Record<string, unknown>;

/** Where the library reports what it cannot report to a caller. */
export interface Logger {
  /** Details useful when debugging a peer: dropped messages, late answers. */
  debug?(message: string, fields?: LogFields): void;
  /** Noteworthy events: a peer sent something invalid that was answered or skipped. */
  warn?(message: string, fields?: LogFields): void;
  /** Failures of the library or of user handlers. */
  error?(message: string, fields?: LogFields): void;
}

/** A logger that drops everything (the default). */
export const silentLogger: Logger = {};

/** The levels of {@link consoleLogger}, most verbose first. */
export type LogLevel = "debug" | "warn" | "error";

/**
 * A logger that writes to `console.error` (standard error in Node, never standard
 * output, so it is safe in an agent speaking ACP over stdio).
 *
 * @param level - The least severe level to print. Default `warn`.
 */
export function consoleLogger(level: LogLevel = "warn"): Logger {
  const order: LogLevel[] = ["debug", "warn", "error"];
  const min = order.indexOf(level);
  const write =
    (lvl: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (fields === undefined) console.error(`[acp-kit] ${lvl}: ${message}`);
      else console.error(`[acp-kit] ${lvl}: ${message}`, fields);
    };
  const logger: Logger = {};
  if (min <= 0) logger.debug = write("debug");
  if (min <= 1) logger.warn = write("warn");
  logger.error = write("error");
  return logger;
}
