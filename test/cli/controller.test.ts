/**
 * The CLI's protocol side without a view: {@link AgentController} against real agent
 * processes (starting, failing to start, restarting), and the view model's permission
 * questions.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentController } from "../../packages/cli/src/controller.js";
import { UiModel } from "../../packages/cli/src/run/ui-model.js";
import type { AgentTarget } from "../../packages/cli/src/target.js";
import type { PermissionPromptInfo } from "../../packages/acp-kit/src/node/permission-broker.js";
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
