/**
 * The quadratic-time guard of the plain transcript (`acp-kit run --plain`): a long turn
 * goes through the real session store and reducer into a {@link PlainTranscript}, and a
 * turn four times as long must take about four times as long, not sixteen. (Measured on a
 * 2-core machine: 10k/40k/100k chunks 0.09/0.23/0.48 s; 10k/20k/40k tool calls
 * 0.15/0.31/0.56 s, where 20k took 5.1 s before.)
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { PlainTranscript } from "../../packages/cli/src/run/plain-transcript.js";
import type { SessionUpdate } from "../../packages/acp-kit/src/schema/types.gen.js";
import { SessionStore } from "../../packages/acp-kit/src/session/store.js";

/** Feeds `count` rounds of `updates(i)` through a store into a transcript; returns ms and output size. */
function feed(
  count: number,
  updates: (i: number) => SessionUpdate[],
): { ms: number; chars: number } {
  let chars = 0;
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chars += chunk.length;
      done();
    },
  });
  const transcript = new PlainTranscript(out);
  const store = new SessionStore();
  store.subscribe(transcript.update);
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    for (const update of updates(i)) store.apply({ sessionId: "s", update });
  }
  return { ms: performance.now() - start, chars };
}

/** The best of a few runs (the machine is shared), after one warm-up run. */
function best(count: number, updates: (i: number) => SessionUpdate[]): number {
  feed(Math.min(count, 2000), updates);
  let ms = Infinity;
  for (let run = 0; run < 3; run++) ms = Math.min(ms, feed(count, updates).ms);
  return ms;
}

const chunk = (): SessionUpdate[] => [
  { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "word " } },
];
const toolCall = (i: number): SessionUpdate[] => [
  {
    sessionUpdate: "tool_call",
    toolCallId: `call-${i}`,
    title: `step ${i}`,
    status: "in_progress",
  },
  { sessionUpdate: "tool_call_update", toolCallId: `call-${i}`, status: "completed" },
];

describe("plain transcript in time linear in the turn", () => {
  it("prints every chunk and tool call once", () => {
    expect(feed(1000, chunk).chars).toBe(5000);
    const calls = feed(100, toolCall).chars;
    expect(calls).toBeGreaterThan(100 * "[other] step 0 (in_progress)\n".length);
  });

  it("streams 40,000 chunks in about 4x the time of 10,000", () => {
    const small = best(10_000, chunk);
    const large = best(40_000, chunk);
    // Linear is 4x; quadratic is 16x. Generous for a noisy machine.
    expect(large / Math.max(small, 5)).toBeLessThan(9);
  });

  // The reducer keeps the thread in a persistent list with an index of ids: before, it
  // copied the whole thread array on every tool call update and walked it for each new
  // id (8k vs 2k: 10-25x).
  it("folds 40,000 tool calls in about 4x the time of 10,000", () => {
    const small = best(10_000, toolCall);
    const large = best(40_000, toolCall);
    // Linear is 4x; quadratic is 16x. Generous for a noisy machine.
    expect(large / Math.max(small, 5)).toBeLessThan(8);
  });
});
