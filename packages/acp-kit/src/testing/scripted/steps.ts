/**
 * What each step kind does: streaming, plans, session state updates and turn control.
 * Tool calls, permissions, files and terminals are in `scripted-tool-steps.ts`.
 *
 * @module
 */
import { ErrorCodes } from "../../base/error-codes.js";
import { RequestError } from "../../jsonrpc/errors.js";
import type * as schema from "../../schema/types.gen.js";
import type { ScenarioPlanEntry } from "../scenario/step-types.js";
import type { StepKind, StepOf } from "../scenario/vocabulary.js";
import type { Flow, StepHandler, StepHandlers, StepRunner } from "./runner.js";
import { visibleConfigOptions } from "./sessions.js";
import { aborted, splitText } from "./timing.js";
import { TOOL_STEP_HANDLERS } from "./tool-steps.js";

type Handlers<K extends StepKind> = { readonly [P in K]: StepHandler<StepOf<P>> };

async function stream(
  runner: StepRunner,
  kind: "agent_message_chunk" | "agent_thought_chunk",
  value: string | readonly string[],
  step: { chunk?: StepOf<"text">["chunk"]; delayMs?: number; messageId?: string },
): Promise<Flow> {
  const chunks =
    typeof value === "string"
      ? splitText(runner.text(value), step.chunk)
      : value.map((chunk) => runner.text(chunk));
  const messageId = step.messageId === undefined ? undefined : runner.text(step.messageId);
  for (const text of chunks) {
    await runner.sleep(step.delayMs);
    const content: schema.ContentBlock = { type: "text", text };
    await runner.send(
      messageId === undefined
        ? { sessionUpdate: kind, content }
        : { sessionUpdate: kind, content, messageId },
    );
  }
  return undefined;
}

function planEntry(entry: ScenarioPlanEntry, runner: StepRunner): schema.PlanEntry {
  if (typeof entry === "string") {
    return { content: runner.text(entry), priority: "medium", status: "pending" };
  }
  return {
    content: runner.text(entry.content),
    priority: entry.priority ?? "medium",
    status: entry.status ?? "pending",
  };
}

function sendPlan(runner: StepRunner): Promise<void> {
  const entries = runner.session.plan.map((entry) => ({ ...entry }));
  return runner.send({ sessionUpdate: "plan", entries });
}

const UPDATE_HANDLERS: Handlers<Exclude<StepKind, keyof typeof TOOL_STEP_HANDLERS>> = {
  text: (runner, step) => stream(runner, "agent_message_chunk", step.text, step),
  thought: (runner, step) => stream(runner, "agent_thought_chunk", step.thought, step),
  message: async (runner, step) => {
    const content = runner.deep(step.message);
    const update: schema.SessionUpdate = { sessionUpdate: "agent_message_chunk", content };
    if (step.messageId !== undefined) update.messageId = runner.text(step.messageId);
    await runner.send(update);
    return undefined;
  },
  delay: async (runner, step) => {
    await runner.sleep(step.delay);
    return undefined;
  },
  plan: async (runner, step) => {
    runner.session.plan = step.plan.map((entry) => planEntry(entry, runner));
    await sendPlan(runner);
    return undefined;
  },
  planEntry: async (runner, step) => {
    const plan = runner.session.plan;
    const ref = typeof step.planEntry === "number" ? step.planEntry : runner.text(step.planEntry);
    const entry = typeof ref === "number" ? plan[ref] : plan.find((e) => e.content === ref);
    if (entry === undefined) {
      throw new RequestError(
        ErrorCodes.INTERNAL_ERROR,
        `The plan has no entry ${JSON.stringify(ref)}`,
      );
    }
    entry.status = step.status;
    await sendPlan(runner);
    return undefined;
  },
  mode: async (runner, step) => {
    const modes = runner.session.modes;
    if (modes !== undefined) modes.currentModeId = step.mode;
    await runner.send({ sessionUpdate: "current_mode_update", currentModeId: step.mode });
    return undefined;
  },
  commands: async (runner, step) => {
    const availableCommands = runner.deep([...step.commands]);
    runner.session.commands = availableCommands;
    await runner.send({ sessionUpdate: "available_commands_update", availableCommands });
    return undefined;
  },
  setConfig: async (runner, step) => {
    const options = runner.session.configOptions ?? [];
    for (const [id, value] of Object.entries(step.setConfig)) {
      const option = options.find((candidate) => candidate.id === id);
      if (option !== undefined) (option as { currentValue: unknown }).currentValue = value;
    }
    const visible = visibleConfigOptions(options, runner.env.clientCapabilities());
    await runner.send({ sessionUpdate: "config_option_update", configOptions: visible });
    return undefined;
  },
  sessionInfo: async (runner, step) => {
    const info = runner.deep(step.sessionInfo);
    const update: schema.SessionUpdate = { sessionUpdate: "session_info_update" };
    if (info.title !== undefined) {
      update.title = info.title;
      runner.session.title = info.title;
    }
    if (info.updatedAt !== undefined) {
      update.updatedAt = info.updatedAt;
      runner.session.updatedAt = info.updatedAt;
    }
    await runner.send(update);
    return undefined;
  },
  usage: async (runner, step) => {
    await runner.send({ sessionUpdate: "usage_update", ...runner.deep(step.usage) });
    return undefined;
  },
  update: async (runner, step) => {
    await runner.send(runner.deep(step.update));
    return undefined;
  },
  waitForCancel: async (runner, step) => {
    await aborted(runner.turn.signal);
    runner.afterCancel = true;
    const flow = step.waitForCancel === true ? undefined : await runner.run(step.waitForCancel);
    return flow ?? { stop: "cancelled" };
  },
  fail: (runner, step) => {
    const { code, message, data } = step.fail;
    const error = new RequestError(code, runner.text(message), runner.deep(data));
    return Promise.reject(error);
  },
  stop: (_runner, step) => Promise.resolve({ stop: step.stop }),
};

/** The handler of every step kind. @internal */
export const STEP_HANDLERS: StepHandlers = { ...UPDATE_HANDLERS, ...TOOL_STEP_HANDLERS };
