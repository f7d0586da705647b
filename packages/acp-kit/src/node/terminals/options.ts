/**
 * Options and events of the `TerminalManager`.
 *
 * @module
 */
import type { Logger } from "../../base/logger.js";
import type { TerminalExitStatus } from "../../schema/types.gen.js";
import type { TerminalStream } from "./output.js";

/** The default `defaultOutputByteLimit`: 1 MiB per terminal. */
export const DEFAULT_TERMINAL_OUTPUT_BYTE_LIMIT = 1024 * 1024;
/** The default `maxOutputByteLimit`: 16 MiB per terminal. */
export const MAX_TERMINAL_OUTPUT_BYTE_LIMIT = 16 * 1024 * 1024;
/** The default `maxTerminals`. */
export const DEFAULT_MAX_TERMINALS = 16;
/** The default `exitDrainMs`. */
export const DEFAULT_EXIT_DRAIN_MS = 250;

/** A terminal, as `TerminalManager.list()` and `onCreate` describe it. */
export interface TerminalInfo {
  /** The terminal id given to the agent. */
  terminalId: string;
  /** The session that created it (and alone may use it). */
  sessionId: string;
  /** The request's `command`. */
  command: string;
  /** The request's `args` (`[]` when absent). */
  args: string[];
  /** The working directory it runs in. */
  cwd: string;
  /** `true` when `command` runs through the shell (see `resolveCommand`). */
  viaShell: boolean;
  /** The process id; on POSIX also the id of its process group. */
  pid: number;
  /** The exit status once the command has exited. */
  exitStatus?: TerminalExitStatus;
}

/** A piece of a terminal's output, as it arrives. */
export interface TerminalOutputEvent {
  /** The terminal that produced it. */
  terminalId: string;
  /** The session the terminal belongs to. */
  sessionId: string;
  /** The stream it came from. */
  stream: TerminalStream;
  /** The text (whole characters; a character split across reads arrives whole, later). */
  text: string;
}

/** A terminal's command has exited. */
export interface TerminalExitEvent {
  /** The terminal whose command exited. */
  terminalId: string;
  /** The session the terminal belongs to. */
  sessionId: string;
  /** How it ended. */
  exitStatus: TerminalExitStatus;
}

/** Options of a `TerminalManager`. All are optional. */
export interface TerminalManagerOptions {
  /**
   * The working directory when a request gives no `cwd`: a path, or a function of the
   * session id (such as the session's own `cwd`) that may return `undefined` to fall back
   * to `process.cwd()`. Default `process.cwd()`. Must be absolute.
   */
  cwd?: string | ((sessionId: string) => string | undefined);
  /**
   * The environment the request's `env` variables are set over. Default `process.env`
   * (the client's own environment). Pass `{}` to start commands with only what the agent
   * asks for (note that `PATH` is then unset).
   */
  env?: NodeJS.ProcessEnv;
  /**
   * The shell for commands without `args` that contain whitespace or shell syntax, or
   * `false` to always run `command` directly. Default `/bin/sh` (`%ComSpec%` on Windows).
   */
  shell?: string | false;
  /** Bytes of output kept when a request gives no `outputByteLimit`. Default 1 MiB. */
  defaultOutputByteLimit?: number;
  /** The largest `outputByteLimit` granted; larger requests are capped. Default 16 MiB. */
  maxOutputByteLimit?: number;
  /**
   * How many terminals may exist at once (created and not yet released, whether running
   * or exited). Past it `terminal/create` fails with `-32603`. A released terminal whose
   * process group is still dying counts too: when only such terminals are in the way,
   * `terminal/create` waits for one to go (each goes at most `killGraceMs` after its
   * release) rather than failing. Default 16.
   */
  maxTerminals?: number;
  /** How long a killed command has after `SIGTERM` before `SIGKILL`. Default 2000 ms. */
  killGraceMs?: number;
  /**
   * How long, after the command exits, to wait for its output pipes to close before
   * reporting the exit anyway (a background process it started may hold them open).
   * Default 250 ms.
   */
  exitDrainMs?: number;
  /** Called when a terminal is created. */
  onCreate?: (info: TerminalInfo) => void;
  /** Called with each piece of output as it arrives (also after release), for a live view. */
  onOutput?: (event: TerminalOutputEvent) => void;
  /** Called once when a terminal's command has exited (also after release). */
  onExit?: (event: TerminalExitEvent) => void;
  /** Where failures of the callbacks above are reported. Default: dropped. */
  logger?: Logger;
}
