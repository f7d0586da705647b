/**
 * What the client's own slash commands do.
 *
 * @module
 */
import type { SessionConfigOption } from "../../schema/types.gen.js";
import type { AgentController } from "../controller.js";
import { failureText } from "../exit-codes.js";
import { allCommands } from "./slash.js";
import type { UiModel } from "./ui-model.js";

/** The flat list of values of a select config option. */
export function selectValues(option: SessionConfigOption): { value: string; name: string }[] {
  if (option.type !== "select") return [];
  const list = option.options as readonly (
    { value: string; name: string } | { options: { value: string; name: string }[] }
  )[];
  return list.flatMap((entry) => ("options" in entry ? entry.options : [entry]));
}

function describeOption(option: SessionConfigOption): string {
  if (option.type === "boolean")
    return `${option.id} = ${String(option.currentValue)}  (${option.name}; true/false)`;
  const values = selectValues(option).map((v) =>
    v.value === option.currentValue ? `[${v.value}]` : v.value,
  );
  return `${option.id} = ${option.currentValue}  (${option.name}: ${values.join(" ")})`;
}

async function modeCommand(args: string, controller: AgentController, ui: UiModel): Promise<void> {
  const state = controller.state;
  const modeOption = state?.configOptions?.find((o) => o.category === "mode");
  if (args === "") {
    if (modeOption !== undefined) ui.notify("info", describeOption(modeOption));
    else if (state?.availableModes != null) {
      const list = state.availableModes.map((m) =>
        m.id === state.currentModeId ? `[${m.id}]` : m.id,
      );
      ui.notify("info", `modes: ${list.join(" ")}`);
    } else ui.notify("info", "This agent has no modes.");
    return;
  }
  if (modeOption !== undefined) await controller.setConfigOption(modeOption.id, args);
  else await controller.setMode(args);
  ui.notify("info", `mode: ${args}`);
}

async function optionCommand(
  category: "model",
  args: string,
  controller: AgentController,
  ui: UiModel,
): Promise<void> {
  const option = controller.state?.configOptions?.find((o) => o.category === category);
  if (option === undefined) {
    ui.notify("info", `This agent has no ${category} option.`);
    return;
  }
  if (args === "") {
    ui.notify("info", describeOption(option));
    return;
  }
  await controller.setConfigOption(option.id, args);
  ui.notify("info", `${option.name}: ${args}`);
}

async function configCommand(
  args: string,
  controller: AgentController,
  ui: UiModel,
): Promise<void> {
  const options = controller.state?.configOptions ?? [];
  if (args === "") {
    ui.notify(
      "info",
      options.length === 0 ? "No config options." : options.map(describeOption).join("\n"),
    );
    return;
  }
  if (options.length === 0) {
    ui.notify("warn", "This agent has no config options.");
    return;
  }
  const [id = "", ...rest] = args.split(/\s+/);
  const option = options.find((o) => o.id === id);
  if (option === undefined) {
    ui.notify("warn", `There is no config option "${id}". /config lists them.`);
    return;
  }
  if (rest.length === 0) {
    ui.notify("warn", `Usage: /config ${id} <value> (${describeOption(option)})`);
    return;
  }
  const raw = rest.join(" ");
  const value = option.type === "boolean" ? raw === "true" || raw === "on" : raw;
  await controller.setConfigOption(option.id, value);
  ui.notify("info", `${option.name}: ${raw}`);
}

async function sessionsCommand(
  args: string,
  controller: AgentController,
  ui: UiModel,
): Promise<void> {
  if (args === "") {
    const sessions = await controller.listSessions();
    ui.notify(
      "info",
      sessions.length === 0
        ? "No sessions."
        : sessions
            .map((s) =>
              [
                `${s.sessionId === controller.sessionId ? "*" : " "} ${s.sessionId}`,
                s.title,
                s.updatedAt,
              ]
                .filter((part) => part != null && part !== "")
                .join("  "),
            )
            .join("\n") + "\nSwitch with /sessions <id>.",
    );
    return;
  }
  ui.notify("info", `Switching to session ${args}…`);
  // A loaded session's history is replayed by the agent: show it again from the start.
  if (controller.info?.agentCapabilities?.loadSession === true) ui.replay(args);
  const how = await controller.switchSession(args);
  // The replayed history first, then the notice that says it is complete.
  const state = controller.state;
  if (state !== undefined) ui.settle(args, state.thread, state.thread.length, state.plan);
  ui.notify("info", `${how === "loaded" ? "Loaded" : "Resumed"} session ${args}.`);
}

function help(controller: AgentController, ui: UiModel): void {
  const lines = allCommands(controller.state?.availableCommands ?? null).map(
    (c) =>
      `/${c.name}${c.hint === undefined ? "" : ` ${c.hint}`}  ${c.description}${c.source === "agent" ? "  (agent)" : ""}`,
  );
  ui.notify(
    "info",
    [
      ...lines,
      "",
      "Keys: Enter send · Tab complete · ↑↓ history · Ctrl-C cancel (twice: exit) · Ctrl-T thoughts",
    ].join("\n"),
  );
}

/**
 * Runs a client command. Resolves with `"quit"` for `/quit`; reports failures as notices.
 */
export async function runClientCommand(
  name: string,
  args: string,
  controller: AgentController,
  ui: UiModel,
): Promise<"quit" | undefined> {
  try {
    switch (name) {
      case "help":
        help(controller, ui);
        return;
      case "mode":
        await modeCommand(args, controller, ui);
        return;
      case "model":
        await optionCommand("model", args, controller, ui);
        return;
      case "config":
        await configCommand(args, controller, ui);
        return;
      case "sessions":
        await sessionsCommand(args, controller, ui);
        return;
      case "new":
        await controller.openSession();
        ui.notify("info", `New session ${controller.sessionId ?? ""}.`);
        return;
      case "restart":
        ui.notify("info", "Restarting the agent…");
        await controller.restart();
        return;
      case "quit":
      case "exit":
        return "quit";
      default:
        ui.notify("warn", `Unknown command /${name}. Type /help for the list.`);
        return;
    }
  } catch (error) {
    ui.notify("error", failureText(error));
    return;
  }
}
