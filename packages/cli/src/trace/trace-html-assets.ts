/**
 * The inline style sheet and script of the HTML trace page, and HTML escaping. The script
 * holds no data: it reads the (escaped) attributes of the rows, so nothing from a trace
 * ever lands inside a `<script>` element.
 *
 * @module
 */

/**
 * Escapes text for HTML content and quoted attribute values: `& < > " '` become numeric
 * character references.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page's style sheet. */
export const TRACE_CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #656d76;
  --line: #d0d7de; --c2a: #0969da; --a2c: #8250df; --err: #cf222e; --warn: #9a6700;
  --ok: #1a7f37; --hl: #fff8c5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0;
  --line: #30363d; --c2a: #4493f8; --a2c: #ab7df8; --err: #f85149; --warn: #d29922;
  --ok: #3fb950; --hl: #3b2e00; } }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  color: var(--fg); background: var(--bg); }
header, #summary { padding: 12px 16px; }
h1 { font-size: 16px; margin: 0 0 4px; }
h2 { font-size: 14px; margin: 16px 0 6px; }
.meta { color: var(--muted); word-break: break-all; }
.controls { position: sticky; top: 0; background: var(--bg); border-bottom: 1px solid var(--line);
  padding: 8px 16px; display: flex; flex-wrap: wrap; gap: 12px; align-items: center; z-index: 1; }
.controls input[type=search] { flex: 1 1 240px; font: inherit; padding: 4px 6px; }
.row { display: grid; grid-template-columns: 110px 110px 1fr; gap: 8px; padding: 2px 16px;
  border-bottom: 1px solid var(--line); }
.row:target { background: var(--hl); }
.row > details > summary { cursor: pointer; list-style-position: outside; }
.t { color: var(--muted); text-align: right; }
.dir { white-space: nowrap; }
.d-c2a .dir { color: var(--c2a); }
.d-a2c .dir { color: var(--a2c); }
.method { font-weight: 600; }
.sum { color: var(--muted); }
.ok { color: var(--ok); }
.err, .row.is-error .method { color: var(--err); }
.row.is-error { border-left: 3px solid var(--err); }
.warn { color: var(--warn); }
.k-stderr, .k-event { color: var(--muted); }
.k-stderr .text, .raw { white-space: pre-wrap; word-break: break-all; }
pre { margin: 4px 0 8px; padding: 6px 8px; background: color-mix(in srgb, var(--line) 30%, transparent);
  overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
a { color: inherit; }
table { border-collapse: collapse; }
td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }
td.n { text-align: right; }
[hidden] { display: none !important; }
.chunk-text { white-space: pre-wrap; margin: 4px 0; }
.fg-0 { color: #3b3b3b; } .fg-1 { color: #cd3131; } .fg-2 { color: #00bc00; }
.fg-3 { color: #949800; } .fg-4 { color: #0451a5; } .fg-5 { color: #bc05bc; }
.fg-6 { color: #0598bc; } .fg-7 { color: #777777; } .fg-8 { color: #666666; }
.fg-9 { color: #f14c4c; } .fg-10 { color: #16c60c; } .fg-11 { color: #b5ba00; }
.fg-12 { color: #3b8eea; } .fg-13 { color: #d670d6; } .fg-14 { color: #29b8db; }
.fg-15 { color: #a5a5a5; }
.bold { font-weight: 600; } .dim { opacity: 0.7; } .italic { font-style: italic; }
.underline { text-decoration: underline; }
`;

/** The page's script: the filter box, the direction and error toggles, expand/collapse. */
export const TRACE_JS = `
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll(".row"));
  var filter = document.getElementById("filter");
  var errorsOnly = document.getElementById("errors-only");
  var count = document.getElementById("count");
  var dirBoxes = Array.prototype.slice.call(document.querySelectorAll("input[data-dir]"));
  function apply() {
    var words = filter.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var dirs = {};
    dirBoxes.forEach(function (box) { dirs[box.getAttribute("data-dir")] = box.checked; });
    var shown = 0;
    rows.forEach(function (row) {
      var text = row.getAttribute("data-search") || "";
      var ok = dirs[row.getAttribute("data-dir")] !== false &&
        (!errorsOnly.checked || row.classList.contains("is-error")) &&
        words.every(function (w) { return text.indexOf(w) !== -1; });
      row.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + " of " + rows.length + " shown";
  }
  function openAll(open) {
    rows.forEach(function (row) {
      if (row.hidden) return;
      var details = row.querySelector("details");
      if (details) details.open = open;
    });
  }
  filter.addEventListener("input", apply);
  errorsOnly.addEventListener("change", apply);
  dirBoxes.forEach(function (box) { box.addEventListener("change", apply); });
  document.getElementById("expand").addEventListener("click", function () { openAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { openAll(false); });
  apply();
})();
`;
