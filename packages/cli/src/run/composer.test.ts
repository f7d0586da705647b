import { describe, expect, it } from "vitest";
import { Composer, type ComposerKey } from "./composer.js";
import type { Key } from "ink";
import { routedKey } from "./keys.js";
import { memoryHistory } from "./prompt-history.js";

/** A key with no flag set, as Ink reports text. */
const INK_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

const context = { canSubmit: true, complete: () => [] };

/** Feeds keys (a string is raw input, a pair input and flags); returns what was sent. */
function feed(composer: Composer, ...keys: (string | [string, ComposerKey])[]): string[] {
  const sent: string[] = [];
  for (const step of keys) {
    const [input, key] = typeof step === "string" ? [step, {}] : step;
    sent.push(...composer.key(input, key, context));
  }
  return sent;
}

const ENTER: [string, ComposerKey] = ["\r", { return: true }];
const ESC: [string, ComposerKey] = ["", { escape: true }];
const CTRL_R: [string, ComposerKey] = ["r", { ctrl: true }];
const PASTE_START: [string, ComposerKey] = ["", { paste: "start" }];
const PASTE_END: [string, ComposerKey] = ["", { paste: "end" }];

describe("Composer: new lines", () => {
  it("turns a backslash before the cursor and Enter into a new line", () => {
    const c = new Composer();
    expect(feed(c, "one\\", ENTER, "two")).toEqual([]);
    expect(c.line.text).toBe("one\ntwo");
    expect(feed(c, ENTER)).toEqual(["one\ntwo"]);
  });

  it("takes Shift-Enter as kitty, xterm (modifyOtherKeys) and ESC CR send it", () => {
    const c = new Composer();
    feed(c, "a", ["\r", { return: true, shift: true }], "b", routedKey("[27;2;13~", INK_KEY), "c");
    feed(c, ["\r", { return: true, meta: true }], "d");
    expect(c.line.text).toBe("a\nb\nc\nd");
  });
});

describe("Composer: pastes and chunks", () => {
  it("gets a paste's marks from the key router, out of the text (other views too)", () => {
    expect(routedKey("[200~", INK_KEY)).toEqual(["", { ...INK_KEY, paste: "start" }]);
    expect(routedKey("[201~", INK_KEY)).toEqual(["", { ...INK_KEY, paste: "end" }]);
    expect(routedKey("text", INK_KEY)).toEqual(["text", INK_KEY]);
  });

  it("keeps a bracketed paste whole, line breaks and a final Enter included", () => {
    const c = new Composer({ bracketedPaste: true });
    const sent = feed(c, "say ", PASTE_START, "first\rsecond", ENTER, PASTE_END);
    expect(sent).toEqual([]);
    expect(c.line.text).toBe("say first\nsecond\n");
    expect(c.pasting).toBe(false);
    expect(feed(c, ENTER)).toEqual(["say first\nsecond"]);
  });

  it("with bracketed paste, sends each line of a chunk typed ahead, losing none", () => {
    const c = new Composer({ bracketedPaste: true });
    expect(feed(c, "one\rtwo\rthr")).toEqual(["one", "two"]);
    expect(c.line.text).toBe("thr");
  });

  it("without it, keeps a chunk with a line break inside as a paste", () => {
    const c = new Composer();
    expect(feed(c, "one\rtwo")).toEqual([]);
    expect(c.line.text).toBe("one\ntwo");
  });

  it("takes the control keys of a chunk one by one (Ctrl-R after text)", () => {
    const c = new Composer({ history: memoryHistory(["find me"]) });
    feed(c, "draft\u0012find");
    expect(c.search?.query).toBe("find");
    expect(c.searchMatch()).toBe("find me");
  });

  it("ends a paste whose end never came on Esc", () => {
    const c = new Composer();
    feed(c, PASTE_START, "x", ESC);
    expect(c.pasting).toBe(false);
    expect(feed(c, ENTER)).toEqual(["x"]);
  });
});

describe("Composer: history", () => {
  it("records what is sent, and ↑ brings it back", () => {
    const history = memoryHistory(["earlier"]);
    const c = new Composer({ history });
    feed(c, "now", ENTER);
    expect(history.entries()).toEqual(["earlier", "now"]);
    feed(c, ["", { upArrow: true }], ["", { upArrow: true }]);
    expect(c.line.text).toBe("earlier");
  });

  it("Ctrl-R finds the newest match, again for older ones; Enter takes it without sending", () => {
    const c = new Composer({
      history: memoryHistory(["fix the build", "run tests", "fix the docs"]),
    });
    feed(c, CTRL_R, "fix");
    expect(c.searchMatch()).toBe("fix the docs");
    feed(c, CTRL_R);
    expect(c.searchMatch()).toBe("fix the build");
    // The oldest match stays when there is none older.
    feed(c, CTRL_R);
    expect(c.searchMatch()).toBe("fix the build");
    expect(feed(c, ENTER)).toEqual([]);
    expect(c.search).toBeUndefined();
    expect(c.line).toMatchObject({ text: "fix the build", cursor: 13 });
  });

  it("narrows as the query grows, and widens again on Backspace", () => {
    const c = new Composer({ history: memoryHistory(["alpha one", "alpha two", "beta"]) });
    feed(c, CTRL_R, "alpha o");
    expect(c.searchMatch()).toBe("alpha one");
    feed(c, ["", { backspace: true }], ["", { backspace: true }]);
    expect(c.search?.query).toBe("alpha");
    expect(c.searchMatch()).toBe("alpha two");
    feed(c, "zz");
    expect(c.searchMatch()).toBeUndefined();
  });

  it("Esc leaves the search with the line as it was, and says it took the Esc", () => {
    const c = new Composer({ history: memoryHistory(["old"]) });
    feed(c, "draft", CTRL_R, "old", ESC);
    expect(c.search).toBeUndefined();
    expect(c.line.text).toBe("draft");
    expect(c.takeEscape()).toBe(true);
    expect(c.takeEscape()).toBe(false);
    // An Esc outside a search is the view's.
    feed(c, ESC);
    expect(c.takeEscape()).toBe(false);
  });
});

describe("Composer: @file mentions", () => {
  const files = () => ["README.md", "src/app.ts", "src/apple.ts", "docs/app-notes.md"];

  it("offers the files the mention under the cursor may mean", () => {
    const c = new Composer({ files });
    feed(c, "see @app");
    expect(c.mentionMenu()).toEqual(["src/app.ts", "src/apple.ts", "docs/app-notes.md"]);
    feed(c, " now");
    expect(c.mentionMenu()).toEqual([]);
  });

  it("completes with Tab, then the next match, and keeps the text after the mention", () => {
    const c = new Composer({ files });
    feed(c, "see @src/ap and more");
    feed(c, ["", { home: true }]);
    for (const _ of "see @src/ap") feed(c, ["", { rightArrow: true }]);
    feed(c, ["\t", { tab: true }]);
    expect(c.line).toMatchObject({ text: "see @src/app.ts and more", cursor: 16 });
    feed(c, ["\t", { tab: true }]);
    expect(c.line.text).toBe("see @src/apple.ts and more");
    feed(c, ["\t", { tab: true }]);
    expect(c.line.text).toBe("see @src/app.ts and more");
    // Another key ends the cycle: Tab then completes what is under the cursor again.
    feed(c, ["", { leftArrow: true }], ["", { leftArrow: true }], ["\t", { tab: true }]);
    expect(c.line.text).toBe("see @src/app.ts and more");
  });

  it("Ctrl-G leaves a history search (it is the view's otherwise)", () => {
    const c = new Composer({ history: memoryHistory(["first"]) });
    feed(c, "draft", CTRL_R, "fir");
    expect(c.search).toBeDefined();
    feed(c, ["g", { ctrl: true }]);
    expect(c.search).toBeUndefined();
    expect(c.line.text).toBe("draft");
  });

  it("a paste after a completion ends the cycle: Tab keeps what was pasted", () => {
    const c = new Composer({ files });
    feed(c, "@src/ap", ["\t", { tab: true }]);
    expect(c.line.text).toBe("@src/app.ts ");
    feed(c, PASTE_START, "hello", PASTE_END, ["\t", { tab: true }]);
    // Tab is no mention now: the pasted text stays (it was replaced by the next file).
    expect(c.line.text).toContain("hello");
    expect(c.line.text.startsWith("@src/app.ts ")).toBe(true);
  });

  it("leaves a mention no file matches alone", () => {
    const c = new Composer({ files });
    feed(c, "@nothing", ["\t", { tab: true }]);
    expect(c.line.text).toBe("@nothing");
  });
});

describe("Composer: the queue, Ctrl-C and Esc", () => {
  it("queues in order and clears", () => {
    const c = new Composer();
    c.enqueue("a");
    c.enqueue("b");
    expect(c.dequeue()).toBe("a");
    expect(c.queued).toEqual(["b"]);
    expect(c.clearQueue()).toBe(1);
    expect(c.clearQueue()).toBe(0);
    expect(c.dequeue()).toBeUndefined();
  });

  it("a first Ctrl-C cancels a running turn, a second one exits", () => {
    const c = new Composer();
    expect(c.interrupt("prompting")).toBe("cancel-turn");
    expect(c.hint).toBe("Cancelling the turn… (Ctrl-C again to exit)");
    c.phaseIs("ready");
    expect(c.hint).toBe("Ctrl-C again to exit.");
    expect(c.interrupt("ready")).toBe("quit");
    expect(c.leaving).toBe(true);
  });

  it("with no turn, a first Ctrl-C only warns; another key starts the count again", () => {
    const c = new Composer();
    expect(c.interrupt("ready")).toBe("armed");
    expect(c.armed).toBe(true);
    c.resetInterrupts();
    expect(c.hint).toBeUndefined();
    expect(c.interrupt("ready")).toBe("armed");
    // Once the agent has exited, one Ctrl-C is enough.
    expect(new Composer().interrupt("exited")).toBe("quit");
  });

  it("counts the Ctrl-C of a chunk", () => {
    expect(Composer.interruptsIn("c", { ctrl: true })).toBe(1);
    expect(Composer.interruptsIn("\u0003\u0003", {})).toBe(2);
    expect(Composer.interruptsIn("abc", {})).toBe(0);
  });

  it("Esc clears the queue first, then cancels the turn", () => {
    const c = new Composer();
    c.enqueue("later");
    expect(c.escape("prompting")).toBe("queue-cleared");
    expect(c.hint).toBe("Queue cleared.");
    expect(c.queued).toEqual([]);
    expect(c.escape("prompting")).toBe("cancel-turn");
    expect(c.escape("ready")).toBe("none");
  });

  it("tells its subscribers of each change", () => {
    const c = new Composer();
    let calls = 0;
    const off = c.subscribe(() => calls++);
    const before = c.snapshot();
    feed(c, "x");
    c.enqueue("y");
    expect(calls).toBe(2);
    expect(c.snapshot()).not.toBe(before);
    off();
    c.enqueue("z");
    expect(calls).toBe(2);
  });
});
