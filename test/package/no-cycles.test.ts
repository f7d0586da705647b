/**
 * The library's modules import each other without cycles, type imports included: a
 * contract (interfaces, shared types) lives in a file of its own that both sides import.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SOURCES = fileURLToPath(new URL("../../packages/acp-kit/src", import.meta.url));
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^;"']*?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']/g;

function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return modules(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")
      ? [path]
      : [];
  });
}

/** The cycles of the import graph: its strongly connected components of two or more. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("the library's import graph", () => {
  it("has no cycles", () => {
    const graph = new Map<string, string[]>();
    for (const file of modules(SOURCES)) {
      const source = readFileSync(file, "utf8");
      const targets = [...source.matchAll(IMPORT)].map((match) =>
        normalize(join(dirname(file), match[1]!.replace(/\.js$/, ".ts"))),
      );
      graph.set(file, targets);
    }
    expect(graph.size).toBeGreaterThan(100);
    const found = cycles(graph).map((cycle) => cycle.map((file) => relative(SOURCES, file)));
    expect(found).toEqual([]);
  });
});
