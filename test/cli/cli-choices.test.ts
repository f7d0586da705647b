/**
 * `--mode` and `--model`, as a script uses them: set right after the session opens (the
 * turn runs in that mode, with that model), and an unknown value is a usage error (exit
 * 2) naming the values the agent offers. The controller's login helpers (`/logout`, the
 * variables the chooser asks for) against the scripted agent.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AgentController } from "../../packages/cli/src/controller.js";
import type { AgentTarget } from "../../packages/cli/src/target.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const fixture = (name: string): string => join(repoRoot, "test", "cli", "fixtures", name);
const agent = (scenario: string): string[] => [
  process.execPath,
  scriptedAgent,
  "--no-delays",
  fixture(scenario),
];

function cliRun(args: readonly string[], input = "") {
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: repoRoot,
    input,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", CI: "1" },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The config_option_update events of a `prompt --json` run. */
function configValues(stdout: string): Record<string, string>[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; update?: Record<string, unknown> })
    .filter((e) => e.type === "update" && e.update?.sessionUpdate === "config_option_update")
    .map((e) =>
      Object.fromEntries(
        (e.update?.configOptions as { id: string; currentValue: string }[]).map((o) => [
          o.id,
          o.currentValue,
        ]),
      ),
    );
}

beforeAll(() => {
  if (!existsSync(cli) || !existsSync(scriptedAgent)) {
    throw new Error("Build first (npm run build): the CLI tests run dist/cli.js");
  }
});

describe("--mode and --model", () => {
  it("prompt sets them before the turn (by id or name, any case)", () => {
    const result = cliRun([
      "prompt",
      "--json",
      "--mode",
      "code",
      "--model",
      "SMART",
      "hi",
      "--",
      ...agent("options-scenario.json"),
    ]);
    expect(result.code).toBe(0);
    expect(configValues(result.stdout).at(-1)).toEqual({ mode: "code", model: "smart-2" });
    // Both were set before the prompt went out.
    const lines = result.stdout.trim().split("\n");
    const lastConfig = lines.findLastIndex((l) => l.includes("config_option_update"));
    const firstAnswer = lines.findIndex((l) => l.includes("agent_message_chunk"));
    expect(lastConfig).toBeLessThan(firstAnswer);
  });

  it("an unknown value exits 2, naming the values the agent offers", () => {
    const result = cliRun([
      "prompt",
      "--model",
      "gpt-9",
      "hi",
      "--",
      ...agent("options-scenario.json"),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "--model gpt-9: unknown model; the agent offers fast-1 (Fast), smart-2 (Smart), huge-3 (Huge).",
    );
    const mode = cliRun(["prompt", "--mode", "yolo", "hi", "--", ...agent("cli-scenario.json")]);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain("the agent offers ask (Ask), code (Code)");
    const none = cliRun(["prompt", "--model", "x", "hi", "--", ...agent("cli-scenario.json")]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--model x: this agent offers no choice of model.");
  });

  it("run (plain) takes a mode by name, and exits 2 for one the agent does not offer", () => {
    // No prompt (stdin closing during a turn would cancel it): the session opens in the mode.
    const result = cliRun([
      "run",
      "--plain",
      "--mode",
      "Code",
      "--",
      ...agent("cli-scenario.json"),
    ]);
    expect(result.code).toBe(0);
    const wrong = cliRun(["run", "--plain", "--mode", "nope", "--", ...agent("cli-scenario.json")]);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout + wrong.stderr).toContain("--mode nope: unknown mode");
  });
});

const controllers: AgentController[] = [];
afterEach(async () => {
  await Promise.all(controllers.splice(0).map((c) => c.close()));
});

function controllerFor(scenario: string, settings = {}): AgentController {
  const [command = "", ...args] = agent(scenario);
  const target: AgentTarget = { command, args, label: scenario };
  const controller = new AgentController({ target, cwd: repoRoot, policies: [], settings });
  controllers.push(controller);
  return controller;
}

describe("the controller's settings and logins", () => {
  it("applies --mode through set_mode (modes) and both options (config options)", async () => {
    const modes = controllerFor("cli-scenario.json", { mode: "code" });
    await modes.start();
    expect(modes.state?.currentModeId).toBe("code");
    const options = controllerFor("options-scenario.json", { mode: "plan", model: "huge-3" });
    await options.start();
    expect(options.state?.configOptions?.map((o) => o.currentValue)).toEqual(["plan", "huge-3"]);
    // A new session gets them too.
    await options.setModel("fast-1");
    await options.openSession();
    expect(options.state?.configOptions?.map((o) => o.currentValue)).toEqual(["plan", "huge-3"]);
  });

  it("sets the mode through the mode config option when the agent sends modes too", async () => {
    // "plan" is only in the option: set_mode would be refused as an unknown mode.
    const both = controllerFor("both-modes-scenario.json", { mode: "plan" });
    await both.start();
    expect(both.state?.configOptions?.[0]?.currentValue).toBe("plan");
    await both.setMode("code");
    expect(both.state?.configOptions?.[0]?.currentValue).toBe("code");
  });

  it("asks for unset variables only, logs in with the typed value, and /logout drops it", async () => {
    const controller = controllerFor("env-login-scenario.json");
    await controller.start();
    const key = controller.info?.authMethods?.find((m) => m.id === "api-key");
    expect(key).toBeDefined();
    if (key === undefined) return;
    expect(controller.missingLoginVars(key).map((v) => v.name)).toEqual(["ACP_KIT_TEST_KEY"]);
    expect(controller.canLogout).toBe(true);
    await expect(controller.prompt([{ type: "text", text: "hi" }])).rejects.toMatchObject({
      code: -32000,
    });
    expect(controller.phase).toBe("auth-required");
    const noTerminal = (): Promise<number | null> => Promise.reject(new Error("no terminal"));
    await controller.authenticate(key, noTerminal, { ACP_KIT_TEST_KEY: "typed-value" });
    expect(controller.phase).toBe("ready");
    // The retried prompt was answered. (The new process's session has the old one's id,
    // "session-1", so the store shows the failed turn before it.)
    expect(controller.state?.turns.at(-1)?.stopReason).toBe("end_turn");
    expect(controller.missingLoginVars(key)).toEqual([]);
    const pid = controller.agent?.pid;
    expect(await controller.logout()).toEqual({ loggedOut: true, dropped: ["ACP_KIT_TEST_KEY"] });
    expect(controller.agent?.pid).not.toBe(pid);
    expect(controller.missingLoginVars(key).map((v) => v.name)).toEqual(["ACP_KIT_TEST_KEY"]);
  });

  it("a login the user asked for keeps the open session", async () => {
    const controller = controllerFor("env-login-scenario.json");
    await controller.start();
    const session = controller.sessionId;
    const token = controller.info?.authMethods?.find((m) => m.id === "token");
    if (token === undefined) throw new Error("no token method");
    await controller.authenticate(token, () => Promise.resolve(0));
    expect(controller.sessionId).toBe(session);
    const answer = await controller.prompt([{ type: "text", text: "hi" }]);
    expect(answer.stopReason).toBe("end_turn");
  });
});
