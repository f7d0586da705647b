import { PassThrough } from "node:stream";
import { render } from "ink";
import { describe, expect, it } from "vitest";
import { Markdown, tooDeepForMarkdown } from "./markdown.js";

/** Draws the Markdown of `text` once; returns the text drawn and what went wrong. */
async function draw(text: string): Promise<{ output: string; errors: unknown[] }> {
  const stdout = Object.assign(new PassThrough(), { columns: 80, rows: 24, isTTY: false });
  let output = "";
  stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const errors: unknown[] = [];
  const instance = render(<Markdown text={text} />, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    debug: true,
    patchConsole: false,
  });
  await new Promise((resolve) => setImmediate(resolve));
  instance.unmount();
  await instance.waitUntilExit().catch((error: unknown) => errors.push(error));
  // eslint-disable-next-line no-control-regex
  return { output: output.replace(/\u001b\[[0-9;]*m/g, ""), errors };
}

/** Agent text the lexer cannot take: each overflowed the stack (or took seconds). */
const HOSTILE: [string, string][] = [
  ["block quotes 20,000 deep", `${">".repeat(20_000)} deep`],
  ["spaced block quotes", `${"> ".repeat(5_000)}deep`],
  ["list items in list items", `${"- ".repeat(5_000)}deep`],
  ["numbered ones", `${"1. ".repeat(5_000)}deep`],
  ["mixed", `${"> - 2) ".repeat(2_000)}deep`],
  ["an item indented 100 columns", `- a\n${" ".repeat(100)}- deep`],
  ["5,000 emphasis marks each side", `${"*".repeat(5_000)}deep${"*".repeat(5_000)}`],
];

describe("Markdown nested too deep", () => {
  it.each(HOSTILE)("is drawn as text: %s", async (_name, text) => {
    expect(tooDeepForMarkdown(text)).toBe(true);
    const { output, errors } = await draw(text);
    expect(errors).toEqual([]);
    expect(output).toContain("deep");
  });

  it("leaves ordinary Markdown to the lexer: nested lists and quotes, rules, emphasis", async () => {
    const ordinary = [
      "# Title\n\nSome *emphasis*, **strong**, ~~gone~~ and `code`.",
      "- one\n  - two\n    - three\n      1. four\n\n> quoted\n> > twice",
      "***\n\n- - -\n\n___",
      `${"> ".repeat(30)}thirty levels`,
      "```yaml\nlist:\n        - item\n```",
      "*".repeat(80),
    ];
    for (const text of ordinary) expect(tooDeepForMarkdown(text), text).toBe(false);
    const { output, errors } = await draw(ordinary[1] ?? "");
    expect(errors).toEqual([]);
    expect(output).toContain("three");
    expect(output).not.toContain("- two");
  });
});

describe("Markdown code blocks", () => {
  it("shows highlighted code with its characters as written, blank lines kept", async () => {
    const code = 'if (a < b && c > 0) {\n\n  return "x&y";\n}';
    const { output, errors } = await draw(`\`\`\`ts\n${code}\n\`\`\``);
    expect(errors).toEqual([]);
    const rows = output
      .split("\n")
      .filter((row) => row.startsWith("│"))
      .map((row) => row.slice(2).replace(/\s*│$/, ""));
    // (Drawn once more as the view is unmounted.)
    expect(rows.slice(0, 5)).toEqual(["ts", ...code.split("\n")]);
  });
});
