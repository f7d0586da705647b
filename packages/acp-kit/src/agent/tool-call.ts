/**
 * {@link ToolCallHandle}: one tool call of a prompt turn, from `tool_call` to its final
 * status, sending only what changes.
 *
 * @module
 */
import type * as schema from "../schema/types.gen.js";
import {
  askPermission,
  permissionOptions,
  type PermissionChoice,
  type PermissionDecision,
  type PermissionSender,
} from "./permission.js";
import { jsonEqual, toolContent } from "./tool-call-content.js";

/** What to report when a tool call starts: everything but `title` is optional. */
export interface ToolCallInit {
  /** The id; generated (unique within the session) when absent, e.g. to reuse a model's id. */
  readonly toolCallId?: string;
  /** What this invocation does, for humans (e.g. "Read src/index.ts"). */
  readonly title: string;
  /** Icon hint: `read`, `edit`, `execute`, ... The client's default is `other`. */
  readonly kind?: schema.ToolKind;
  /** Default `pending` (announced, not running yet); `in_progress` when it runs at once. */
  readonly status?: schema.ToolCallStatus;
  /** What to show: text, diffs, terminals (see {@link toolContent}). */
  readonly content?: schema.ToolCallContent[];
  /** Files the call works on (absolute paths), so the client can follow along. */
  readonly locations?: schema.ToolCallLocation[];
  /** The tool's raw input, for display and debugging. */
  readonly rawInput?: unknown;
  /** The tool's raw output. */
  readonly rawOutput?: unknown;
  /** Metadata for the `tool_call` notification. */
  readonly _meta?: Record<string, unknown>;
}

/**
 * Changes to a tool call. Absent (or `null`) fields stay as they are; `content` and
 * `locations` replace the whole list.
 */
export interface ToolCallPatch {
  /** A new title. */
  readonly title?: string | null;
  /** A new kind. */
  readonly kind?: schema.ToolKind | null;
  /** A new status. */
  readonly status?: schema.ToolCallStatus | null;
  /** The complete new content list. */
  readonly content?: schema.ToolCallContent[] | null;
  /** The complete new location list. */
  readonly locations?: schema.ToolCallLocation[] | null;
  /** A new raw input. */
  readonly rawInput?: unknown;
  /** A new raw output. */
  readonly rawOutput?: unknown;
  /** Metadata for this one notification (sent even when nothing else changed). */
  readonly _meta?: Record<string, unknown>;
}

/**
 * How a tool call ended: changes to send with the final status, or a text that replaces
 * the content list.
 */
export type ToolCallOutcome = string | Omit<ToolCallPatch, "status">;

/** The tool call as the client last saw it. */
export interface ToolCallState {
  /** The tool call's id. */
  readonly toolCallId: string;
  /** Its title. */
  readonly title: string;
  /** Its kind (`other` when never set). */
  readonly kind: schema.ToolKind;
  /** Its status. */
  readonly status: schema.ToolCallStatus;
  /** Its content list. */
  readonly content: readonly schema.ToolCallContent[];
  /** Its location list. */
  readonly locations: readonly schema.ToolCallLocation[];
  /** Its raw input, if any was sent. */
  readonly rawInput?: unknown;
  /** Its raw output, if any was sent. */
  readonly rawOutput?: unknown;
}

/** What a tool call needs from its turn. @internal */
export interface ToolCallHost {
  readonly sessionId: string;
  readonly signal: AbortSignal;
  readonly permissions: PermissionSender;
  send(update: schema.SessionUpdate): Promise<void>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type TrackedField = "title" | "kind" | "status" | "content" | "locations";
const TRACKED: readonly TrackedField[] = ["title", "kind", "status", "content", "locations"];

/**
 * A tool call of a prompt turn, made by {@link PromptTurn.toolCall}, which reports it
 * (`tool_call`) at once. Every change is sent as a `tool_call_update` carrying only the
 * fields that differ from what the client last saw; a change to nothing sends nothing.
 *
 * ```ts
 * const call = turn.toolCall({ title: "Edit a.ts", kind: "edit", locations: [{ path }] });
 * if (!isAllowed(await call.requestPermission())) return call.fail("Declined");
 * await call.start();
 * await call.complete({ content: [toolContent.diff(path, before, after)] });
 * ```
 */
export class ToolCallHandle {
  private readonly current: Mutable<ToolCallState>;

  /**
   * Made by {@link PromptTurn.toolCall}; not meant to be called directly.
   * @internal
   *
   * @param host - The turn the call belongs to.
   * @param toolCallId - Its id.
   * @param init - What the `tool_call` notification reported.
   */
  constructor(
    private readonly host: ToolCallHost,
    toolCallId: string,
    init: ToolCallInit,
  ) {
    this.current = {
      toolCallId,
      title: init.title,
      kind: init.kind ?? "other",
      status: init.status ?? "pending",
      content: snapshot(init.content ?? []),
      locations: snapshot(init.locations ?? []),
      rawInput: snapshot(init.rawInput),
      rawOutput: snapshot(init.rawOutput),
    };
  }

  /** The tool call's id. */
  get id(): string {
    return this.current.toolCallId;
  }

  /** The state the client last saw (a snapshot; do not mutate). */
  get state(): ToolCallState {
    return this.current;
  }

  /** True once the status is `completed` or `failed`. */
  get isFinished(): boolean {
    return this.current.status === "completed" || this.current.status === "failed";
  }

  /**
   * Sends the changed fields of `patch` as a `tool_call_update`; sends nothing when
   * nothing changed. Resolves when the notification is queued (ignoring it is safe).
   *
   * @param patch - The fields to change.
   */
  update(patch: ToolCallPatch): Promise<void> {
    const changes: Partial<schema.ToolCallUpdate> = {};
    let changed = false;
    const state = this.current as Record<string, unknown>;
    for (const field of TRACKED) {
      const value = patch[field];
      if (value === undefined || value === null || jsonEqual(value, state[field])) continue;
      state[field] = snapshot(value);
      (changes as Record<string, unknown>)[field] = value;
      changed = true;
    }
    for (const field of ["rawInput", "rawOutput"] as const) {
      const value = patch[field];
      if (value === undefined || jsonEqual(value, state[field])) continue;
      state[field] = snapshot(value);
      changes[field] = value;
      changed = true;
    }
    if (!changed && patch._meta === undefined) return Promise.resolve();
    const update: schema.SessionUpdate = {
      sessionUpdate: "tool_call_update",
      toolCallId: this.current.toolCallId,
      ...changes,
    };
    if (patch._meta !== undefined) update._meta = patch._meta;
    return this.host.send(update);
  }

  /**
   * Marks the call as running (`in_progress`), with any other changes.
   *
   * @param patch - Other fields to change at the same time.
   */
  start(patch?: Omit<ToolCallPatch, "status">): Promise<void> {
    return this.update({ ...patch, status: "in_progress" });
  }

  /**
   * Marks the call `completed`.
   *
   * @param outcome - Changes to send with the status, or a text to show as its content.
   */
  complete(outcome?: ToolCallOutcome): Promise<void> {
    return this.update({ ...outcomePatch(outcome), status: "completed" });
  }

  /**
   * Marks the call `failed`.
   *
   * @param outcome - Changes to send with the status, or a text (the reason) to show as
   *   its content.
   */
  fail(outcome?: ToolCallOutcome): Promise<void> {
    return this.update({ ...outcomePatch(outcome), status: "failed" });
  }

  /**
   * Asks the user for permission to run this call (`session/request_permission`, with
   * the call's current state) and returns the kind of the option they chose, or
   * `"cancelled"` when the turn was cancelled first (the request is then withdrawn with
   * `$/cancel_request`). An option id the client was not offered rejects.
   *
   * @param options - What to offer; default {@link DEFAULT_PERMISSION_OPTIONS}. A bare
   *   kind stands for the default option of that kind.
   */
  async requestPermission(options?: readonly PermissionChoice[]): Promise<PermissionDecision> {
    const request: schema.RequestPermissionRequest = {
      sessionId: this.host.sessionId,
      toolCall: this.toToolCallUpdate(),
      options: permissionOptions(options),
    };
    return askPermission(this.host.permissions, request, this.host.signal);
  }

  /** The `tool_call` notification reporting this call. @internal */
  toToolCall(init: ToolCallInit): schema.SessionUpdate {
    const update: schema.SessionUpdate = {
      sessionUpdate: "tool_call",
      toolCallId: this.current.toolCallId,
      title: init.title,
      status: this.current.status,
    };
    if (init.kind !== undefined) update.kind = init.kind;
    if (init.content !== undefined) update.content = init.content;
    if (init.locations !== undefined) update.locations = init.locations;
    if (init.rawInput !== undefined) update.rawInput = init.rawInput;
    if (init.rawOutput !== undefined) update.rawOutput = init.rawOutput;
    if (init._meta !== undefined) update._meta = init._meta;
    return update;
  }

  /** The whole current state in update form (for a permission request). */
  private toToolCallUpdate(): schema.ToolCallUpdate {
    const { toolCallId, title, kind, status, content, locations, rawInput } = this.current;
    const update: schema.ToolCallUpdate = { toolCallId, title, kind, status };
    if (content.length > 0) update.content = [...content];
    if (locations.length > 0) update.locations = [...locations];
    if (rawInput !== undefined) update.rawInput = rawInput;
    return update;
  }
}

function outcomePatch(outcome: ToolCallOutcome | undefined): Omit<ToolCallPatch, "status"> {
  if (outcome === undefined) return {};
  return typeof outcome === "string" ? { content: [toolContent.text(outcome)] } : outcome;
}

/** A copy the caller cannot change behind our back (values that cannot be cloned are kept). */
function snapshot<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}
