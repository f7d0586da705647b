/**
 * The CLI's protocol side without a view: {@link AgentController} against real agent
 * processes (starting, failing to start, restarting), and the view model's permission
 * questions.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { AgentController } from "../../packages/cli/src/controller.js";
import { UiModel } from "../../packages/cli/src/run/ui-model.js";
import type { AgentTarget } from "../../packages/cli/src/target.js";
import type { PermissionPromptInfo } from "../../packages/acp-kit/src/node/permissions/broker.js";
import type { RequestPermissionRequest } from "../../packages/acp-kit/src/schema/types.gen.js";
import { isAlive } from "../node/fixtures/terminal-helpers.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const controllers: AgentController[] = [];

function controllerFor(target: AgentTarget): AgentController {
  const controller = new AgentController({ target, cwd: repoRoot, policies: [] });
  controllers.push(controller);
  return controller;
}

const crashAgent: AgentTarget = {
  command: process.execPath,
  args: [join(repoRoot, "test", "cli", "fixtures", "crash-agent.mjs")],
  label: "crasher",
};

afterEach(async () => {
  await Promise.all(controllers.splice(0).map((c) => c.close()));
});

const temp = mkdtempSync(join(tmpdir(), "acp-controller-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/**
 * A raw agent process. `gate` says which request answers `-32000` until the client logs
 * in: `prompt` (as Claude's adapter does), `new`, or `never` (no gate). It offers an agent
 * method `token` (`authenticate`), an `env_var` method `key` (logged in when `TEST_KEY` is
 * `secret` and `authenticate` is sent), and sessions it loads. `silent` never answers
 * `session/new`.
 */
function rawAgent(gate: "prompt" | "new" | "silent"): AgentTarget {
  const file = join(temp, `agent-${gate}.mjs`);
  writeFileSync(
    file,
    `import { createInterface } from "node:readline";
const gate = ${JSON.stringify(gate)};
let loggedIn = false;
let sessions = 0;
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
const refuse = (id) => send({ id, error: { code: -32000, message: "Authentication required" } });
for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true },
      authMethods: [{ id: "token", name: "Token" },
        { id: "key", name: "API key", type: "env_var", vars: ["TEST_KEY"] }] } });
  } else if (m.method === "authenticate") {
    if (m.params.methodId === "key" && process.env.TEST_KEY !== "secret") {
      send({ id: m.id, error: { code: -32603, message: "TEST_KEY is not set" } });
      continue;
    }
    loggedIn = true;
    send({ id: m.id, result: {} });
  } else if (m.method === "session/new") {
    if (gate === "silent") continue;
    if (gate === "new" && !loggedIn) { refuse(m.id); continue; }
    send({ id: m.id, result: { sessionId: process.pid + "-" + ++sessions } });
  } else if (m.method === "session/load") {
    send({ id: m.id, result: {} });
  } else if (m.method === "session/prompt") {
    if (gate === "prompt" && !loggedIn) { refuse(m.id); continue; }
    send({ method: "session/update", params: { sessionId: m.params.sessionId, update: {
      sessionUpdate: "agent_message_chunk", content: { type: "text", text: "answered" } } } });
    send({ id: m.id, result: { stopReason: "end_turn" } });
  } else if (m.id !== undefined) {
    send({ id: m.id, error: { code: -32601, message: "Method not found" } });
  }
}
`,
  );
  return { command: process.execPath, args: [file], label: gate };
}

const noTerminal = (): Promise<number | null> => Promise.reject(new Error("not a terminal login"));

describe("AgentController", () => {
  it("starts, opens a session, and reports every change through onChange and snapshot", async () => {
    const controller = controllerFor(crashAgent);
    const phases: string[] = [];
    controller.onChange(() => phases.push(controller.phase));
    const before = controller.snapshot();
    await controller.start();
    expect(controller.phase).toBe("ready");
    expect(controller.sessionId).toBe("s1");
    expect(controller.info?.agentInfo?.name).toBe("crasher");
    // Session state changes are reported too (the session store), each with the phase then.
    expect([...new Set(phases)]).toEqual(["starting", "ready"]);
    expect(controller.snapshot()).toBeGreaterThan(before);
  });

  it("ends in the exited phase, with the reason and stderr, when the agent cannot start", async () => {
    const controller = controllerFor({
      command: process.execPath,
      args: ["-e", "process.stderr.write('no config file\\n'); process.exit(4)"],
      label: "broken",
    });
    await expect(controller.start()).rejects.toThrow(/code 4/);
    expect(controller.phase).toBe("exited");
    expect(controller.exit?.error).toMatch(/code 4/);
    expect(controller.exit?.error).toContain("no config file");
    // A restart that fails the same way lands there again (a view offers r/q), not in
    // `starting` for ever.
    await expect(controller.restart()).rejects.toThrow(/code 4/);
    expect(controller.phase).toBe("exited");
  });

  it("joins a restart already under way instead of starting a second agent", async () => {
    const controller = controllerFor(crashAgent);
    await controller.start();
    const first = controller.agent?.pid;
    const restart = controller.restart();
    expect(controller.phase).toBe("starting");
    expect(controller.restart()).toBe(restart);
    expect(controller.start()).toBe(restart);
    await restart;
    expect(controller.phase).toBe("ready");
    const second = controller.agent?.pid;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(isAlive(first ?? 0)).toBe(false);
  });

  it("moves to exited with the exit code and stderr tail when the agent dies", async () => {
    const controller = controllerFor(crashAgent);
    await controller.start();
    await expect(controller.prompt([{ type: "text", text: "hi" }])).rejects.toThrow();
    await new Promise<void>((resolve) => {
      if (controller.phase === "exited") resolve();
      else controller.onChange(() => controller.phase === "exited" && resolve());
    });
    expect(controller.exit?.status).toEqual({ code: 3, signal: null });
    expect(controller.exit?.stderr).toContain("fatal: the model backend went away");
    await controller.restart();
    expect(controller.phase).toBe("ready");
  });
});

describe("AgentController logins (the library's auth-required, at any step)", () => {
  it("stops at auth-required when session/new needs a login, then logs in and opens it", async () => {
    const controller = controllerFor(rawAgent("new"));
    await controller.start();
    expect(controller.phase).toBe("auth-required");
    expect(controller.authFailure?.method).toBe("session/new");
    expect(controller.authMethods.map((m) => m.id)).toEqual(["token", "key"]);
    const token = controller.authMethods[0]!;
    await controller.authenticate(token, noTerminal);
    expect(controller.phase).toBe("ready");
    expect(controller.sessionId).toBe(`${controller.agent?.pid}-1`);
  });

  it("moves to auth-required when a prompt needs a login, and retries the prompt after it", async () => {
    const controller = controllerFor(rawAgent("prompt"));
    await controller.start();
    expect(controller.phase).toBe("ready");
    const hi = [{ type: "text" as const, text: "hi" }];
    await expect(controller.prompt(hi)).rejects.toMatchObject({
      name: "AuthRequiredError",
      code: -32000,
    });
    expect(controller.phase).toBe("auth-required");
    expect(controller.authFailure?.method).toBe("session/prompt");
    await controller.authenticate(controller.authMethods[0]!, noTerminal);
    expect(controller.phase).toBe("ready");
    // The refused turn was taken back: one turn, the prompt shown once.
    const turns = controller.state?.turns ?? [];
    expect(turns.map((t) => t.stopReason)).toEqual(["end_turn"]);
    const users = (controller.state?.thread ?? []).filter(
      (item) => item.type === "message" && item.role === "user",
    );
    expect(users).toHaveLength(1);
  });

  it("logs in with an env_var method: restarts the agent with the variable, then retries", async () => {
    const controller = controllerFor(rawAgent("prompt"));
    await controller.start();
    await controller.prompt([{ type: "text", text: "hi" }]).catch(() => undefined);
    const key = controller.authMethods.find((m) => m.id === "key")!;
    const pid = controller.agent?.pid;
    await expect(controller.authenticate(key, noTerminal)).rejects.toThrow(/set TEST_KEY/);
    expect(controller.agent?.pid).toBe(pid);
    // A wrong value: the agent's reason is told, and the chooser stays.
    await expect(controller.authenticate(key, noTerminal, { TEST_KEY: "nope" })).rejects.toThrow(
      /still asks to log in.*TEST_KEY is not set/,
    );
    expect(controller.phase).toBe("auth-required");
    const wrongPid = controller.agent?.pid;
    await controller.authenticate(key, noTerminal, { TEST_KEY: "secret" });
    expect(controller.agent?.pid).not.toBe(pid);
    expect(controller.agent?.pid).not.toBe(wrongPid);
    expect(controller.phase).toBe("ready");
    // The retried prompt went to the new process's session.
    expect(controller.sessionId).toBe(`${controller.agent?.pid}-1`);
    expect(controller.state?.turns.map((t) => t.stopReason)).toEqual(["end_turn"]);
  });

  it("runs a terminal login with the agent's own command, and only a clean exit counts", async () => {
    const marker = join(temp, "logged-in");
    const controller = controllerFor({
      command: process.execPath,
      args: [join(repoRoot, "test", "cli", "fixtures", "login-agent.mjs"), marker],
      label: "login",
    });
    await controller.start();
    expect(controller.phase).toBe("auth-required");
    const method = controller.authMethods[0]!;
    const runs: string[][] = [];
    const typing =
      (token: string) => (command: string, args: readonly string[], env: NodeJS.ProcessEnv) =>
        new Promise<number | null>((resolve, reject) => {
          runs.push([command, ...args]);
          const child = spawn(command, args, { env, stdio: ["pipe", "ignore", "ignore"] });
          child.on("error", reject);
          child.on("exit", (code) => resolve(code));
          child.stdin.end(`${token}\n`);
        });
    await expect(controller.authenticate(method, typing("wrong"))).rejects.toThrow(/not logged in/);
    expect(controller.phase).toBe("auth-required");
    // The command ended well but the agent still refuses: its own reason is told.
    await expect(controller.authenticate(method, typing("skip"))).rejects.toThrow(
      "The agent still asks to log in: no login token found; run the login again.",
    );
    expect(controller.phase).toBe("auth-required");
    expect(existsSync(marker)).toBe(false);
    await controller.authenticate(method, typing("open sesame"));
    expect(controller.phase).toBe("ready");
    expect(runs[0]).toEqual([
      process.execPath,
      join(repoRoot, "test", "cli", "fixtures", "login-agent.mjs"),
      marker,
      "--login",
    ]);
  });

  it("gives up on a session/new the agent never answers, after sessionSetupTimeoutMs", async () => {
    const controller = new AgentController({
      target: rawAgent("silent"),
      cwd: repoRoot,
      policies: [],
      sessionSetupTimeoutMs: 300,
    });
    controllers.push(controller);
    await expect(controller.start()).rejects.toThrow(/session\/new/);
    expect(controller.phase).toBe("exited");
    expect(controller.exit?.error).toMatch(/session\/new got no answer within 300 ms/);
  });

  it("switches sessions the way the agent supports (here: load)", async () => {
    const controller = controllerFor(rawAgent("new"));
    await controller.start();
    await controller.authenticate(controller.authMethods[0]!, noTerminal);
    expect(controller.restoreMethod).toBe("session/load");
    await expect(controller.switchSession("older")).resolves.toBe("loaded");
    expect(controller.sessionId).toBe("older");
  });
});

describe("UiModel permission questions", () => {
  const request = (toolCallId: string): RequestPermissionRequest => ({
    sessionId: "s1",
    toolCall: { toolCallId },
    options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
  });
  const info = (signal: AbortSignal): PermissionPromptInfo =>
    ({ signal, context: { sessionId: "s1" } }) as unknown as PermissionPromptInfo;

  it("queues questions with distinct ids and answers them in any order", async () => {
    const ui = new UiModel();
    const first = ui.askPermission(request("a"), info(new AbortController().signal));
    const second = ui.askPermission(request("b"), info(new AbortController().signal));
    const [qa, qb] = ui.questions;
    expect(qa?.id).not.toBe(qb?.id);
    qb?.answer({ outcome: "selected", optionId: "ok" });
    expect(ui.questions.map((q) => q.request.toolCall.toolCallId)).toEqual(["a"]);
    qa?.answer({ outcome: "cancelled" });
    await expect(second).resolves.toEqual({ outcome: "selected", optionId: "ok" });
    await expect(first).resolves.toEqual({ outcome: "cancelled" });
    expect(ui.questions).toEqual([]);
  });

  it("answers cancelled when the turn is cancelled, before or while the question is open", async () => {
    const ui = new UiModel();
    const aborted = new AbortController();
    aborted.abort();
    await expect(ui.askPermission(request("a"), info(aborted.signal))).resolves.toEqual({
      outcome: "cancelled",
    });
    expect(ui.questions).toEqual([]);
    const later = new AbortController();
    const open = ui.askPermission(request("b"), info(later.signal));
    expect(ui.questions).toHaveLength(1);
    later.abort();
    await expect(open).resolves.toEqual({ outcome: "cancelled" });
    expect(ui.questions).toEqual([]);
  });
});
