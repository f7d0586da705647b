/**
 * `acp-kit trace NAME`: the proxy starts a named agent, as `run NAME` does.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
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

function trace(args: string[], config: string) {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: 1 },
  };
  return spawnSync(process.execPath, [cli, "trace", ...args], {
    cwd: repoRoot,
    input: JSON.stringify(initialize) + "\n",
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: config },
    timeout: 60_000,
  });
}

describe("acp-kit trace with a named agent", () => {
  it("starts the agent of that name from the agents file, with its environment", () => {
    const config = testTempDir("acp-kit-agents-");
    mkdirSync(join(config, "acp-kit"));
    writeFileSync(
      join(config, "acp-kit", "agents.json"),
      JSON.stringify({
        agents: {
          scripted: {
            command: process.execPath,
            args: [scriptedAgent, "--no-delays", scenario],
            env: { ACP_KIT_TRACE_NAMED: "yes" },
          },
        },
      }),
    );
    const out = join(config, "t.ndjson");
    const result = trace(["--out", out, "scripted"], config);
    expect(result.status).toBe(0);
    // The editor side got the agent's answer through the proxy.
    expect(result.stdout).toContain('"agentInfo"');
    const header = JSON.parse(readFileSync(out, "utf8").split("\n")[0] ?? "{}") as {
      command: string;
      args: string[];
    };
    expect(header.command).toBe(process.execPath);
    expect(header.args).toContain(scenario);
    // The environment is used, never recorded.
    expect(readFileSync(out, "utf8")).not.toContain("ACP_KIT_TRACE_NAMED");
  });

  it("says which names exist for an unknown one (exit code 2)", () => {
    const config = testTempDir("acp-kit-agents-");
    const result = trace(["nosuchagent"], config);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('No agent named "nosuchagent"');
  });
});
