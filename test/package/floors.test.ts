/**
 * The library's folders stand on floors, and a module imports only from floors below its
 * own: never from above, nor from a folder beside it on the same floor. Every import
 * counts: `import`, `import type`, `export ... from` and `import()`. Tests (`*.test.ts`)
 * are left out: they may drive several floors at once. See docs/architecture.md.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SOURCES = fileURLToPath(new URL("../../packages/acp-kit/src", import.meta.url));

/**
 * The floors, bottom to top; the folders of one floor do not import each other. The JSON-RPC
 * engine and ACP's schema share one: the engine knows nothing of ACP.
 */
const FLOORS: readonly (readonly string[])[] = [
  ["base"],
  ["transport"],
  ["jsonrpc", "schema"],
  ["peer"],
  // v2's two sides, its router, negotiation and the bridge (the entry is v2/index.ts).
  ["agent", "session", "v2"],
  // MCP-over-ACP: provider and caller for the v1 and v2 sides (the entry is mcp/index.ts).
  ["mcp"],
  // Proxies and the conductor (the entry is proxy/index.ts).
  ["proxy"],
  ["http"],
  ["node"],
  ["testing"],
  ["(entries)"],
];

/** Files that are entries of the package, whatever their folder. */
const ENTRY_FILES = new Set([
  "index.ts",
  "internal.ts",
  "v2/index.ts",
  "proxy/index.ts",
  "mcp/index.ts",
  "testing/scripted/agent-main.ts",
]);
/** Folders that are entries of the package as a whole (none today). */
const ENTRY_FOLDERS = new Set<string>();

/** The floor name of a module, by its path relative to the sources (`/`-separated). */
function placeOf(path: string): string {
  if (ENTRY_FILES.has(path)) return "(entries)";
  const slash = path.indexOf("/");
  if (slash < 0) return `(${path} at the root)`;
  const folder = path.slice(0, slash);
  return ENTRY_FOLDERS.has(folder) ? "(entries)" : folder;
}

function floorOf(place: string): number | undefined {
  const index = FLOORS.findIndex((floor) => floor.includes(place));
  return index < 0 ? undefined : index;
}

/** What a specifier imports, as a path relative to the sources; undefined when outside them. */
function importedPath(from: string, specifier: string): string | undefined {
  if (specifier === "acp-kit" || specifier.startsWith("acp-kit/")) return "index.ts";
  if (!specifier.startsWith(".")) return undefined;
  const target = join(dirname(from), specifier.replace(/\.js$/, ".ts")).split(sep).join("/");
  return target.startsWith("../") ? undefined : target;
}

/** Every module specifier a source imports or re-exports, dynamic imports included. */
export function specifiersOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

/**
 * The imports that break the floors, as `file: import "specifier" (what is wrong)`.
 *
 * @param sources - Each module's source text by its path relative to the sources.
 */
export function violations(sources: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, source] of sources) {
    const place = placeOf(file);
    const floor = floorOf(place);
    if (floor === undefined) {
      found.push(`${file}: ${place} has no floor (add it to FLOORS)`);
      continue;
    }
    for (const specifier of specifiersOf(source)) {
      const target = importedPath(file, specifier);
      if (target === undefined) continue;
      const targetPlace = placeOf(target);
      if (targetPlace === place) continue;
      const targetFloor = floorOf(targetPlace);
      if (targetFloor === undefined) {
        found.push(`${file}: import "${specifier}" (${targetPlace} has no floor)`);
      } else if (targetFloor > floor) {
        found.push(`${file}: import "${specifier}" (${place} stands below ${targetPlace})`);
      } else if (targetFloor === floor) {
        found.push(`${file}: import "${specifier}" (${place} and ${targetPlace} share a floor)`);
      }
    }
  }
  return found;
}

function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return modules(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")
      ? [path]
      : [];
  });
}

describe("the library's floors", () => {
  it("are kept: no module imports from a floor above its own or beside it", () => {
    const sources = new Map(
      modules(SOURCES).map((file) => [
        relative(SOURCES, file).split(sep).join("/"),
        readFileSync(file, "utf8"),
      ]),
    );
    expect(sources.size).toBeGreaterThan(100);
    expect(violations(sources)).toEqual([]);
  });

  it("names the file and the import that break them", () => {
    const sources = new Map([
      ["jsonrpc/pending.ts", 'import type { MethodSpec } from "../schema/method-spec.js";'],
      ["transport/ndjson.ts", 'export { RequestError } from "../jsonrpc/errors.js";'],
      ["base/logger.ts", 'const load = () => import("../peer/agent.js");'],
      ["transport/memory.ts", 'import type { SessionId } from "../schema/types.gen.js";'],
      ["node/index.ts", 'import { VERSION } from "../base/version.js";'],
      ["testing/scripted/agent-main.ts", 'import { x } from "acp-kit/testing";'],
      ["extra/thing.ts", ""],
      // Comments are not imports.
      ["base/messages.ts", '/** import { AgentSideConnection } from "../peer/agent.js"; */'],
    ]);
    expect(violations(sources)).toEqual([
      'jsonrpc/pending.ts: import "../schema/method-spec.js" (jsonrpc and schema share a floor)',
      'transport/ndjson.ts: import "../jsonrpc/errors.js" (transport stands below jsonrpc)',
      'base/logger.ts: import "../peer/agent.js" (base stands below peer)',
      'transport/memory.ts: import "../schema/types.gen.js" (transport stands below schema)',
      "extra/thing.ts: extra has no floor (add it to FLOORS)",
    ]);
  });
});
