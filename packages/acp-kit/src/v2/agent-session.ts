/**
 * {@link AgentSession}: keeps one v2 session's state on the agent side and emits it the
 * way v2 requires.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import { RequestError } from "../jsonrpc/errors.js";
import type { MaybePromise } from "../base/messages.js";
import type * as schema from "../schema/v2/types.gen.js";

/** What an {@link AgentSession} sends through: a v2 `AgentSideConnection` does. */
export interface SessionSink {
  /** Sends one `session/update`. */
  sessionUpdate(params: schema.UpdateSessionNotification): Promise<void>;
  /** Sends `session/request_permission`. */
  requestPermission(
    params: schema.RequestPermissionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.RequestPermissionResponse>;
}

/** The stop reasons a turn may end with on its own (errors and cancellation are implied). */
export type TurnStopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal";

/** How a turn ended, when a stop reason alone is not enough. */
export interface TurnOutcome {
  /** Default `end_turn`. */
  readonly stopReason?: TurnStopReason;
  /** Token usage of the turn, sent with the idle state. */
  readonly usage?: schema.Usage;
}

/** One running turn, as its handler sees it. */
export interface Turn {
  /** The session. */
  readonly session: AgentSession;
  /** The id of the inserted user message (the prompt's answer). */
  readonly messageId: string;
  /** The prompt's content. */
  readonly prompt: readonly schema.ContentBlock[];
  /** The prompt request as received. */
  readonly request: schema.PromptRequest;
  /** Aborts when the client cancels the turn or closes the session. */
  readonly signal: AbortSignal;
}

/**
 * Runs one turn. Return the stop reason (default `end_turn`); throw to end it with
 * `idle { stopReason: "error" }` (a `RequestError`'s code, message and data are sent).
 * A turn whose signal aborted ends `cancelled` whatever it returns.
 */
export type TurnHandler = (turn: Turn) => MaybePromise<TurnStopReason | TurnOutcome | void>;

/** Options of an {@link AgentSession}. */
export interface AgentSessionOptions {
  /**
   * What a prompt that arrives during a turn gets: `"hold"` (default) answers it once the
   * turn before it ended and it was inserted (FIFO; `-32800` if cancelled first),
   * `"reject"` answers `-32600` at once.
   */
  readonly whileBusy?: "hold" | "reject";
  /** Mints message, tool call and terminal ids. Default: a counter with a random prefix. */
  readonly newId?: () => string;
  /** The most terminal output kept per terminal for replay (its tail). Default 1 MiB. */
  readonly maxTerminalReplayBytes?: number;
}

/** Fields of a new tool call: the `tool_call_update` fields, plus its cancel handler. */
export type NewToolCall = Omit<schema.ToolCallUpdate, "toolCallId" | "capabilities"> & {
  /** The id; minted when omitted. */
  readonly toolCallId?: string;
  /** Makes the call cancellable by the client (`tool_call/cancel`). */
  readonly onCancel?: () => MaybePromise<void>;
};

/** Fields of a new agent-owned terminal, plus its cancel handler. */
export interface NewTerminal {
  /** The id; minted when omitted. */
  readonly terminalId?: string;
  /** The command line, for display. */
  readonly command?: string;
  /** The working directory (absolute). */
  readonly cwd?: string;
  /** The terminal's size. */
  readonly size?: schema.TerminalSize;
  /** Makes the process stoppable by the client (`terminal/cancel`). */
  readonly onCancel?: () => MaybePromise<void>;
}

const FINAL_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

type MessageKind = "user_message" | "agent_message" | "agent_thought";

interface MessageRecord {
  readonly kind: MessageKind;
  readonly messageId: string;
  content: schema.ContentBlock[];
}

interface ToolRecord {
  state: Record<string, unknown> & { toolCallId: string };
  onCancel: (() => MaybePromise<void>) | undefined;
}

interface TerminalRecord {
  state: Record<string, unknown> & { terminalId: string };
  output: Uint8Array[];
  outputBytes: number;
  exited: boolean;
  onCancel: (() => MaybePromise<void>) | undefined;
}

type Item =
  | { type: "message"; record: MessageRecord }
  | { type: "tool"; record: ToolRecord }
  | { type: "terminal"; record: TerminalRecord }
  | { type: "plan"; planId: string; plan: schema.PlanUpdateContent }
  | { type: "compaction"; state: Record<string, unknown> & { compactionId: string } }
  | { type: "snapshot"; update: schema.SessionUpdate };

interface Held {
  readonly request: schema.PromptRequest;
  readonly run: TurnHandler;
  readonly resolve: (response: schema.PromptResponse) => void;
  readonly reject: (error: unknown) => void;
  /** Stops listening to the prompt request's signal. */
  readonly dispose: () => void;
}

interface Running {
  readonly controller: AbortController;
  permissions: number;
  /** Set when close ended the turn: its handler's end is not reported. */
  closed?: boolean;
}

let instances = 0;

function defaultIds(): () => string {
  const prefix = `${Date.now().toString(36)}${(instances++).toString(36)}`;
  let next = 0;
  return () => `${prefix}-${(next++).toString(36)}`;
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, i + 0x8000)));
  return btoa(binary);
}

function errorOf(error: unknown): schema.Error {
  if (error instanceof RequestError) {
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: -32603, message: message === "" ? "Internal error" : message };
}

/** Reads `signal.aborted` afresh (it changes while awaiting). */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** A text block without annotations or `_meta`. */
function isPlainText(
  block: schema.ContentBlock | undefined,
): block is schema.ContentBlock & { type: "text"; text: string } {
  if (block?.type !== "text") return false;
  const { annotations, _meta } = block as { annotations?: unknown; _meta?: unknown };
  return (
    (annotations === undefined || annotations === null) &&
    (_meta === undefined || _meta === null) &&
    typeof (block as { text?: unknown }).text === "string"
  );
}

/** True while an entity's last state advertises `capabilities.cancel`. */
function advertisesCancel(state: Record<string, unknown>): boolean {
  const capabilities = state.capabilities as { cancel?: unknown } | null | undefined;
  return capabilities?.cancel !== undefined && capabilities.cancel !== null;
}

/**
 * Applies a v2 upsert patch to the state kept for replay: a field left out stays, `null`
 * removes it, a value replaces it; `_meta` patches by key (a `null` key is removed, and
 * a `null` `_meta` is the same as none).
 */
function applyPatch(
  state: Record<string, unknown>,
  patch: Record<string, unknown>,
  id: string,
): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key === id || value === undefined) continue;
    if (key === "_meta") {
      if (value === null) continue;
      const meta: Record<string, unknown> = { ...(state._meta as Record<string, unknown>) };
      for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
        if (entry === null) Reflect.deleteProperty(meta, name);
        else meta[name] = entry;
      }
      if (Object.keys(meta).length === 0) Reflect.deleteProperty(state, "_meta");
      else state._meta = meta;
    } else if (value === null) Reflect.deleteProperty(state, key);
    else state[key] = value;
  }
}

/** Ignores the rejection of a send nobody awaits (the connection closed). */
function settled(promise: Promise<void>): Promise<void> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * One v2 session on the agent side: it keeps the session's state and emits it as v2
 * requires. Each prompt's user message is echoed (`user_message` with the answer's
 * `messageId`), `state_update` goes `running` → `requires_action` while a permission is
 * asked → `idle` with the stop reason or the error, prompts sent during a turn are held
 * and answered once inserted (or `-32800` on cancel), tool calls are created by their
 * first `tool_call_update`, agent-owned terminals stream base64 output, plans replace by
 * id, background work appears on every state update once reported, and a resume replays
 * the session and ends with a snapshot of its state. `close` ends the turn, stops the
 * background work and sends nothing more.
 *
 * ```ts
 * const session = new AgentSession(connection, sessionId);
 * // in prompt(params, context): pass the request's signal, so a held prompt can be withdrawn
 * return session.prompt(
 *   params,
 *   async (turn) => {
 *     await turn.session.agentMessage().append("Hello!");
 *     return "end_turn";
 *   },
 *   context?.signal,
 * );
 * // in cancel(): session.cancel(); in closeSession(): await session.close();
 * // in resumeSession(params): await session.resume(params);
 * ```
 */
export class AgentSession {
  /** The foreground state, as last sent. */
  state: "idle" | "running" | "requires_action" = "idle";
  private readonly newId: () => string;
  /** What a replay sends, in the order each part was first sent. */
  private readonly items = new Map<string, Item>();
  /** Every message a writer was made for, sent or not yet. */
  private readonly messages = new Map<string, MessageRecord>();
  private readonly tools = new Map<string, ToolRecord>();
  private readonly terminals = new Map<string, TerminalRecord>();
  private readonly held: Held[] = [];
  private running: Running | undefined;
  private background: schema.BackgroundWork[] | undefined;
  private lastIdle: Record<string, unknown> = { stopReason: null };
  private closedFlag = false;
  /** Aborts on close: withdraws the permission requests no turn owns. */
  private closing = new AbortController();
  /** Set by close: nothing more is sent for the session (until a resume). */
  private silenced = false;

  /**
   * Creates the state of one session, empty and idle.
   *
   * @param sink - Where updates and permission requests go (the v2 `AgentSideConnection`).
   * @param sessionId - The session's id.
   * @param options - Busy policy, id minting, replay limits.
   */
  constructor(
    private readonly sink: SessionSink,
    readonly sessionId: string,
    private readonly options: AgentSessionOptions = {},
  ) {
    this.newId = options.newId ?? defaultIds();
  }

  /** True while a turn runs. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** True once {@link AgentSession.close} was called. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /**
   * Handles `session/prompt`: inserts the user message (echoed with its id), runs `run`
   * in the background and answers `{ messageId }` once inserted. During a turn the prompt
   * is held (or refused, see {@link AgentSessionOptions.whileBusy}); held prompts are
   * inserted in the order they came.
   *
   * @param signal - The prompt request's signal (the handler context's `signal`): when the
   *   client withdraws a held prompt (`$/cancel_request`), it is answered `-32800` and
   *   never inserted.
   */
  prompt(
    request: schema.PromptRequest,
    run: TurnHandler,
    signal?: AbortSignal,
  ): Promise<schema.PromptResponse> {
    if (this.closedFlag)
      return Promise.reject(
        new RequestError(-32002, "Resource not found", { sessionId: this.sessionId }),
      );
    if (signal?.aborted === true) return Promise.reject(RequestError.requestCancelled());
    // Held prompts come first, even in the moment between two turns.
    if (this.running !== undefined || this.held.length > 0) {
      if (this.options.whileBusy === "reject")
        return Promise.reject(
          RequestError.invalidRequest(undefined, "a turn is already running in this session"),
        );
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          const at = this.held.indexOf(held);
          if (at < 0) return;
          this.held.splice(at, 1);
          reject(RequestError.requestCancelled());
        };
        const held: Held = {
          request,
          run,
          resolve,
          reject,
          dispose: () => signal?.removeEventListener("abort", onAbort),
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        this.held.push(held);
      });
    }
    return Promise.resolve(this.start(request, run));
  }

  /**
   * Handles `session/cancel`: aborts the running turn (it ends `cancelled`, its pending
   * permission requests are withdrawn) and answers every held prompt `-32800`.
   */
  cancel(): void {
    for (const held of this.held.splice(0)) {
      held.dispose();
      held.reject(RequestError.requestCancelled());
    }
    this.running?.controller.abort(RequestError.requestCancelled());
  }

  /**
   * Handles `session/close`; await it before answering. As v2 says: the session's work is
   * cancelled as by `session/cancel` (held prompts `-32800`, the turn ends `cancelled`
   * at once, whatever its handler still does), its background work is stopped too (each
   * listed tool call's and terminal's cancel handler runs), every pending permission
   * request is withdrawn, and once this resolves nothing more is sent for the session.
   * Later prompts are refused `-32002` with `data: { sessionId }`, until a
   * {@link AgentSession.resume} attaches the session again. Closing twice does nothing.
   */
  async close(): Promise<void> {
    if (this.closedFlag) return;
    this.closedFlag = true;
    const running = this.running;
    this.cancel();
    this.closing.abort(RequestError.requestCancelled());
    // One after the other, in the order listed: a failing handler does not stop the rest.
    for (const work of [...(this.background ?? [])]) {
      try {
        if (work.type === "tool_call") {
          const record = this.tools.get(work.toolCallId);
          if (record?.onCancel !== undefined)
            await this.cancelToolCall({ sessionId: this.sessionId, toolCallId: work.toolCallId });
        } else if (work.type === "terminal") {
          const record = this.terminals.get(work.terminalId);
          if (record?.onCancel !== undefined && !record.exited) await record.onCancel();
        }
      } catch {
        // Not cancellable any more (finished meanwhile), or its handler failed: go on.
      }
    }
    if (running !== undefined && this.running === running) {
      // The turn is over for the client now; its handler's own end is not sent.
      running.closed = true;
      this.running = undefined;
      this.lastIdle = { stopReason: "cancelled" };
      await this.setState("idle");
    }
    this.silenced = true;
  }

  /**
   * Whether a permission request's `subject` is work listed as background: a listed tool
   * call (the subject's `toolCall.toolCallId`, or a command subject's `toolCallId`) or a
   * listed terminal (a command subject's `terminalId`).
   */
  isForBackgroundWork(params: Pick<schema.RequestPermissionRequest, "subject">): boolean {
    const list = this.background;
    const subject = params.subject as Record<string, unknown> | null | undefined;
    if (list === undefined || subject === null || subject === undefined) return false;
    const listed = (type: string, key: string, id: unknown): boolean =>
      typeof id === "string" &&
      list.some((work) => work.type === type && (work as Record<string, unknown>)[key] === id);
    if (subject.type === "tool_call")
      return listed(
        "tool_call",
        "toolCallId",
        (subject.toolCall as { toolCallId?: unknown } | undefined)?.toolCallId,
      );
    if (subject.type === "command")
      return (
        listed("tool_call", "toolCallId", subject.toolCallId) ||
        listed("terminal", "terminalId", subject.terminalId)
      );
    return false;
  }

  /**
   * Handles `session/resume`: with `replayFrom: { type: "start" }` sends the session's
   * history again (each message, tool call, terminal and plan as one whole upsert, in the
   * order they began), then always a snapshot of the state. Await it before answering.
   */
  async resume(request: Pick<schema.ResumeSessionRequest, "replayFrom">): Promise<void> {
    if (this.closedFlag) {
      // Attached again after a close.
      this.closedFlag = false;
      this.silenced = false;
      this.closing = new AbortController();
    }
    if (request.replayFrom?.type === "start") {
      for (const item of this.items.values()) await this.send(this.replayOf(item));
    }
    await this.sendState();
  }

  /** A new agent message (or the one with `messageId`), to stream or replace. */
  agentMessage(messageId?: string): MessageWriter {
    return this.message("agent_message", messageId);
  }

  /** A new agent thought (or the one with `messageId`). */
  agentThought(messageId?: string): MessageWriter {
    return this.message("agent_thought", messageId);
  }

  /** A user message the agent adds itself (not a prompt: those are echoed already). */
  userMessage(messageId?: string): MessageWriter {
    return this.message("user_message", messageId);
  }

  /** Starts a tool call: its first `tool_call_update` creates it on the client. */
  async toolCall(fields: NewToolCall): Promise<ToolCallWriter> {
    const { onCancel, toolCallId = this.newId(), ...rest } = fields;
    const state: ToolRecord["state"] = { ...rest, toolCallId };
    if (onCancel !== undefined) state.capabilities = { cancel: {} };
    const record: ToolRecord = { state, onCancel };
    this.tools.set(toolCallId, record);
    this.items.set(`tool:${toolCallId}`, { type: "tool", record });
    await this.send({ sessionUpdate: "tool_call_update", ...state });
    return new ToolCallWriter(this, record);
  }

  /** Starts an agent-owned terminal (display only: the agent runs the process). */
  async terminal(fields: NewTerminal): Promise<TerminalWriter> {
    const { onCancel, terminalId = this.newId(), ...rest } = fields;
    const state: TerminalRecord["state"] = { ...rest, terminalId };
    if (onCancel !== undefined) state.capabilities = { cancel: {} };
    const record: TerminalRecord = { state, output: [], outputBytes: 0, exited: false, onCancel };
    this.terminals.set(terminalId, record);
    this.items.set(`terminal:${terminalId}`, { type: "terminal", record });
    await this.send({ sessionUpdate: "terminal_update", ...state });
    return new TerminalWriter(this, record);
  }

  /** Replaces the plan `planId` (default `"plan"`) with `entries`. */
  plan(entries: schema.PlanEntry[], planId = "plan"): Promise<void> {
    return this.update({ sessionUpdate: "plan_update", plan: { type: "items", planId, entries } });
  }

  /** Removes the plan `planId` (default `"plan"`): `plan_removed`; a replay leaves it out. */
  removePlan(planId = "plan"): Promise<void> {
    return this.update({ sessionUpdate: "plan_removed", planId });
  }

  /**
   * Sends any other update as given (`available_commands_update`, `config_option_update`,
   * `session_info_update`, `usage_update`, `notice`, `compaction_*`, extensions). The
   * latest of each kind that describes the session as a whole is kept for replay, and so
   * is each plan of a `plan_update` (at the place it first appeared) until a
   * `plan_removed`, and each compaction (its status and summary, as one
   * `compaction_update` where it began). `notice`s are live only. Send messages, tool
   * calls and terminals through their writers, which keep them for replay.
   */
  update(update: schema.SessionUpdate): Promise<void> {
    const kind = (update as { sessionUpdate: string }).sessionUpdate;
    if (kind === "plan_update") {
      const plan = (update as schema.PlanUpdate).plan;
      const planId = (plan as { planId?: unknown }).planId;
      // Map.set keeps the place of a plan already there: the order the plans began.
      if (typeof planId === "string")
        this.items.set(`plan:${planId}`, { type: "plan", planId, plan });
    } else if (kind === "plan_removed") {
      this.items.delete(`plan:${(update as schema.PlanRemoved).planId}`);
    } else if (kind === "compaction_update" || kind === "compaction_summary_chunk") {
      this.trackCompaction(update);
    } else if (SNAPSHOT_KINDS.has(kind)) {
      this.items.delete(`snapshot:${kind}`);
      this.items.set(`snapshot:${kind}`, { type: "snapshot", update });
    }
    return this.send(update);
  }

  /**
   * Asks the client's permission (`session/request_permission`). For the running turn,
   * the state is `requires_action` until answered, and the request is withdrawn
   * (`$/cancel_request`; the answer is `cancelled`) if the turn is cancelled. A request
   * whose `subject` is listed background work (or made outside a turn) leaves the
   * foreground state alone and outlives `session/cancel`. {@link AgentSession.close}
   * withdraws every pending request of the session.
   */
  async requestPermission(
    params: Omit<schema.RequestPermissionRequest, "sessionId">,
  ): Promise<schema.RequestPermissionResponse> {
    const cancelled: schema.RequestPermissionResponse = { outcome: { outcome: "cancelled" } };
    const request = { ...params, sessionId: this.sessionId };
    const running = this.running;
    if (running === undefined || this.isForBackgroundWork(params)) {
      const signal = this.closing.signal;
      if (signal.aborted) return cancelled;
      try {
        return await this.sink.requestPermission(request, { signal });
      } catch (error) {
        if (isAborted(signal)) return cancelled;
        throw error;
      }
    }
    if (running.controller.signal.aborted) return cancelled;
    running.permissions++;
    if (running.permissions === 1) await this.setState("requires_action");
    try {
      return await this.sink.requestPermission(request, { signal: running.controller.signal });
    } catch (error) {
      if (isAborted(running.controller.signal)) return cancelled;
      throw error;
    } finally {
      running.permissions--;
      if (
        running.permissions === 0 &&
        this.running === running &&
        !isAborted(running.controller.signal)
      )
        await this.setState("running");
    }
  }

  /**
   * Handles `tool_call/cancel`: runs the call's cancel handler and, unless the handler
   * already gave it a final status, marks it `cancelled`. Unknown, finished or
   * non-cancellable calls are answered `-32602`.
   */
  async cancelToolCall(
    params: schema.CancelToolCallRequest,
  ): Promise<schema.CancelToolCallResponse> {
    const record = this.tools.get(params.toolCallId);
    const status = record?.state.status;
    if (
      record?.onCancel === undefined ||
      !advertisesCancel(record.state) ||
      (typeof status === "string" && FINAL_STATUSES.has(status))
    )
      throw RequestError.invalidParams(
        { toolCallId: params.toolCallId },
        "the tool call is unknown or not cancellable",
      );
    await record.onCancel();
    const after = record.state.status;
    if (!(typeof after === "string" && FINAL_STATUSES.has(after)))
      await this.patchTool(record, { status: "cancelled" });
    return {};
  }

  /**
   * Handles `terminal/cancel`: runs the terminal's cancel handler (which stops the
   * process; report the exit with {@link TerminalWriter.exit}). Unknown, exited or
   * non-cancellable terminals are answered `-32602`.
   */
  async cancelTerminal(
    params: schema.CancelTerminalRequest,
  ): Promise<schema.CancelTerminalResponse> {
    const record = this.terminals.get(params.terminalId);
    if (record?.onCancel === undefined || !advertisesCancel(record.state) || record.exited)
      throw RequestError.invalidParams(
        { terminalId: params.terminalId },
        "the terminal is unknown or not cancellable",
      );
    await record.onCancel();
    return {};
  }

  // ---- used by the writers ----

  /** @internal */
  send(update: schema.SessionUpdate): Promise<void> {
    if (this.silenced) return Promise.resolve();
    return settled(this.sink.sessionUpdate({ sessionId: this.sessionId, update }));
  }

  /** @internal */
  patchTool(record: ToolRecord, patch: Record<string, unknown>): Promise<void> {
    applyPatch(record.state, patch, "toolCallId");
    const status = record.state.status;
    const id = record.state.toolCallId;
    const sent = this.send({
      sessionUpdate: "tool_call_update",
      ...patch,
      toolCallId: id,
    });
    if (typeof status === "string" && FINAL_STATUSES.has(status))
      return sent.then(() => this.dropBackground("tool_call", id));
    return sent;
  }

  /** @internal */
  appendToolContent(record: ToolRecord, content: schema.ToolCallContent): Promise<void> {
    const current: unknown = record.state.content;
    record.state.content = Array.isArray(current)
      ? [...(current as unknown[]), content]
      : [content];
    return this.send({
      sessionUpdate: "tool_call_content_chunk",
      toolCallId: record.state.toolCallId,
      content,
    });
  }

  /** @internal */
  terminalOutput(record: TerminalRecord, data: string | Uint8Array): Promise<void> {
    const bytes = toBytes(data);
    const limit = this.options.maxTerminalReplayBytes ?? 1024 * 1024;
    record.output.push(bytes);
    record.outputBytes += bytes.length;
    // Keep exactly the last `limit` bytes: whole chunks dropped, the oldest one cut.
    while (record.outputBytes > limit) {
      const oldest = record.output[0];
      if (oldest === undefined) break;
      const excess = record.outputBytes - limit;
      if (oldest.length <= excess) record.output.shift();
      else record.output[0] = oldest.subarray(excess);
      record.outputBytes -= Math.min(oldest.length, excess);
    }
    return this.send({
      sessionUpdate: "terminal_output_chunk",
      terminalId: record.state.terminalId,
      data: base64(bytes),
    });
  }

  /** @internal */
  terminalUpdate(record: TerminalRecord, patch: Record<string, unknown>): Promise<void> {
    applyPatch(record.state, patch, "terminalId");
    const id = record.state.terminalId;
    if (patch.exitStatus !== undefined && patch.exitStatus !== null) record.exited = true;
    const sent = this.send({
      sessionUpdate: "terminal_update",
      ...patch,
      terminalId: id,
    });
    return record.exited ? sent.then(() => this.dropBackground("terminal", id)) : sent;
  }

  /** @internal */
  appendMessage(record: MessageRecord, content: schema.ContentBlock): Promise<void> {
    this.sent(record);
    // Kept as a client folds chunks: adjacent plain text is one block, so that a replay
    // (one whole upsert) shows what the chunks showed.
    const last = record.content.at(-1);
    if (isPlainText(last) && isPlainText(content))
      record.content[record.content.length - 1] = { type: "text", text: last.text + content.text };
    else record.content.push(content);
    return this.send({
      sessionUpdate: `${record.kind}_chunk`,
      messageId: record.messageId,
      content,
    });
  }

  /** @internal */
  replaceMessage(record: MessageRecord, content: schema.ContentBlock[] | null): Promise<void> {
    this.sent(record);
    record.content = content === null ? [] : [...content];
    return this.send({
      sessionUpdate: record.kind,
      messageId: record.messageId,
      content,
    });
  }

  /** @internal */
  addBackground(work: schema.BackgroundWork): Promise<void> {
    // Finished work is not listed: v2 removes an item once its final status is reported.
    if (work.type === "tool_call") {
      const status = this.tools.get(work.toolCallId)?.state.status;
      if (typeof status === "string" && FINAL_STATUSES.has(status)) return Promise.resolve();
    } else if (work.type === "terminal" && this.terminals.get(work.terminalId)?.exited === true)
      return Promise.resolve();
    const list = (this.background ??= []);
    const same = (other: schema.BackgroundWork): boolean =>
      other.type === work.type && JSON.stringify(other) === JSON.stringify(work);
    if (!list.some(same)) list.push(work);
    return this.sendState();
  }

  // ---- internals ----

  private message(kind: MessageKind, messageId = this.newId()): MessageWriter {
    const key = `${kind}:${messageId}`;
    let record = this.messages.get(key);
    if (record === undefined) {
      record = { kind, messageId, content: [] };
      this.messages.set(key, record);
    }
    return new MessageWriter(this, record);
  }

  /**
   * Keeps a compaction for replay: `compaction_update` patches it (status, summary, error,
   * `_meta` by key), `compaction_summary_chunk` appends to its summary.
   */
  private trackCompaction(update: Record<string, unknown>): void {
    const compactionId = update.compactionId;
    if (typeof compactionId !== "string") return;
    const key = `compaction:${compactionId}`;
    let item = this.items.get(key);
    if (item?.type !== "compaction") {
      item = { type: "compaction", state: { compactionId, status: "in_progress" } };
      this.items.set(key, item);
    }
    const state = item.state;
    if (update.sessionUpdate === "compaction_summary_chunk") {
      const summary = Array.isArray(state.summary) ? (state.summary as schema.ContentBlock[]) : [];
      const content = update.content as schema.ContentBlock;
      const last = summary.at(-1);
      state.summary =
        isPlainText(last) && isPlainText(content)
          ? [...summary.slice(0, -1), { type: "text", text: last.text + content.text }]
          : [...summary, content];
      return;
    }
    const { sessionUpdate: _kind, ...patch } = update;
    applyPatch(state, patch, "compactionId");
  }

  /** Puts a message in the replay once something of it was sent (never before). */
  private sent(record: MessageRecord): void {
    const key = `${record.kind}:${record.messageId}`;
    if (!this.items.has(key)) this.items.set(key, { type: "message", record });
  }

  private start(request: schema.PromptRequest, run: TurnHandler): schema.PromptResponse {
    const running: Running = { controller: new AbortController(), permissions: 0 };
    this.running = running;
    const messageId = this.newId();
    const record: MessageRecord = {
      kind: "user_message",
      messageId,
      content: [...request.prompt],
    };
    this.messages.set(`user_message:${messageId}`, record);
    this.items.set(`user_message:${messageId}`, { type: "message", record });
    void this.send({ sessionUpdate: "user_message", messageId, content: request.prompt });
    void this.setState("running");
    const turn: Turn = {
      session: this,
      messageId,
      prompt: request.prompt,
      request,
      signal: running.controller.signal,
    };
    void this.runTurn(turn, run, running);
    return { messageId };
  }

  private async runTurn(turn: Turn, run: TurnHandler, running: Running): Promise<void> {
    let idle: Record<string, unknown>;
    try {
      const outcome = await run(turn);
      const result: TurnOutcome =
        typeof outcome === "string" ? { stopReason: outcome } : (outcome ?? {});
      idle = { stopReason: result.stopReason ?? "end_turn" };
      if (result.usage !== undefined) idle.usage = result.usage;
    } catch (error) {
      idle = running.controller.signal.aborted
        ? { stopReason: "cancelled" }
        : { stopReason: "error", error: errorOf(error) };
    }
    if (running.controller.signal.aborted) idle = { stopReason: "cancelled" };
    if (running.closed === true) return;
    this.running = undefined;
    this.lastIdle = idle;
    // The idle goes out first (sends keep their order), and the next held prompt starts
    // at once: nothing can slip in between while the idle is being written.
    const sent = this.setState("idle");
    const next = this.held.shift();
    if (next !== undefined) {
      next.dispose();
      next.resolve(this.start(next.request, next.run));
    }
    await sent;
  }

  private setState(state: AgentSession["state"]): Promise<void> {
    this.state = state;
    return this.sendState();
  }

  private sendState(): Promise<void> {
    const update: Record<string, unknown> = { sessionUpdate: "state_update", state: this.state };
    if (this.state === "idle") Object.assign(update, this.lastIdle);
    if (this.background !== undefined) update.background = [...this.background];
    return this.send(update as schema.SessionUpdate);
  }

  private dropBackground(type: "tool_call" | "terminal", id: string): Promise<void> {
    const list = this.background;
    if (list === undefined) return Promise.resolve();
    const key = type === "tool_call" ? "toolCallId" : "terminalId";
    const index = list.findIndex(
      (work) => work.type === type && (work as Record<string, unknown>)[key] === id,
    );
    if (index < 0) return Promise.resolve();
    list.splice(index, 1);
    return this.sendState();
  }

  private replayOf(item: Item): schema.SessionUpdate {
    switch (item.type) {
      case "message":
        return {
          sessionUpdate: item.record.kind,
          messageId: item.record.messageId,
          content: item.record.content,
        };
      case "tool":
        return { sessionUpdate: "tool_call_update", ...item.record.state };
      case "terminal": {
        const update: Record<string, unknown> = {
          sessionUpdate: "terminal_update",
          ...item.record.state,
        };
        const total = new Uint8Array(item.record.outputBytes);
        let offset = 0;
        for (const chunk of item.record.output) {
          total.set(chunk, offset);
          offset += chunk.length;
        }
        update.output = { data: base64(total) };
        return update as schema.SessionUpdate;
      }
      case "plan":
        return { sessionUpdate: "plan_update", plan: item.plan };
      case "compaction":
        return { sessionUpdate: "compaction_update", ...item.state } as schema.SessionUpdate;
      case "snapshot":
        return item.update;
    }
  }
}

/** Updates that describe the session as a whole: the latest of each is replayed. */
const SNAPSHOT_KINDS: ReadonlySet<string> = new Set([
  "available_commands_update",
  "config_option_update",
  "session_info_update",
  "usage_update",
]);

/** Streams or replaces one message of an {@link AgentSession}. */
export class MessageWriter {
  /** @internal */
  constructor(
    private readonly session: AgentSession,
    private readonly record: MessageRecord,
  ) {}

  /** The message's id. */
  get messageId(): string {
    return this.record.messageId;
  }

  /** Appends text or a content block (a `*_chunk` update). */
  append(content: string | schema.ContentBlock): Promise<void> {
    const block: schema.ContentBlock =
      typeof content === "string" ? { type: "text", text: content } : content;
    return this.session.appendMessage(this.record, block);
  }

  /** Replaces the whole content (`null` or `[]` clears it). */
  replace(content: schema.ContentBlock[] | null): Promise<void> {
    return this.session.replaceMessage(this.record, content);
  }
}

/** Patches one tool call of an {@link AgentSession}. */
export class ToolCallWriter {
  /** @internal */
  constructor(
    private readonly session: AgentSession,
    private readonly record: ToolRecord,
  ) {}

  /** The call's id. */
  get toolCallId(): string {
    return this.record.state.toolCallId;
  }

  /** The call's fields as the client now has them. */
  get state(): Readonly<schema.ToolCallUpdate> {
    return this.record.state;
  }

  /** Patches the call: omitted fields stay, `null` clears, a value replaces. */
  update(patch: Omit<schema.ToolCallUpdate, "toolCallId">): Promise<void> {
    return this.session.patchTool(this.record, patch);
  }

  /** Appends one content item (`tool_call_content_chunk`). */
  appendContent(content: schema.ToolCallContent): Promise<void> {
    return this.session.appendToolContent(this.record, content);
  }

  /**
   * Lists the call as background work: it may outlive the turn, and it leaves the list
   * when it reaches a final status. A call already final is not listed.
   */
  runInBackground(): Promise<void> {
    return this.session.addBackground({ type: "tool_call", toolCallId: this.toolCallId });
  }
}

/** Streams one agent-owned terminal of an {@link AgentSession}. */
export class TerminalWriter {
  /** @internal */
  constructor(
    private readonly session: AgentSession,
    private readonly record: TerminalRecord,
  ) {}

  /** The terminal's id. */
  get terminalId(): string {
    return this.record.state.terminalId;
  }

  /** True once {@link TerminalWriter.exit} was called. */
  get exited(): boolean {
    return this.record.exited;
  }

  /** Appends output bytes (text is sent as UTF-8), base64 on the wire. */
  write(data: string | Uint8Array): Promise<void> {
    return this.session.terminalOutput(this.record, data);
  }

  /** Changes the terminal's size. */
  resize(size: schema.TerminalSize): Promise<void> {
    return this.session.terminalUpdate(this.record, { size });
  }

  /** Reports that the process exited. */
  exit(status: schema.TerminalExitStatus): Promise<void> {
    return this.session.terminalUpdate(this.record, { exitStatus: status });
  }

  /**
   * Lists the terminal as background work: it may outlive the turn, and it leaves the
   * list when it exits. An exited terminal is not listed.
   */
  runInBackground(): Promise<void> {
    return this.session.addBackground({ type: "terminal", terminalId: this.terminalId });
  }
}
