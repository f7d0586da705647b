/**
 * {@link PromptTurn}: one `session/prompt` as the agent's code sees it.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import type { AgentSideConnection } from "../peer/agent-side-connection.js";
import type { TerminalHandle } from "../peer/terminal-handle.js";
import type * as schema from "../schema/types.gen.js";
import type { IdSource } from "./ids.js";
import { chunk, MessageWriter, type ChunkOptions } from "./message-writer.js";
import { PlanHandle, type PlanStep } from "./plan.js";
import { ToolCallHandle, type ToolCallInit } from "./tool-call.js";
import type { TurnOutbox } from "./turn-outbox.js";

/** The calls a turn makes to the client: a subset of {@link AgentSideConnection}. */
export type TurnConnection = Pick<
  AgentSideConnection,
  "sessionUpdate" | "requestPermission" | "readTextFile" | "writeTextFile" | "createTerminal"
>;

/** What a turn is made of. @internal */
export interface TurnInit<S> {
  readonly connection: TurnConnection;
  readonly params: schema.PromptRequest;
  readonly session: S;
  readonly signal: AbortSignal;
  readonly outbox: TurnOutbox;
  readonly ids: IdSource;
}

/**
 * One prompt turn, handed to the function given to {@link AgentKit.prompt}: the prompt,
 * the session's state, a {@link PromptTurn.signal} that aborts when the turn is
 * cancelled, and helpers that stream updates for the session.
 *
 * Every sending helper hands its notification to the connection at once, so updates go
 * out in call order; the promise it returns settles when the connection has queued it.
 * Awaiting it is optional (it gives back-pressure): the kit waits for every update before
 * answering the prompt, and a send that fails fails the turn. Updates sent after the
 * answer are dropped.
 */
export class PromptTurn<S = unknown> {
  /** The session this turn runs in. */
  readonly sessionId: string;
  /** The `session/prompt` params. */
  readonly params: schema.PromptRequest;
  /** The session's state, from {@link AgentKit.sessions}. */
  readonly session: S;
  /**
   * Aborts when the turn is cancelled: `session/cancel` for the session, a newer prompt
   * superseding this one, `$/cancel_request` for the prompt request, or the connection
   * closing. Pass it to everything that can be aborted (model calls, tools). Once it
   * aborted, the turn answers `cancelled` whatever the code returns or throws.
   */
  readonly signal: AbortSignal;
  /** The connection, for calls the helpers do not cover. */
  readonly connection: TurnConnection;
  private readonly outbox: TurnOutbox;
  private readonly ids: IdSource;
  private readonly calls: ToolCallHandle[] = [];
  private readonly sender = (update: schema.SessionUpdate): Promise<void> => this.update(update);

  /**
   * Made by {@link AgentKit.prompt}; not meant to be called directly.
   * @internal
   *
   * @param init - The turn's parts.
   */
  constructor(init: TurnInit<S>) {
    this.sessionId = init.params.sessionId;
    this.params = init.params;
    this.session = init.session;
    this.signal = init.signal;
    this.connection = init.connection;
    this.outbox = init.outbox;
    this.ids = init.ids;
  }

  /** The user's message. */
  get prompt(): schema.ContentBlock[] {
    return this.params.prompt;
  }

  /** True once the turn is cancelled (see {@link PromptTurn.signal}). */
  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /** Throws the cancellation (an `AbortError`) if the turn is cancelled. */
  throwIfCancelled(): void {
    this.signal.throwIfAborted();
  }

  /** The tool calls reported in this turn, oldest first. */
  get toolCalls(): readonly ToolCallHandle[] {
    return this.calls;
  }

  /**
   * Sends an `agent_message_chunk` with text (Markdown).
   *
   * @param text - The chunk.
   * @param options - The message id, if messages are tagged.
   */
  text(text: string, options?: ChunkOptions): Promise<void> {
    return this.update(chunk("agent_message_chunk", { type: "text", text }, options?.messageId));
  }

  /**
   * Sends an `agent_thought_chunk` with text.
   *
   * @param text - The chunk of reasoning.
   * @param options - The message id, if messages are tagged.
   */
  thought(text: string, options?: ChunkOptions): Promise<void> {
    return this.update(chunk("agent_thought_chunk", { type: "text", text }, options?.messageId));
  }

  /**
   * Sends an `agent_message_chunk` with any content block (image, resource, ...).
   *
   * @param block - The block.
   * @param options - The message id, if messages are tagged.
   */
  content(block: schema.ContentBlock, options?: ChunkOptions): Promise<void> {
    return this.update(chunk("agent_message_chunk", block, options?.messageId));
  }

  /**
   * Starts a new agent message with a fresh id; its chunks all carry that id.
   *
   * @param messageId - The id to use instead of a generated one.
   */
  message(messageId?: string): MessageWriter {
    return new MessageWriter(this.sender, "agent_message_chunk", messageId ?? this.newId("msg"));
  }

  /**
   * Starts a new thought (reasoning) message with a fresh id.
   *
   * @param messageId - The id to use instead of a generated one.
   */
  thinking(messageId?: string): MessageWriter {
    return new MessageWriter(this.sender, "agent_thought_chunk", messageId ?? this.newId("msg"));
  }

  /**
   * Sends a plan (replacing any previous one) and returns a handle that tracks the
   * entries' statuses and sends the whole plan again on every change.
   *
   * @param steps - The entries; a bare string is a `medium` priority `pending` entry.
   */
  plan(steps: readonly PlanStep[]): PlanHandle {
    const plan = new PlanHandle(this.sender, steps);
    void plan.publish();
    return plan;
  }

  /**
   * Sends a `usage_update`: tokens in context, the context window's size, and optionally
   * the session's cumulative cost.
   *
   * @param usage - `{ used, size, cost? }`.
   */
  usage(usage: schema.UsageUpdate): Promise<void> {
    return this.update({ ...usage, sessionUpdate: "usage_update" });
  }

  /**
   * Reports a new tool call (`tool_call`, status `pending` unless given) and returns its
   * handle. Its id is generated, unique within the session, unless `init.toolCallId` is
   * given.
   *
   * @param init - Title, kind, locations, raw input, ...
   */
  toolCall(init: ToolCallInit): ToolCallHandle {
    const host = {
      sessionId: this.sessionId,
      signal: this.signal,
      permissions: this.connection,
      send: this.sender,
    };
    const call = new ToolCallHandle(host, init.toolCallId ?? this.newId("call"), init);
    this.calls.push(call);
    void this.update(call.toToolCall(init));
    return call;
  }

  /**
   * Sends any session update (for the kinds the helpers do not cover).
   *
   * @param update - The update.
   */
  update(update: schema.SessionUpdate): Promise<void> {
    return this.outbox.send(update);
  }

  /** Waits until every update sent so far has been queued by the connection. */
  flush(): Promise<void> {
    return this.outbox.flush();
  }

  /**
   * `fs/read_text_file` for this session, aborted with the turn. Needs the client's
   * `fs.readTextFile` capability.
   *
   * @param path - The file's absolute path.
   * @param options - First line (1-based) and line count.
   * @returns The text (the editor's view, unsaved changes included).
   */
  async readTextFile(
    path: string,
    options?: { readonly line?: number; readonly limit?: number },
  ): Promise<string> {
    const params: schema.ReadTextFileRequest = { sessionId: this.sessionId, path };
    if (options?.line !== undefined) params.line = options.line;
    if (options?.limit !== undefined) params.limit = options.limit;
    const { content } = await this.connection.readTextFile(params, this.requestOptions());
    return content;
  }

  /**
   * `fs/write_text_file` for this session, aborted with the turn. Needs the client's
   * `fs.writeTextFile` capability.
   *
   * @param path - The file's absolute path.
   * @param content - The file's complete new text.
   */
  async writeTextFile(path: string, content: string): Promise<void> {
    await this.connection.writeTextFile(
      { sessionId: this.sessionId, path, content },
      this.requestOptions(),
    );
  }

  /**
   * `terminal/create` for this session, aborted with the turn. Needs the client's
   * `terminal` capability. Release the terminal when done (also when cancelled).
   *
   * @param params - The command, arguments, environment, working directory, output limit.
   */
  createTerminal(params: Omit<schema.CreateTerminalRequest, "sessionId">): Promise<TerminalHandle> {
    return this.connection.createTerminal(
      { ...params, sessionId: this.sessionId },
      this.requestOptions(),
    );
  }

  private newId(prefix: string): string {
    return this.ids.next(prefix);
  }

  private requestOptions(): SendRequestOptions {
    return { signal: this.signal };
  }
}
