import { afterEach, describe, expect, it } from "vitest";
import { LineSplitter, type SplitItem } from "./line-splitter.js";

const enc = new TextEncoder();

function feed(splitter: LineSplitter, chunks: Uint8Array[]): SplitItem[] {
  const out: SplitItem[] = [];
  for (const c of chunks) {
    const items = splitter.push(c);
    if (typeof items === "string") out.push(items);
    else out.push(...items);
  }
  const last = splitter.end();
  if (last !== undefined) out.push(last);
  return out;
}

function chunked(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

describe("LineSplitter", () => {
  it("splits lines across chunk boundaries and keeps empty lines for the caller", () => {
    const items = feed(new LineSplitter(1000), [
      enc.encode('{"a":1}\n{"b"'),
      enc.encode(':2}\n\n{"c":3}'),
    ]);
    expect(items).toEqual(['{"a":1}', '{"b":2}', "", '{"c":3}']);
  });

  it("accepts a last line without newline, and nothing extra after a trailing newline", () => {
    expect(feed(new LineSplitter(100), [enc.encode("x\ny")])).toEqual(["x", "y"]);
    expect(feed(new LineSplitter(100), [enc.encode("x\n")])).toEqual(["x"]);
  });

  it("decodes UTF-8 split at every possible position, with 2-, 3- and 4-byte characters", () => {
    const text = '{"t":"é€😀ß漢字🎉"}';
    const bytes = enc.encode(text + "\n" + text + "\n");
    for (let cut = 1; cut < bytes.length; cut++) {
      const items = feed(new LineSplitter(1000), [bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(items).toEqual([text, text]);
    }
    // One, two and three bytes at a time.
    for (const size of [1, 2, 3]) {
      expect(feed(new LineSplitter(1000), chunked(bytes, size))).toEqual([text, text]);
    }
    // A partial line (no newline yet) cut inside a character, then finished.
    const emoji = enc.encode("😀😀");
    for (let a = 1; a < emoji.length; a++) {
      for (let b = a + 1; b <= emoji.length; b++) {
        const parts = [
          emoji.subarray(0, a),
          emoji.subarray(a, b),
          emoji.subarray(b),
          enc.encode("\n"),
        ];
        expect(feed(new LineSplitter(1000), parts)).toEqual(["😀😀"]);
      }
    }
  });

  it("replaces invalid UTF-8 instead of failing", () => {
    const items = feed(new LineSplitter(100), [new Uint8Array([0x61, 0xff, 0x62, 0x0a])]);
    expect(items).toEqual(["a\ufffdb"]);
    // A character cut short by a newline, and one cut short by the end of input.
    expect(
      feed(new LineSplitter(100), [new Uint8Array([0x61, 0xe2]), new Uint8Array([0x82, 0x0a])]),
    ).toEqual(["a\ufffd"]);
    expect(feed(new LineSplitter(100), [new Uint8Array([0x61, 0xf0, 0x9f])])).toEqual(["a\ufffd"]);
  });

  it("drops an oversized line that spans chunks and recovers its id", () => {
    const big = "x".repeat(5000);
    const line = `{"jsonrpc":"2.0","id":42,"method":"m","params":{"d":"${big}"}}`;
    const items = feed(new LineSplitter(1024), chunked(enc.encode(`${line}\n{"ok":1}\n`), 300));
    expect(items).toHaveLength(2);
    const dropped = items[0];
    expect(typeof dropped).toBe("object");
    expect(dropped).toMatchObject({ envelope: { id: 42, hasMethod: true }, bytes: line.length });
    expect(items[1]).toBe('{"ok":1}');
  });

  it("recovers an id that comes after the large payload, and string ids with escapes", () => {
    const big = "y".repeat(3000);
    const line = `{"jsonrpc":"2.0","method":"m","params":{"d":"${big}","id":7},"id":"a\\"b"}`;
    const items = feed(new LineSplitter(1000), [enc.encode(line + "\n")]);
    expect(items[0]).toMatchObject({ envelope: { id: 'a"b', hasMethod: true } });
  });

  it("drops an oversized line inside a single chunk between normal lines", () => {
    const big = `{"id":1,"result":"${"z".repeat(2000)}"}`;
    const items = feed(new LineSplitter(500), [enc.encode(`{"a":1}\n${big}\n{"b":2}\n`)]);
    expect(items[0]).toBe('{"a":1}');
    expect(items[1]).toMatchObject({ envelope: { id: 1, hasMethod: false, hasOutcome: true } });
    expect(items[2]).toBe('{"b":2}');
  });

  it("reports an oversized line that never ends at end of input", () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push(enc.encode('{"id":3,"method":"x","params":"0123456789"'))).toEqual([]);
    // A single complete line comes back as a plain string.
    expect(new LineSplitter(100).push(enc.encode('{"a":1}\n'))).toBe('{"a":1}');
    expect(splitter.end()).toMatchObject({ envelope: { id: 3, hasMethod: true } });
  });

  describe("linear time", () => {
    const OriginalDecoder = globalThis.TextDecoder;
    afterEach(() => {
      globalThis.TextDecoder = OriginalDecoder;
    });

    it("decodes each byte of a 20 MB message in 64 KiB chunks exactly once", () => {
      let decodedBytes = 0;
      class CountingDecoder extends OriginalDecoder {
        override decode(input?: AllowSharedBufferSource, options?: TextDecodeOptions): string {
          if (input !== undefined) decodedBytes += input.byteLength;
          return super.decode(input, options);
        }
      }
      globalThis.TextDecoder = CountingDecoder;
      const payload = "a".repeat(20 * 1024 * 1024);
      const bytes = enc.encode(`{"id":1,"result":{"content":"${payload}"}}\n`);
      const splitter = new LineSplitter(64 * 1024 * 1024);
      const items: SplitItem[] = [];
      for (const c of chunked(bytes, 64 * 1024)) {
        const got = splitter.push(c);
        if (typeof got === "string") items.push(got);
        else items.push(...got);
      }
      expect(items).toHaveLength(1);
      expect((items[0] as string).length).toBe(bytes.length - 1);
      // Every byte but the newline is decoded once: no re-decoding of the growing line.
      expect(decodedBytes).toBe(bytes.length - 1);
    });
  });
});
