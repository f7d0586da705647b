import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TerminalOutputBuffer, type TerminalStream } from "./output.js";

/** What the buffer must hold: the last `limit` bytes, minus a leading partial character. */
function expected(text: string, limit: number): { output: string; truncated: boolean } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= limit) return { output: text, truncated: false };
  let tail = bytes.subarray(bytes.length - limit);
  while (tail.length > 0 && ((tail[0] ?? 0) & 0xc0) === 0x80) tail = tail.subarray(1);
  return { output: tail.toString("utf8"), truncated: true };
}

describe("TerminalOutputBuffer", () => {
  it("keeps the newest bytes at a character boundary, across wrap-arounds", () => {
    const piece = fc.string({ unit: "binary", maxLength: 40 });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.nat({ max: 120 }), (pieces, limit) => {
        const buffer = new TerminalOutputBuffer(limit);
        let all = "";
        for (const text of pieces) {
          buffer.write("stdout", Buffer.from(text, "utf8"));
          all += text;
          expect(buffer.read()).toEqual(expected(all, limit));
          expect(buffer.size).toBeLessThanOrEqual(limit);
        }
      }),
    );
  });

  it("decodes each stream on its own, whatever the byte boundaries", () => {
    const chunking = fc.array(fc.nat({ max: 7 }), { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), chunking, (text, sizes) => {
        const buffer = new TerminalOutputBuffer(1000);
        const bytes = Buffer.from(text, "utf8");
        let at = 0;
        let live = "";
        for (let i = 0; at < bytes.length; i++) {
          const size = (sizes[i % sizes.length] ?? 0) + 1;
          live += buffer.write("stderr", bytes.subarray(at, at + size));
          at += size;
        }
        expect(buffer.read().output).toBe(text);
        expect(live).toBe(text);
      }),
    );
  });

  it("stores invalid bytes and a stream's unfinished character as U+FFFD", () => {
    const buffer = new TerminalOutputBuffer(100);
    const streams: TerminalStream[] = ["stdout", "stderr"];
    buffer.write("stdout", Buffer.from([0x41, 0xff, 0xe2, 0x82]));
    buffer.write("stderr", Buffer.from("x"));
    for (const stream of streams) buffer.end(stream);
    expect(buffer.read()).toEqual({ output: "A\uFFFDx\uFFFD", truncated: false });
  });

  it("keeps nothing with a limit of 0, but says output was dropped", () => {
    const buffer = new TerminalOutputBuffer(0);
    expect(buffer.read()).toEqual({ output: "", truncated: false });
    buffer.write("stdout", Buffer.from("hello"));
    expect(buffer.read()).toEqual({ output: "", truncated: true });
  });
});
