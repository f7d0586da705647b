/**
 * What users get: both packages packed with `npm pack`, installed from the tarballs into an
 * empty project, and used from there in ESM and CJS — one copy of each class across the
 * entries, brands across copies, the install footprint, and the `acp-kit` command.
 *
 * Needs the build (`npm run build`), as `npm test` does before vitest.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const libDir = join(repoRoot, "packages", "acp-kit");
const cliDir = join(repoRoot, "packages", "cli");
const CLI_LIBRARIES = [
  "ink",
  "ink-spinner",
  "react",
  "commander",
  "marked",
  "diff",
  "string-width",
];
/** The most packages `npm install acp-kit` may bring, acp-kit itself included. */
const MAX_LIBRARY_PACKAGES = 5;

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

function pack(dir: string, into: string): PackResult {
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", into], {
    cwd: dir,
    encoding: "utf8",
  });
  const [result] = JSON.parse(out) as PackResult[];
  if (result === undefined) throw new Error(`npm pack printed nothing for ${dir}`);
  return result;
}

function npmInstall(project: string, specs: string[]): void {
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true }),
  );
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", ...specs],
    { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** Every installed package (`node_modules/x` and `node_modules/@scope/x`), nested ones too. */
function installedPackages(nodeModules: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      if (name.startsWith("@")) {
        for (const inner of readdirSync(join(dir, name)))
          visit(join(dir, name, inner), `${name}/${inner}`);
      } else visit(join(dir, name), name);
    }
  };
  const visit = (path: string, name: string): void => {
    if (!existsSync(join(path, "package.json"))) return;
    found.push(name);
    walk(join(path, "node_modules"));
  };
  walk(nodeModules);
  return found;
}

function diskBytes(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + diskBytes(join(path, name)), 0);
}

function node(cwd: string, file: string, source: string): string {
  writeFileSync(join(cwd, file), source);
  return execFileSync(process.execPath, [file], { cwd, encoding: "utf8" }).trim();
}

describe("the packed packages", () => {
  const dir = mkdtempSync(join(tmpdir(), "acp-kit-packed-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let lib: PackResult;
  let cli: PackResult;
  let libOnly: string;
  let both: string;

  beforeAll(() => {
    if (
      !existsSync(join(libDir, "dist", "index.js")) ||
      !existsSync(join(cliDir, "dist", "cli.js"))
    ) {
      throw new Error("Build first (npm run build): these tests install the packed packages");
    }
    lib = pack(libDir, dir);
    cli = pack(cliDir, dir);
    libOnly = join(dir, "lib-only");
    both = join(dir, "both");
    for (const project of [libOnly, both]) mkdirSync(project);
    npmInstall(libOnly, [join(dir, lib.filename)]);
    npmInstall(both, [join(dir, lib.filename), join(dir, cli.filename)]);
    console.log(
      `acp-kit: packed ${(lib.size / 1024).toFixed(0)} kB, unpacked ${(lib.unpackedSize / 1024).toFixed(0)} kB, ` +
        `${installedPackages(join(libOnly, "node_modules")).length} packages installed ` +
        `(${(diskBytes(join(libOnly, "node_modules")) / 1024).toFixed(0)} kB); ` +
        `@acp-kit/cli: packed ${(cli.size / 1024).toFixed(0)} kB`,
    );
  }, 180_000);

  it("ship no source maps and no sources", () => {
    for (const result of [lib, cli]) {
      const paths = result.files.map((f) => f.path);
      expect(paths.filter((p) => p.endsWith(".map"))).toEqual([]);
      expect(paths.filter((p) => p.startsWith("src/") || p.includes(".test."))).toEqual([]);
      expect(paths).toContain("LICENSE");
      expect(paths).toContain("README.md");
    }
  });

  it("install the library alone with a handful of packages and no CLI library", () => {
    const installed = installedPackages(join(libOnly, "node_modules"));
    expect(installed).toContain("acp-kit");
    for (const name of CLI_LIBRARIES) expect(installed).not.toContain(name);
    expect(installed.length).toBeLessThanOrEqual(MAX_LIBRARY_PACKAGES);
  });

  it("share one copy of each class across the entries, in ESM", () => {
    const out = node(
      libOnly,
      "identity.mjs",
      `
import * as root from "acp-kit";
import * as nodeEntry from "acp-kit/node";
import * as testing from "acp-kit/testing";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const agentBin = join(require.resolve("acp-kit/package.json"), "..", "dist", "scripted-agent.js");
const spawned = await nodeEntry.spawnAgent({ command: process.execPath, args: [agentBin, "--demo"] });
const results = { spawned: spawned.connection instanceof root.ClientSideConnection };
await spawned.initialize();
await spawned.close();
const dir = mkdtempSync(join(tmpdir(), "identity-"));
const fs = new nodeEntry.FileSystemHandler();
fs.addSession("s", [dir]);
try {
  await fs.readTextFile({ sessionId: "s", path: "/etc/passwd" });
} catch (error) {
  results.fsError = error instanceof root.RequestError;
  results.fsErrorByPrototype = Object.getPrototypeOf(error) === root.RequestError.prototype;
}
const client = new testing.TestClient();
results.testClient = typeof client === "object";
console.log(JSON.stringify(results));
`,
    );
    expect(JSON.parse(out)).toEqual({
      spawned: true,
      fsError: true,
      fsErrorByPrototype: true,
      testClient: true,
    });
  }, 60_000);

  it("share one copy of each class across the entries, in CJS", () => {
    const out = node(
      libOnly,
      "identity.cjs",
      `
const root = require("acp-kit");
const nodeEntry = require("acp-kit/node");
const { mkdtempSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
(async () => {
  const agentBin = join(require.resolve("acp-kit/package.json"), "..", "dist", "scripted-agent.js");
  const spawned = await nodeEntry.spawnAgent({ command: process.execPath, args: [agentBin, "--demo"] });
  const results = { spawned: spawned.connection instanceof root.ClientSideConnection };
  await spawned.initialize();
  await spawned.close();
  const fs = new nodeEntry.FileSystemHandler();
  fs.addSession("s", [mkdtempSync(join(tmpdir(), "identity-"))]);
  try {
    await fs.readTextFile({ sessionId: "s", path: "/etc/passwd" });
  } catch (error) {
    results.fsErrorByPrototype = Object.getPrototypeOf(error) === root.RequestError.prototype;
  }
  console.log(JSON.stringify(results));
})();
`,
    );
    expect(JSON.parse(out)).toEqual({ spawned: true, fsErrorByPrototype: true });
  }, 60_000);

  it("export the same names from ESM and CJS, one object per name across entries", () => {
    const out = node(
      libOnly,
      "exports.mjs",
      `
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
// acp-kit/v2 has names of its own meaning (its method table), so it is left out of the
// one-object-per-name check, not of the ESM/CJS one.
const entries = [
  "acp-kit",
  "acp-kit/node",
  "acp-kit/testing",
  "acp-kit/v2",
  "acp-kit/proxy",
  "acp-kit/mcp",
];
const report = { mismatched: [], duplicated: [], classes: 0, errors: [] };
const seen = new Map();
for (const entry of entries) {
  const esm = await import(entry);
  const cjs = require(entry);
  const esmNames = Object.keys(esm).filter((n) => n !== "default").sort();
  const cjsNames = Object.keys(cjs).filter((n) => n !== "__esModule").sort();
  if (JSON.stringify(esmNames) !== JSON.stringify(cjsNames)) report.mismatched.push(entry);
  for (const name of esmNames) {
    const value = esm[name];
    const first = seen.get(name);
    if (entry === "acp-kit/v2") continue;
    if (first !== undefined && first !== value) report.duplicated.push(entry + ":" + name);
    seen.set(name, value);
    if (typeof value === "function" && Function.prototype.toString.call(value).startsWith("class")) {
      report.classes++;
      if (value.prototype instanceof Error && !(Object.create(value.prototype) instanceof Error)) {
        report.errors.push(name);
      }
    }
  }
}
console.log(JSON.stringify(report));
`,
    );
    const report = JSON.parse(out) as {
      mismatched: string[];
      duplicated: string[];
      classes: number;
      errors: string[];
    };
    expect(report.mismatched).toEqual([]);
    expect(report.duplicated).toEqual([]);
    expect(report.errors).toEqual([]);
    expect(report.classes).toBeGreaterThan(10);
  });

  it("answer instanceof across the ESM and CJS copies by brand", () => {
    const out = node(
      libOnly,
      "brand.mjs",
      `
import * as esm from "acp-kit";
import { createRequire } from "node:module";
const cjs = createRequire(import.meta.url)("acp-kit");
const results = {
  distinctCopies: esm.RequestError !== cjs.RequestError,
  requestError: new cjs.RequestError(-32603, "x") instanceof esm.RequestError,
  requestErrorBack: new esm.RequestError(-32603, "x") instanceof cjs.RequestError,
  connectionError: new cjs.ConnectionError("timeout", "x") instanceof esm.ConnectionError,
  notCrossed: new cjs.ConnectionError("timeout", "x") instanceof esm.RequestError,
  plainError: new Error("x") instanceof esm.RequestError,
  lookalike: { code: 1, message: "x" } instanceof esm.RequestError,
  subclass: new esm.MessageTooLargeError(10) instanceof esm.ConnectionError,
};
console.log(JSON.stringify(results));
`,
    );
    expect(JSON.parse(out)).toEqual({
      distinctCopies: true,
      requestError: true,
      requestErrorBack: true,
      connectionError: true,
      notCrossed: false,
      plainError: false,
      lookalike: false,
      subclass: false,
    });
  });

  it("install the command, which uses the installed library rather than a copy of it", () => {
    const bin = join(both, "node_modules", ".bin", "acp-kit");
    const version = execFileSync(bin, ["--version"], { cwd: both, encoding: "utf8" }).trim();
    const manifest = JSON.parse(
      readFileSync(join(both, "node_modules", "@acp-kit", "cli", "package.json"), "utf8"),
    ) as { version: string };
    expect(version).toContain(manifest.version);
    // Only one acp-kit in the tree: the command resolves the same library users import.
    const installed = installedPackages(join(both, "node_modules"));
    expect(installed.filter((name) => name === "acp-kit")).toHaveLength(1);
    const cliDist = join(both, "node_modules", "@acp-kit", "cli", "dist");
    const sources = readdirSync(cliDist).map((f) => readFileSync(join(cliDist, f), "utf8"));
    expect(sources.some((s) => /from ["']acp-kit["']/.test(s))).toBe(true);
    // The engine's class is not bundled into the command.
    expect(sources.some((s) => /class ClientSideConnection\b/.test(s))).toBe(false);
  }, 60_000);
});
