/**
 * {@link prepended}: a message stream that gives some messages already read first, then
 * the rest of a reader's. The router, the negotiation and the bridge read the first
 * messages themselves before a connection takes the stream over.
 *
 * @module
 */
import type { AnyMessage } from "../base/messages.js";

/** `first` (in order), then what `reader` reads; cancelling it cancels the reader. */
export function prepended(
  reader: ReadableStreamDefaultReader<AnyMessage>,
  first: AnyMessage[],
): ReadableStream<AnyMessage> {
  return new ReadableStream<AnyMessage>(
    {
      async pull(controller) {
        const next = first.shift();
        if (next !== undefined) {
          controller.enqueue(next);
          return;
        }
        try {
          const result = await reader.read();
          if (result.done) {
            reader.releaseLock();
            controller.close();
          } else controller.enqueue(result.value);
        } catch (error) {
          reader.releaseLock();
          controller.error(error);
        }
      },
      async cancel(reason) {
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
