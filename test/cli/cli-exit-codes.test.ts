/**
 * `acp-kit prompt`'s exit codes, one per way a turn can end, run as a script would run
 * it; and the agent's reason (its error's data) on stderr.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => join(repoRoot, "test", "cli", "fixtures", name);

function prompt(text: string, agent: string[], json = false) {
  const result = spawnSync(
    process.execPath,
    [cli, "prompt", ...(json ? ["--json"] : []), text, "--", ...agent],
    { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const scripted = (scenario: string): string[] => [
  process.execPath,
  scriptedAgent,
  "--no-delays",
  fixture(scenario),
];

beforeAll(() => {
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
  }
});

describe("acp-kit prompt exit codes", () => {
  it("0 on end_turn", () => {
    expect(prompt("hello", scripted("cli-scenario.json")).code).toBe(0);
  });

  it("3 when the agent cannot be started", () => {
    expect(prompt("hi", ["/no/such/agent"]).code).toBe(3);
  });

  it("10 refusal, 11 max_tokens, 12 max_turn_requests, 13 cancelled", () => {
    expect(prompt("refuse", scripted("cli-scenario.json")).code).toBe(10);
    expect(prompt("tokens", scripted("error-scenario.json")).code).toBe(11);
    expect(prompt("requests", scripted("error-scenario.json")).code).toBe(12);
    expect(prompt("cancel", scripted("error-scenario.json")).code).toBe(13);
  });

  it("20 when the agent answers the prompt -32000, with the agent's reason", () => {
    const result = prompt("login", scripted("error-scenario.json"));
    expect(result.code).toBe(20);
    expect(result.stderr).toContain("Gemini API key is missing");
  });

  it("30 when the agent crashes", () => {
    expect(prompt("hi", [process.execPath, fixture("crash-agent.mjs")]).code).toBe(30);
  });

  it("31 when the agent reports an error, with what its data says", () => {
    const details = prompt("details", scripted("error-scenario.json"));
    expect(details.code).toBe(31);
    expect(details.stderr).toContain(
      "The agent reported an error: Internal error: Claude Code process exited with code 1 (-32603)",
    );
    const text = prompt("string", scripted("error-scenario.json"));
    expect(text.code).toBe(31);
    expect(text.stderr).toContain("CODEX_API_KEY is not set");
    // A network failure is the agent's error, not a broken protocol.
    const network = prompt("anything else", scripted("error-scenario.json"), true);
    expect(network.code).toBe(31);
    const last = JSON.parse(network.stdout.trim().split("\n").pop() ?? "{}") as {
      type: string;
      exitCode: number;
      message: string;
    };
    expect(last).toMatchObject({ type: "error", exitCode: 31 });
    expect(last.message).toContain("stream disconnected before completion");
  });

  it("40 when the agent breaks the protocol (an invalid answer)", () => {
    const result = prompt("hi", [process.execPath, fixture("broken-answer-agent.mjs")]);
    expect(result.code).toBe(40);
    expect(result.stderr).toContain("The agent broke the protocol");
  });
});
