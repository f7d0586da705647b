/**
 * What the client's own slash commands do.
 *
 * @module
 */
import {
  selectOptionValues,
  sessionSetting,
  threadLength,
  type SessionConfigOption,
} from "acp-kit";
import type { AgentController } from "../controller.js";
import { failureText } from "../exit-codes.js";
import { allCommands } from "./slash.js";
import type { UiModel } from "./ui-model.js";
import { printable } from "../terminal-text.js";

function describeOption(option: SessionConfigOption): string {
  if (option.type === "boolean")
    return `${option.id} = ${String(option.currentValue)}  (${option.name}; true/false)`;
  const values = selectOptionValues(option).map((v) =>
    v.value === option.currentValue ? `[${v.value}]` : v.value,
  );
  return `${option.id} = ${option.currentValue}  (${option.name}: ${values.join(" ")})`;
}

async function modeCommand(args: string, controller: AgentController, ui: UiModel): Promise<void> {
  const state = controller.state;
  if (args === "") {
    // Where the mode lives (its config option, else the session's modes) is the library's
    // decision, the same one `setMode` follows.
    const setting = sessionSetting(state, "mode");
    const option = state?.configOptions?.find((o) => o.id === setting?.configId);
    if (option !== undefined) ui.notify("info", describeOption(option));
    else if (setting !== undefined) {
      const list = setting.values.map((m) => (m.id === setting.current ? `[${m.id}]` : m.id));
      ui.notify("info", `modes: ${list.join(" ")}`);
    } else ui.notify("info", "This agent has no modes.");
    return;
  }
  await controller.setMode(args);
  ui.notify("info", `mode: ${args}`);
}

async function modelCommand(args: string, controller: AgentController, ui: UiModel): Promise<void> {
  // The model's config option, as the library finds it (the one `setModel` sets).
  const configId = sessionSetting(controller.state, "model")?.configId;
  const option = controller.state?.configOptions?.find((o) => o.id === configId);
  if (option === undefined) {
    ui.notify("info", "This agent has no model option.");
    return;
  }
  if (args === "") {
    ui.notify("info", describeOption(option));
    return;
  }
  await controller.setModel(args);
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

/**
 * The session meant by what was typed after `/sessions`: its number in the list, a whole
 * id, or the unique start of one. Several matches come back as a list; none as undefined.
 * When the agent cannot list sessions, what was typed is taken as the id.
 */
async function resolveSessionId(
  typed: string,
  controller: AgentController,
): Promise<string | string[] | undefined> {
  let ids: string[];
  try {
    ids = (await controller.listSessions()).map((s) => s.sessionId);
  } catch {
    return typed;
  }
  if (ids.includes(typed)) return typed;
  if (/^\d+$/.test(typed)) {
    const byNumber = ids[Number(typed) - 1];
    if (byNumber !== undefined) return byNumber;
  }
  const matches = ids.filter((id) => id.startsWith(typed));
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) return matches;
  return ids.length === 0 ? typed : undefined;
}

/**
 * The mode after the current one (Shift-Tab), from the `mode` config option or the
 * session's modes; undefined when there are fewer than two.
 */
export function nextMode(controller: AgentController): { id: string; name: string } | undefined {
  const setting = sessionSetting(controller.state, "mode");
  const list = setting?.values ?? [];
  if (list.length < 2) return undefined;
  const at = list.findIndex((m) => m.id === setting?.current);
  const next = list[(at + 1) % list.length];
  return next === undefined ? undefined : { id: next.id, name: next.name };
}

/** Switches to the next mode (Shift-Tab); says which, or why not. */
export async function cycleMode(controller: AgentController, ui: UiModel): Promise<void> {
  const next = nextMode(controller);
  if (next === undefined) {
    ui.notify("info", "This agent has no modes to cycle through.");
    return;
  }
  try {
    await modeCommand(next.id, controller, ui);
  } catch (error) {
    ui.notify("error", failureText(error));
  }
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
            .map((s, i) =>
              [
                `${s.sessionId === controller.sessionId ? "*" : " "} ${String(i + 1).padStart(2)}. ${printable(s.sessionId)}`,
                s.title,
                s.updatedAt,
              ]
                .filter((part) => part != null && part !== "")
                .join("  "),
            )
            .join("\n") + "\nSwitch with /sessions <number>, or the start of an id.",
    );
    return;
  }
  const id = await resolveSessionId(args, controller);
  if (id === undefined) {
    ui.notify("warn", `No session matches "${args}" (/sessions lists them).`);
    return;
  }
  if (typeof id !== "string") {
    ui.notify(
      "warn",
      `"${args}" matches ${id.length} sessions: ${id.join(", ")}. Type more of the id.`,
    );
    return;
  }
  args = id;
  ui.notify("info", `Switching to session ${args}…`);
  // A loaded session's history is replayed by the agent: show it again from the start.
  // Whether it is loaded or resumed is the library's decision (its restore method).
  if (controller.restoreMethod === "session/load") ui.replay(args);
  const how = await controller.switchSession(args);
  // The replayed history first, then the notice that says it is complete.
  const state = controller.state;
  if (state !== undefined) ui.settle(args, state, threadLength(state), state.plan);
  ui.notify("info", `${how === "loaded" ? "Loaded" : "Resumed"} session ${args}.`);
}

/**
 * `/logout`: the agent's `logout` when it supports it; variables given at an `env_var`
 * login of this run are dropped (the agent restarts without them).
 */
async function logoutCommand(controller: AgentController, ui: UiModel): Promise<void> {
  if (!controller.canLogout) {
    ui.notify(
      "info",
      "This agent does not support logout (it does not advertise auth.logout), and no login variables were given in this run.",
    );
    return;
  }
  const { loggedOut, dropped } = await controller.logout();
  const parts = [
    ...(loggedOut ? ["Logged out."] : []),
    ...(dropped.length > 0
      ? [`Dropped ${dropped.join(", ")} (given at the login); the agent restarted without them.`]
      : []),
  ];
  ui.notify("info", parts.join(" "));
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
      "/mode, /model and /sessions alone open a picker (↑↓ move · Enter choose · Esc leave); Tab after them completes their values.",
      "Keys: Enter send (during a turn: queue) · \\ Enter or Shift-Enter new line · Tab complete · ↑↓ history · Ctrl-R search history · Ctrl-G edit in $EDITOR · Esc cancel the turn (with prompts queued: clear the queue) · Shift-Tab next mode · Ctrl-C cancel (twice: exit) · Ctrl-T thoughts · Ctrl-O tool output · @file mention a file · !command run it here",
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
        await modelCommand(args, controller, ui);
        return;
      case "config":
        await configCommand(args, controller, ui);
        return;
      case "sessions":
        await sessionsCommand(args, controller, ui);
        return;
      case "new":
        await controller.openSession();
        ui.notify("info", `New session ${printable(controller.sessionId ?? "")}.`);
        return;
      case "logout":
        await logoutCommand(controller, ui);
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
