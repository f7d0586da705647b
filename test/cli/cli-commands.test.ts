/**
 * The non-interactive commands of the built CLI, run as a person would from a shell:
 * --help, --version, agents, prompt (text and --json, with its exit codes) and the
 * plain demo.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { groupMembers, isAlive } from "../node/fixtures/terminal-helpers.js";
import { longTerminalScenario } from "../support/long-terminal.js";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => join(repoRoot, "test", "cli", "fixtures", name);
/** The escape character that starts every ANSI colour sequence. */
const ESC = String.fromCharCode(27) + "[";

function run(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: repoRoot,
    input: options.input ?? "",
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** {@link run} without blocking, for the slow commands that run side by side. */
function runAsync(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: "1" },
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

const agentArgs = (scenario: string): string[] => [
  "--",
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

describe("help and version", () => {
  it("prints the version and every command in --help", () => {
    const version = run(["--version"]);
    const pkg = JSON.parse(
      readFileSync(join(repoRoot, "packages", "cli", "package.json"), "utf8"),
    ) as {
      version: string;
    };
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = run(["--help"]);
    for (const command of [
      "run",
      "demo",
      "prompt",
      "trace",
      "serve",
      "check",
      "check-client",
      "agents",
    ]) {
      expect(help.stdout).toContain(command);
    }
    const promptHelp = run(["prompt", "--help"]);
    expect(promptHelp.stdout).toContain("Exit codes:");
    expect(promptHelp.stdout).toContain("13  cancelled");
    expect(promptHelp.stdout).toContain("Examples:");
  });

  it("lists the named agents, and refuses an unknown one with a usage error", () => {
    const agents = run(["agents"]);
    expect(agents.stdout).toMatch(/claude\s+npx -y @agentclientprotocol\/claude-agent-acp/);
    const unknown = run(["prompt", "hi", "no-such-agent"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No agent named "no-such-agent"');
  });

  it("answers a wrong option or a --cwd that is not a directory with a usage error", () => {
    const option = run(["prompt", "--no-such-option", "hi", "claude"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--no-such-option'");
    const missing = join(tmpdir(), "acp-kit-no-such-dir");
    const cwd = run(["prompt", "--cwd", missing, "hi", "claude"]);
    expect(cwd.code).toBe(2);
    expect(cwd.stderr).toContain(`${missing} does not exist.`);
    const file = run(["check", "--cwd", join(repoRoot, "package.json"), "claude"]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("is not a directory.");
    const empty = run(["prompt", "  ", "claude"]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("The prompt is empty.");
    const emptyStdin = run(["prompt", "-", "claude"], { input: "\n" });
    expect(emptyStdin.stderr).toContain("The prompt read from stdin is empty.");
    const timeout = run(["check", "--request-timeout", "soon", "claude"]);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain("Give a whole number above 0.");
    const trace = run(["trace", "view", join(tmpdir(), "acp-kit-no-such-trace.ndjson")]);
    expect(trace.code).toBe(2);
    expect(trace.stderr).toMatch(/acp-kit: .*acp-kit-no-such-trace\.ndjson does not exist\./);
  });

  it("makes a relative --cwd absolute before the session starts", () => {
    const result = run([
      "prompt",
      "--cwd",
      "examples",
      "where are you?",
      ...agentArgs("cli-scenario.json"),
    ]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(`in ${join(repoRoot, "examples")}\n`);
    expect(result.code).toBe(0);
  });
});

describe("acp-kit prompt", () => {
  it("prints the agent's text and exits 0 on end_turn", () => {
    const result = run(["prompt", "please stream", ...agentArgs("cli-scenario.json")]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("one two three four five\n");
    expect(result.code).toBe(0);
  });

  it("reads the prompt from stdin with -", () => {
    const result = run(["prompt", "-", ...agentArgs("cli-scenario.json")], { input: "/shout hey" });
    expect(result.stdout.trim()).toBe("hey!!!");
  });

  it("--json prints one event per line: initialize, session, updates, requests, stop", () => {
    const result = run([
      "prompt",
      "--json",
      "--yes",
      "permission please",
      ...agentArgs("cli-scenario.json"),
    ]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual([
      "initialize",
      "session",
      "update", // available_commands_update after session/new
      "update", // the tool call
      "request",
      "response",
      "update", // "ALLOWED"
      "stop",
    ]);
    expect(events[0]).toMatchObject({
      agentInfo: { name: "cli-test-agent", version: "1.2.3" },
      protocolVersion: 1,
    });
    expect(events[3]).toMatchObject({
      update: { sessionUpdate: "tool_call", title: "Delete build output", kind: "delete" },
    });
    expect(events[4]).toMatchObject({ method: "session/request_permission" });
    expect(events[5]).toMatchObject({
      method: "session/request_permission",
      result: { outcome: { outcome: "selected" } },
    });
    expect(events[6]).toMatchObject({ update: { content: { text: "ALLOWED" } } });
    expect(events[7]).toEqual({ type: "stop", stopReason: "end_turn" });
  });

  it("rejects permission requests by default", () => {
    const result = run(["prompt", "permission please", ...agentArgs("cli-scenario.json")]);
    expect(result.stdout.trim()).toBe("REJECTED");
  });

  it("ends quietly when its stdout is closed early (| head)", async () => {
    const child = spawn(
      process.execPath,
      [cli, "prompt", "--json", "--yes", "permission please", ...agentArgs("cli-scenario.json")],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    // Read the first line, then go away, as `head -1` does.
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)(
    "on %s ends the agent and kills the terminals it started before exiting",
    async (signal, exitCode) => {
      const scenario = longTerminalScenario();
      const child = spawn(
        process.execPath,
        [cli, "prompt", "build it", "--", process.execPath, scriptedAgent, scenario.path],
        { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      const terminalPid = await scenario.terminalPid();
      expect(isAlive(terminalPid)).toBe(true);
      child.kill(signal);
      expect(await closed).toBe(exitCode);
      // The terminal leads its own process group: nothing of it may be left.
      expect(isAlive(terminalPid)).toBe(false);
      expect(groupMembers(terminalPid)).toEqual([]);
      expect(stderr).toBe(`acp-kit: ended by ${signal}\n`);
    },
  );

  it("takes policy flags before or after the prompt text", () => {
    const after = run(["prompt", "permission please", "--yes", ...agentArgs("cli-scenario.json")]);
    expect(after.stdout.trim()).toBe("ALLOWED");
    const before = run(["prompt", "--yes", "permission please", ...agentArgs("cli-scenario.json")]);
    expect(before.stdout.trim()).toBe("ALLOWED");
  });

  it("has distinct exit codes: refusal 10, auth required 20, crash 30, agent missing 3", () => {
    const refusal = run(["prompt", "refuse", ...agentArgs("cli-scenario.json")]);
    expect(refusal.code).toBe(10);
    expect(refusal.stderr).toContain("stop reason: refusal");
    const auth = run(["prompt", "hi", ...agentArgs("auth-scenario.json")]);
    expect(auth.code).toBe(20);
    expect(auth.stderr).toContain("Use a token");
    const crash = run(["prompt", "hi", "--", process.execPath, fixture("crash-agent.mjs")]);
    expect(crash.code).toBe(30);
    expect(crash.stderr).toContain("the agent exited with code 3");
    expect(crash.stderr).toContain("fatal: the model backend went away");
    const missing = run(["prompt", "hi", "--", "/no/such/agent"]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/not found|does not exist/i);
  });
});

describe("acp-kit demo (not a terminal)", () => {
  it("prints a plain transcript of the tour and writes only its own file", () => {
    // A temporary directory of its own, so that demos run by other tests do not count.
    const tmp = testTempDir("acp-kit-demo-test-");
    const result = run(["demo", "--fast", "--keep"], { env: { TMPDIR: tmp } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("acp-kit demo: a scripted agent working in");
    expect(result.stdout).toContain("[read] Read README.md (completed)");
    expect(result.stdout).toMatch(/\[permission\] .*acp-kit-demo\.md.*: .*\(allow_once\)/);
    expect(result.stdout).toMatch(/\[edit\] .*acp-kit-demo\.md \(completed\)/);
    expect(result.stdout).toMatch(/\[execute\] .*node --version \(completed\)/);
    expect(result.stdout).toContain("(end_turn)");
    expect(result.stdout).not.toContain(ESC); // no colours when piped
    const created = readdirSync(tmp);
    expect(created).toHaveLength(1);
    expect(result.stdout).toContain(`The demo's files are kept in ${join(tmp, created[0]!)}`);
    const files = readdirSync(join(tmp, created[0]!)).sort();
    expect(files).toEqual(["README.md", "acp-kit-demo.md"]);
  });

  it("removes its directory when a signal ends it too", async () => {
    const tmp = testTempDir("acp-kit-demo-test-");
    const child = spawn(process.execPath, [cli, "demo"], {
      cwd: repoRoot,
      env: { ...process.env, TMPDIR: tmp, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    // The tour (with its pauses) is under way once the agent has connected.
    await vi.waitFor(() => expect(stdout).toContain("connected to"), { timeout: 20_000 });
    expect(readdirSync(tmp)).toHaveLength(1);
    child.kill("SIGTERM");
    expect(await closed).toBe(143);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("removes its directory at the end, and follows a permission flag when given one", () => {
    const tmp = testTempDir("acp-kit-demo-test-");
    const result = run(["demo", "--fast", "--deny-all"], { env: { TMPDIR: tmp } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\[permission\] .*acp-kit-demo\.md.*: .*\(reject_once\)/);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe("colours", () => {
  it("are off with NO_COLOR even when forced elsewhere", () => {
    const dir = testTempDir("acp-kit-trace-");
    const trace = join(dir, "t.ndjson");
    run(["trace", "--out", trace, ...agentArgs("cli-scenario.json")], {
      input:
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: 1 },
        }) + "\n",
    });
    const view = run(["trace", "view", trace], { env: { NO_COLOR: "1", FORCE_COLOR: "1" } });
    expect(view.code).toBe(0);
    expect(view.stdout).toContain("initialize");
    expect(view.stdout).not.toContain(ESC);
  });
});

describe.concurrent("acp-kit check", { timeout: 120_000 }, () => {
  const tsxAgent = (file: string, ...args: string[]): string[] => [
    "--",
    process.execPath,
    "--import",
    "tsx",
    join(repoRoot, file),
    ...args,
  ];

  it("passes our example agent, skipping only what it does not advertise", async () => {
    const result = await runAsync(["check", ...tsxAgent("examples/agent.ts")]);
    expect(result.stdout).toContain(
      // --protocol auto (the default) negotiates first: the v1 agent answers 1.
      "17 passed, 0 failed (MUST), 0 warnings (SHOULD), 0 inconclusive, 4 skipped (21 checks): OK",
    );
    expect(result.stderr).toContain("✓ session/new answers unique session ids"); // progress
    expect(result.code).toBe(0);
  });

  it("passes the scripted agent with the conformant scenario, every check included", async () => {
    const result = await runAsync([
      "check",
      "--json",
      "--",
      process.execPath,
      scriptedAgent,
      "--no-delays",
      join(repoRoot, "examples", "scenarios", "conformant.json"),
    ]);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      summary: { passed: number; failed: number; skipped: number };
    };
    expect(report.summary).toEqual({
      passed: 21, // with the negotiation (--protocol auto, the default)
      failed: 0,
      mustFailed: 0,
      warnings: 0,
      inconclusive: 0,
      skipped: 0,
      total: 21,
    });
    expect(report.ok).toBe(true);
    expect(result.code).toBe(0);
  });

  it("fails a broken agent with exit code 50, naming the rule and the exchange", async () => {
    const result = await runAsync([
      "check",
      ...tsxAgent("test/testing/fixtures/agent-faulty.ts", "--fault=stdout-junk"),
    ]);
    expect(result.code).toBe(50);
    expect(result.stdout).toMatch(/^FAIL MUST +stdout-purity .*\[R1, R3, R5\]$/m);
    expect(result.stdout).toContain("see docs/checklist.md#stdout-purity");
    expect(result.stdout).toContain("Starting faulty agent 0.0.1");
    expect(result.stdout).toContain("NOT CONFORMANT");
  });

  it("reports each fault of a broken agent in --json", async () => {
    const result = await runAsync([
      "check",
      "--json",
      // The fault echoes any version: under auto it would claim v2 (see conformance-v2).
      "--protocol",
      "1",
      ...tsxAgent("test/testing/fixtures/agent-faulty.ts", "--fault=wrong-version"),
    ]);
    expect(result.code).toBe(50);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      checks: { id: string; status: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.checks.filter((c) => c.status === "fail").map((c) => c.id)).toEqual([
      "protocol-version",
    ]);
  });

  it("--auth logs in first; without it the login is INCONCLUSIVE, in text and --json", async () => {
    const agent = [
      "--",
      process.execPath,
      scriptedAgent,
      "--no-delays",
      fixture("auth-scenario.json"),
    ];
    const without = await runAsync(["check", "--json", ...agent]);
    const report = JSON.parse(without.stdout) as {
      ok: boolean;
      notes: string[];
      checks: { id: string; status: string; class: string; reason?: string }[];
    };
    expect(without.code).toBe(0); // nothing the agent did is wrong
    const sessionNew = report.checks.find((c) => c.id === "session-new");
    expect(sessionNew).toMatchObject({ status: "inconclusive", class: "inconclusive" });
    expect(sessionNew?.reason).toContain("Authentication required");
    expect(report.notes.join("\n")).toContain("token (agent)");
    const text = await runAsync(["check", ...agent]);
    expect(text.stdout).toMatch(/^INCONCLUSIVE +session-new/m);
    expect(text.stderr).toMatch(/\? session\/new answers unique session ids: INCONCLUSIVE: /);
    // The long reason is said once; the checks depending on it point to it.
    expect(
      text.stdout.match(/Needs a logged-in agent \(see session-new\)/g)?.length,
    ).toBeGreaterThan(3);
    expect(text.stdout.match(/Run again with --auth METHOD/g)).toHaveLength(1);
    const withAuth = await runAsync(["check", "--json", "--auth", "token", ...agent]);
    const logged = JSON.parse(withAuth.stdout) as {
      notes: string[];
      checks: { id: string; status: string }[];
    };
    expect(logged.notes).toEqual([
      "Logged in with --auth token.",
      "The agent cannot log out (no auth.logout): a login it stored with --auth token stays after the check.",
    ]);
    expect(logged.checks.find((c) => c.id === "prompt-turn")?.status).toBe("pass");
    expect(withAuth.code).toBe(0);
  });

  it("waits only --request-timeout for each answer, and says so in the report", async () => {
    const result = await runAsync([
      "check",
      "--json",
      "--request-timeout",
      "700",
      "--",
      process.execPath,
      fixture("crash-agent.mjs"),
    ]);
    expect(result.code).toBe(50);
    expect(result.stdout).toContain("did not answer within 700 ms");
  });

  it("says when the agent cannot be started (exit code 3)", async () => {
    const result = await runAsync(["check", "--", join(repoRoot, "no-such-agent")]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("no-such-agent");
  });
});
