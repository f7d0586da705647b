/**
 * A small unified diff of two texts, for showing a v1 diff (old and new text) as a v2
 * patch.
 *
 * @module
 */

/** Past this many line pairs the diff is one hunk replacing everything (no LCS table). */
const MAX_CELLS = 4_000_000;

type Op = { readonly type: " " | "-" | "+"; readonly line: string };

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

function operations(a: readonly string[], b: readonly string[]): Op[] {
  // Common head and tail first: most edits touch a few lines.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const ops: Op[] = a.slice(0, head).map((line) => ({ type: " ", line }));
  if (midA.length * midB.length > MAX_CELLS) {
    for (const line of midA) ops.push({ type: "-", line });
    for (const line of midB) ops.push({ type: "+", line });
  } else {
    const n = midA.length;
    const m = midB.length;
    const table = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number): number => table[i * (m + 1) + j] ?? 0;
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        table[i * (m + 1) + j] =
          midA[i] === midB[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      const lineA = midA[i] ?? "";
      if (lineA === midB[j]) {
        ops.push({ type: " ", line: lineA });
        i++;
        j++;
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        ops.push({ type: "-", line: lineA });
        i++;
      } else ops.push({ type: "+", line: midB[j++] ?? "" });
    }
    for (; i < n; i++) ops.push({ type: "-", line: midA[i] ?? "" });
    for (; j < m; j++) ops.push({ type: "+", line: midB[j] ?? "" });
  }
  for (const line of a.slice(a.length - tail)) ops.push({ type: " ", line });
  return ops;
}

/**
 * A git-style unified diff of `oldText` (`null`: a new file) and `newText` at `path`,
 * with three lines of context.
 */
export function unifiedDiff(path: string, oldText: string | null, newText: string): string {
  const a = lines(oldText ?? "");
  const b = lines(newText);
  const ops = operations(a, b);
  const header = [
    `diff --git a/${path} b/${path}`,
    ...(oldText === null ? ["new file mode 100644", "--- /dev/null"] : [`--- a/${path}`]),
    `+++ b/${path}`,
  ];
  const hunks: string[] = [];
  const context = 3;
  let index = 0;
  while (index < ops.length) {
    while (index < ops.length && ops[index]?.type === " ") index++;
    if (index >= ops.length) break;
    const start = Math.max(0, index - context);
    let end = index;
    // Extend while changes are within twice the context of each other.
    for (;;) {
      while (end < ops.length && ops[end]?.type !== " ") end++;
      let next = end;
      while (next < ops.length && ops[next]?.type === " ") next++;
      if (next < ops.length && next - end <= context * 2) end = next;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    let oldLine = 1;
    let newLine = 1;
    for (let k = 0; k < start; k++) {
      if (ops[k]?.type !== "+") oldLine++;
      if (ops[k]?.type !== "-") newLine++;
    }
    const body = ops.slice(start, end);
    const oldCount = body.filter((op) => op.type !== "+").length;
    const newCount = body.filter((op) => op.type !== "-").length;
    hunks.push(
      `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`,
      ...body.map((op) => `${op.type}${op.line}`),
    );
    index = end;
  }
  return `${[...header, ...hunks].join("\n")}\n`;
}
