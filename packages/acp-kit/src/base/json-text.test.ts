import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NESTED_TOO_DEEP, jsonText } from "./json-text.js";

/** An array nested `depth` levels around 1 (built without recursion). */
function deepArray(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** A length limit never reached: jsonText then walks the value itself (not V8's). */
const WALK = { maxChars: Number.MAX_SAFE_INTEGER };

describe("jsonText", () => {
  it("writes what JSON.stringify writes, compact and indented", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 4 }), (value, indent) => {
        expect(jsonText(value, WALK)).toBe(JSON.stringify(value));
        expect(jsonText(value, { indent, ...WALK })).toBe(JSON.stringify(value, null, indent));
        expect(jsonText(value, { indent })).toBe(JSON.stringify(value, null, indent));
      }),
      { numRuns: 300 },
    );
  });

  it("follows JSON.stringify on values JSON has no text for, toJSON and boxed values", () => {
    const odd = {
      u: undefined,
      f: () => 1,
      s: Symbol("s"),
      list: [undefined, () => 1, NaN, -0, Infinity],
      date: new Date(0),
      boxed: [new Number(3), new String("x"), new Boolean(false)],
      custom: { toJSON: (key: string) => `key ${key}` },
      empty: {},
      none: [],
    };
    expect(jsonText(odd, WALK)).toBe(JSON.stringify(odd));
    expect(jsonText(odd, { indent: 2, ...WALK })).toBe(JSON.stringify(odd, null, 2));
    expect(jsonText(odd, { indent: 2, maxDepth: 10 })).toBe(JSON.stringify(odd, null, 2));
    expect(jsonText(undefined, WALK)).toBeUndefined();
    expect(jsonText(() => 1, WALK)).toBeUndefined();
    expect(() => jsonText({ n: 1n }, WALK)).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = { back: cycle };
    expect(() => jsonText(cycle, WALK)).toThrow(/circular/);
    expect(() => jsonText(cycle, { maxDepth: 1000 })).toThrow(/circular/);
    expect(() => jsonText(cycle)).toThrow(/circular/);
    // The same object twice, not inside itself, is no cycle.
    const shared = { a: 1 };
    expect(jsonText([shared, shared], WALK)).toBe('[{"a":1},{"a":1}]');
  });

  it("writes a value nested 100,000 levels, which JSON.stringify cannot", () => {
    const deep = deepArray(100_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const text = jsonText(deep) ?? "";
    expect(text).toBe(`${"[".repeat(100_000)}1${"]".repeat(100_000)}`);
    expect(JSON.parse(text)).toBeInstanceOf(Array);
  });

  it("writes containers deeper than maxDepth as elided", () => {
    expect(jsonText(deepArray(5), { maxDepth: 2 })).toBe(`[[[${NESTED_TOO_DEEP}]]]`);
    expect(jsonText({ a: { b: { c: 1 } }, d: 2 }, { maxDepth: 2 })).toBe(
      `{"a":{"b":{${NESTED_TOO_DEEP}}},"d":2}`,
    );
    expect(jsonText({ a: { b: 1 } }, { maxDepth: 2 })).toBe('{"a":{"b":1}}');
    const pretty = jsonText(deepArray(100_000), { indent: 2, maxDepth: 3 });
    expect(pretty).toBe(`[\n  [\n    [\n      [${NESTED_TOO_DEEP}]\n    ]\n  ]\n]`);
  });

  it("stops after maxChars", () => {
    const wide = Array.from({ length: 1_000_000 }, (_, i) => i);
    expect(jsonText(wide, { maxChars: 10 })).toBe("[0,1,2,3,4");
    expect(jsonText(deepArray(100_000), { maxChars: 5 })).toBe("[[[[[");
    expect(jsonText([1, 2], { maxChars: 100 })).toBe("[1,2]");
  });
});
