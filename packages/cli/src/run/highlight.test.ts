import { describe, expect, it } from "vitest";
import { highlightCode } from "./highlight.js";

describe("highlightCode", () => {
  it("colours a known language by token, line by line", () => {
    const lines = highlightCode('const a = "x"; // note\nreturn 1;', "ts");
    expect(lines).toHaveLength(2);
    const first = lines?.[0] ?? [];
    expect(first.map((s) => s.text).join("")).toBe('const a = "x"; // note');
    expect(first.find((s) => s.text === "const")?.color).toBe("magenta");
    expect(first.find((s) => s.text === '"x"')?.color).toBe("green");
    expect(first.find((s) => s.text === "// note")).toMatchObject({ color: "gray", dim: true });
    expect(lines?.[1]?.find((s) => s.text === "1")?.color).toBe("yellow");
  });

  it("gives back the code's characters as they are (no HTML entities)", () => {
    const code = "if a < b && c > d:\n    print('it''s \"ok\"')";
    const lines = highlightCode(code, "python");
    expect(lines?.map((spans) => spans.map((s) => s.text).join("")).join("\n")).toBe(code);
  });

  it("keeps blank lines, and knows the names agents write (sh, tsx, toml)", () => {
    expect(highlightCode("a=1\n\nb=2", "sh")?.[1]).toEqual([]);
    expect(highlightCode("let x = <b/>;", "tsx")).toBeDefined();
    expect(highlightCode("[a]\nb = 1", "TOML")).toBeDefined();
  });

  it("leaves an unknown language, none, or huge code to be shown plain", () => {
    expect(highlightCode("x", "no-such-language")).toBeUndefined();
    expect(highlightCode("x", "")).toBeUndefined();
    expect(highlightCode("x".repeat(100_000), "ts")).toBeUndefined();
  });
});
