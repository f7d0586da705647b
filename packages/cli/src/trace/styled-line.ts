/**
 * Lines of styled text for the trace view: plain when colours are off, simple ANSI codes
 * when they are on, cut to a width either way (counted in code points, before styling, so
 * escape codes never count and are never cut in half).
 *
 * @module
 */

/** The styles the trace view uses. */
export type Style = "red" | "green" | "yellow" | "blue" | "magenta" | "cyan" | "dim" | "bold";

const CODES: Record<Style, string> = {
  red: "31",
  green: "32",
  yellow: "33",
  blue: "34",
  magenta: "35",
  cyan: "36",
  dim: "2",
  bold: "1",
};

/** A piece of a line and its style. */
export interface Segment {
  readonly text: string;
  readonly style?: Style | undefined;
}

/** Shorthand for a {@link Segment}. */
export function seg(text: string, style?: Style): Segment {
  return { text, style };
}

/** Replaces control characters (a line must stay one line, and never move the cursor). */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (c === "\t" ? " " : "�"));
}

/**
 * Renders segments as one line.
 *
 * @param segments - The pieces, in order.
 * @param color - Emit ANSI colour codes.
 * @param width - Cut the line to this many characters (ending it with `…`); 0 for no limit.
 */
export function renderLine(segments: readonly Segment[], color: boolean, width: number): string {
  let room = width > 0 ? width : Infinity;
  let out = "";
  for (const segment of segments) {
    if (room <= 0) break;
    let text = clean(segment.text);
    // The UTF-16 length bounds the number of characters: count them only when it matters.
    const count = text.length <= room ? text.length : Array.from(text).length;
    if (count > room) {
      const kept = Array.from(text).slice(0, Math.max(0, room - 1));
      text = `${kept.join("")}…`;
      room = 0;
    } else {
      room -= count;
    }
    out +=
      color && segment.style !== undefined
        ? `\u001b[${CODES[segment.style]}m${text}\u001b[0m`
        : text;
  }
  return out;
}
