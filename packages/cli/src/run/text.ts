/**
 * Text for display: content blocks as text, token counts, and what part of a streaming
 * thread the live area shows.
 *
 * @module
 */
import stringWidth from "string-width";
import type { ContentBlock } from "acp-kit";
import type { ThreadItem } from "acp-kit";

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

/**
 * A user message as the person typed it. Claude's adapter replays a slash command as
 * markup (`<command-message>foo</command-message><command-name>/foo</command-name>
 * <command-args>bar</command-args>`): that becomes `/foo bar`. The output of a local
 * command (`<local-command-stdout>`) keeps its text; the caveat it adds
 * (`<local-command-caveat>`) goes. Other text is left as it is.
 */
export function typedText(text: string): string {
  if (!text.includes("<command-") && !text.includes("<local-command-")) return text;
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1]?.trim();
  if (name !== undefined && name !== "") {
    const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? "";
    const command = name.startsWith("/") ? name : `/${name}`;
    const rest = text.replace(/<command-(name|message|args)>[\s\S]*?<\/command-\1>/g, "").trim();
    return [args === "" ? command : `${command} ${args}`, ...(rest === "" ? [] : [rest])].join(
      "\n",
    );
  }
  return text
    .replace(/<local-command-caveat>[\s\S]*?<\/local-command-caveat>/g, "")
    .replace(/<\/?local-command-(stdout|stderr)>/g, "")
    .trim();
}

/**
 * An agent message cleaned of the markup Claude's adapter wraps a local command's output
 * in (`<local-command-stdout>`, `<local-command-stderr>`: the text stays; the caveat block
 * `<local-command-caveat>` goes), as it replays a session and answers a local command
 * such as `/cost`. Applied to each piece as it streams: the tags come whole in a chunk.
 * Other text is left as it is.
 */
export function agentText(text: string): string {
  if (!text.includes("<local-command-")) return text;
  return text
    .replace(/<local-command-caveat>[\s\S]*?<\/local-command-caveat>\n?/g, "")
    .replace(/<\/?local-command-(stdout|stderr)>/g, "");
}

/** A whole text that is one fenced code block: its fence, info string, and body. */
const FENCED = /^(`{3,}|~{3,})[^\n`]*\n([\s\S]*?)\n?\1[ \t]*$/;

/**
 * A tool's output made for a model or an editor, cleaned for a terminal: the
 * `<system-reminder>` blocks Claude Code adds for the model go, and output that is one
 * fenced code block (Claude's adapter fences what `Read` returned, for Markdown views)
 * loses its fences. Other text is left as it is.
 */
export function toolText(text: string): string {
  let out = text;
  if (out.includes("<system-reminder>")) {
    out = out
      .replace(/<system-reminder>[\s\S]*?(?:<\/system-reminder>|$)/g, "")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  }
  if (out.startsWith("```") || out.startsWith("~~~")) {
    const fenced = FENCED.exec(out.trimEnd());
    if (fenced !== null) out = fenced[2] ?? "";
  }
  return out;
}

/** A token count as "12.3k". */
export function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k` : String(n);
}

/**
 * The end of a reply that is still streaming, cut to about `maxRows` terminal rows of
 * `columns` characters, so that the live area of the view stays smaller than the screen
 * (a taller one makes the terminal redraw everything, and loses its scrollback). The cut
 * is at a line start; when it falls inside a code block, the block is reopened.
 */
export function liveTail(
  text: string,
  maxRows: number,
  columns: number,
): { text: string; hiddenLines: number } {
  const lines = text.split("\n");
  const width = Math.max(10, columns);
  let rows = 0;
  let start = lines.length;
  while (start > 0) {
    const need = Math.max(1, Math.ceil(stringWidth(lines[start - 1] ?? "") / width));
    if (rows + need > maxRows) break;
    rows += need;
    start--;
  }
  if (start === 0) return { text, hiddenLines: 0 };
  if (start === lines.length) {
    // One line taller than the room: its end, from a word boundary.
    const last = lines[lines.length - 1] ?? "";
    const end = last.slice(-maxRows * width);
    const space = end.indexOf(" ");
    const cut = space > 0 && space < width ? end.slice(space + 1) : end;
    return { text: `…${cut}`, hiddenLines: lines.length - 1 };
  }
  const fences = lines.slice(0, start).filter((line) => /^\s*(```|~~~)/.test(line)).length;
  const kept = lines.slice(start).join("\n");
  return { text: fences % 2 === 1 ? "```\n" + kept : kept, hiddenLines: start };
}

/**
 * How many items of a thread, from its start, will not change any more while a turn
 * runs: messages followed by another item, and finished tool calls. They can be printed
 * for good, so that the live area holds only what is still moving.
 */
export function finishedPrefix(thread: readonly ThreadItem[], from: number): number {
  let n = from;
  while (n < thread.length) {
    const item = thread[n];
    if (item === undefined) break;
    if (item.type === "tool_call") {
      if (item.status !== "completed" && item.status !== "failed") break;
    } else if (n === thread.length - 1) {
      break;
    }
    n++;
  }
  return n;
}
