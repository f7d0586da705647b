/**
 * `acp-kit prompt` as a person or a script uses it, with real processes: what it prints
 * of a turn (messages apart, a line per tool call and permission answer, how the turn
 * ended), `--fail-on-refusal`, `--timeout`, Ctrl-C, `--auth`, and on a terminal (tmux)
 * the permission questions.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => join(repoRoot, "test", "cli", "fixtures", name);
const agent = [process.execPath, scriptedAgent, "--no-delays", fixture("prompt-scenario.json")];
const deafAgent = [process.execPath, fixture("deaf-agent.mjs")];
/** The scenario's env_var login: the variable, and `--auth` with it. */
const KEY = { ACP_KIT_PROMPT_KEY: "test-key" };
const login = ["--auth", "api-key"];

interface Run {
  /** Resolves with the exit code (or the signal) and everything printed. */
  readonly done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Resolves once stdout + stderr contain `text`. */
  readonly printed: (text: string) => Promise<void>;
  readonly signal: (signal: NodeJS.Signals) => void;
}

const children: { kill(): void }[] = [];

function prompt(args: string[], target = agent, env: Record<string, string> = KEY): Run {
  const child = spawn(process.execPath, [cli, "prompt", ...args, "--", ...target], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push({ kill: () => child.kill("SIGKILL") });
  let stdout = "";
  let stderr = "";
  const waiting: { text: string; resolve: () => void }[] = [];
  const check = (): void => {
    for (const w of waiting.splice(0)) {
      if ((stdout + stderr).includes(w.text)) w.resolve();
      else waiting.push(w);
    }
  };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    check();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    check();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return {
    done,
    printed: (text) =>
      new Promise((resolve, reject) => {
        waiting.push({ text, resolve });
        check();
        void done.then(() =>
          reject(new Error(`ended without printing ${text}:\n${stdout}\n${stderr}`)),
        );
      }),
    signal: (signal) => child.kill(signal),
  };
}

const sessions: TmuxSession[] = [];

beforeAll(() => {
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
  }
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill();
  for (const session of sessions.splice(0)) session.kill();
});

describe("acp-kit prompt: what happened", () => {
  it("keeps separate messages apart on stdout, and says each tool call's outcome on stderr", async () => {
    const result = await prompt([...login, "please edit"]).done;
    expect(result.code).toBe(0);
    // Never "first.Now I will…": each message on its own, as the agent split them.
    expect(result.stdout).toBe("first.\n\nNow I will edit it.\n\nDone.\n");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toEqual([
      "[read] Read notes.txt: done",
      "[permission] Edit notes.txt: Reject (reject_once), by a policy (--deny-all)",
      "[edit] Edit notes.txt: refused by a policy (--deny-all)",
      "[execute] Run the tests: failed: 3 tests failed",
      "(stop reason: end_turn; 3 tool calls: 1 done, 1 failed, 1 refused; 1 permission refused)",
    ]);
    const apart = await prompt([...login, "apart"]).done;
    expect(apart.stdout).toBe("One message.\n\nAnother message.\n");
  });

  it("says who allowed a tool call", async () => {
    const result = await prompt([...login, "--yes", "please edit"]).done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "[permission] Edit notes.txt: Allow (allow_once), by a policy (--yes)",
    );
    expect(result.stderr).toContain("[edit] Edit notes.txt: done");
    expect(result.stderr).toContain("3 tool calls: 2 done, 1 failed)");
  });

  it("--fail-on-refusal: a refused permission fails the run with exit code 14", async () => {
    const refused = await prompt([...login, "--fail-on-refusal", "please edit"]).done;
    expect(refused.code).toBe(14);
    expect(refused.stderr).toContain(
      "acp-kit: a permission request was refused (--fail-on-refusal)",
    );
    const allowed = await prompt([...login, "--fail-on-refusal", "--yes", "please edit"]).done;
    expect(allowed.code).toBe(0);
    // JSON: who answered, and the error after the stop.
    const json = await prompt([...login, "--json", "--fail-on-refusal", "please edit"]).done;
    expect(json.code).toBe(14);
    const events = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    // The answer's event says who answered, and whether it refused.
    expect(events).toContainEqual({
      type: "response",
      method: "session/request_permission",
      result: { outcome: { outcome: "selected", optionId: "reject_once" } },
      decidedBy: "policy",
      source: "--deny-all",
      refused: true,
    });
    expect(events.slice(-2)).toEqual([
      { type: "stop", stopReason: "end_turn" },
      expect.objectContaining({ type: "error", exitCode: 14 }),
    ]);
  });
});

describe("acp-kit prompt: --timeout and Ctrl-C", () => {
  // The time limit counts from the start: on a slow machine it may come before the turn
  // has begun (then the agent is ended at once), so either is accepted.
  it("--timeout ends a turn that waits for ever with exit code 15, saying so", async () => {
    const result = await prompt([...login, "--timeout", "200ms", "wait"]).done;
    expect(result.code).toBe(15);
    expect(result.stderr).toMatch(
      /acp-kit: --timeout 200ms reached: (cancelling the turn|ending the agent)/,
    );
    expect(result.stderr).toContain("acp-kit: the run took longer than --timeout 200ms");
  });

  it("--timeout takes seconds or a unit; anything else is a usage error", async () => {
    for (const value of ["soon", "0", "-5", "5d"]) {
      const result = await prompt(["--timeout", value, "hi"], deafAgent, {}).done;
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("Give a duration above 0: 90 (seconds), 90s, 5m, 1h.");
    }
  });

  it("--timeout ends an agent that ignores the cancel", async () => {
    const result = await prompt(["--timeout", "2s", "hi"], deafAgent, {}).done;
    expect(result.code).toBe(15);
    expect(result.stderr).toContain("acp-kit: the run took longer than --timeout 2s");
  });

  it("a Ctrl-C cancels the turn at once and says so; exit 13", async () => {
    const run = prompt([...login, "wait"]);
    await run.printed("Waiting for you to cancel.");
    run.signal("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(13);
    expect(result.stderr).toContain(
      "acp-kit: Ctrl-C: cancelling the turn (Ctrl-C again to end the agent now)",
    );
    expect(result.stderr).toContain("(stop reason: cancelled; 1 tool call: 1 cancelled)");
  });

  it("a Ctrl-C is acknowledged while the agent ignores the cancel; a second one ends it", async () => {
    const run = prompt(["hi"], deafAgent, {});
    await run.printed("working for ever");
    run.signal("SIGINT");
    await run.printed("acp-kit: Ctrl-C: cancelling the turn");
    await run.printed("cancel seen, ignored");
    run.signal("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(13);
    expect(result.stderr).toContain("acp-kit: Ctrl-C: ending the agent");
  });
});

describe("acp-kit prompt --auth", () => {
  it("logs in with an env_var method whose variable is set, and the prompt succeeds", async () => {
    const result = await prompt([...login, "hello"]).done;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("logged in and answering\n");
    // By its name too, and an agent method.
    expect((await prompt(["--auth", "API key", "hello"]).done).code).toBe(0);
    expect((await prompt(["--auth", "token", "hello"], agent, {}).done).code).toBe(0);
  });

  it("names the variable a method needs when it is not set (exit 20)", async () => {
    const result = await prompt([...login, "hello"], agent, {}).done;
    expect(result.code).toBe(20);
    expect(result.stderr).toContain(
      "To log in with api-key (API key), set ACP_KIT_PROMPT_KEY (Prompt test key) in the environment",
    );
  });

  it("without --auth, the message says which method would work", async () => {
    const result = await prompt(["hello"]).done;
    expect(result.code).toBe(20);
    expect(result.stderr).toContain("api-key (API key; set ACP_KIT_PROMPT_KEY)");
    expect(result.stderr).toContain("ACP_KIT_PROMPT_KEY is set: log in with `--auth api-key`");
  });

  it("an unknown method is a usage error listing the agent's methods (exit 2)", async () => {
    const result = await prompt(["--auth", "nope", "hello"]).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "--auth nope: the agent has no such login method; its methods: api-key (API key; set ACP_KIT_PROMPT_KEY), token (Use a token)",
    );
  });
});

describe.skipIf(!hasTmux())("acp-kit prompt on a terminal", () => {
  function onTerminal(args: string): TmuxSession {
    const command = `${shellQuote(process.execPath)} ${shellQuote(cli)} prompt ${args} -- ${agent.map(shellQuote).join(" ")}`;
    const session = TmuxSession.start(command, {
      cwd: repoRoot,
      width: 100,
      height: 30,
      env: KEY,
    });
    sessions.push(session);
    return session;
  }

  it("asks the permission questions no policy answers", async () => {
    const t = onTerminal("--auth api-key --fail-on-refusal 'please edit'");
    await t.waitFor("The agent asks permission: Edit notes.txt (edit)");
    await t.waitFor("Choose 1-2 (Enter: Allow):");
    t.send("2");
    await t.waitFor("[edit] Edit notes.txt: refused by you");
    const screen = await t.waitFor("[exited 14]");
    expect(screen).toContain("[permission] Edit notes.txt: Reject (reject_once), by you");
  });

  it("Enter allows once; a policy flag answers without asking", async () => {
    const t = onTerminal("--auth api-key 'please edit'");
    await t.waitFor("Choose 1-2 (Enter: Allow):");
    t.keys("Enter");
    await t.waitFor("[edit] Edit notes.txt: done");
    await t.waitFor("[exited 0]");
    const denied = onTerminal("--auth api-key --deny-all 'please edit'");
    const screen = await denied.waitFor("[exited 0]");
    expect(screen).not.toContain("The agent asks permission");
    expect(screen).toContain("refused by a policy (--deny-all)");
  });

  it("asks on the terminal when the prompt comes through a pipe", async () => {
    const command = `echo 'please edit' | ${shellQuote(process.execPath)} ${shellQuote(cli)} prompt --auth api-key - -- ${agent.map(shellQuote).join(" ")}`;
    const t = TmuxSession.start(command, { cwd: repoRoot, width: 100, height: 30, env: KEY });
    sessions.push(t);
    await t.waitFor("Choose 1-2 (Enter: Allow):");
    t.send("2");
    await t.waitFor("[edit] Edit notes.txt: refused by you");
    await t.waitFor("[exited 0]");
  });

  it("Ctrl-C at the question cancels the turn", async () => {
    const t = onTerminal("--auth api-key 'please edit'");
    await t.waitFor("Choose 1-2 (Enter: Allow):");
    t.keys("C-c");
    await t.waitFor("cancelling the turn");
    const screen = await t.waitFor("[exited 13]");
    expect(screen).toContain("(the question was withdrawn)");
  });
});
