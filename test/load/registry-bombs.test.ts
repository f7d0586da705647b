/**
 * Archives far larger than they look (decompression bombs) of each format the installer
 * reads, installed by the built `acp-kit/node` in a child process: each is refused once
 * it expands past its limit, and the child's peak memory stays far below what the archive
 * expands to (zip and tar.bz2 were inflated whole in memory: a 765 KiB zip peaked at
 * 852 MiB, a 1 KiB tar.bz2 at 1.6 GiB).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createGzip } from "node:zlib";
import { Zip, ZipDeflate } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const child = join(repoRoot, "test", "load", "fixtures", "install-archive.mjs");
const MiB = 1024 * 1024;
/** What each bomb expands to: far past the 64 MiB below which ratios are not checked. */
const EXPANDED_MiB = 192;

beforeAll(() => {
  if (!existsSync(join(repoRoot, "packages", "acp-kit", "dist"))) {
    throw new Error("Build first (npm run build): this test installs with the built acp-kit/node");
  }
});

function zipBomb(): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error !== null) throw error;
    parts.push(data);
  });
  const file = new ZipDeflate("bin/agent", { level: 1 });
  zip.add(file);
  const zeros = new Uint8Array(MiB);
  for (let i = 0; i < EXPANDED_MiB; i++) file.push(zeros, i === EXPANDED_MiB - 1);
  zip.end();
  return Buffer.concat(parts);
}

async function gzipBomb(): Promise<Uint8Array> {
  const gzip = createGzip({ level: 1 });
  const parts: Buffer[] = [];
  gzip.on("data", (chunk: Buffer) => parts.push(chunk));
  const ended = new Promise((resolve) => gzip.on("end", resolve));
  const zeros = Buffer.alloc(MiB);
  for (let i = 0; i < EXPANDED_MiB; i++) gzip.write(zeros);
  gzip.end();
  await ended;
  return Buffer.concat(parts);
}

function install(archive: string, cacheDir: string) {
  const out = execFileSync(process.execPath, [child, archive, cacheDir], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  return JSON.parse(out) as {
    installed: boolean;
    code?: string;
    message?: string;
    maxRssMiB: number;
  };
}

describe.skipIf(process.platform === "win32")("decompression bombs", () => {
  it.each(["zip", "tar.gz", "tar.bz2"])(
    "refuses a %s bomb with memory to spare, and keeps nothing",
    async (format) => {
      const dir = testTempDir("acp-bomb-");
      let data: Uint8Array;
      if (format === "zip") data = zipBomb();
      else if (format === "tar.gz") data = await gzipBomb();
      else {
        const made = spawnSync("sh", ["-c", `head -c ${EXPANDED_MiB}M /dev/zero | bzip2 -1`], {
          maxBuffer: 16 * MiB,
        });
        if (made.status !== 0) {
          console.warn("skipped the tar.bz2 bomb: no bzip2 program here to make it");
          return;
        }
        data = made.stdout;
      }
      const path = join(dir, `bomb.${format}`);
      writeFileSync(path, data);
      const cacheDir = join(dir, "cache");
      const result = install(pathToFileURL(path).href, cacheDir);
      expect(result.installed).toBe(false);
      expect(result.code, result.message).toBe("too_large");
      expect(result.message).toContain("times its own size");
      // Node itself and acp-kit take about 50 MiB; the archive expands to 192 MiB.
      expect(result.maxRssMiB).toBeLessThan(140);
      expect(readdirSync(join(cacheDir, "agents", "bomb"))).toEqual([]);
    },
    60_000,
  );
});
