/**
 * A streaming parser for `text/event-stream` bodies (the HTML Living Standard's event
 * stream format): events with their `id`, the `retry` hint, and comment lines (the
 * server's keep-alives) reported as activity.
 *
 * @module
 */

/** One dispatched event. */
export interface SseEvent {
  /** The event's `data` lines joined by `\n`. */
  readonly data: string;
  /** The `id` field of this event, when it had one. */
  readonly id: string | undefined;
  /** The `event` field (`message` when absent). */
  readonly event: string;
}

/** What the parser reports, in the order it reads it. */
export type SseItem =
  | { readonly kind: "event"; readonly event: SseEvent }
  | { readonly kind: "retry"; readonly ms: number }
  | { readonly kind: "comment" };

/**
 * Parses an event stream. Yields each event when its blank line arrives; an event cut
 * off by the end of the body is dropped, as the standard says. `maxEventBytes` bounds a
 * single event (an error past it).
 *
 * Linear in the body's size: each chunk is scanned once for line ends, and a line spread
 * over many chunks is kept as its pieces and joined once when it ends (appending chunks
 * to one string and scanning it again from its start was quadratic: a 16 MiB event took
 * seconds of CPU).
 */
export async function* parseEventStream(
  body: ReadableStream<Uint8Array>,
  maxEventBytes: number,
): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder("utf-8");
  const reader = body.getReader();
  /** Pieces of the line not yet ended, from earlier chunks. */
  let pieces: string[] = [];
  let piecesLength = 0;
  /** The last chunk ended with CR: a LF opening the next one belongs to it. */
  let afterCr = false;
  let data: string[] = [];
  let dataChars = 0;
  let id: string | undefined;
  let event = "";
  let firstChunk = true;
  let done = false;

  /** Applies one line to the event being built; returns what to report, if anything. */
  const takeLine = (line: string): SseItem | undefined => {
    if (line === "") {
      const item: SseItem | undefined =
        data.length > 0
          ? { kind: "event", event: { data: data.join("\n"), id, event: event || "message" } }
          : undefined;
      data = [];
      dataChars = 0;
      id = undefined;
      event = "";
      return item;
    }
    if (line.charCodeAt(0) === 58 /* : */) return { kind: "comment" };
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "data") {
      dataChars += value.length + 1;
      if (dataChars > maxEventBytes) throw new Error(`An event is over ${maxEventBytes} bytes`);
      data.push(value);
    } else if (field === "id") {
      if (!value.includes("\0")) id = value;
    } else if (field === "event") {
      event = value;
    } else if (field === "retry") {
      if (/^\d+$/.test(value)) return { kind: "retry", ms: Number(value) };
    }
    return undefined;
  };

  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        break;
      }
      let text = decoder.decode(chunk.value, { stream: true });
      if (firstChunk && text.length > 0) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        firstChunk = false;
      }
      let start = 0;
      if (afterCr && text.length > 0) {
        afterCr = false;
        if (text.charCodeAt(0) === 10) start = 1;
      }
      // Next LF and CR at or after the scan position (-1: none left in this chunk); each
      // is searched again only once passed, so the chunk is read once.
      let lf = text.indexOf("\n", start);
      let cr = text.indexOf("\r", start);
      while (lf >= 0 || cr >= 0) {
        const end = cr < 0 || (lf >= 0 && lf < cr) ? lf : cr;
        let next = end + 1;
        if (end === cr) {
          if (next < text.length) {
            if (text.charCodeAt(next) === 10) next++;
          } else {
            afterCr = true;
          }
        }
        let line = text.slice(start, end);
        if (pieces.length > 0) {
          pieces.push(line);
          line = pieces.join("");
          pieces = [];
          piecesLength = 0;
        }
        start = next;
        if (lf >= 0 && lf < start) lf = text.indexOf("\n", start);
        if (cr >= 0 && cr < start) cr = text.indexOf("\r", start);
        const item = takeLine(line);
        if (item !== undefined) yield item;
      }
      if (start < text.length) {
        pieces.push(start === 0 ? text : text.slice(start));
        piecesLength += text.length - start;
        if (piecesLength > maxEventBytes + 64) {
          throw new Error(`An event is over ${maxEventBytes} bytes`);
        }
      }
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
