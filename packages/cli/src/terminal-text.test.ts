import { describe, expect, it } from "vitest";
import { printable } from "./terminal-text.js";

describe("printable", () => {
  it("removes escape sequences of every kind and other control characters", () => {
    expect(printable("a\u001b[2J\u001b[1;1Hb")).toBe("ab");
    expect(printable("x\u001b]0;evil title\u0007y")).toBe("xy");
    expect(printable("x\u001b]8;;http://e/\u001b\\link\u001b]8;;\u001b\\y")).toBe("xlinky");
    expect(printable("x\u009b31my\u009d0;t\u009cz")).toBe("xyz");
    expect(printable("p\u001bPq#0\u001b\\q")).toBe("pq");
    expect(printable("bell\u0007 back\bspace\u007f")).toBe("bell backspace");
    expect(printable("cut\u001b")).toBe("cut");
    expect(printable("a\u001b]0;never ends")).toBe("a");
  });

  it("keeps text, and line breaks only when asked", () => {
    expect(printable("Claude Code — 1.2.3 ✓")).toBe("Claude Code — 1.2.3 ✓");
    expect(printable("one\ntwo\r\n\tthree")).toBe("one two three");
    expect(printable("one\ntwo\tthree\u0000", true)).toBe("one\ntwo\tthree");
  });
});
