/**
 * The selection views (permission question, login chooser) fed keys as terminals deliver
 * them: several to a chunk, in bursts, split anywhere. Whatever the chunking, the option
 * chosen is the one highlighted when Enter came, never the one of the last render.
 */
import fc from "fast-check";
import { useSyncExternalStore, type ReactNode } from "react";
import { describe, expect, it } from "vitest";
import type { PermissionPromptInfo } from "acp-kit/node";
import type { AuthMethod, RequestPermissionOutcome, RequestPermissionRequest } from "acp-kit";
import { SessionStore } from "acp-kit";
import { AuthView } from "./auth-view.js";
import { selectionKeys } from "./selection.js";
import { FirstQuestion } from "./question-view.js";
import { UiModel } from "./ui-model.js";
import {
  DOWN,
  renderWithKeys,
  SHIFT_TAB,
  terminal,
  tick,
  UP,
} from "../../../../test/support/ink-terminal.js";

function Questions({ ui }: { ui: UiModel }): ReactNode {
  useSyncExternalStore(ui.subscribe, ui.snapshot);
  return <FirstQuestion ui={ui} sessions={new SessionStore()} />;
}

const KINDS = ["allow_once", "allow_always", "reject_once", "reject_always"] as const;

const request = (toolCallId: string, count: number): RequestPermissionRequest => ({
  sessionId: "s",
  toolCall: { toolCallId, title: `Tool ${toolCallId}` },
  options: Array.from({ length: count }, (_, i) => ({
    optionId: `opt${i + 1}`,
    name: `Option ${i + 1}`,
    kind: KINDS[i % KINDS.length] ?? "allow_once",
  })),
});
const info = (): PermissionPromptInfo =>
  ({ signal: new AbortController().signal }) as unknown as PermissionPromptInfo;

function mountQuestions() {
  const ui = new UiModel();
  const t = terminal();
  const instance = renderWithKeys(<Questions ui={ui} />, {
    stdout: t.stdout,
    stdin: t.stdin,
    patchConsole: false,
    debug: true,
  });
  return { ui, t, instance };
}

/** Resolves with the outcome, or `"pending"` when there is none after `ms`. */
function settleWithin(
  answer: Promise<RequestPermissionOutcome | undefined>,
  ms = 150,
): Promise<RequestPermissionOutcome | undefined | "pending"> {
  return Promise.race([answer, tick(ms).then(() => "pending" as const)]);
}

describe("selectionKeys", () => {
  it("takes a run of plain characters apart, one key each", () => {
    expect(selectionKeys("\t\r", {})).toEqual([{ kind: "down" }, { kind: "enter" }]);
    expect(selectionKeys("2\r", {})).toEqual([{ kind: "digit", digit: 2 }, { kind: "enter" }]);
    expect(selectionKeys("", { tab: true, shift: true })).toEqual([{ kind: "up" }]);
    expect(selectionKeys("c", { ctrl: true })).toEqual([]);
  });
});

describe("the permission question, keys several to a chunk", () => {
  it("chooses the option below when Down and Enter arrive in one chunk", async () => {
    const { ui, t, instance } = mountQuestions();
    const answer = ui.askPermission(request("a", 2), info());
    await tick();
    t.chunk(`${DOWN}\r`);
    await expect(settleWithin(answer)).resolves.toEqual({
      outcome: "selected",
      optionId: "opt2",
    });
    instance.unmount();
  });

  it("follows a burst of moves (Down Down Up Tab Shift-Tab Down) to the option highlighted last", async () => {
    const { ui, t, instance } = mountQuestions();
    const answer = ui.askPermission(request("a", 4), info());
    await tick();
    // 0 → 1 → 2 → 1 → 2 → 1 → 2: the third option.
    t.chunk(`${DOWN}${DOWN}${UP}\t${SHIFT_TAB}${DOWN}\r`);
    await expect(settleWithin(answer)).resolves.toEqual({
      outcome: "selected",
      optionId: "opt3",
    });
    instance.unmount();
  });

  it("takes Tab and Enter sent as one plain chunk as two keys", async () => {
    const { ui, t, instance } = mountQuestions();
    const answer = ui.askPermission(request("a", 3), info());
    await tick();
    t.chunk("\t\t\r");
    await expect(settleWithin(answer)).resolves.toEqual({
      outcome: "selected",
      optionId: "opt3",
    });
    instance.unmount();
  });

  it("does not let a second Enter of the same chunk answer the next question", async () => {
    const { ui, t, instance } = mountQuestions();
    const first = ui.askPermission(request("a", 2), info());
    const second = ui.askPermission(request("b", 2), info());
    await tick();
    t.chunk(`${DOWN}\r\r`);
    await expect(settleWithin(first)).resolves.toEqual({ outcome: "selected", optionId: "opt2" });
    // The second question was not on the screen when that Enter was typed.
    await expect(settleWithin(second)).resolves.toBe("pending");
    expect(t.output()).toContain("Tool b");
    t.chunk(`${DOWN}\r`);
    await expect(settleWithin(second)).resolves.toEqual({ outcome: "selected", optionId: "opt2" });
    instance.unmount();
  });

  it("shows the key hints", async () => {
    const { ui, t, instance } = mountQuestions();
    void ui.askPermission(request("a", 2), info());
    await tick();
    expect(t.output()).toContain("↑↓ choose · Enter confirm · 1-2 pick · Esc reject");
    instance.unmount();
  });
});

type Key = { readonly raw: string; readonly name: string };
const KEYS: readonly Key[] = [
  { raw: UP, name: "up" },
  { raw: DOWN, name: "down" },
  { raw: "\t", name: "tab" },
  { raw: SHIFT_TAB, name: "shift-tab" },
  { raw: "\r", name: "enter" },
  { raw: "1", name: "1" },
  { raw: "3", name: "3" },
  { raw: "7", name: "7" },
  { raw: "x", name: "x" },
  { raw: " ", name: "space" },
];

/**
 * What a person expects of a list of `count` options and these keys, written out on its
 * own: the index of the option chosen, or undefined when none is.
 */
function expectedPick(count: number, keys: readonly Key[]): number | undefined {
  let highlighted = 0;
  for (const key of keys) {
    if (key.name === "up" || key.name === "shift-tab") {
      highlighted = highlighted === 0 ? count - 1 : highlighted - 1;
    } else if (key.name === "down" || key.name === "tab") {
      highlighted = highlighted === count - 1 ? 0 : highlighted + 1;
    } else if (key.name === "enter") {
      return highlighted;
    } else if (/^\d$/.test(key.name) && Number(key.name) <= count) {
      return Number(key.name) - 1;
    }
  }
  return undefined;
}

/** Splits a string at the given (sorted, deduplicated) cut points, anywhere. */
function cut(text: string, points: readonly number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of at) {
    if (p > from) pieces.push(text.slice(from, p));
    from = Math.max(from, p);
  }
  pieces.push(text.slice(from));
  return pieces.filter((piece) => piece !== "");
}

/** Groups keys into chunks, cutting only between keys. */
function cutKeys(keys: readonly Key[], points: readonly number[]): string[] {
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

describe("the permission question under random chunked keys", () => {
  it("chooses exactly what was highlighted (or numbered) when the key came", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat({ max: 200 }), { maxLength: 6 }),
        fc.boolean(),
        async (count, keys, points, paced) => {
          const { ui, t, instance } = mountQuestions();
          try {
            const answer = ui.askPermission(request("a", count), info());
            await tick(20);
            // Bursts: all chunks at once, cut anywhere (in the middle of an escape sequence
            // too); or paced, a render between chunks, cut between keys (a lone ESC that
            // waits is the Esc key, as on any terminal).
            const pieces = paced
              ? cutKeys(keys, points)
              : cut(keys.map((k) => k.raw).join(""), points);
            for (const piece of pieces) {
              t.chunk(piece);
              if (paced) await tick(5);
            }
            const outcome = await settleWithin(answer, 120);
            const expected = expectedPick(count, keys);
            expect(outcome).toEqual(
              expected === undefined
                ? "pending"
                : { outcome: "selected", optionId: `opt${expected + 1}` },
            );
          } finally {
            instance.unmount();
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});

const methods: AuthMethod[] = [
  { id: "token", name: "Use a token" },
  { id: "browser", name: "Browser login" },
  { id: "other", name: "Something else" },
];

describe("the login chooser", () => {
  function mountChooser(onLeave?: () => void) {
    const chosen: string[] = [];
    const t = terminal();
    const instance = renderWithKeys(
      <AuthView
        methods={methods}
        onChoose={(m) => {
          chosen.push(m.id);
        }}
        onLeave={onLeave ?? (() => undefined)}
      />,
      { stdout: t.stdout, stdin: t.stdin, patchConsole: false, debug: true },
    );
    return { chosen, t, instance };
  }

  it("chooses the method below when Down and Enter arrive in one chunk", async () => {
    const { chosen, t, instance } = mountChooser();
    await tick();
    t.chunk(`${DOWN}\r`);
    await tick();
    expect(chosen).toEqual(["browser"]);
    instance.unmount();
  });

  it("stops at the ends, and chooses once per chunk", async () => {
    const { chosen, t, instance } = mountChooser();
    await tick();
    t.chunk(`${DOWN}${DOWN}${DOWN}${DOWN}\r\r`);
    await tick();
    expect(chosen).toEqual(["other"]);
    instance.unmount();
  });

  it("shows its keys, and Esc leaves it", async () => {
    let left = 0;
    const { chosen, t, instance } = mountChooser(() => left++);
    await tick();
    expect(t.output()).toContain("↑↓ choose · Enter log in · 1-3 pick · Esc leave");
    t.chunk("\u001b");
    await tick(120);
    expect(left).toBe(1);
    expect(chosen).toEqual([]);
    instance.unmount();
  });

  it("takes keys again once a login that returned a promise has settled", async () => {
    const chosen: string[] = [];
    const t = terminal();
    let fail: () => void = () => undefined;
    const instance = renderWithKeys(
      <AuthView
        methods={methods}
        onChoose={(m) => {
          chosen.push(m.id);
          return new Promise<void>((resolve) => (fail = resolve));
        }}
        onLeave={() => undefined}
      />,
      { stdout: t.stdout, stdin: t.stdin, patchConsole: false, debug: true },
    );
    await tick();
    t.chunk("1");
    await tick();
    t.chunk("2"); // ignored: the first login is still running
    await tick();
    fail();
    await tick();
    t.chunk(`${DOWN}\r`);
    await tick();
    expect(chosen).toEqual(["token", "browser"]);
    instance.unmount();
  });
});
