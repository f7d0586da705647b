/**
 * Streaming helpers of the scripted agent: cutting text into chunks, and pauses that
 * cancellation cuts short.
 *
 * @module
 */
import type { TextChunking } from "../scenario/step-types.js";

/**
 * Cuts `text` into chunks that join back into it.
 *
 * - `undefined`: one chunk;
 * - a number: that many code points per chunk;
 * - `"word"`: one word per chunk, with the whitespace after it (leading whitespace goes
 *   with the first word);
 * - `"line"`: one line per chunk, with its newline.
 *
 * @param text - The text.
 * @param chunking - How to cut it.
 * @internal
 */
export function splitText(text: string, chunking: TextChunking | undefined): string[] {
  if (chunking === undefined || text === "") return [text];
  if (typeof chunking === "number") {
    const points = Array.from(text);
    const chunks: string[] = [];
    for (let start = 0; start < points.length; start += chunking) {
      chunks.push(points.slice(start, start + chunking).join(""));
    }
    return chunks;
  }
  const pattern = chunking === "word" ? /\s*\S+\s*/g : /[^\n]*\n|[^\n]+$/g;
  return text.match(pattern) ?? [text];
}

/**
 * Waits `ms` milliseconds; rejects with the signal's reason as soon as it aborts. A
 * duration of 0 or less does not wait (and does not yield).
 *
 * @param ms - How long.
 * @param signal - Cuts the wait short.
 * @internal
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Resolves once `signal` aborts (at once when it already has).
 *
 * @param signal - The signal.
 * @internal
 */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * The message of an error, for `${error}`.
 *
 * @param error - What was thrown.
 * @internal
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
