/**
 * npm distributions: a tiny agent package packed here with `npm pack`, served by a local
 * registry-like HTTP server on 127.0.0.1 (a packument and the tarball), installed with
 * `npm install --prefix` into the cache and started directly with Node, no npx. Then the
 * same with the real npm registry and a real agent package, skipped when it cannot be
 * reached.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  installAgent,
  npmPackageName,
  pypiPackageName,
  resolveAgent,
  spawnAgent,
  type RegistryAgent,
} from "../../packages/acp-kit/src/node/index.js";
import { testTempDir } from "../support/temp-dir.js";
import { startServer, type TestServer } from "./registry-server.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const agentFile = new URL("./fixtures/tiny-acp-agent.cjs", import.meta.url).pathname;

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

/** Packs a tiny agent package and serves it as the npm registry would. */
function publishTiny(name: string, version: string, bin: Record<string, string>): void {
  const dir = testTempDir("acp-pkg-");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version, bin }));
  copyFileSync(agentFile, join(dir, "agent.js"));
  const packed = spawnSync(NPM, ["pack", "--json", "--pack-destination", dir], {
    cwd: dir,
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  expect(packed.status, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout) as [{ filename: string }];
  const tarball = readFileSync(join(dir, info.filename));
  const tarballPath = `/${name}/-/${info.filename}`;
  server.files.set(tarballPath, { body: tarball });
  const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
  server.files.set(`/${name}`, {
    type: "application/json",
    body: JSON.stringify({
      name,
      "dist-tags": { latest: version },
      versions: {
        [version]: {
          name,
          version,
          bin,
          dist: { tarball: `${server.url}${tarballPath}`, integrity },
        },
      },
    }),
  });
}

function npxAgent(id: string, pkg: string, extra: Record<string, unknown> = {}): RegistryAgent {
  return {
    id,
    name: id,
    version: "1.0.0",
    description: "a test agent",
    distribution: { npx: { package: pkg, args: ["--acp"], env: { TINY_AGENT: "npm" }, ...extra } },
  };
}

function npmEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    npm_config_registry: `${server.url}/`,
    npm_config_cache: testTempDir("acp-npm-cache-"),
    npm_config_update_notifier: "false",
  };
}

describe("npm package names", () => {
  it("parses pinned, scoped and unpinned specs", () => {
    expect(npmPackageName("@scope/name@1.2.3")).toBe("@scope/name");
    expect(npmPackageName("name@^1")).toBe("name");
    expect(npmPackageName("name")).toBe("name");
    expect(pypiPackageName("fast-agent-acp==0.10.1")).toBe("fast-agent-acp");
    expect(pypiPackageName("pkg[extra]>=1")).toBe("pkg");
  });
});

describe("npx distributions from a local registry", () => {
  it("installs a packed package once into the cache and starts its bin with Node", async () => {
    publishTiny("@tiny/acp-agent", "1.0.0", { "tiny-acp": "agent.js" });
    const cacheDir = testTempDir("acp-reg-");
    const env = npmEnv();
    const registry = {
      registry: { version: "1", agents: [npxAgent("tiny", "@tiny/acp-agent@1.0.0")] },
      source: "network" as const,
      url: "test",
      fetchedAt: undefined,
      problems: [],
      fetchError: undefined,
    };
    const resolved = await resolveAgent("tiny", { cacheDir, env, registry });
    expect(resolved.distribution).toBe("npx");
    expect(resolved.command).toBe(process.execPath);
    expect(resolved.args).toEqual([
      join(resolved.dir, "node_modules", "@tiny", "acp-agent", "agent.js"),
      "--acp",
    ]);
    const fetched = server.requests.filter((r) => r.path.endsWith(".tgz")).length;
    expect(fetched).toBe(1);

    // Started from the cache: no npm, no network.
    await server.close();
    await using agent = await spawnAgent({
      registry: "tiny",
      registryOptions: { cacheDir, env, registry },
    });
    expect((await agent.initialize())._meta).toEqual({ argv: ["--acp"], tiny: "npm" });
    server = await startServer();
  }, 120_000);

  it("uses the registry's cmd among several bins, and says so when it is missing", async () => {
    publishTiny("multi-bin", "2.0.0", { first: "agent.js", second: "agent.js" });
    const cacheDir = testTempDir("acp-reg-");
    const env = npmEnv();
    const good = await installAgent(
      npxAgent("multi", "multi-bin@2.0.0", { cmd: "second" }),
      "npx",
      { cacheDir, env },
    );
    expect(good.record.program).toBe(join("node_modules", "multi-bin", "agent.js"));
    expect(good.record.viaNode).toBe(true);
    const bad = await installAgent(npxAgent("multi2", "multi-bin@2.0.0"), "npx", {
      cacheDir,
      env,
    }).catch((e: unknown) => e);
    expect((bad as Error).message).toContain("has the executables first, second");
    expect(readdirSync(join(cacheDir, "agents", "multi2"))).toEqual([]);
    const missing = await installAgent(npxAgent("gone", "no-such-package@1.0.0"), "npx", {
      cacheDir,
      env,
    }).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/Installing gone failed \(`npm install/);
  }, 120_000);
});

const reachable =
  spawnSync(NPM, ["ping"], {
    timeout: 15_000,
    encoding: "utf8",
    shell: process.platform === "win32",
  }).status === 0;
if (!reachable) {
  console.warn(
    "Skipping the real-npm registry test: the npm registry cannot be reached (npm ping failed).",
  );
}

describe.skipIf(!reachable)("npx distributions from the real npm registry", () => {
  it("installs pi-acp (a real ACP adapter) once and resolves its bin", async () => {
    const cacheDir = testTempDir("acp-reg-");
    const registry = {
      registry: {
        version: "1",
        agents: [
          {
            id: "pi-acp",
            name: "pi",
            version: "0.0.34",
            description: "pi through ACP",
            distribution: { npx: { package: "pi-acp@0.0.34" } },
          },
        ],
      },
      source: "network" as const,
      url: "test",
      fetchedAt: undefined,
      problems: [],
      fetchError: undefined,
    };
    const resolved = await resolveAgent("pi-acp", { cacheDir, registry });
    expect(resolved.command).toBe(process.execPath);
    expect(resolved.args[0]).toBe(join(resolved.dir, "node_modules", "pi-acp", "dist", "index.js"));
    const again = await resolveAgent("pi-acp", { cacheDir, registry, install: false });
    expect(again.dir).toBe(resolved.dir);
  }, 180_000);
});
