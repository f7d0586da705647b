import { build } from "esbuild";
import { describe, expect, it } from "vitest";

describe.each(["index", "v2/index", "mcp/index", "proxy/index"])(
  "the runtime-neutral entry src/%s.ts",
  (entry) => {
    it("bundles for a browser without any Node built-in", async () => {
      // esbuild refuses to resolve node:* and Node built-ins for the browser platform.
      const result = await build({
        entryPoints: [new URL(`../../packages/acp-kit/src/${entry}.ts`, import.meta.url).pathname],
        bundle: true,
        platform: "browser",
        format: "esm",
        write: false,
        logLevel: "silent",
        metafile: true,
      });
      expect(result.errors).toEqual([]);
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.some((i) => i.includes("node_modules"))).toBe(false);
      expect(inputs.every((i) => i.startsWith("packages/acp-kit/src/"))).toBe(true);
      const code = result.outputFiles[0]!.text;
      expect(code).not.toMatch(/\bfrom\s+["']node:|require\(["']node:|\bprocess\.|\bBuffer\b/);
    });
  },
);

describe("the CLI's libraries", () => {
  const CLI_ONLY = ["ink", "ink-spinner", "react", "commander", "marked", "diff", "string-width"];

  for (const entry of ["index", "node/index", "testing/index"]) {
    it(`are not reachable from src/${entry}.ts`, async () => {
      const result = await build({
        entryPoints: [new URL(`../../packages/acp-kit/src/${entry}.ts`, import.meta.url).pathname],
        bundle: true,
        platform: "node",
        format: "esm",
        packages: "external",
        write: false,
        logLevel: "silent",
        metafile: true,
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.filter((i) => i.startsWith("packages/cli/"))).toEqual([]);
      const external = Object.values(result.metafile.outputs).flatMap((o) =>
        o.imports.filter((i) => i.external).map((i) => i.path),
      );
      // The detection works: the Node toolkit's own dependency shows up.
      if (entry === "node/index") expect(external).toContain("picomatch/posix.js");
      for (const name of CLI_ONLY) {
        expect(external.filter((path) => path === name || path.startsWith(`${name}/`))).toEqual([]);
      }
    });
  }
});

describe("VERSION", () => {
  it("equals the version in package.json", async () => {
    const { VERSION } = await import("../../packages/acp-kit/src/base/version.js");
    const { readFileSync } = await import("node:fs");
    const pkg = JSON.parse(
      readFileSync(new URL("../../packages/acp-kit/package.json", import.meta.url), "utf8"),
    ) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });
});
