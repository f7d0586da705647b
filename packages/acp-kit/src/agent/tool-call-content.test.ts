import { describe, expect, it } from "vitest";
import { IdSource, isAbsolutePath, randomHex } from "./ids.js";
import { jsonEqual, toolContent } from "./tool-call-content.js";

describe("toolContent", () => {
  it("builds text, block, diff and terminal content", () => {
    expect(toolContent.text("hi")).toEqual({
      type: "content",
      content: { type: "text", text: "hi" },
    });
    expect(toolContent.block({ type: "image", data: "AA==", mimeType: "image/png" })).toEqual({
      type: "content",
      content: { type: "image", data: "AA==", mimeType: "image/png" },
    });
    expect(toolContent.diff("/a", "x", "y")).toEqual({
      type: "diff",
      path: "/a",
      oldText: "x",
      newText: "y",
    });
    expect(toolContent.diff("C:\\a.txt", undefined, "y")).toEqual({
      type: "diff",
      path: "C:\\a.txt",
      newText: "y",
    });
    expect(toolContent.diff("/a", "", "y")).toHaveProperty("oldText", "");
    expect(toolContent.terminal("t1")).toEqual({ type: "terminal", terminalId: "t1" });
    expect(toolContent.terminal({ id: "t2" })).toEqual({ type: "terminal", terminalId: "t2" });
  });

  it("refuses relative diff paths", () => {
    expect(() => toolContent.diff("src/a.ts", null, "")).toThrow(TypeError);
  });
});

describe("helpers", () => {
  it("compares JSON values structurally", () => {
    expect(jsonEqual({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] })).toBe(true);
    expect(jsonEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: "1" })).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, undefined)).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });

  it("recognises absolute paths", () => {
    for (const path of ["/", "/a/b", "C:\\x", "d:/x", "\\\\server\\share"]) {
      expect(isAbsolutePath(path)).toBe(true);
    }
    for (const path of ["", "a", "./a", "C:x", "~/a"]) expect(isAbsolutePath(path)).toBe(false);
  });

  it("makes random hex and unique ids", () => {
    expect(randomHex()).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(3)).toMatch(/^[0-9a-f]{6}$/);
    const source = new IdSource();
    const ids = Array.from({ length: 100 }, () => source.next("x"));
    expect(new Set(ids).size).toBe(100);
    expect(new IdSource().next("x")).not.toBe(ids[0]);
  });
});
