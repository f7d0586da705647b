/**
 * {@link MessageWriter}: the chunks of one agent message (or one thought), all tagged
 * with the same message id.
 *
 * @module
 */
import type * as schema from "../schema/types.gen.js";

/** The update kinds a {@link MessageWriter} sends. */
export type MessageChunkKind = "agent_message_chunk" | "agent_thought_chunk";

/** Options of one message chunk. */
export interface ChunkOptions {
  /**
   * The message the chunk belongs to: chunks with the same id form one message, a new id
   * starts another. Omit it to leave messages untagged (the client appends each chunk to
   * the current message).
   */
  readonly messageId?: string;
}

/**
 * Writes one message, made by {@link PromptTurn.message} or {@link PromptTurn.thinking}:
 * every chunk carries the writer's {@link MessageWriter.messageId}, so the client
 * assembles them into one message even when other updates come in between.
 *
 * ```ts
 * const reply = turn.message();
 * for await (const delta of model.stream()) await reply.text(delta);
 * ```
 */
export class MessageWriter {
  /**
   * Made by {@link PromptTurn.message} or {@link PromptTurn.thinking}; not meant to be
   * called directly.
   *
   * @param send - Sends one update of the turn.
   * @param kind - Agent message or thought.
   * @param messageId - The id every chunk carries.
   */
  constructor(
    private readonly send: (update: schema.SessionUpdate) => Promise<void>,
    readonly kind: MessageChunkKind,
    readonly messageId: string,
  ) {}

  /**
   * Sends a text chunk (Markdown).
   *
   * @param text - The chunk.
   */
  text(text: string): Promise<void> {
    return this.content({ type: "text", text });
  }

  /**
   * Sends any content block as a chunk.
   *
   * @param block - The block.
   */
  content(block: schema.ContentBlock): Promise<void> {
    return this.send(chunk(this.kind, block, this.messageId));
  }
}

/**
 * A message chunk update.
 * @internal
 */
export function chunk(
  kind: MessageChunkKind,
  content: schema.ContentBlock,
  messageId: string | undefined,
): schema.SessionUpdate {
  return messageId === undefined
    ? { sessionUpdate: kind, content }
    : { sessionUpdate: kind, content, messageId };
}
