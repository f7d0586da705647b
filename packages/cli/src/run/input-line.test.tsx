/**
 * The input line fed random editing keys in random chunks (bursts, as over SSH or from a
 * multiplexer): the line sent is the one a person editing key by key would have sent.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InputLine } from "./input-line.js";
import { renderWithKeys, terminal, tick } from "../../../../test/support/ink-terminal.js";

type Key = { readonly raw: string; readonly name: string };
const KEYS: readonly Key[] = [
  { raw: "a", name: "a" },
  { raw: "b", name: "b" },
  { raw: "é", name: "é" },
  { raw: " ", name: " " },
  { raw: "\u001b[D", name: "left" },
  { raw: "\u001b[C", name: "right" },
  { raw: "\u001b[H", name: "home" },
  { raw: "\u001b[F", name: "end" },
  { raw: "\u007f", name: "backspace" },
  { raw: "\u0015", name: "ctrl-u" },
];

/** The line a person would see after these keys, worked out on its own. */
function expectedLine(keys: readonly Key[]): string {
  let text = "";
  let cursor = 0;
  for (const key of keys) {
    switch (key.name) {
      case "left":
        cursor = Math.max(0, cursor - 1);
        break;
      case "right":
        cursor = Math.min(text.length, cursor + 1);
        break;
      case "home":
        cursor = 0;
        break;
      case "end":
        cursor = text.length;
        break;
      case "backspace":
        if (cursor > 0) {
          text = text.slice(0, cursor - 1) + text.slice(cursor);
          cursor--;
        }
        break;
      case "ctrl-u":
        text = text.slice(cursor);
        cursor = 0;
        break;
      default:
        text = text.slice(0, cursor) + key.name + text.slice(cursor);
        cursor += key.name.length;
    }
  }
  return text.trim();
}

/** Groups keys into chunks, cutting only between keys. */
function chunks(keys: readonly Key[], points: readonly number[]): string[] {
  const at = new Set(points.map((p) => p % (keys.length + 1)));
  const pieces: string[] = [];
  let piece = "";
  keys.forEach((key, i) => {
    if (at.has(i) && piece !== "") {
      pieces.push(piece);
      piece = "";
    }
    piece += key.raw;
  });
  if (piece !== "") pieces.push(piece);
  return pieces;
}

describe("InputLine under random chunked keys", () => {
  it("sends what the keys, one by one, would have written", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 16 }),
        fc.array(fc.nat({ max: 100 }), { maxLength: 6 }),
        fc.boolean(),
        async (keys, points, enterAlone) => {
          const sent: string[] = [];
          const t = terminal();
          const instance = renderWithKeys(
            <InputLine enabled canSubmit commands={[]} onSubmit={(text) => sent.push(text)} />,
            { stdout: t.stdout, stdin: t.stdin, patchConsole: false, debug: true },
          );
          try {
            await tick(20);
            const pieces = chunks(keys, points);
            // Enter alone, or in the last chunk with what came before it.
            if (enterAlone) pieces.push("\r");
            else pieces.push(`${pieces.pop() ?? ""}\r`);
            for (const piece of pieces) t.chunk(piece);
            await tick(60);
            const line = expectedLine(keys);
            expect(sent).toEqual(line === "" ? [] : [line]);
          } finally {
            instance.unmount();
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});
