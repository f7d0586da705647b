/**
 * What agents print for other UIs, as a person sees it in `acp-kit prompt`, `run --plain`
 * (real processes) and the live view (tmux): Claude's markup (a fenced Read result with a
 * `<system-reminder>`, a local command's `<local-command-stdout>`, live and replayed) and
 * diffs' "\ No newline at end of file" are cleaned; every agent of the registry snapshot
 * and pi (with the others acpx names) can be named; a login URL an agent prints on its stdout outside ACP reaches the user, and
 * such a line is never answered with a parse error (Gemini CLI takes the answer for the
 * authorization code).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => join(repoRoot, "test", "cli", "fixtures", name);
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

const sessions: TmuxSession[] = [];

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

/** `acp-kit run` with a scenario, on a terminal. */
function runOnTerminal(scenario: string, args: readonly string[] = []): TmuxSession {
  const command = [process.execPath, cli, "run", ...args, "--", ...scripted(scenario)];
  const session = TmuxSession.start(command.map(shellQuote).join(" "), {
    cwd: repoRoot,
    width: 100,
    height: 40,
  });
  sessions.push(session);
  return session;
}

/** Runs `acp-kit ARGS`; resolves with the exit code and what it printed. */
function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end(input ?? "");
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("a login that prints on the agent's stdout (Gemini's Google login)", () => {
  it("prompt --auth shows the URL and the question, and the login succeeds", async () => {
    const result = await runCli([
      "prompt",
      "--auth",
      "oauth-personal",
      "hello",
      "--",
      ...scripted("gemini-login-scenario.json"),
    ]);
    expect(result.stderr).toContain(
      "[agent] https://accounts.example/o/oauth2/v2/auth?client_id=acp-kit-test&state=42\n",
    );
    // Printed as text: the agent's escape sequence (a window title) is not passed on.
    expect(result.stderr).toContain("[agent] Enter the authorization code:\n");
    expect(result.stderr).not.toContain("invalid authorization code");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("logged in with Google\n");
  });

  it.skipIf(!hasTmux())("the live view shows the URL while it logs in", async () => {
    const t = runOnTerminal("gemini-login-scenario.json");
    await t.waitFor("❯ 1. Log in with Google");
    t.keys("Enter");
    await t.waitFor("[agent] Enter the authorization code:");
    const screen = await t.waitFor("Logged in (Log in with Google).");
    expect(screen).toContain(
      "[agent] https://accounts.example/o/oauth2/v2/auth?client_id=acp-kit-test&state=42",
    );
    t.send("hello");
    await t.waitFor("logged in with Google");
  });
});

/** Markup that is for a model or another UI, never for the person at the terminal. */
const MARKUP = [
  "<system-reminder>",
  "consider whether it looks malicious",
  "```",
  "local-command",
  "No newline",
];

describe("acp-kit serve with an agent that prints a login URL", () => {
  it("shows the lines on serve's stderr and never answers them: the remote login works", async () => {
    const serve = spawn(
      process.execPath,
      [cli, "serve", "--port", "0", "--", ...scripted("gemini-login-scenario.json")],
      { cwd: repoRoot, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let served = "";
    serve.stderr.setEncoding("utf8").on("data", (chunk: string) => (served += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        serve.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          const line = out.split("\n")[0];
          if (out.includes("\n") && line !== undefined) resolve(line.trim());
        });
        serve.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const result = await runCli(["prompt", "--url", url, "--auth", "oauth-personal", "hi"]);
      expect(result.stderr).not.toContain("invalid authorization code");
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("logged in with Google\n");
      expect(served).toContain(
        "[agent] https://accounts.example/o/oauth2/v2/auth?client_id=acp-kit-test&state=42\n",
      );
    } finally {
      serve.kill("SIGTERM");
      await new Promise((resolve) => serve.once("exit", resolve));
    }
  });
});

describe("Gemini's API-key method (an agent method whose description names a variable)", () => {
  const gemini = scripted("gemini-login-scenario.json");

  it("prompt --auth names the variable when it is not set, and logs in when it is", async () => {
    // Empty is unset, for acp-kit as for the agent.
    const missing = await runCli(["prompt", "--auth", "gemini-api-key", "hi", "--", ...gemini], {
      GEMINI_API_KEY: "",
    });
    expect(missing.code).toBe(20);
    expect(missing.stderr).toContain("set GEMINI_API_KEY in the environment");
    const set = await runCli(["prompt", "--auth", "gemini-api-key", "hi", "--", ...gemini], {
      GEMINI_API_KEY: "test-key",
    });
    expect(set.code).toBe(0);
  });

  it.skipIf(!hasTmux())("the live view asks for the key, hidden, and logs in with it", async () => {
    const t = runOnTerminal("gemini-login-scenario.json");
    await t.waitFor("2. Use Gemini API key");
    t.keys("2");
    await t.waitFor("Use Gemini API key needs GEMINI_API_KEY");
    t.type("secret-key");
    await t.waitFor("GEMINI_API_KEY: ••••••••••");
    t.keys("Enter");
    const screen = await t.waitFor("Logged in (Use Gemini API key).");
    expect(screen).not.toContain("secret-key");
    t.send("hello");
    await t.waitFor("logged in with Google");
  });
});

describe("check --auth", () => {
  it("logs out after the checks when the agent can (a stored login does not outlive the check)", async () => {
    const result = await runCli([
      "check",
      "--json",
      "--auth",
      "token",
      "--",
      ...scripted("env-login-scenario.json"),
    ]);
    const report = JSON.parse(result.stdout) as {
      notes: string[];
      checks: { id: string; status: string }[];
    };
    expect(report.notes).toEqual([
      "Logged in with --auth token.",
      "Logged out after the checks (--auth token).",
    ]);
    expect(report.checks.find((c) => c.id === "prompt-turn")?.status).toBe("pass");
    expect(result.code).toBe(0);
  });
});

describe("output made for other UIs, cleaned for a terminal (Claude's markup)", () => {
  const markup = scripted("claude-markup-scenario.json");

  it("prompt prints a local command's output without its markup", async () => {
    const result = await runCli(["prompt", "read", "--", ...markup]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Total cost: $0.01\n");
    for (const text of MARKUP) expect(result.stdout + result.stderr).not.toContain(text);
  });

  it("run --plain shows a replayed local command's output as its text", async () => {
    const result = await runCli(["run", "--plain", "--resume", "earlier", "--", ...markup], {}, "");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("> /effort max\nSet effort level to max");
    for (const text of MARKUP) expect(result.stdout).not.toContain(text);
  });

  it.skipIf(!hasTmux())(
    "the live view shows a Read result, a diff and a local command cleanly",
    async () => {
      const t = runOnTerminal("claude-markup-scenario.json");
      await t.waitFor("type a message");
      t.send("read");
      const screen = await t.waitFor("Total cost: $0.01");
      expect(screen).toContain("1→line one of the notes");
      expect(screen).toContain("+gamma");
      for (const text of MARKUP) expect(screen).not.toContain(text);
    },
  );

  it.skipIf(!hasTmux())(
    "the live view shows a replayed local command's output as its text",
    async () => {
      const t = runOnTerminal("claude-markup-scenario.json", ["--resume", "earlier"]);
      const screen = await t.waitFor("Set effort level to max");
      expect(screen).toContain("/effort max");
      for (const text of MARKUP) expect(screen).not.toContain(text);
    },
  );
});

describe("agents by name", () => {
  it("names every agent of the registry snapshot, pi, and the agents acpx names", async () => {
    const home = mkdtempSync(join(tmpdir(), "acp-kit-agents-"));
    try {
      // Offline, nothing cached: the registry is the snapshot shipped in the package.
      const env = {
        ACP_REGISTRY_URL: "http://127.0.0.1:9/registry.json",
        ACP_KIT_CACHE_DIR: join(home, "cache"),
        XDG_CONFIG_HOME: join(home, "config"),
      };
      const result = await runCli(["agents", "--json"], env);
      expect(result.code).toBe(0);
      const listed = JSON.parse(result.stdout) as {
        named: { name: string; command: string; args: string[] }[];
        registry: { source: string; agents: { id: string }[] };
      };
      expect(listed.registry.source).toBe("snapshot");
      const snapshot = JSON.parse(
        readFileSync(
          join(repoRoot, "packages", "acp-kit", "src", "node", "registry", "snapshot.json"),
          "utf8",
        ),
      ) as { agents: { id: string }[] };
      const names = new Set([
        ...listed.named.map((a) => a.name),
        ...listed.registry.agents.map((a) => a.id),
      ]);
      for (const { id } of snapshot.agents) expect(names).toContain(id);
      for (const name of [
        "pi",
        "claude",
        "codex",
        "gemini",
        "opencode",
        "qwen",
        "copilot",
        "cursor",
      ])
        expect(names).toContain(name);
      for (const name of [
        "kilocode",
        "droid",
        "kimi",
        "kiro",
        "iflow",
        "openclaw",
        "trae",
        "goose",
      ])
        expect(names).toContain(name);
      expect(names.size).toBeGreaterThanOrEqual(20);
      expect(listed.named.find((a) => a.name === "pi")).toMatchObject({
        command: "npx",
        args: ["-y", "pi-acp"],
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
