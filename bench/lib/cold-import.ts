/**
 * Cold import time: spawns a fresh `node` per sample that imports the package
 * from cwd = repo root (so `acp-kit` resolves through the package.json
 * self-reference to the built dist/, exactly as a consumer would load it) and
 * reports `performance.now()` around the dynamic `import()`. Node's own startup
 * is excluded; module resolution, loading, compilation and evaluation are not.
 */
import { spawnSync } from "node:child_process";
import { REPO_ROOT } from "./kit-module.ts";
import { median } from "./common.ts";

export interface ColdImport {
  medianMs: number;
  samples: number[];
}

export function coldImport(specifier: string, runs: number): ColdImport {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      // No tsx loader and no inherited NODE_OPTIONS: a plain consumer process.
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    if (r.status !== 0) throw new Error(`import(${specifier}) failed: ${r.stderr}`);
    samples.push(Number(r.stdout));
  }
  return { medianMs: median(samples), samples };
}
