/**
 * The pickers of `/mode`, `/model` and `/sessions`, Tab completion of their values,
 * `--mode`, and logging in (`/login`, `env_var` values typed with hidden input, Esc) in a
 * real terminal (tmux) against the scripted agent, as a person would.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => join(repoRoot, "test", "cli", "fixtures", name);
const sessions: TmuxSession[] = [];

/** The scripted agent's command line for a scenario. */
const agentLine = (scenario: string): string =>
  [process.execPath, scriptedAgent, fixture(scenario)].map(shellQuote).join(" ");

function run(scenario: string, flags = "", agent = agentLine(scenario)): TmuxSession {
  const line = `${shellQuote(process.execPath)} ${shellQuote(cli)} run ${flags} -- ${agent}`;
  const session = TmuxSession.start(line, { cwd: repoRoot, width: 100, height: 45 });
  sessions.push(session);
  return session;
}

beforeAll(() => {
  if (!hasTmux()) throw new Error("tmux is needed for the CLI's terminal tests");
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
  }
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

describe("acp-kit run: pickers and completion", () => {
  it("/model alone opens a picker on the current model; Down Enter in one write picks the next", async () => {
    const t = run("options-scenario.json");
    await t.waitFor("model: Fast");
    t.send("/model");
    await t.waitFor("❯ 1. Fast (fast-1) ✓");
    expect(t.screen()).toContain("↑↓ move · Enter choose · 1-3 pick · Esc leave");
    t.keys("Down", "Enter");
    await t.waitFor("model: Smart");
    expect(t.screen()).not.toContain("❯ 1. Fast");
  });

  it("Esc leaves a picker without changing anything, and the input line takes keys again", async () => {
    const t = run("options-scenario.json");
    await t.waitFor("mode: Ask");
    t.send("/mode");
    await t.waitFor("❯ 1. Ask (ask) ✓  Answers questions …");
    t.keys("Down");
    await t.waitFor("❯ 2. Code (code)");
    t.keys("Escape");
    await t.waitFor("type a message");
    expect(t.screen()).toContain("mode: Ask");
    t.send("hello");
    await t.waitFor("answered");
  });

  it("--mode sets the mode once the session opens", async () => {
    const t = run("options-scenario.json", "--mode plan --model huge-3");
    await t.waitFor("mode: Plan · model: Huge");
  });

  it("completes the values of /mode with Tab", async () => {
    const t = run("cli-scenario.json");
    await t.waitFor("mode: Ask");
    t.type("/mode c");
    t.keys("Tab");
    await t.waitFor("› /mode code");
    t.keys("Enter");
    await t.waitFor("mode: Code");
  });

  it("/sessions alone lists the sessions in a picker; Enter loads the one chosen", async () => {
    const t = run("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("where are we");
    await t.waitFor("in /");
    t.send("/new");
    await t.waitFor("New session session-2.");
    t.send("/sessions");
    await t.waitFor("❯ 2. session-2 ✓");
    t.keys("Up", "Enter");
    await t.waitFor("Loaded session session-1.");
  });
});

describe("acp-kit run: logging in", () => {
  it("asks for an env_var method's value with hidden input, restarts the agent with it, and the prompt is retried", async () => {
    const dir = testTempDir("acp-kit-secret-");
    const trace = join(dir, "trace.ndjson");
    const screenLog = join(dir, "screen.log");
    // The agent runs behind `acp-kit trace`: the value typed must not reach the trace.
    const traced = [process.execPath, cli, "trace", "--out", trace, "--"].map(shellQuote).join(" ");
    const t = run(
      "env-login-scenario.json",
      "",
      `${traced} ${agentLine("env-login-scenario.json")}`,
    );
    t.record(screenLog);
    await t.waitFor("Env login agent 1.0.0");
    t.send("hello there");
    await t.waitFor("The agent needs you to log in. Choose a method:");
    await t.waitFor("❯ 1. API key (sets ACP_KIT_TEST_KEY)");
    expect(t.screen()).toContain("↑↓ choose · Enter log in · 1-2 pick · Esc leave");
    t.keys("Enter");
    await t.waitFor("Test API key:");
    t.type("sk-tmux");
    t.keys("BSpace");
    t.type("_sekrit");
    await t.waitFor(/Test API key: •{13}(?!•)/);
    t.keys("Enter");
    await t.waitFor("logged in and answering");
    await t.waitFor("Logged in (API key).");
    // Sent once more, it is answered by the agent started with the value.
    t.send("again");
    await t.waitFor(/logged in and answering[\s\S]*› again[\s\S]*logged in and answering/);
    t.send("/quit");
    await t.waitFor("[exited 0]");
    expect(t.screen()).not.toContain("sekrit");
    expect(t.screen()).not.toContain("sk-tmu");
    expect(readFileSync(screenLog, "utf8")).not.toContain("sekrit");
    const recorded = readFileSync(trace, "utf8");
    expect(recorded).toContain("authenticate");
    expect(recorded).not.toContain("sekrit");
  });

  it("Esc leaves the chooser the agent opened, in every state; /login opens it again", async () => {
    const t = run("env-login-scenario.json");
    await t.waitFor("Env login agent 1.0.0");
    t.send("hello");
    await t.waitFor("❯ 1. API key");
    t.keys("Escape");
    await t.waitFor("type a message");
    expect(t.screen()).not.toContain("Choose a method");
    // Without a login, a prompt says how to log in.
    t.send("hello again");
    await t.waitFor("The agent needs a login first: /login chooses a method.");
    t.send("/login");
    await t.waitFor("Log in to the agent. Choose a method:");
    t.keys("Enter");
    await t.waitFor("Test API key:");
    t.type("half");
    t.keys("Escape");
    await t.waitFor("type a message");
    expect(t.screen()).not.toContain("Test API key:");
  });

  it("/login and /logout say so when the agent offers no login and no logout", async () => {
    const t = run("cli-scenario.json");
    await t.waitFor("CLI test agent 1.2.3");
    t.send("/login");
    await t.waitFor("This agent offers no login methods.");
    t.send("/logout");
    await t.waitFor("This agent does not support logout");
  });

  it("/login logs in with an agent method, and the next prompt is answered", async () => {
    const t = run("env-login-scenario.json");
    await t.waitFor("Env login agent 1.0.0");
    t.send("/login");
    await t.waitFor("❯ 1. API key");
    t.keys("Down", "Enter");
    await t.waitFor("Logged in (Use a token).");
    t.send("hello");
    await t.waitFor("logged in and answering");
    t.send("/logout");
    await t.waitFor("Logged out.");
  });
});
