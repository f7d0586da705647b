/**
 * The pickers (`/mode`, `/model`, `/sessions`), the hidden input of login values and the
 * login chooser that asks for them, fed keys as terminals deliver them: one at a time,
 * several to a chunk (`"\x1b[B\r"`), in random bursts. The value chosen is always the one
 * highlighted when Enter came; a typed secret never reaches the screen.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AuthEnvVar, AuthMethod, SessionState } from "acp-kit";
import { AuthView } from "./auth-view.js";
import { InputLine } from "./input-line.js";
import { allCommands } from "./slash.js";
import { OptionPicker, windowStart, type PickerItem } from "./option-picker.js";
import { settingPicker, completionValues, sessionsPicker } from "./pickers.js";
import { SecretInput, secretStep } from "./secret-input.js";
import {
  DOWN,
  ESC,
  renderWithKeys,
  terminal,
  tick,
  UP,
} from "../../../../test/support/ink-terminal.js";

const ITEMS: PickerItem[] = [
  { value: "ask", label: "Ask", detail: "Answers questions\nand nothing else" },
  { value: "code", label: "Code" },
  { value: "plan", label: "Plan" },
  { value: "review", label: "Review" },
];

function mountPicker(current: number, items: readonly PickerItem[] = ITEMS) {
  const chosen: string[] = [];
  let left = 0;
  const t = terminal();
  const instance = renderWithKeys(
    <OptionPicker
      title="Mode"
      items={items}
      current={current}
      onChoose={(item) => chosen.push(item.value)}
      onLeave={() => left++}
    />,
    { stdout: t.stdout, stdin: t.stdin, patchConsole: false, debug: true },
  );
  return { chosen, left: () => left, t, instance };
}

describe("the option picker", () => {
  it("highlights the current value first, shows its keys, and cuts details to one line", async () => {
    const { chosen, t, instance } = mountPicker(2);
    await tick();
    const screen = t.output();
    expect(screen).toContain("❯ 3. Plan ✓");
    expect(screen).toContain("Answers questions …");
    expect(screen).not.toContain("and nothing else");
    expect(screen).toContain("↑↓ move · Enter choose · 1-4 pick · Esc leave");
    t.chunk("\r");
    await tick();
    expect(chosen).toEqual(["plan"]);
    instance.unmount();
  });

  it("chooses the value below the current one when Down and Enter arrive in one chunk", async () => {
    const { chosen, t, instance } = mountPicker(1);
    await tick();
    t.chunk(`${DOWN}\r`);
    await tick();
    expect(chosen).toEqual(["plan"]);
    instance.unmount();
  });

  it("takes keys one at a time as well", async () => {
    const { chosen, t, instance } = mountPicker(0);
    await tick();
    t.chunk(DOWN);
    await tick();
    t.chunk(DOWN);
    await tick();
    t.chunk(UP);
    await tick();
    t.chunk("\r");
    await tick();
    expect(chosen).toEqual(["code"]);
    instance.unmount();
  });

  it("stops at the ends and chooses once per chunk", async () => {
    const { chosen, t, instance } = mountPicker(1);
    await tick();
    t.chunk(`${UP}${UP}${UP}\r\r`);
    await tick();
    expect(chosen).toEqual(["ask"]);
    instance.unmount();
  });

  it("leaves with Esc without choosing", async () => {
    const { chosen, left, t, instance } = mountPicker(0);
    await tick();
    t.chunk(ESC);
    await tick(120);
    expect(left()).toBe(1);
    expect(chosen).toEqual([]);
    instance.unmount();
  });

  it("chooses what was highlighted when Enter came, however random moves are chunked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: ITEMS.length - 1 }),
        fc.array(fc.constantFrom("up", "down"), { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 12, maxLength: 12 }),
        async (current, moves, cuts) => {
          let expected = current;
          for (const move of moves) {
            expected =
              move === "up" ? Math.max(0, expected - 1) : Math.min(ITEMS.length - 1, expected + 1);
          }
          const keys = [...moves.map((m) => (m === "up" ? UP : DOWN)), "\r"];
          const { chosen, t, instance } = mountPicker(current);
          await tick(5);
          // Cut the keys into chunks of random sizes, each written in one go.
          let at = 0;
          for (const size of cuts) {
            if (at >= keys.length) break;
            t.chunk(keys.slice(at, at + size).join(""));
            at += size;
            await tick(5);
          }
          if (at < keys.length) t.chunk(keys.slice(at).join(""));
          await tick(20);
          instance.unmount();
          expect(chosen).toEqual([ITEMS[expected]?.value]);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  it("shows a window of a long list around the highlight", () => {
    expect(windowStart(0, 30, 10)).toBe(0);
    expect(windowStart(15, 30, 10)).toBe(10);
    expect(windowStart(29, 30, 10)).toBe(20);
    expect(windowStart(3, 5, 10)).toBe(0);
  });
});

describe("what the pickers offer", () => {
  const state = {
    configOptions: [
      {
        id: "m",
        name: "Model",
        category: "model",
        type: "select",
        currentValue: "b",
        options: [
          { value: "a", name: "Alpha" },
          { group: "g", name: "More", options: [{ value: "b", name: "b" }] },
        ],
      },
    ],
    availableModes: [
      { id: "ask", name: "Ask" },
      { id: "code", name: "Code", description: "Edits" },
    ],
    currentModeId: "code",
  } as unknown as SessionState;

  it("lists modes and models with the current one, flattening groups", () => {
    expect(settingPicker(state, "model")).toEqual({
      title: "Model",
      items: [
        { value: "a", label: "Alpha (a)" },
        { value: "b", label: "b" },
      ],
      current: 1,
    });
    expect(settingPicker(state, "mode")?.current).toBe(1);
    expect(settingPicker(state, "mode")?.items[1]).toEqual({
      value: "code",
      label: "Code (code)",
      detail: "Edits",
    });
    expect(settingPicker(undefined, "model")).toBeUndefined();
    expect(completionValues(state, ["s1"])).toEqual({
      mode: ["ask", "code"],
      model: ["a", "b"],
      sessions: ["s1"],
    });
  });

  it("lists sessions by title (or id) with their age", () => {
    const now = Date.parse("2026-01-02T00:00:00Z");
    const spec = sessionsPicker(
      [
        { sessionId: "s1", cwd: "/", title: "Fix the build", updatedAt: "2026-01-01T21:00:00Z" },
        { sessionId: "s2", cwd: "/" },
      ],
      "s2",
      now,
    );
    expect(spec.items).toEqual([
      { value: "s1", label: "Fix the build", detail: "s1 · 3 h ago" },
      { value: "s2", label: "s2", detail: "" },
    ]);
    expect(spec.current).toBe(1);
  });
});

describe("hidden input of a login value", () => {
  it("steps: text, Backspace, Enter (not on an empty value), Esc, chunks with Enter", () => {
    expect(secretStep("", "abc", {})).toEqual({ type: "edit", value: "abc" });
    expect(secretStep("abc", "", { backspace: true })).toEqual({ type: "edit", value: "ab" });
    expect(secretStep("ab", "\u007f\u007fxy", {})).toEqual({ type: "edit", value: "xy" });
    expect(secretStep("", "", { return: true })).toEqual({ type: "edit", value: "" });
    expect(secretStep("k", "", { return: true })).toEqual({ type: "submit", value: "k" });
    expect(secretStep("", "pasted-key\r", {})).toEqual({ type: "submit", value: "pasted-key" });
    expect(secretStep("k", "", { escape: true })).toEqual({ type: "leave" });
  });

  function mountSecret(hidden = true) {
    const submitted: string[] = [];
    let left = 0;
    const t = terminal();
    const instance = renderWithKeys(
      <SecretInput
        label="OPENAI_API_KEY"
        hidden={hidden}
        onSubmit={(v) => submitted.push(v)}
        onLeave={() => left++}
      />,
      { stdout: t.stdout, stdin: t.stdin, patchConsole: false, debug: true },
    );
    return { submitted, left: () => left, t, instance };
  }

  it("shows typed characters as •, never the value, and hands it over on Enter", async () => {
    const { submitted, t, instance } = mountSecret();
    await tick();
    expect(t.output()).toContain("Enter confirm · Backspace delete · Esc leave");
    for (const key of ["s", "3", "c", "x"]) {
      t.chunk(key);
      await tick(10);
    }
    t.chunk("\u007f");
    await tick();
    t.chunk("ret");
    await tick();
    expect(t.output()).toContain("OPENAI_API_KEY: ••••••");
    t.chunk("\r");
    await tick();
    expect(submitted).toEqual(["s3cret"]);
    expect(t.output()).not.toContain("s3c");
    expect(t.output()).not.toContain("ret");
    instance.unmount();
  });

  it("takes a value and Enter in one chunk, and only once", async () => {
    const { submitted, t, instance } = mountSecret();
    await tick();
    t.chunk("pasted-key\r\r");
    await tick();
    t.chunk("more\r");
    await tick();
    expect(submitted).toEqual(["pasted-key"]);
    expect(t.output()).not.toContain("pasted");
    instance.unmount();
  });

  it("shows a value that is not secret, and leaves with Esc", async () => {
    const { submitted, left, t, instance } = mountSecret(false);
    await tick();
    t.chunk("eu-west");
    await tick();
    expect(t.output()).toContain("OPENAI_API_KEY: eu-west");
    t.chunk(ESC);
    await tick(120);
    expect(left()).toBe(1);
    expect(submitted).toEqual([]);
    instance.unmount();
  });
});

describe("the login chooser asking for an env_var method's values", () => {
  const methods: AuthMethod[] = [
    { id: "token", name: "Use a token" },
    {
      id: "key",
      name: "API key",
      type: "env_var",
      vars: [{ name: "KEY_ONE" }, { name: "KEY_TWO", label: "Second key" }],
    } as AuthMethod,
  ];
  const missing = (method: AuthMethod): AuthEnvVar[] =>
    method.id === "key"
      ? [
          { name: "KEY_ONE", label: null, secret: true, optional: false },
          { name: "KEY_TWO", label: "Second key", secret: true, optional: false },
        ]
      : [];

  function mountChooser(onChoose: () => Promise<unknown> = () => Promise.resolve()) {
    const chosen: { id: string; values: Readonly<Record<string, string>> }[] = [];
    let left = 0;
    const t = terminal();
    const instance = renderWithKeys(
      <AuthView
        methods={methods}
        missingVars={missing}
        onChoose={(method, values) => {
          chosen.push({ id: method.id, values });
          return onChoose();
        }}
        onLeave={() => left++}
      />,
      { stdout: t.stdout, stdin: t.stdin, patchConsole: false, debug: true },
    );
    return { chosen, left: () => left, t, instance };
  }

  it("asks for each missing variable with hidden input, then logs in with the values", async () => {
    const { chosen, t, instance } = mountChooser();
    await tick();
    expect(t.output()).toContain("2. API key (sets KEY_ONE, KEY_TWO)");
    t.chunk(`${DOWN}\r`);
    await tick();
    expect(t.output()).toContain("API key needs KEY_ONE, KEY_TWO");
    expect(t.output()).toContain("KEY_ONE:");
    t.chunk("first-secret\r");
    await tick();
    expect(t.output()).toContain("Second key:");
    t.chunk("second");
    await tick();
    t.chunk("\r");
    await tick();
    expect(chosen).toEqual([{ id: "key", values: { KEY_ONE: "first-secret", KEY_TWO: "second" } }]);
    expect(t.output()).not.toContain("first-secret");
    expect(t.output()).not.toContain("second\n");
    instance.unmount();
  });

  it("leaves with Esc while asking for a value", async () => {
    const { chosen, left, t, instance } = mountChooser();
    await tick();
    t.chunk("2");
    await tick();
    t.chunk("half");
    await tick();
    t.chunk(ESC);
    await tick(120);
    expect(left()).toBe(1);
    expect(chosen).toEqual([]);
    instance.unmount();
  });

  it("leaves with Esc while a login runs, and takes keys again when a login failed", async () => {
    let fail: () => void = () => undefined;
    const { chosen, left, t, instance } = mountChooser(
      () => new Promise<void>((resolve) => (fail = resolve)),
    );
    await tick();
    t.chunk("1");
    await tick();
    expect(t.output()).toContain("Logging in… (Esc hides this)");
    t.chunk("2"); // ignored while the login runs
    await tick();
    t.chunk(ESC);
    await tick(120);
    expect(left()).toBe(1);
    fail();
    await tick();
    t.chunk("1");
    await tick();
    expect(chosen.map((c) => c.id)).toEqual(["token", "token"]);
    instance.unmount();
  });
});

describe("the input line's completion popup", () => {
  it("shows an agent command's description on one line, and the values after /mode", async () => {
    const t = terminal();
    const commands = allCommands([
      {
        name: "review",
        description: "Review the changes\n\nUsage: /review [path]\nLong text.",
        input: null,
      },
    ]);
    const instance = renderWithKeys(
      <InputLine
        enabled
        canSubmit
        commands={commands}
        values={{ mode: ["ask", "code"] }}
        onSubmit={() => undefined}
      />,
      { stdout: t.stdout, stdin: t.stdin, patchConsole: false, debug: true },
    );
    await tick();
    t.chunk("/re");
    await tick();
    expect(t.output()).toContain("/review — Review the changes …");
    expect(t.output()).not.toContain("Usage: /review");
    t.chunk("\u0015/mode ");
    await tick();
    expect(t.output()).toMatch(/ {2}ask\n {2}code/);
    t.chunk("\t");
    await tick();
    expect(t.output()).toContain("› /mode ask");
    instance.unmount();
  });
});
