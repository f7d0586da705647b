/**
 * The registry without the internet: the format's validator, loading through a local
 * HTTP server (ETag, 304, fallbacks), binary installs from archives made here (zip,
 * tar.gz, tar.bz2; right and wrong checksums; entries and links that try to escape),
 * concurrent installs, and `spawnAgent({ registry })` end to end.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { zipSync } from "fflate";
import { packTar, type TarHeader } from "modern-tar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DEFAULT_REGISTRY_URL,
  RegistryError,
  chooseDistribution,
  defaultCacheDir,
  installAgent,
  loadRegistry,
  parseRegistry,
  registryPlatform,
  removeAgent,
  resolveAgent,
  spawnAgent,
  type RegistryAgent,
} from "../../packages/acp-kit/src/node/index.js";
import { testTempDir } from "../support/temp-dir.js";
import { sha256, startServer, type TestServer } from "./registry-server.js";

const agentScript = readFileSync(new URL("./fixtures/tiny-acp-agent.cjs", import.meta.url));
const here = registryPlatform();

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

function binaryAgent(
  id: string,
  archive: string,
  extra: Record<string, unknown> = {},
): RegistryAgent {
  if (here === undefined) throw new Error("no registry platform for this machine");
  return {
    id,
    name: id,
    version: "1.0.0",
    description: "a test agent",
    distribution: {
      binary: {
        [here]: { archive: `${server.url}${archive}`, cmd: "./bin/agent", args: ["acp"], ...extra },
      },
    },
  };
}

function serveRegistry(agents: RegistryAgent[], etag?: string): string {
  server.files.set("/registry.json", {
    body: JSON.stringify({ version: "1.0.0", agents }),
    type: "application/json",
    ...(etag === undefined ? {} : { etag }),
  });
  return `${server.url}/registry.json`;
}

async function tarOf(
  entries: { header: TarHeader; data?: string | Uint8Array }[],
): Promise<Uint8Array> {
  return packTar(
    entries.map(({ header, data }) => ({
      header: { ...header, size: data === undefined ? 0 : Buffer.byteLength(data) },
      ...(data === undefined ? {} : { body: data }),
    })),
  );
}

const goodEntries = () => [
  { header: { name: "bin/", type: "directory" as const, size: 0, mode: 0o755 } },
  { header: { name: "bin/agent", type: "file" as const, size: 0, mode: 0o755 }, data: agentScript },
  { header: { name: "lib/data.txt", type: "file" as const, size: 0, mode: 0o644 }, data: "data" },
  {
    header: {
      name: "bin/data-link",
      type: "symlink" as const,
      size: 0,
      linkname: "../lib/data.txt",
    },
  },
];

describe("the registry format", () => {
  it("keeps valid agents, reports and leaves out invalid ones, ignores unknown fields", () => {
    const { registry, problems } = parseRegistry({
      version: "1.0.0",
      extensions: [],
      agents: [
        {
          id: "good",
          name: "Good",
          version: "1.2.3",
          description: "d",
          preview: { anything: true },
          distribution: { npx: { package: "good@1.2.3", cmd: "good-acp", args: ["--acp"] } },
        },
        { id: "Bad_Id", name: "x", version: "1", description: "d", distribution: {} },
        {
          id: "badbin",
          name: "x",
          version: "1.0.0",
          description: "d",
          distribution: {
            binary: { "plan9-mips": { archive: "x", cmd: "y" } },
            uvx: { package: "" },
          },
        },
        {
          id: "sha",
          name: "x",
          version: "1.0.0",
          description: "d",
          distribution: {
            binary: { "linux-x86_64": { archive: "https://h/a.zip", cmd: "a", sha256: "zz" } },
          },
        },
        {
          id: "good",
          name: "Dup",
          version: "1.0.0",
          description: "d",
          distribution: { uvx: { package: "p" } },
        },
      ],
    });
    expect(registry.agents.map((a) => a.id)).toEqual(["good"]);
    expect(registry.agents[0]?.distribution.npx?.cmd).toBe("good-acp");
    expect(problems.join("\n")).toMatch(/agents\[1\] \(Bad_Id\)\.id: must be lowercase/);
    expect(problems.join("\n")).toMatch(
      /agents\[1\] \(Bad_Id\)\.version: must be a semantic version/,
    );
    expect(problems.join("\n")).toMatch(
      /agents\[1\] \(Bad_Id\)\.distribution: names no binary, npx or uvx/,
    );
    expect(problems.join("\n")).toMatch(/binary\.plan9-mips: is not a known platform/);
    expect(problems.join("\n")).toMatch(/uvx\.package: must be a non-empty string/);
    expect(problems.join("\n")).toMatch(/sha256: must be 64 hexadecimal digits/);
    expect(problems.join("\n")).toMatch(/agents\[4\] \(good\): the id is used twice/);
    expect(() => parseRegistry([])).toThrow(/not a JSON object/);
    expect(() => parseRegistry({ agents: 1 })).toThrow(/no "agents" array/);
  });

  it("names platforms and cache directories as each system expects", () => {
    expect(registryPlatform("linux", "x64")).toBe("linux-x86_64");
    expect(registryPlatform("darwin", "arm64")).toBe("darwin-aarch64");
    expect(registryPlatform("win32", "arm64")).toBe("windows-aarch64");
    expect(registryPlatform("freebsd", "x64")).toBeUndefined();
    expect(defaultCacheDir({ HOME: "/h" }, "linux")).toBe("/h/.cache/acp-kit");
    expect(defaultCacheDir({ HOME: "/h", XDG_CACHE_HOME: "/x" }, "linux")).toBe("/x/acp-kit");
    expect(defaultCacheDir({ HOME: "/h", XDG_CACHE_HOME: "rel" }, "linux")).toBe(
      "/h/.cache/acp-kit",
    );
    expect(defaultCacheDir({ HOME: "/h" }, "darwin")).toBe("/h/Library/Caches/acp-kit");
    expect(defaultCacheDir({ LOCALAPPDATA: "L" }, "win32")).toMatch(/^L.acp-kit.Cache$/);
    expect(defaultCacheDir({ HOME: "/h", ACP_KIT_CACHE_DIR: "/c" }, "linux")).toBe("/c");
  });

  it("prefers this platform's binary, then npx, then uvx", () => {
    const agent: RegistryAgent = {
      id: "a",
      name: "a",
      version: "1.0.0",
      description: "d",
      distribution: {
        binary: { "darwin-aarch64": { archive: "https://h/a.tgz", cmd: "a" } },
        uvx: { package: "a" },
      },
    };
    expect(chooseDistribution(agent, "darwin", "arm64")).toBe("binary");
    expect(chooseDistribution(agent, "linux", "x64")).toBe("uvx");
  });
});

describe("loading the registry", () => {
  it("fetches once, serves the cache while fresh, revalidates with If-None-Match, and falls back", async () => {
    const cacheDir = testTempDir("acp-reg-");
    const url = serveRegistry([binaryAgent("one", "/one.tgz")], '"v1"');
    const first = await loadRegistry({ url, cacheDir });
    expect(first.source).toBe("network");
    expect(first.registry.agents.map((a) => a.id)).toEqual(["one"]);
    expect(server.requests).toEqual([{ path: "/registry.json", ifNoneMatch: undefined }]);

    // Fresh: no request at all.
    const second = await loadRegistry({ url, cacheDir });
    expect(second.source).toBe("cache");
    expect(server.requests).toHaveLength(1);

    // Stale: asked with the ETag; the server answers 304 and the copy is kept.
    const third = await loadRegistry({ url, cacheDir, maxAgeMs: 0 });
    expect(server.requests[1]).toEqual({ path: "/registry.json", ifNoneMatch: '"v1"' });
    expect(third.source).toBe("network");
    expect(third.registry.agents.map((a) => a.id)).toEqual(["one"]);

    // Changed: a new ETag and body replace the copy.
    serveRegistry([binaryAgent("two", "/two.tgz")], '"v2"');
    const fourth = await loadRegistry({ url, cacheDir, refresh: true });
    expect(fourth.registry.agents.map((a) => a.id)).toEqual(["two"]);

    // The server fails: the cached copy, whatever its age, with the reason.
    server.files.set("/registry.json", { body: "oops", status: 500 });
    const fifth = await loadRegistry({ url, cacheDir, maxAgeMs: 0 });
    expect(fifth.source).toBe("cache");
    expect(fifth.fetchError).toMatch(/500/);
    expect(fifth.registry.agents.map((a) => a.id)).toEqual(["two"]);

    // Nothing cached and nothing reachable: the snapshot shipped in the package.
    await server.close();
    const last = await loadRegistry({ url, cacheDir: testTempDir("acp-reg-"), timeoutMs: 2000 });
    expect(last.source).toBe("snapshot");
    expect(last.fetchError).toBeDefined();
    expect(last.registry.agents.length).toBeGreaterThan(3);
    expect(last.problems).toEqual([]);
    server = await startServer();
  });

  it("takes the URL from ACP_REGISTRY_URL, and an invalid document falls back", async () => {
    const cacheDir = testTempDir("acp-reg-");
    server.files.set("/private.json", { body: "[1,2]", type: "application/json" });
    const loaded = await loadRegistry({
      cacheDir,
      env: { ACP_REGISTRY_URL: `${server.url}/private.json` },
    });
    expect(loaded.url).toBe(`${server.url}/private.json`);
    expect(loaded.source).toBe("snapshot");
    expect(loaded.fetchError).toMatch(/not a JSON object/);
    expect((await loadRegistry({ cacheDir, offline: true, env: {} })).url).toBe(
      DEFAULT_REGISTRY_URL,
    );
  });
});

describe("binary distributions", () => {
  async function install(agent: RegistryAgent, cacheDir: string) {
    return installAgent(agent, "binary", { cacheDir });
  }

  it("downloads once, checks the sha256, extracts tar.gz with its links, and starts it", async () => {
    const cacheDir = testTempDir("acp-reg-");
    const archive = gzipSync(await tarOf(goodEntries()));
    server.files.set("/good.tar.gz", { body: archive });
    const agent = binaryAgent("good", "/good.tar.gz", {
      sha256: sha256(archive),
      env: { TINY_AGENT: "yes" },
    });
    const url = serveRegistry([agent]);
    const events: string[] = [];
    const resolved = await resolveAgent("good", {
      url,
      cacheDir,
      onProgress: (e) => events.push(e.kind),
    });
    expect(resolved.distribution).toBe("binary");
    expect(resolved.command).toBe(join(resolved.dir, "files", "bin", "agent"));
    expect(resolved.args).toEqual(["acp"]);
    expect(resolved.env).toEqual({ TINY_AGENT: "yes" });
    expect(events).toContain("download");
    expect(events).toContain("done");
    expect(readFileSync(join(resolved.dir, "files", "bin", "data-link"), "utf8")).toBe("data");
    expect(lstatSync(join(resolved.dir, "files", "bin", "agent")).mode & 0o111).not.toBe(0);

    // Installed once per version: a second resolve downloads nothing.
    const downloads = server.requests.filter((r) => r.path === "/good.tar.gz").length;
    await resolveAgent("good", { url, cacheDir });
    expect(server.requests.filter((r) => r.path === "/good.tar.gz").length).toBe(downloads);

    await using spawned = await spawnAgent({
      registry: "good",
      registryOptions: { url, cacheDir },
      args: ["--x"],
    });
    const init = await spawned.initialize();
    expect(init._meta).toEqual({ argv: ["acp", "--x"], tiny: "yes" });

    expect(await removeAgent(cacheDir, "good")).toBe(true);
    expect(existsSync(resolved.dir)).toBe(false);
  });

  it("extracts zip and tar.bz2 archives", async () => {
    const cacheDir = testTempDir("acp-reg-");
    const zip = zipSync({ "bin/agent": new Uint8Array(agentScript), "bin/": new Uint8Array() });
    server.files.set("/a.zip", { body: zip });
    const zipped = await install(
      binaryAgent("zipped", "/a.zip", { sha256: sha256(zip) }),
      cacheDir,
    );
    expect(readFileSync(join(zipped.dir, zipped.record.program))).toEqual(agentScript);
    expect(lstatSync(join(zipped.dir, zipped.record.program)).mode & 0o111).not.toBe(0);

    const bzip2 = spawnSync("bzip2", ["-c"], { input: await tarOf(goodEntries()) });
    if (bzip2.status !== 0) {
      console.warn("skipped the tar.bz2 case: no bzip2 program here to make the archive");
      return;
    }
    server.files.set("/a.tar.bz2", { body: bzip2.stdout });
    const bz = await install(binaryAgent("bz", "/a.tar.bz2"), cacheDir);
    expect(readFileSync(join(bz.dir, "files", "bin", "data-link"), "utf8")).toBe("data");
  });

  it("refuses a download whose sha256 does not match, and keeps nothing", async () => {
    const cacheDir = testTempDir("acp-reg-");
    const archive = gzipSync(await tarOf(goodEntries()));
    server.files.set("/bad.tar.gz", { body: archive });
    const agent = binaryAgent("bad", "/bad.tar.gz", { sha256: "0".repeat(64) });
    const error = await install(agent, cacheDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).code).toBe("checksum_mismatch");
    expect((error as RegistryError).message).toContain(`got ${sha256(archive)}`);
    expect((error as RegistryError).message).toContain("Nothing was installed");
    expect(readdirSync(join(cacheDir, "agents", "bad"))).toEqual([]);
  });

  it.each([
    [
      "a ../ entry",
      [{ header: { name: "../evil", type: "file" as const, size: 0 }, data: "x" }],
      /climbs out/,
    ],
    [
      "an absolute entry",
      [{ header: { name: "/tmp/evil", type: "file" as const, size: 0 }, data: "x" }],
      /absolute path/,
    ],
    [
      "a link to an absolute path",
      [
        {
          header: { name: "bin/agent", type: "symlink" as const, size: 0, linkname: "/etc/passwd" },
        },
      ],
      /links to the absolute path/,
    ],
    [
      "a link out of the directory",
      [
        {
          header: { name: "bin/agent", type: "symlink" as const, size: 0, linkname: "../../../x" },
        },
      ],
      /outside the directory/,
    ],
    [
      "a link that climbs after a name",
      [
        { header: { name: "d/e/y", type: "symlink" as const, size: 0, linkname: "../../" } },
        { header: { name: "d/e/z", type: "symlink" as const, size: 0, linkname: "y/.." } },
      ],
      /with "\.\." after a name/,
    ],
    [
      "a write through a link",
      [
        { header: { name: "d", type: "symlink" as const, size: 0, linkname: "." } },
        { header: { name: "d/f", type: "file" as const, size: 0 }, data: "x" },
      ],
      /written through a link/,
    ],
  ])("refuses an archive with %s, and keeps nothing", async (_what, entries, message) => {
    const cacheDir = testTempDir("acp-reg-");
    server.files.set("/evil.tar.gz", { body: gzipSync(await tarOf(entries)) });
    const error = await install(binaryAgent("evil", "/evil.tar.gz"), cacheDir).catch(
      (e: unknown) => e,
    );
    expect((error as RegistryError).code).toBe("unsafe_archive");
    expect((error as Error).message).toMatch(message);
    expect(readdirSync(join(cacheDir, "agents", "evil"))).toEqual([]);
    expect(existsSync(join(cacheDir, "agents", "evil"))).toBe(true);
    expect(existsSync(join(cacheDir, "agents", "x"))).toBe(false);
  });

  it("refuses zip entries that escape", async () => {
    const cacheDir = testTempDir("acp-reg-");
    server.files.set("/evil.zip", { body: zipSync({ "../../evil": new Uint8Array([1]) }) });
    const error = await install(binaryAgent("evilzip", "/evil.zip"), cacheDir).catch(
      (e: unknown) => e,
    );
    expect((error as RegistryError).code).toBe("unsafe_archive");
    expect(existsSync(join(cacheDir, "evil"))).toBe(false);
  });

  it("installs once when launches race, and leaves one complete install", async () => {
    const cacheDir = testTempDir("acp-reg-");
    const archive = gzipSync(await tarOf(goodEntries()));
    server.files.set("/race.tar.gz", { body: archive });
    const agent = binaryAgent("race", "/race.tar.gz", { sha256: sha256(archive) });
    const results = await Promise.all(Array.from({ length: 5 }, () => install(agent, cacheDir)));
    const dirs = new Set(results.map((r) => r.dir));
    expect(dirs.size).toBe(1);
    const [dir] = [...dirs] as [string];
    expect(readFileSync(join(dir, "files", "bin", "agent"))).toEqual(agentScript);
    expect(readdirSync(join(cacheDir, "agents", "race"))).toEqual([`binary-1.0.0-${here}`]);

    // A refresh replaces the install in one step.
    const again = await installAgent(agent, "binary", { cacheDir, refresh: true });
    expect(again.dir).toBe(dir);
    expect(readdirSync(join(cacheDir, "agents", "race"))).toEqual([`binary-1.0.0-${here}`]);
  });

  it("says clearly when the platform has no binary or the archive lacks the program", async () => {
    const cacheDir = testTempDir("acp-reg-");
    const agent = binaryAgent("nobin", "/x.tgz");
    const other = await installAgent(agent, "binary", { cacheDir, platform: "freebsd" }).catch(
      (e: unknown) => e,
    );
    expect((other as RegistryError).code).toBe("unsupported_platform");
    mkdirSync(join(cacheDir, "x"));
    writeFileSync(join(cacheDir, "x", "f"), "");
    server.files.set("/x.tgz", {
      body: gzipSync(await tarOf([{ header: { name: "other", type: "file", size: 0 }, data: "" }])),
    });
    const missing = await installAgent(agent, "binary", { cacheDir }).catch((e: unknown) => e);
    expect((missing as Error).message).toContain("has no ./bin/agent");
    const url = serveRegistry([agent]);
    const unknown = await resolveAgent("nope", { url, cacheDir }).catch((e: unknown) => e);
    expect((unknown as RegistryError).code).toBe("unknown_agent");
  });
});
