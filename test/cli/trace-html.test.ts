/**
 * `acp-kit trace view --html`: a self-contained page, safe against markup in messages,
 * with the timeline, pairing, errors, and a working filter.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  escapeHtml,
  parseTrace,
  renderTraceHtml,
  writeTraceHtml,
} from "../../packages/cli/src/trace/index.js";

const sample = fileURLToPath(new URL("./fixtures/trace-sample.ndjson", import.meta.url));
let dir: string;
let html: string;
let sampleText: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-trace-html-"));
  const out = join(dir, "trace.html");
  await writeTraceHtml(sample, out);
  html = await readFile(out, "utf8");
  sampleText = await readFile(sample, "utf8");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const VOID = new Set(["meta", "input", "br", "hr", "img", "link"]);

/** Checks that every element is closed in order; returns the unbalanced tags. */
function unbalanced(page: string): string[] {
  const body = page
    .replace(/<style>[\s\S]*?<\/style>/, "<style></style>")
    .replace(/<script>[\s\S]*?<\/script>/, "<script></script>")
    .replace(/<!DOCTYPE html>/i, "");
  const stack: string[] = [];
  const problems: string[] = [];
  for (const match of body.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>/g)) {
    const [, closing, name = ""] = match;
    const tag = name.toLowerCase();
    if (VOID.has(tag)) continue;
    if (closing === "") stack.push(tag);
    else if (stack.pop() !== tag) problems.push(`</${tag}> at ${match.index}`);
  }
  return [...problems, ...stack.map((t) => `<${t}> never closed`)];
}

interface FakeRow {
  hidden: boolean;
  getAttribute(name: string): string | null;
  classList: { contains(name: string): boolean };
  querySelector(): { open: boolean } | null;
}

function unescape(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/** Runs the page's script against a tiny fake DOM made from the page's rows. */
function runScript(page: string) {
  const rows: FakeRow[] = [
    ...page.matchAll(/<div class="(row [^"]*)"[^>]*data-dir="([^"]*)" data-search="([^"]*)">/g),
  ].map(([, cls = "", dirAttr = "", search = ""]) => ({
    hidden: false,
    getAttribute: (name) =>
      name === "data-dir" ? unescape(dirAttr) : name === "data-search" ? unescape(search) : null,
    classList: { contains: (name) => cls.split(" ").includes(name) },
    querySelector: () => null,
  }));
  const listeners = new Map<string, () => void>();
  const control = (id: string) => ({
    value: "",
    checked: false,
    textContent: "",
    addEventListener: (_: string, fn: () => void) => listeners.set(id, fn),
  });
  const controls = {
    filter: control("filter"),
    "errors-only": control("errors-only"),
    count: control("count"),
    expand: control("expand"),
    collapse: control("collapse"),
  };
  const dirs = [...page.matchAll(/<input type="checkbox" data-dir="([^"]*)" checked>/g)].map(
    ([, d = ""]) => ({
      checked: true,
      getAttribute: () => unescape(d),
      addEventListener: () => undefined,
    }),
  );
  const document = {
    querySelectorAll: (selector: string) => (selector === ".row" ? rows : dirs),
    getElementById: (id: string) => controls[id as keyof typeof controls],
  };
  const script = /<script>([\s\S]*?)<\/script>/.exec(page)?.[1] ?? "";
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const run = new Function("document", script) as (doc: typeof document) => void;
  run(document);
  return { rows, controls, fire: (id: string) => listeners.get(id)?.() };
}

describe("writeTraceHtml", () => {
  it("writes one self-contained, well-formed page", () => {
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(unbalanced(html)).toEqual([]);
    expect(html).toContain("Content-Security-Policy");
    expect(html).not.toMatch(/\b(src|href)\s*=\s*"(?!#)/i);
    expect(html).not.toMatch(/url\(|@import|https?:\/\//i);
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html.match(/<style\b/g)).toHaveLength(1);
  });

  it("escapes message content: markup in a message is text, never elements", () => {
    expect(html).toContain("Hello &#60;script&#62;alert(\\&#34;x\\&#34;)&#60;/script&#62; there");
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img");
    expect(html).toContain("Read &#60;/details&#62;&#60;img src=x onerror=alert(1)&#62;");
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      "&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;",
    );
  });

  it("shows the timeline with payloads to unfold, pairing, latency and errors", () => {
    const rows = html.match(/<div class="row /g) ?? [];
    expect(rows).toHaveLength(parseTrace(sampleText).records.length);
    expect(html).toMatch(
      /id="e6"[^>]*>.*session\/prompt<\/span> #2 .*<a class="ok" href="#e13">← result in 1234\.5 ms<\/a>/,
    );
    expect(html).toMatch(/id="e13"[^>]*>.*<a class="ok" href="#e6">result in 1234\.5 ms<\/a>/);
    expect(html).toMatch(/<div class="row k-response d-a2c is-error" id="e15"/);
    expect(html).toMatch(
      /<details><summary>.*initialize<\/span> #0[\s\S]*?<pre>\{\n {2}&#34;jsonrpc&#34;: &#34;2\.0&#34;/,
    );
    expect(html).toContain("← no response");
    expect(html).toContain('<section id="summary">');
    expect(html).toMatch(
      /<td class="method">session\/prompt<\/td><td>request<\/td><td class="n">3<\/td>/,
    );
  });

  it("cuts very large payloads", () => {
    const page = renderTraceHtml(parseTrace(sampleText), { maxPayloadChars: 100 });
    expect(page).toMatch(/… \(\+\d+\.\d KB not shown\)/);
  });

  it("has a filter that hides rows by method, direction and errors", () => {
    const { rows, controls, fire } = runScript(html);
    const shown = () => rows.filter((r) => !r.hidden).length;
    expect(shown()).toBe(rows.length);
    expect(controls.count.textContent).toBe(`${rows.length} of ${rows.length} shown`);
    controls.filter.value = "fs/read_text_file";
    fire("filter");
    expect(shown()).toBe(4);
    controls.filter.value = "session/prompt agent→client";
    fire("filter");
    expect(shown()).toBe(2);
    controls.filter.value = "";
    controls["errors-only"].checked = true;
    fire("errors-only");
    expect(shown()).toBe(1);
  });
});
