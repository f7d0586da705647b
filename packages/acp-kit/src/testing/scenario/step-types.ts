/**
 * The steps of a scenario turn. A step is an object with exactly one "kind" key (`text`,
 * `toolCall`, `permission`, ...) holding its main value, plus that kind's options.
 *
 * @module
 */
import type * as schema from "../../schema/types.gen.js";

/** How a text is cut into chunks: code points per chunk, words, or lines. */
export type TextChunking = number | "word" | "line";

/** Options of the `text` and `thought` steps. */
export interface StreamOptions {
  /** Cut the text into chunks (one chunk when absent). An array of chunks is sent as is. */
  readonly chunk?: TextChunking;
  /** Wait this long (ms, scaled by the agent's `delayScale`) before each chunk. */
  readonly delayMs?: number;
  /** Tag every chunk with this `messageId`. */
  readonly messageId?: string;
}

/** `agent_message_chunk`s with text (Markdown). */
export interface TextStep extends StreamOptions {
  /** The text, or its chunks. */
  readonly text: string | readonly string[];
}

/** `agent_thought_chunk`s with text. */
export interface ThoughtStep extends StreamOptions {
  /** The thought, or its chunks. */
  readonly thought: string | readonly string[];
}

/** One `agent_message_chunk` with any content block (image, resource link, ...). */
export interface MessageStep {
  /** The block. */
  readonly message: schema.ContentBlock;
  /** Its `messageId`. */
  readonly messageId?: string;
}

/** Waits (ms, scaled by the agent's `delayScale`); cancellation cuts it short. */
export interface DelayStep {
  /** Milliseconds. */
  readonly delay: number;
}

/** A plan entry: its text (priority `medium`, status `pending`) or a full entry. */
export type ScenarioPlanEntry =
  | string
  | {
      /** What the step does. */
      readonly content: string;
      /** Default `medium`. */
      readonly priority?: schema.PlanEntryPriority;
      /** Default `pending`. */
      readonly status?: schema.PlanEntryStatus;
    };

/** Publishes the session's plan (a `plan` update), replacing the previous one. */
export interface PlanStep {
  /** The entries. */
  readonly plan: readonly ScenarioPlanEntry[];
}

/** Changes one entry's status and publishes the whole plan again. */
export interface PlanEntryStep {
  /** The entry: its index or its exact text. */
  readonly planEntry: number | string;
  /** Its new status. */
  readonly status: schema.PlanEntryStatus;
}

/** A location of a tool call: a path (relative ones resolve against the cwd) or a full one. */
export type ScenarioLocation = string | { readonly path: string; readonly line?: number };

/**
 * Tool call content: `{ text }`, `{ diff: path, oldText?, newText }` (relative paths
 * resolve against the cwd; no `oldText`, or one that names an unset value, is a new file),
 * or any protocol `ToolCallContent` (with `type`).
 */
export type ScenarioToolContent =
  | { readonly text: string }
  | { readonly diff: string; readonly oldText?: string | null; readonly newText: string }
  | schema.ToolCallContent;

/** The fields a tool call shows. */
export interface ToolCallFields {
  /** Icon hint: `read`, `edit`, `execute`, ... */
  readonly kind?: schema.ToolKind;
  /** Status. */
  readonly status?: schema.ToolCallStatus;
  /** Content (replaces the whole list). */
  readonly content?: readonly ScenarioToolContent[];
  /** Locations (replace the whole list). */
  readonly locations?: readonly ScenarioLocation[];
  /** Raw input. */
  readonly rawInput?: unknown;
  /** Raw output. */
  readonly rawOutput?: unknown;
}

/** Reports a new tool call (`tool_call`, status `pending` unless given). */
export interface ToolCallStep extends ToolCallFields {
  /** Its title. */
  readonly toolCall: string;
  /** Its id. Default `call_<n>`, counted per session. */
  readonly toolCallId?: string;
}

/** Sends a `tool_call_update` with exactly the given fields. */
export interface ToolUpdateStep {
  /** The fields to change. */
  readonly toolUpdate: ToolCallFields & { readonly title?: string };
  /** The tool call. Default: the turn's latest. */
  readonly toolCallId?: string;
}

/**
 * Asks permission for a tool call (`session/request_permission` with its current state)
 * and runs the branch for the answer. After `cancelled` the turn ends `cancelled`.
 */
export interface PermissionStep {
  /** The options offered: kinds (`allow_once`, ...) or full `PermissionOption`s. */
  readonly permission: readonly (schema.PermissionOptionKind | schema.PermissionOption)[];
  /** The tool call. Default: the turn's latest (with `call`: a new id, `call_<n>`). */
  readonly toolCallId?: string;
  /**
   * A tool call not reported before: the request carries these fields and no `tool_call`
   * is sent (as Codex asks about a command before it reports it, and never reports a
   * refused one).
   */
  readonly call?: ToolCallFields & { readonly title: string };
  /** Runs when an `allow_*` option was chosen. */
  readonly allow?: readonly ScenarioStep[];
  /** Runs when a `reject_*` option was chosen. */
  readonly reject?: readonly ScenarioStep[];
  /** Runs when the request was cancelled (updates only; requests would fail). */
  readonly cancelled?: readonly ScenarioStep[];
}

/** Branches of a step that calls the client. */
export interface ClientCallBranches {
  /** Runs when the call succeeded. */
  readonly then?: readonly ScenarioStep[];
  /**
   * Runs when the call failed (or the client lacks the capability), with `${error}` set to
   * the error's message. Without it, a failure fails the prompt with that error.
   */
  readonly onError?: readonly ScenarioStep[];
}

/** `fs/read_text_file`; `saveAs` keeps the content for `${name}`. */
export interface ReadFileStep extends ClientCallBranches {
  /** The file (relative paths resolve against the cwd). */
  readonly readFile: string;
  /** The first line (1-based). */
  readonly line?: number;
  /** How many lines. */
  readonly limit?: number;
  /** Save the content as this placeholder name. */
  readonly saveAs?: string;
}

/** `fs/write_text_file`. */
export interface WriteFileStep extends ClientCallBranches {
  /** The file (relative paths resolve against the cwd). */
  readonly writeFile: string;
  /** The whole new content. */
  readonly content: string;
}

/**
 * Runs a command in a client terminal: `terminal/create`, embeds it in a tool call,
 * `terminal/wait_for_exit` (unless `wait: false`), `terminal/output`, `terminal/release`.
 * `saveAs` keeps the output for `${name}` and the exit code for `${name.exitCode}`.
 */
export interface TerminalStep extends ClientCallBranches {
  /** The command. */
  readonly terminal: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Extra environment variables. */
  readonly env?: readonly schema.EnvVariable[];
  /** Its working directory (relative paths resolve against the cwd). */
  readonly cwd?: string;
  /** The output byte limit. */
  readonly outputByteLimit?: number;
  /** The tool call that shows it. Default: the turn's latest. */
  readonly toolCallId?: string;
  /** Wait for the exit. Default true; `false` reads the output at once, then releases. */
  readonly wait?: boolean;
  /** Save the output (and `.exitCode`) as this placeholder name. */
  readonly saveAs?: string;
}

/** Switches the session's mode and sends `current_mode_update`. */
export interface ModeStep {
  /** One of the scenario's modes. */
  readonly mode: string;
}

/** Replaces the slash commands (`available_commands_update`). */
export interface CommandsStep {
  /** The commands. */
  readonly commands: readonly schema.AvailableCommand[];
}

/** Sets config option values and sends `config_option_update` with all options. */
export interface SetConfigStep {
  /** Option id to its new value. */
  readonly setConfig: Readonly<Record<string, string | boolean>>;
}

/** Sends `session_info_update` (also what `session/list` reports). */
export interface SessionInfoStep {
  /** The fields: a value sets, `null` clears, absent keeps. */
  readonly sessionInfo: { readonly title?: string | null; readonly updatedAt?: string | null };
}

/** Sends `usage_update`. */
export interface UsageStep {
  /** `used`, `size`, optional `cost`. */
  readonly usage: schema.UsageUpdate;
}

/** Sends any `session/update`. */
export interface UpdateStep {
  /** The update. */
  readonly update: schema.SessionUpdate;
}

/** Waits until the turn is cancelled, runs the given steps (updates only), ends `cancelled`. */
export interface WaitForCancelStep {
  /** `true`, or the steps to run once cancelled. */
  readonly waitForCancel: true | readonly ScenarioStep[];
}

/** Fails the prompt with a JSON-RPC error. */
export interface FailStep {
  /** The error. */
  readonly fail: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** Ends the turn with a stop reason. */
export interface StopStep {
  /** The stop reason. */
  readonly stop: schema.StopReason;
}

/** One step of a turn. */
export type ScenarioStep =
  | TextStep
  | ThoughtStep
  | MessageStep
  | DelayStep
  | PlanStep
  | PlanEntryStep
  | ToolCallStep
  | ToolUpdateStep
  | PermissionStep
  | ReadFileStep
  | WriteFileStep
  | TerminalStep
  | ModeStep
  | CommandsStep
  | SetConfigStep
  | SessionInfoStep
  | UsageStep
  | UpdateStep
  | WaitForCancelStep
  | FailStep
  | StopStep;
