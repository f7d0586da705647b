/**
 * The conformance checklist is generated from the check catalog and shipped twice: in
 * the repository (`docs/checklist.md`) and in the `acp-kit` package (`checklist.md`).
 * Both must be up to date; `UPDATE_CHECKLIST=1 npx vitest run <this file>` rewrites them.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import {
  AGENT_CHECKS,
  CLIENT_CHECKS,
} from "../../packages/acp-kit/src/testing/conformance/catalog.js";
import {
  CHECKLIST_RULES,
  formatChecklist,
} from "../../packages/acp-kit/src/testing/conformance/rules.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const copies = [`${repoRoot}docs/checklist.md`, `${repoRoot}packages/acp-kit/checklist.md`];

it("every rule a check cites is in the checklist", () => {
  for (const definition of [...AGENT_CHECKS, ...CLIENT_CHECKS]) {
    for (const rule of definition.rules) {
      expect(CHECKLIST_RULES.has(rule), `${definition.id}: R${rule}`).toBe(true);
    }
    // A check of an unnumbered rule does not sink the verdict like a MUST.
    if (definition.rules.length === 0) expect(definition.severity, definition.id).toBe("should");
  }
});

it("docs/checklist.md and the package's checklist.md are generated from the catalog", () => {
  const expected = formatChecklist(AGENT_CHECKS, CLIENT_CHECKS);
  for (const path of copies) {
    if (process.env.UPDATE_CHECKLIST === "1") writeFileSync(path, expected);
    expect(existsSync(path), path).toBe(true);
    expect(readFileSync(path, "utf8"), path).toBe(expected);
  }
  for (const definition of [...AGENT_CHECKS, ...CLIENT_CHECKS]) {
    expect(expected).toContain(`### \`${definition.id}\``);
  }
});

it("package.json ships the checklist", () => {
  const manifest = JSON.parse(readFileSync(`${repoRoot}packages/acp-kit/package.json`, "utf8")) as {
    files: string[];
  };
  expect(manifest.files).toContain("checklist.md");
});
