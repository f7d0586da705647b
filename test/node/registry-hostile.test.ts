/**
 * The registry installer against a hostile registry and hostile servers: ids and versions
 * that climb out of the cache, downloads that stall or never end, archives that are cut
 * short or far larger than they look, registry documents without end, plain http from
 * another host, a cache shared between platforms, interrupted installs, and registry
 * variables that would replace the launcher's own.
 */
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { packTar } from "modern-tar";
import { afterEach, describe, expect, it } from "vitest";
import {
  RegistryError,
  installAgent,
  installDir,
  loadRegistry,
  parseRegistry,
  registryPlatform,
  removeAgent,
  resolveAgent,
  type RegistryAgent,
} from "../../packages/acp-kit/src/node/index.js";
import { testTempDir } from "../support/temp-dir.js";

const here = registryPlatform();
const script = "#!/bin/sh\necho agent\n";

function agentWith(id: string, version: string, archive: string, extra = {}): RegistryAgent {
  if (here === undefined) throw new Error("no registry platform for this machine");
  return {
    id,
    name: id,
    version,
    description: "a test agent",
    distribution: { binary: { [here]: { archive, cmd: "./bin/agent", ...extra } } },
  };
}

async function goodTar(): Promise<Uint8Array> {
  return packTar([
    {
      header: { name: "bin/agent", type: "file", size: Buffer.byteLength(script), mode: 0o755 },
      body: script,
    },
  ]);
}

function fileArchive(dir: string, name: string, data: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return pathToFileURL(path).href;
}

async function refusal(promise: Promise<unknown>): Promise<RegistryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RegistryError);
  return error as RegistryError;
}

/** The names under a directory, recursively (to see that nothing was left behind). */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

describe.skipIf(process.platform === "win32")(
  "ids and versions never reach outside the cache",
  () => {
    it("refuses to remove an id that is not a registry id, and removes nothing", async () => {
      const home = testTempDir("acp-home-");
      const cacheDir = join(home, ".cache", "acp-kit");
      mkdirSync(join(cacheDir, "agents", "real", "binary-1.0.0"), { recursive: true });
      writeFileSync(join(home, "precious.txt"), "keep me");
      for (const id of ["../..", "..", ".", "", "../../..", "real/../..", "Real", "a b", "/tmp"]) {
        const error = await refusal(removeAgent(cacheDir, id));
        expect(error.code).toBe("invalid_entry");
      }
      expect(readFileSync(join(home, "precious.txt"), "utf8")).toBe("keep me");
      expect(existsSync(join(cacheDir, "agents", "real", "binary-1.0.0"))).toBe(true);
      expect(await removeAgent(cacheDir, "real")).toBe(true);
      expect(existsSync(join(cacheDir, "agents", "real"))).toBe(false);
      expect(existsSync(join(cacheDir, "agents"))).toBe(true);
    });

    it("refuses versions with anything after MAJOR.MINOR.PATCH but semver's parts", async () => {
      const dir = testTempDir("acp-ver-");
      const cacheDir = join(dir, "cache");
      const archive = fileArchive(dir, "a.tar", await goodTar());
      for (const version of [
        "1.0.0/../../../escaped",
        "1.0.0/x",
        "1.0.0\\..\\x",
        "1.0.0 ",
        "1.0.0-",
      ]) {
        const { problems, registry } = parseRegistry({
          agents: [agentWith("climber", version, archive)],
        });
        expect(registry.agents).toEqual([]);
        expect(problems.join("\n")).toContain("version");
        const error = await refusal(
          installAgent(agentWith("climber", version, archive), "binary", { cacheDir }),
        );
        expect(error.code).toBe("invalid_entry");
      }
      expect(tree(dir)).toEqual(["a.tar"]);
      for (const version of ["1.0.0", "1.0.0-beta.1", "2.10.3+build.7", "1.0.0-rc-1+sha.5114f85"]) {
        expect(parseRegistry({ agents: [agentWith("fine", version, archive)] }).problems).toEqual(
          [],
        );
      }
      // An id that is not one, given straight to the library.
      const error = await refusal(
        installAgent(agentWith("../out", "1.0.0", archive), "binary", { cacheDir }),
      );
      expect(error.code).toBe("invalid_entry");
      expect(() => installDir(cacheDir, agentWith("ok", "1.0.0/../..", archive), "binary")).toThrow(
        RegistryError,
      );
    });
  },
);

describe.skipIf(process.platform === "win32")("downloads that stall or never end", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("gives up on a server that sends its headers and one byte, and leaves no staging tree", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "1000000" });
      res.write("x"); // ... and nothing more, ever.
    });
    const cacheDir = testTempDir("acp-stall-");
    const error = await refusal(
      installAgent(agentWith("stall", "1.0.0", `${url}/a.tar.gz`), "binary", {
        cacheDir,
        limits: { idleTimeoutMs: 300 },
      }),
    );
    expect(error.code).toBe("download_failed");
    expect(error.message).toContain("no data arrived for 300 ms");
    expect(tree(join(cacheDir, "agents", "stall"))).toEqual([]);
  });

  it("gives up on a server that never answers", async () => {
    const url = await serve(() => {
      // Reads the request and never answers it.
    });
    const cacheDir = testTempDir("acp-silent-");
    const error = await refusal(
      installAgent(agentWith("silent", "1.0.0", `${url}/a.tar.gz`), "binary", {
        cacheDir,
        limits: { connectTimeoutMs: 300 },
      }),
    );
    expect(error.code).toBe("download_failed");
    expect(error.message).toContain("did not answer within 300 ms");
  });

  it("refuses a download larger than the limit, announced or not", async () => {
    const big = Buffer.alloc(64 * 1024, 1);
    const url = await serve((req, res) => {
      if (req.url === "/announced") {
        res.writeHead(200, { "content-length": String(10 * 1024 ** 3) });
        res.write(big);
        return;
      }
      // Chunked, without a length: sends until the client stops reading.
      res.writeHead(200);
      const more = (): void => {
        while (res.write(big));
      };
      res.on("drain", more);
      more();
    });
    const cacheDir = testTempDir("acp-big-");
    for (const path of ["/announced", "/endless"]) {
      const error = await refusal(
        installAgent(agentWith("big", "1.0.0", `${url}${path}`), "binary", {
          cacheDir,
          limits: { maxDownloadBytes: 1024 * 1024 },
        }),
      );
      expect(error.code).toBe("too_large");
      expect(error.message).toContain("1048576 bytes");
    }
    expect(tree(join(cacheDir, "agents", "big"))).toEqual([]);
  });

  it("removes the staging tree an interrupted install left behind", async () => {
    const dir = testTempDir("acp-stale-");
    const cacheDir = join(dir, "cache");
    const agent = agentWith("stale", "1.0.0", fileArchive(dir, "a.tar", await goodTar()));
    const target = installDir(cacheDir, agent, "binary");
    // A process that is gone: its pid names the staging tree it was building.
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    const deadPid = gone.stdout.toString();
    const abandoned = `${target}.staging-${deadPid}-0badf00d`;
    const running = `${target}.staging-${process.pid}-00c0ffee`;
    mkdirSync(join(abandoned, "files"), { recursive: true });
    mkdirSync(running, { recursive: true });
    await installAgent(agent, "binary", { cacheDir });
    expect(existsSync(abandoned)).toBe(false);
    // One of a live process (here: this one) is left to it.
    expect(existsSync(running)).toBe(true);
  });

  it("refuses plain http from another host without a sha256, before any request", async () => {
    const cacheDir = testTempDir("acp-http-");
    const error = await refusal(
      installAgent(
        agentWith("plain", "1.0.0", "http://agents.example.invalid/a.tar.gz"),
        "binary",
        {
          cacheDir,
        },
      ),
    );
    expect(error.code).toBe("insecure_download");
    expect(error.message).toContain("sha256");
    // With a checksum it would be fetched (and here fail to resolve the name).
    const tried = await refusal(
      installAgent(
        agentWith("plain", "1.0.0", "http://agents.example.invalid/a.tar.gz", {
          sha256: "0".repeat(64),
        }),
        "binary",
        { cacheDir, limits: { connectTimeoutMs: 5_000 } },
      ),
    );
    expect(tried.code).toBe("download_failed");
  });

  it("refuses a redirect to plain http on another host when there is no sha256", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(302, { location: "http://agents.example.invalid/a.tar.gz" }).end();
    });
    const cacheDir = testTempDir("acp-redirect-");
    const error = await refusal(
      installAgent(agentWith("redirected", "1.0.0", `${url}/a.tar.gz`), "binary", {
        cacheDir,
        limits: { connectTimeoutMs: 5_000 },
      }),
    );
    // The redirect is followed only to find where it leads; either way nothing installs.
    expect(["insecure_download", "download_failed"]).toContain(error.code);
    expect(tree(join(cacheDir, "agents", "redirected"))).toEqual([]);
  });

  it("refuses a registry document larger than the limit, and says why it fell back", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const agents = Array.from({ length: 200 }, (_, i) => ({ id: `a${i}`, pad: "x".repeat(100) }));
      res.end(JSON.stringify({ version: "1", agents }));
    });
    const loaded = await loadRegistry({
      url: `${url}/registry.json`,
      cacheDir: testTempDir("acp-regsize-"),
      maxBytes: 4096,
    });
    expect(loaded.source).toBe("snapshot");
    expect(loaded.fetchError).toContain("larger than 4096 bytes");
  });
});

describe.skipIf(process.platform === "win32")("archives cut short", () => {
  it("refuses a tar without its end, or with an entry cut off, and installs nothing", async () => {
    const dir = testTempDir("acp-cut-");
    const cacheDir = join(dir, "cache");
    const tarWith = (fill: number) =>
      packTar([
        {
          header: { name: "bin/agent", type: "file", size: Buffer.byteLength(script), mode: 0o755 },
          body: script,
        },
        {
          header: { name: "lib/big.bin", type: "file", size: 5000 },
          body: new Uint8Array(5000).fill(fill),
        },
      ]);
    // 512 header + 512 program + 512 header + 5120 data + 1024 end = 7680 bytes. Data of
    // zeros looks like the end blocks: only the tar's own structure tells them apart.
    for (const fill of [7, 0]) {
      const whole = await tarWith(fill);
      const cuts = {
        "no-end": whole.length - 1024,
        "mid-entry": 2048,
        "one-end-block": whole.length - 512,
      };
      for (const [cutName, cut] of Object.entries(cuts)) {
        const name = `${cutName}-${fill}`;
        const archive = fileArchive(dir, `${name}.tar`, whole.subarray(0, cut));
        const error = await refusal(
          installAgent(agentWith(name, "1.0.0", archive), "binary", { cacheDir }),
        );
        expect(error.code, name).toBe("bad_archive");
        expect(error.message).toContain("truncated");
        expect(tree(join(cacheDir, "agents", name))).toEqual([]);
      }
    }
    const whole = await tarWith(0);
    // A gzip stream cut short is refused too.
    const gz = gzipSync(whole);
    const error = await refusal(
      installAgent(
        agentWith(
          "cut-gz",
          "1.0.0",
          fileArchive(dir, "cut.tar.gz", gz.subarray(0, gz.length - 20)),
        ),
        "binary",
        { cacheDir },
      ),
    );
    expect(error.code).toBe("bad_archive");
    // And the whole one installs.
    const ok = await installAgent(
      agentWith("whole", "1.0.0", fileArchive(dir, "whole.tar", whole)),
      "binary",
      { cacheDir },
    );
    expect(readFileSync(join(ok.dir, ok.record.program), "utf8")).toBe(script);
  });

  it("refuses an archive with more entries than the limit", async () => {
    const dir = testTempDir("acp-many-");
    const entries = Array.from({ length: 50 }, (_, i) => ({
      header: { name: `f${i}`, type: "file" as const, size: 1 },
      body: "x",
    }));
    const archive = fileArchive(dir, "many.tar", await packTar(entries));
    const error = await refusal(
      installAgent(agentWith("many", "1.0.0", archive), "binary", {
        cacheDir: join(dir, "cache"),
        limits: { maxEntries: 10 },
      }),
    );
    expect(error.code).toBe("too_large");
    expect(error.message).toContain("more than 10 entries");
  });
});

describe.skipIf(process.platform === "win32")("platforms and environments", () => {
  it("keys installs by platform: a cache shared between machines runs each its own binary", async () => {
    const dir = testTempDir("acp-plat-");
    const cacheDir = join(dir, "cache");
    const tarFor = (text: string) =>
      packTar([
        {
          header: { name: "bin/agent", type: "file", size: Buffer.byteLength(text), mode: 0o755 },
          body: text,
        },
      ]);
    const agent: RegistryAgent = {
      id: "multi",
      name: "multi",
      version: "1.0.0",
      description: "two platforms",
      distribution: {
        binary: {
          "darwin-aarch64": {
            archive: fileArchive(dir, "mac.tar", await tarFor("mac")),
            cmd: "./bin/agent",
          },
          "linux-x86_64": {
            archive: fileArchive(dir, "linux.tar", await tarFor("linux")),
            cmd: "./bin/agent",
          },
        },
      },
    };
    const mac = await installAgent(agent, "binary", {
      cacheDir,
      platform: "darwin",
      arch: "arm64",
    });
    const linux = await installAgent(agent, "binary", { cacheDir, platform: "linux", arch: "x64" });
    expect(mac.dir).not.toBe(linux.dir);
    expect(readFileSync(join(mac.dir, mac.record.program), "utf8")).toBe("mac");
    expect(readFileSync(join(linux.dir, linux.record.program), "utf8")).toBe("linux");
    expect(readdirSync(join(cacheDir, "agents", "multi")).sort()).toEqual([
      "binary-1.0.0-darwin-aarch64",
      "binary-1.0.0-linux-x86_64",
    ]);
  });

  it("adds the registry's variables without replacing any of the launcher's", async () => {
    const dir = testTempDir("acp-env-");
    const agent = agentWith("envy", "1.0.0", fileArchive(dir, "a.tar", await goodTar()), {
      env: { ACP_TOKEN: "chosen-by-the-registry", PATH: "/evil", AGENT_MODE: "fast" },
    });
    const resolved = await resolveAgent("envy", {
      cacheDir: join(dir, "cache"),
      env: { ACP_TOKEN: "the-launchers-own", PATH: "/usr/bin" },
      registry: {
        registry: { version: "1", agents: [agent] },
        source: "cache",
        url: "test",
        fetchedAt: undefined,
        problems: [],
        fetchError: undefined,
      },
    });
    expect(resolved.env).toEqual({ AGENT_MODE: "fast" });
  });

  it("says why an id is unknown when the registry could not be fetched", async () => {
    const loaded = await loadRegistry({
      url: "http://127.0.0.1:1/registry.json",
      cacheDir: testTempDir("acp-down-"),
    });
    const error = await refusal(resolveAgent("no-such-agent", { registry: loaded }));
    expect(error.code).toBe("unknown_agent");
    expect(error.message).toContain("could not be fetched");
    expect(error.message).toContain("snapshot shipped with acp-kit");
  });
});
