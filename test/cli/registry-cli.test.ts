/**
 * The built CLI with registry ids, as a person would use it from a shell: `acp-kit agents`
 * lists a registry served on 127.0.0.1, `agents install` downloads and verifies an archive
 * made here (with a progress line on stderr), `prompt` starts the installed agent by its
 * id, `agents remove` removes it, and an unknown word is a usage error.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { packTar } from "modern-tar";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registryPlatform } from "../../packages/acp-kit/src/node/index.js";
import { sha256, startServer, type TestServer } from "../node/registry-server.js";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const scenario = join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json");

beforeAll(() => {
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
  }
});

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A tar.gz whose program starts the scripted agent with the CLI tests' scenario. */
async function scriptedArchive(): Promise<Buffer> {
  const script = `#!/bin/sh\nexec "${process.execPath}" "${scriptedAgent}" --no-delays "${scenario}" "$@"\n`;
  const tar = await packTar([
    {
      header: { name: "bin/agent", type: "file", size: Buffer.byteLength(script), mode: 0o755 },
      body: script,
    },
  ]);
  return gzipSync(tar);
}

describe.skipIf(process.platform === "win32")("registry ids on the command line", () => {
  it("lists, installs, runs and serves by id and removes a registry agent", async () => {
    const platform = registryPlatform();
    if (platform === undefined) throw new Error("no registry platform here");
    const archive = await scriptedArchive();
    server.files.set("/scripted.tar.gz", { body: archive });
    server.files.set("/registry.json", {
      type: "application/json",
      etag: '"1"',
      body: JSON.stringify({
        version: "1.0.0",
        agents: [
          {
            id: "scripted",
            name: "Scripted Agent",
            version: "1.2.3",
            description: "the scripted agent",
            distribution: {
              binary: {
                [platform]: {
                  archive: `${server.url}/scripted.tar.gz`,
                  sha256: sha256(archive),
                  cmd: "./bin/agent",
                },
              },
            },
          },
        ],
      }),
    });
    const env = {
      ACP_REGISTRY_URL: `${server.url}/registry.json`,
      ACP_KIT_CACHE_DIR: testTempDir("acp-cli-cache-"),
      XDG_CONFIG_HOME: testTempDir("acp-cli-config-"),
    };

    const listed = await run(["agents"], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^claude\s+npx -y @agentclientprotocol\/claude-agent-acp\s+\[/m);
    expect(listed.stdout).toMatch(
      /^copilot\s+copilot --acp --stdio\s+\[(found: |copilot not found)/m,
    );
    expect(listed.stdout).toContain(`Registry agents (${server.url}/registry.json, fetched`);
    expect(listed.stdout).toMatch(/^scripted\s+Scripted Agent\s+1\.2\.3\s+binary\s+no$/m);

    const installed = await run(["agents", "install", "scripted"], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain(
      `acp-kit: downloading scripted from ${server.url}/scripted.tar.gz`,
    );
    expect(installed.stderr).toContain("acp-kit: checking and extracting scripted");
    expect(installed.stdout).toContain("scripted 1.2.3 (binary) is installed in");

    const json = await run(["agents", "--json"], env);
    const parsed = JSON.parse(json.stdout) as {
      registry: { agents: { id: string; installed: boolean }[] };
    };
    expect(parsed.registry.agents).toEqual([
      expect.objectContaining({ id: "scripted", installed: true }),
    ]);

    const prompted = await run(["prompt", "please stream", "scripted"], env);
    expect(prompted.stdout).toBe("one two three four five\n");
    expect(prompted.stderr).toBe("");
    expect(prompted.code).toBe(0);
    expect(server.requests.filter((r) => r.path === "/scripted.tar.gz")).toHaveLength(1);

    // serve takes a registry id too: each connection starts the installed agent.
    const serve = spawn(process.execPath, [cli, "serve", "--port", "0", "scripted"], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        serve.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          if (out.includes("\n")) resolve(out.split("\n")[0]!.trim());
        });
        serve.once("exit", (code) => reject(new Error(`serve exited with ${String(code)}`)));
      });
      const remote = await run(["prompt", "--url", url, "please stream"], env);
      expect(remote.stdout).toBe("one two three four five\n");
      expect(remote.code, remote.stderr).toBe(0);
    } finally {
      serve.kill("SIGTERM");
    }

    const removed = await run(["agents", "remove", "scripted"], env);
    expect(removed.stdout).toBe("Removed scripted.\n");
    expect((await run(["agents"], env)).stdout).toMatch(/^scripted\s.*\sno$/m);

    const unknown = await run(["prompt", "hi", "no-such-agent"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No agent named "no-such-agent"');
    expect(unknown.stderr).toContain("nor a registry id");
  }, 120_000);

  it("removes nothing outside the cache, says why an id is unknown, and prints no escapes", async () => {
    const home = testTempDir("acp-cli-home-");
    const cacheDir = join(home, ".cache", "acp-kit");
    mkdirSync(join(cacheDir, "agents"), { recursive: true });
    writeFileSync(join(home, "precious.txt"), "keep me");
    const env = {
      ACP_REGISTRY_URL: `${server.url}/registry.json`,
      ACP_KIT_CACHE_DIR: cacheDir,
      XDG_CONFIG_HOME: testTempDir("acp-cli-config-"),
    };
    for (const id of ["../..", "..", "../../.."]) {
      const removed = await run(["agents", "remove", id], env);
      expect(removed.code).toBe(2);
      expect(removed.stderr).toContain("is not a registry id");
    }
    expect(readFileSync(join(home, "precious.txt"), "utf8")).toBe("keep me");
    expect(existsSync(join(cacheDir, "agents"))).toBe(true);

    // A registry that cannot be fetched: the message says so, and what was searched.
    const down = await run(["prompt", "hi", "no-such-agent"], {
      ...env,
      ACP_REGISTRY_URL: "http://127.0.0.1:1/registry.json",
    });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain("nor a registry id");
    expect(down.stderr).toContain("The registry could not be fetched");
    expect(down.stderr).toContain("the snapshot shipped with acp-kit was searched instead");

    // Names from a registry never carry escape sequences to the terminal.
    server.files.set("/registry.json", {
      type: "application/json",
      body: JSON.stringify({
        version: "1.0.0",
        agents: [
          {
            id: "sneaky",
            name: "Sneaky\u001b]0;pwned\u0007\u001b[2J Agent",
            version: "1.0.0",
            description: "clears your screen",
            distribution: { npx: { package: "sneaky-agent" } },
          },
        ],
      }),
    });
    const listed = await run(["agents"], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^sneaky\s+Sneaky Agent\s+1\.0\.0\s+npx\s+no$/m);
    expect(listed.stdout).not.toContain("\u001b");
    expect(listed.stdout).not.toContain("\u0007");
  }, 60_000);

  it("serve: a registry entry's env never chooses the server's token", async () => {
    const platform = registryPlatform();
    if (platform === undefined) throw new Error("no registry platform here");
    server.files.set("/scripted.tar.gz", { body: await scriptedArchive() });
    server.files.set("/registry.json", {
      type: "application/json",
      body: JSON.stringify({
        version: "1.0.0",
        agents: [
          {
            id: "scripted",
            name: "Scripted Agent",
            version: "1.2.3",
            description: "the scripted agent",
            distribution: {
              binary: {
                [platform]: {
                  archive: `${server.url}/scripted.tar.gz`,
                  cmd: "./bin/agent",
                  env: { SERVE_TOKEN: "chosen-by-the-registry" },
                },
              },
            },
          },
        ],
      }),
    });
    const env = {
      ACP_REGISTRY_URL: `${server.url}/registry.json`,
      ACP_KIT_CACHE_DIR: testTempDir("acp-cli-cache-"),
      XDG_CONFIG_HOME: testTempDir("acp-cli-config-"),
    };
    // Without a token of its own, serve does not take the registry's.
    const unset = await run(
      ["serve", "--port", "0", "--token-env", "SERVE_TOKEN", "scripted"],
      env,
    );
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("SERVE_TOKEN is not set");

    const serve = spawn(
      process.execPath,
      [cli, "serve", "--port", "0", "--token-env", "SERVE_TOKEN", "scripted"],
      {
        cwd: repoRoot,
        env: { ...process.env, NO_COLOR: "1", ...env, SERVE_TOKEN: "the-servers-own" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        serve.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          if (out.includes("\n")) resolve(out.split("\n")[0]!.trim());
        });
        serve.once("exit", (code) => reject(new Error(`serve exited with ${String(code)}`)));
      });
      const theirs = await run(["prompt", "--url", url, "--token-env", "T", "please stream"], {
        ...env,
        T: "chosen-by-the-registry",
      });
      expect(theirs.code).not.toBe(0);
      expect(theirs.stdout).toBe("");
      const own = await run(["prompt", "--url", url, "--token-env", "T", "please stream"], {
        ...env,
        T: "the-servers-own",
      });
      expect(own.stdout).toBe("one two three four five\n");
      expect(own.code, own.stderr).toBe(0);
    } finally {
      serve.kill("SIGTERM");
    }
  }, 120_000);
});
