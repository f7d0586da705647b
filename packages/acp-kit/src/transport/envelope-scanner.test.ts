import { describe, expect, it } from "vitest";
import { EnvelopeScanner } from "./envelope-scanner.js";

function scan(text: string, asBytes = false, split = 0): ReturnType<EnvelopeScanner["result"]> {
  const s = new EnvelopeScanner();
  const parts = split > 0 ? [text.slice(0, split), text.slice(split)] : [text];
  for (const p of parts) {
    if (asBytes) s.feedBytes(new TextEncoder().encode(p));
    else s.feedText(p);
  }
  return s.result();
}

describe("EnvelopeScanner", () => {
  it("finds numeric, string and null ids at the top level only", () => {
    expect(scan('{"jsonrpc":"2.0","id":12,"method":"x"}')).toEqual({
      id: 12,
      hasMethod: true,
      hasOutcome: false,
    });
    expect(scan('{"method":"x","params":{"id":99},"id":"abc"}')).toEqual({
      id: "abc",
      hasMethod: true,
      hasOutcome: false,
    });
    expect(scan('{"id":null,"error":{"code":1}}')).toEqual({
      id: null,
      hasMethod: false,
      hasOutcome: true,
    });
    expect(scan('{"params":{"id":5,"method":"nested"}}')).toEqual({
      hasMethod: false,
      hasOutcome: false,
    });
  });

  it("recovers every safe integer id, and no unsafe one", () => {
    expect(scan('{"id":9007199254740991,"method":"x"}')).toMatchObject({ id: 9007199254740991 });
    expect(scan('{"id":-1234567890123456,"method":"x"}')).toMatchObject({ id: -1234567890123456 });
    expect(scan('{"id":9007199254740993,"method":"x"}')).not.toHaveProperty("id");
    expect(scan('{"id":1.5,"method":"x"}')).not.toHaveProperty("id");
  });

  it("is not fooled by keys inside strings or escaped quotes", () => {
    expect(scan('{"params":"\\"id\\":3","method":"m","id":4}')).toEqual({
      id: 4,
      hasMethod: true,
      hasOutcome: false,
    });
  });

  it("handles whitespace and resumes across feeds", () => {
    const text = '{ "id" : -7 , "method" : "m" }';
    for (let cut = 1; cut < text.length; cut++) {
      expect(scan(text, true, cut)).toEqual({ id: -7, hasMethod: true, hasOutcome: false });
    }
  });

  it("rejects ids of other types and non-ASCII bytes it cannot rebuild", () => {
    expect(scan('{"id":{"x":1},"method":"m"}')).toEqual({ hasMethod: true, hasOutcome: false });
    expect(scan('{"id":1.5,"method":"m"}')).toEqual({ hasMethod: true, hasOutcome: false });
    expect(scan('{"id":"é","method":"m"}', true)).toEqual({ hasMethod: true, hasOutcome: false });
    expect(scan('{"id":"é","method":"m"}', false)).toEqual({
      id: "é",
      hasMethod: true,
      hasOutcome: false,
    });
  });
});
