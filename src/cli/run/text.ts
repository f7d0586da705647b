/**
 * Text of content blocks, for display.
 *
 * @module
 */
import type { ContentBlock } from "../../schema/types.gen.js";

/** A content block as text: its text, or a short placeholder for non-text content. */
export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "resource_link":
      return `[${block.name}](${block.uri})`;
    case "resource":
      return "text" in block.resource ? block.resource.text : `[embedded ${block.resource.uri}]`;
    case "image":
      return `[image ${block.mimeType}]`;
    case "audio":
      return `[audio ${block.mimeType}]`;
    default:
      return `[${String((block as { type: unknown }).type)}]`;
  }
}

/** The text of several blocks, joined. */
export function blocksText(blocks: readonly ContentBlock[]): string {
  return blocks.map(contentText).join("");
}

/** A token count as "12.3k". */
export function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k` : String(n);
}
