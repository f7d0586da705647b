/**
 * The code people copy runs on Node 20, the oldest Node the packages support: the
 * README's client example runs as written (its agent replaced by the scripted one), and
 * no example in the READMEs, docs/ or examples/ uses syntax Node 20 lacks (`await using`).
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");

/** The fenced code blocks of a Markdown file. */
function codeBlocks(file: string): string[] {
  const text = readFileSync(join(repoRoot, file), "utf8");
  return [...text.matchAll(/^```\w*\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? "");
}

describe("examples on Node 20", { timeout: 60_000 }, () => {
  it("runs the README's client example as written", () => {
    if (!existsSync(scriptedAgent)) throw new Error("Run `npm run build` first.");
    const example = codeBlocks("README.md").find((block) => block.includes("connectAgent({"));
    expect(example).toBeDefined();
    // The agent: the scripted demo instead of "my-agent"; nothing else changes.
    const agent = `command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify([scriptedAgent, "--demo", "--no-delays"])},`;
    const code = (example ?? "").replace(/command: "my-agent",/, agent);
    expect(code).toContain(scriptedAgent);
    const dir = testTempDir("acp-kit-node20-");
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(join(repoRoot, "packages", "acp-kit"), join(dir, "node_modules", "acp-kit"));
    writeFileSync(join(dir, "README.md"), "# A project\n");
    writeFileSync(join(dir, "example.mjs"), code);
    const result = spawnSync(process.execPath, ["example.mjs"], {
      cwd: dir,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^end_turn \d+\n$/);
    expect(result.status).toBe(0);
  });

  it("uses no `await using` in the code people copy", () => {
    const markdown = [
      "README.md",
      ...["acp-kit", "cli"].map((p) => `packages/${p}/README.md`),
      ...readdirSync(join(repoRoot, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    const offenders: string[] = [];
    for (const file of markdown) {
      if (codeBlocks(file).some((block) => /\bawait using\b/.test(block))) offenders.push(file);
    }
    for (const file of readdirSync(join(repoRoot, "examples"))) {
      if (!file.endsWith(".ts")) continue;
      const lines = readFileSync(join(repoRoot, "examples", file), "utf8").split("\n");
      // (A comment may say that Node 24 has it.)
      if (lines.some((line) => /^\s*(await )?using /.test(line)))
        offenders.push(`examples/${file}`);
    }
    expect(offenders).toEqual([]);
  });
});
