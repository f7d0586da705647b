/**
 * The built CLI with registry ids, as a person would use it from a shell: `acp-kit agents`
 * lists a registry served on 127.0.0.1, `agents install` downloads and verifies an archive
 * made here (with a progress line on stderr), `prompt` starts the installed agent by its
 * id, `agents remove` removes it, and an unknown word is a usage error.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
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

describe.skipIf(process.platform === "win32")("registry ids on the command line", () => {
  it("lists, installs, runs and serves by id and removes a registry agent", async () => {
    const platform = registryPlatform();
    if (platform === undefined) throw new Error("no registry platform here");
    // The archive's program starts the scripted agent with a scenario.
    const script = `#!/bin/sh\nexec "${process.execPath}" "${scriptedAgent}" --no-delays "${scenario}" "$@"\n`;
    const tar = await packTar([
      {
        header: { name: "bin/agent", type: "file", size: Buffer.byteLength(script), mode: 0o755 },
        body: script,
      },
    ]);
    const archive = gzipSync(tar);
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
});
