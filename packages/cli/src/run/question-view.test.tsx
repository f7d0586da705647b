import { useSyncExternalStore, type ReactNode } from "react";
import { describe, expect, it } from "vitest";
import type { PermissionPromptInfo } from "acp-kit/node";
import type { PermissionOption, RequestPermissionRequest } from "acp-kit";
import { SessionStore } from "acp-kit";
import { diffBudget, FirstQuestion, safeDefaultOption, wrappedRows } from "./question-view.js";
import { UiModel } from "./ui-model.js";
import { renderWithKeys, terminal, tick } from "../../../../test/support/ink-terminal.js";

/** Writes one chunk of keys and lets the view take them. */
async function press(t: ReturnType<typeof terminal>, keys: string): Promise<void> {
  t.chunk(keys);
  await tick();
}

/** The questions as the view shows them: re-rendered on every change of the model. */
function Questions({ ui }: { ui: UiModel }): ReactNode {
  useSyncExternalStore(ui.subscribe, ui.snapshot);
  return <FirstQuestion ui={ui} sessions={new SessionStore()} />;
}

const request = (toolCallId: string, kinds: string[]): RequestPermissionRequest => ({
  sessionId: "s",
  toolCall: { toolCallId, title: `Tool ${toolCallId}` },
  options: kinds.map((kind) => ({ optionId: kind, name: kind, kind })) as never,
});
const info = { signal: new AbortController().signal } as unknown as PermissionPromptInfo;

/** The questions of a new model, rendered on a new terminal. */
function mount() {
  const ui = new UiModel();
  const t = terminal(80);
  const instance = renderWithKeys(<Questions ui={ui} />, {
    stdout: t.stdout,
    stdin: t.stdin,
    patchConsole: false,
    debug: true, // every frame written whole, CI or not (Ink writes none in CI otherwise)
  });
  return { ui, t, instance };
}

describe("QuestionView", () => {
  it("starts each queued question at its first option, whatever the last one chose", async () => {
    const { ui, t, instance } = mount();
    const first = ui.askPermission(request("a", ["allow_once", "reject_once"]), info);
    const second = ui.askPermission(request("b", ["allow_once"]), info);
    await tick();
    await press(t, "\u001b[B"); // Down: the second option of the first question
    await press(t, "\r");
    await expect(first).resolves.toEqual({ outcome: "selected", optionId: "reject_once" });
    // The second question has one option: Enter must pick it, not "nothing" (cancelled).
    await press(t, "\r");
    await expect(second).resolves.toEqual({ outcome: "selected", optionId: "allow_once" });
    expect(t.output()).toContain("Tool b");
    instance.unmount();
  });

  it("picks by number and rejects with Esc", async () => {
    const { ui, t, instance } = mount();
    const byNumber = ui.askPermission(
      request("a", ["allow_once", "allow_always", "reject_once"]),
      info,
    );
    await tick();
    await press(t, "2");
    await expect(byNumber).resolves.toEqual({ outcome: "selected", optionId: "allow_always" });
    const byEscape = ui.askPermission(request("b", ["allow_once", "reject_once"]), info);
    await tick();
    await press(t, "\u001b");
    await tick(100);
    await expect(byEscape).resolves.toEqual({ outcome: "selected", optionId: "reject_once" });
    instance.unmount();
  });

  it("highlights the first one-time allow, never an always option, in any order", async () => {
    const { ui, t, instance } = mount();
    // Claude lists "Always Allow" first; some agents list several "always" options.
    const claude = ui.askPermission(
      request("a", ["allow_always", "allow_once", "reject_once"]),
      info,
    );
    await tick();
    await press(t, "\r");
    await expect(claude).resolves.toEqual({ outcome: "selected", optionId: "allow_once" });
    const rejectFirst = ui.askPermission(
      request("b", ["reject_always", "allow_always", "reject_once"]),
      info,
    );
    await tick();
    await press(t, "\r");
    await expect(rejectFirst).resolves.toEqual({ outcome: "selected", optionId: "reject_once" });
    instance.unmount();
  });
});

describe("safeDefaultOption", () => {
  const kinds = (...list: PermissionOption["kind"][]): PermissionOption[] =>
    list.map((kind, i) => ({ optionId: `o${i}`, name: kind, kind }));
  it("prefers a one-time allow, then a one-time reject, never an always option", () => {
    expect(safeDefaultOption(kinds("allow_always", "allow_once", "reject_once"))).toBe(1);
    expect(safeDefaultOption(kinds("allow_always", "reject_always", "reject_once"))).toBe(2);
    expect(safeDefaultOption(kinds("allow_once", "allow_always"))).toBe(0);
    expect(safeDefaultOption(kinds("allow_always", "reject_always"))).toBe(0);
  });
});

describe("the permission box's room", () => {
  it("counts rows as words wrap, a word longer than the line broken", () => {
    expect(wrappedRows("", 10)).toBe(1);
    expect(wrappedRows("one two three", 13)).toBe(1);
    expect(wrappedRows("one two three", 8)).toBe(2);
    expect(wrappedRows("x".repeat(25), 10)).toBe(3);
    expect(wrappedRows("a\nb", 10)).toBe(2);
  });

  it("gives the diff what the options and the title leave, at least a line", () => {
    const option = (name: string): PermissionOption => ({
      optionId: name,
      name,
      kind: "allow_once",
    });
    const short = [option("Allow"), option("Reject")];
    const long = [option("word ".repeat(40).trim()), option("Reject")];
    expect(diffBudget(24, 80, "Edit a.ts", short)).toBeGreaterThan(
      diffBudget(24, 80, "Edit a.ts", long),
    );
    expect(diffBudget(24, 80, "Edit a.ts", long)).toBeGreaterThan(
      diffBudget(24, 60, "Edit a.ts", long),
    );
    expect(diffBudget(10, 40, "Edit a.ts", long)).toBe(1);
  });
});
