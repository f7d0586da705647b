import { describe, expect, it } from "vitest";
import {
  EMPTY_LINE,
  editLine,
  type EditContext,
  type KeyPress,
  type LineState,
} from "./line-editor.js";

const context = (over: Partial<EditContext> = {}): EditContext => ({
  history: [],
  canSubmit: true,
  complete: (text) =>
    ["mode", "model", "new"]
      .filter((n) => text.startsWith("/") && n.startsWith(text.slice(1)))
      .map((n) => `/${n} `),
  ...over,
});

/** Applies inputs in order: a string is raw input, an object a key. */
function run(
  steps: readonly (string | [string, KeyPress])[],
  ctx: EditContext = context(),
  from: LineState = EMPTY_LINE,
): { state: LineState; sent: string[] } {
  let state = from;
  const sent: string[] = [];
  for (const step of steps) {
    const [input, key] = typeof step === "string" ? [step, {}] : step;
    const result = editLine(state, input, key, ctx);
    state = result.state;
    if (result.submit !== undefined) sent.push(result.submit);
  }
  return { state, sent };
}

describe("editLine", () => {
  it("types, moves the cursor by code points and inserts there", () => {
    const { state } = run(["ab😀d", ["", { leftArrow: true }], ["", { leftArrow: true }], "c"]);
    // Two steps left pass "d" and the whole emoji (two UTF-16 units).
    expect(state.text).toBe("abc😀d");
    expect(state.cursor).toBe("abc".length);
  });

  it("deletes backwards, also several Backspaces in one chunk", () => {
    expect(run(["abcdefgh", "\u007f\u007f\u007f"]).state.text).toBe("abcde");
    expect(run(["ab😀", ["", { backspace: true }]]).state.text).toBe("ab");
    expect(run(["abc", ["", { delete: true }]]).state.text).toBe("ab");
  });

  it("knows Home/End, Ctrl-A/E/U/K/W", () => {
    const typed = run(["hello big world"]).state;
    expect(run([["a", { ctrl: true }], ">"], context(), typed).state.text).toBe(">hello big world");
    expect(
      run([["", { home: true }], ["e", { ctrl: true }], "!"], context(), typed).state.text,
    ).toBe("hello big world!");
    expect(run([["w", { ctrl: true }]], context(), typed).state.text).toBe("hello big ");
    expect(run([["u", { ctrl: true }]], context(), typed).state.text).toBe("");
    const middle = run(
      [
        ["", { leftArrow: true }],
        ["", { leftArrow: true }],
      ],
      context(),
      typed,
    ).state;
    expect(run([["k", { ctrl: true }]], context(), middle).state.text).toBe("hello big wor");
    expect(run(["\u0017"], context(), typed).state.text).toBe("hello big ");
    // The same keys inside a chunk of other input (fast typing, ssh).
    expect(run(["abc\u0001X"]).state.text).toBe("Xabc");
    expect(run(["abc\u0001\u0005X"]).state.text).toBe("abcX");
    expect(run(["abcdef\u0001\u000bnew"]).state.text).toBe("new");
  });

  it("sends on Enter, trimmed, and only when it may", () => {
    expect(run(["  hi  ", ["", { return: true }]]).sent).toEqual(["hi"]);
    const busy = run(["hi", ["", { return: true }]], context({ canSubmit: false }));
    expect(busy.sent).toEqual([]);
    expect(busy.state.text).toBe("hi");
    // Text and Enter in one chunk, as a fast typist or a multiplexer sends them.
    expect(run(["please stream\r"]).sent).toEqual(["please stream"]);
  });

  it("keeps a pasted block of lines together instead of sending its first line", () => {
    const pasted = run(["First line\nsecond line\r\nthird"]);
    expect(pasted.sent).toEqual([]);
    expect(pasted.state.text).toBe("First line\nsecond line\nthird");
    expect(run([["", { return: true }]], context(), pasted.state).sent).toEqual([
      "First line\nsecond line\nthird",
    ]);
    // The same while a turn runs: nothing is lost.
    expect(run(["a\nb"], context({ canSubmit: false })).state.text).toBe("a\nb");
  });

  it("completes with Tab, cycling through the matches, also when Tab came with the text", () => {
    const once = run(["/mo", ["", { tab: true }]]).state;
    expect(once.text).toBe("/mode ");
    expect(run([["", { tab: true }]], context(), once).state.text).toBe("/model ");
    expect(run(["/sh\t"], context({ complete: () => ["/shout "] })).state.text).toBe("/shout ");
    expect(run(["/zz", ["", { tab: true }]]).state.text).toBe("/zz");
  });

  it("completes a command's values: the lines offered replace the line", () => {
    const values = context({
      complete: (text) =>
        ["ask", "code"].filter((v) => `/mode ${v}`.startsWith(text)).map((v) => `/mode ${v}`),
    });
    const first = run(["/mode ", ["", { tab: true }]], values).state;
    expect(first.text).toBe("/mode ask");
    expect(first.cursor).toBe("/mode ask".length);
    expect(run([["", { tab: true }]], values, first).state.text).toBe("/mode code");
    expect(run(["/mode c\t"], values).state.text).toBe("/mode code");
  });

  it("browses the history and gives the draft back", () => {
    const ctx = context({ history: ["first", "second"] });
    const up = run(["draft", ["", { upArrow: true }]], ctx).state;
    expect(up.text).toBe("second");
    const upUp = run(
      [
        ["", { upArrow: true }],
        ["", { upArrow: true }],
      ],
      ctx,
      up,
    ).state;
    expect(upUp.text).toBe("first");
    const down = run(
      [
        ["", { downArrow: true }],
        ["", { downArrow: true }],
      ],
      ctx,
      upUp,
    ).state;
    expect(down.text).toBe("draft");
    expect(down.cursor).toBe(5);
  });

  it("drops control characters that are not keys it knows", () => {
    expect(run(["a\u0003b\u001bc"]).state.text).toBe("abc");
  });

  it("moves between the lines of a text with ↑/↓, and walks the history from its ends", () => {
    const ctx = context({ history: ["earlier"] });
    const up = ["", { upArrow: true }] as [string, KeyPress];
    const down = ["", { downArrow: true }] as [string, KeyPress];
    const typed = run(["first line\nab\nlast"], ctx).state;
    // From the end of "last" (column 4) up: "ab" is shorter, so its end; then column 2.
    const one = run([up], ctx, typed).state;
    expect(one).toMatchObject({ text: "first line\nab\nlast", cursor: 13 });
    const two = run([up], ctx, one).state;
    expect(two.cursor).toBe(2);
    // On the first line, ↑ goes to the history; ↓ comes back to the text.
    const back = run([up], ctx, two).state;
    expect(back.text).toBe("earlier");
    const again = run([down], ctx, back).state;
    expect(again.text).toBe("first line\nab\nlast");
    // ↓ from the first line goes down a line, in the same column or the line's end.
    const right = ["", { rightArrow: true }] as [string, KeyPress];
    const lower = run([["", { home: true }], right, right, right, down], ctx, typed).state;
    expect(lower.cursor).toBe(13);
    expect(run([down], ctx, lower).state.cursor).toBe(16);
  });
});
