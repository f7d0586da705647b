/*! Syntax highlighting by highlight.js (https://highlightjs.org), bundled in part:
 * BSD 3-Clause License. Copyright (c) 2006, Ivan Sagalaev. All rights reserved.
 * Redistribution and use in source and binary forms, with or without modification, are
 * permitted provided that the following conditions are met: redistributions of source
 * code must retain the above copyright notice, this list of conditions and the following
 * disclaimer; redistributions in binary form must reproduce the above copyright notice,
 * this list of conditions and the following disclaimer in the documentation and/or other
 * materials provided with the distribution; neither the name of the copyright holder nor
 * the names of its contributors may be used to endorse or promote products derived from
 * this software without specific prior written permission. THIS SOFTWARE IS PROVIDED BY
 * THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES,
 * INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR
 * A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR
 * CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
 * CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
 * SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON
 * ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
 * NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF
 * ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 */
/**
 * Syntax highlighting of fenced code blocks, for the terminal: highlight.js's core with
 * the languages agents write most (bundled into the CLI, about 90 KB: the package itself is
 * 9 MB with its 190 languages), its HTML output read back into coloured spans.
 *
 * @module
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import kotlin from "highlight.js/lib/languages/kotlin";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import php from "highlight.js/lib/languages/php";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import swift from "highlight.js/lib/languages/swift";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  makefile,
  markdown,
  php,
  python,
  ruby,
  rust,
  shell,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};

const highlighter = hljs.newInstance();
for (const [name, language] of Object.entries(LANGUAGES)) {
  highlighter.registerLanguage(name, language);
}
// Names agents also write after the fence.
highlighter.registerAliases(["sh", "zsh", "console"], { languageName: "bash" });
highlighter.registerAliases(["jsonc", "json5"], { languageName: "json" });
highlighter.registerAliases(["toml"], { languageName: "ini" });
highlighter.registerAliases(["tsx", "mts", "cts"], { languageName: "typescript" });
highlighter.registerAliases(["jsx", "mjs", "cjs"], { languageName: "javascript" });

/** A run of code in one colour (`undefined`: the terminal's own). */
export interface CodeSpan {
  readonly text: string;
  readonly color: string | undefined;
  /** Shown dim (comments). */
  readonly dim?: boolean;
}

/** Code longer than this is shown plain: highlighting it on every frame would be slow. */
const MAX_HIGHLIGHT_CHARS = 64 * 1024;

/** The colour of a highlight.js scope (its first class, `hljs-` removed). */
function scopeColor(scope: string): { color: string | undefined; dim?: boolean } {
  switch (scope) {
    case "keyword":
    case "selector-tag":
    case "doctag":
      return { color: "magenta" };
    case "built_in":
    case "type":
    case "attr":
    case "attribute":
    case "property":
    case "selector-class":
    case "selector-id":
      return { color: "cyan" };
    case "string":
    case "addition":
    case "char":
      return { color: "green" };
    case "number":
    case "literal":
    case "symbol":
    case "variable":
    case "template-variable":
      return { color: "yellow" };
    case "title":
    case "name":
    case "section":
    case "tag":
      return { color: "blue" };
    case "regexp":
    case "deletion":
      return { color: "red" };
    case "comment":
    case "meta":
    case "quote":
      return { color: "gray", dim: true };
    default:
      return { color: undefined };
  }
}

function decode(text: string): string {
  return text.replace(/&(lt|gt|quot|#x27|#39|amp);/g, (entity: string, name: string) => {
    switch (name) {
      case "lt":
        return "<";
      case "gt":
        return ">";
      case "quot":
        return '"';
      case "amp":
        return "&";
      default:
        return entity === "&amp;" ? "&" : "'";
    }
  });
}

/**
 * The spans of highlight.js's HTML: `<span class="hljs-…">` nest, text between them is
 * escaped. The innermost coloured scope gives a text its colour.
 */
function spansOf(html: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  const stack: { color: string | undefined; dim?: boolean }[] = [];
  const tag = /<span class="([^"]*)">|<\/span>/g;
  let last = 0;
  const push = (text: string): void => {
    if (text === "") return;
    const style = [...stack].reverse().find((s) => s.color !== undefined);
    spans.push({ text: decode(text), color: style?.color, dim: style?.dim === true });
  };
  for (let match = tag.exec(html); match !== null; match = tag.exec(html)) {
    push(html.slice(last, match.index));
    last = tag.lastIndex;
    const classes = match[1];
    if (classes === undefined) stack.pop();
    else stack.push(scopeColor((classes.split(" ")[0] ?? "").replace(/^hljs-/, "")));
  }
  push(html.slice(last));
  return spans;
}

/**
 * `code` highlighted as `language`, one array of spans per line; `undefined` when the
 * language is not one of those known (or the code is too long), to be shown plain.
 */
export function highlightCode(code: string, language: string): CodeSpan[][] | undefined {
  const name = language.trim().toLowerCase();
  if (name === "" || code.length > MAX_HIGHLIGHT_CHARS) return undefined;
  if (highlighter.getLanguage(name) === undefined) return undefined;
  let html: string;
  try {
    html = highlighter.highlight(code, { language: name, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
  const lines: CodeSpan[][] = [[]];
  for (const span of spansOf(html)) {
    const parts = span.text.split("\n");
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part !== "") lines[lines.length - 1]?.push({ ...span, text: part });
    });
  }
  return lines;
}
