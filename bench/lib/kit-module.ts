/**
 * Chooses the module that provides the classic API for the "acp-kit" column.
 *
 * `ACP_KIT_MODULE` (or `--kit=<spec>`) selects it:
 * - `acp-kit` (default): the BUILT package, i.e. the file the repo's
 *   package.json `exports["."].import` points at (`dist/index.js`). We import
 *   that file directly instead of the bare specifier because tsx honours the
 *   tsconfig `paths` entry that maps `acp-kit` to `src/index.ts`, and the
 *   benchmark must measure what ships. If `dist/` is missing we fall back to
 *   `acp-sdk-classic` and say so loudly in the output.
 * - `acp-sdk-classic`: the official SDK 1.9.0 (classic API), as a stand-in.
 * - anything else: a bare specifier or a path/URL to an ES module with the same exports.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as Classic from "acp-sdk-classic";

/** The part of the classic API the benchmark uses; acp-kit must export exactly these. */
export type ClassicModule = Pick<
  typeof Classic,
  "AgentSideConnection" | "ClientSideConnection" | "ndJsonStream" | "PROTOCOL_VERSION"
>;

export interface KitModule {
  mod: ClassicModule;
  /** Human-readable label printed with the results. */
  label: string;
  /** URL the S4 child agent imports, so it uses the same module. */
  url: string;
  /** True when `acp-kit` was requested but `dist/` was missing. */
  fellBack: boolean;
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The library package inside the workspace. */
const KIT_ROOT = resolve(REPO_ROOT, "packages", "acp-kit");

interface PackageJson {
  exports?: Record<string, { import?: { default?: string } | string } | string>;
}

/** File URL of the built acp-kit entry, or undefined when it has not been built. */
export function builtKitUrl(): string | undefined {
  const pkg = JSON.parse(readFileSync(resolve(KIT_ROOT, "package.json"), "utf8")) as PackageJson;
  const root = pkg.exports?.["."];
  let rel: string | undefined;
  if (typeof root === "string") rel = root;
  else if (typeof root?.import === "string") rel = root.import;
  else rel = root?.import?.default;
  const file = resolve(KIT_ROOT, rel ?? "dist/index.js");
  return existsSync(file) ? pathToFileURL(file).href : undefined;
}

function requestedSpec(): string {
  const arg = process.argv.find((a) => a.startsWith("--kit="));
  return arg?.slice("--kit=".length) ?? process.env.ACP_KIT_MODULE ?? "acp-kit";
}

function toUrl(spec: string): string {
  if (spec.startsWith("file:")) return spec;
  if (spec.startsWith(".") || isAbsolute(spec)) return pathToFileURL(resolve(spec)).href;
  return import.meta.resolve(spec);
}

function check(mod: Partial<ClassicModule>, spec: string): ClassicModule {
  for (const name of ["AgentSideConnection", "ClientSideConnection", "ndJsonStream"] as const) {
    if (typeof mod[name] !== "function") throw new Error(`${spec} does not export ${name}`);
  }
  if (typeof mod.PROTOCOL_VERSION !== "number")
    throw new Error(`${spec} does not export PROTOCOL_VERSION`);
  return mod as ClassicModule;
}

export async function loadKitModule(spec = requestedSpec()): Promise<KitModule> {
  let fellBack = false;
  let url: string;
  let label: string;
  if (spec === "acp-kit") {
    const built = builtKitUrl();
    if (built) {
      url = built;
      label = `acp-kit (${fileURLToPath(built).slice(REPO_ROOT.length + 1)})`;
    } else {
      fellBack = true;
      url = toUrl("acp-sdk-classic");
      label = "acp-sdk-classic 1.9.0 STANDING IN for acp-kit (dist/ not built)";
    }
  } else {
    url = toUrl(spec);
    label = spec === "acp-sdk-classic" ? "acp-sdk-classic 1.9.0 standing in for acp-kit" : spec;
  }
  const mod = check((await import(url)) as Partial<ClassicModule>, url);
  return { mod, label, url, fellBack };
}
