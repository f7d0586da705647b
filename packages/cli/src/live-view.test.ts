import { describe, expect, it } from "vitest";
import { inCi, plainReason } from "./live-view.js";

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("plainReason", () => {
  it("allows the live view on a terminal outside CI", () => {
    expect(plainReason(undefined, { stdin: tty, stdout: tty, env: {} })).toBeUndefined();
    expect(plainReason(false, { stdin: tty, stdout: tty, env: { CI: "false" } })).toBeUndefined();
    expect(plainReason(undefined, { stdin: tty, stdout: tty, env: { CI: "0" } })).toBeUndefined();
  });

  it("is plain, with nothing to explain, for --plain or a pipe on either side", () => {
    expect(plainReason(true, { stdin: tty, stdout: tty, env: {} })).toBe("");
    expect(plainReason(undefined, { stdin: tty, stdout: pipe, env: {} })).toBe("");
    expect(plainReason(undefined, { stdin: pipe, stdout: tty, env: {} })).toBe("");
    expect(plainReason(undefined, { stdin: pipe, stdout: pipe, env: { CI: "1" } })).toBe("");
  });

  it("is plain on a terminal in CI, and says why", () => {
    for (const env of [{ CI: "true" }, { CI: "" }, { CONTINUOUS_INTEGRATION: "1" }]) {
      expect(inCi(env)).toBe(true);
      expect(plainReason(undefined, { stdin: tty, stdout: tty, env })).toMatch(/CI is set/);
    }
    expect(inCi({ GITHUB_ACTIONS: "true" })).toBe(false); // Ink draws there; so do we
  });
});
