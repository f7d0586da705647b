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
 */
export async function* parseEventStream(
  body: ReadableStream<Uint8Array>,
  maxEventBytes: number,
): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder("utf-8");
  const reader = body.getReader();
  let pending = "";
  let data: string[] = [];
  let dataChars = 0;
  let id: string | undefined;
  let event = "";
  let firstChunk = true;
  let done = false;
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
      pending += text;
      let start = 0;
      for (;;) {
        let end = -1;
        let next = -1;
        for (let i = start; i < pending.length; i++) {
          const c = pending.charCodeAt(i);
          if (c === 10) {
            end = i;
            next = i + 1;
            break;
          }
          if (c === 13) {
            // A CR at the very end may be the first half of CRLF: wait for more.
            if (i + 1 >= pending.length) break;
            end = i;
            next = pending.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
            break;
          }
        }
        if (end < 0) break;
        const line = pending.slice(start, end);
        start = next;
        if (line === "") {
          if (data.length > 0) {
            yield {
              kind: "event",
              event: { data: data.join("\n"), id, event: event || "message" },
            };
          }
          data = [];
          dataChars = 0;
          id = undefined;
          event = "";
          continue;
        }
        if (line.charCodeAt(0) === 58 /* : */) {
          yield { kind: "comment" };
          continue;
        }
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
          if (/^\d+$/.test(value)) yield { kind: "retry", ms: Number(value) };
        }
      }
      pending = pending.slice(start);
      if (pending.length > maxEventBytes + 64)
        throw new Error(`An event is over ${maxEventBytes} bytes`);
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
