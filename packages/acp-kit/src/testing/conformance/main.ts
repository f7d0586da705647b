/**
 * The main connection of an agent check run: a client advertising files and terminals
 * drives the agent through initialize, unknown methods, sessions, prompt turns,
 * cancellation and the advertised session lifecycle methods.
 *
 * @module
 */
import { PROTOCOL_VERSION } from "../../peer/methods.js";
import type { AgentCapabilities } from "../../schema/types.gen.js";
import { checkInitializeResult, initializeParams } from "./checks/initialize.js";
import {
  checkInvalidParams,
  checkNotificationsUnanswered,
  checkUnknownExtensionMethod,
  checkUnknownMethod,
} from "./checks/methods.js";
import {
  AUTH_REQUIRED_REASON,
  checkSessionDelete,
  checkSessionList,
  checkSessionLoad,
  checkSessionNew,
  checkSessionResume,
} from "./checks/sessions.js";
import type { CheckChannel, RunContext } from "./checks/support.js";
import { checkCancel, checkPromptTurn, checkSessionClose } from "./checks/turns.js";
import type { CheckOutcome } from "./catalog.js";
import type { WireOutcome } from "./wire.js";

/** What the main connection leaves for the checks decided at the end. */
export interface MainState {
  /** The outcome of `initialize` with the current protocol version. */
  readonly init: WireOutcome;
}

/** Where the main connection reports its outcomes (see `CheckResults`). */
export interface ResultSink {
  /** Sets a check's outcome. */
  set(id: string, outcome: CheckOutcome): void;
  /** Skips the checks of `ids` not decided yet. */
  skipRest(ids: readonly string[], reason: string): void;
}

/** The checks decided on the main connection. */
const MAIN_CHECKS = [
  "initialize-result",
  "unknown-method",
  "unknown-extension-method",
  "notifications-unanswered",
  "invalid-params",
  "session-new",
  "prompt-turn",
  "cancel",
  "session-list",
  "session-load",
  "session-resume",
  "session-close",
  "session-delete",
] as const;

function capabilitiesOf(result: unknown): AgentCapabilities {
  const capabilities =
    typeof result === "object" && result !== null
      ? (result as { agentCapabilities?: unknown }).agentCapabilities
      : undefined;
  return typeof capabilities === "object" && capabilities !== null ? capabilities : {};
}

/**
 * Runs the main connection's checks, in order, into `results`. Once the agent's process
 * has ended (a crash), the checks left are skipped with the reason instead of failing
 * one after the other for the same cause.
 */
export async function runMainConnection(
  context: RunContext,
  channel: CheckChannel,
  results: ResultSink,
): Promise<MainState> {
  const init = await channel.request(
    "initialize",
    initializeParams(PROTOCOL_VERSION, true),
    context.timeouts.initializeMs,
  );
  results.set("initialize-result", checkInitializeResult(context.log, init));
  if (init.kind !== "result") {
    results.skipRest(MAIN_CHECKS, "initialize did not succeed (see initialize-result)");
    return { init };
  }
  const capabilities = capabilitiesOf(init.result);
  const run = async (id: string, check: () => Promise<CheckOutcome>): Promise<boolean> => {
    const ended = channel.process.wire.closed;
    if (ended !== undefined) {
      results.skipRest(MAIN_CHECKS, `The agent had stopped (${ended}) before this check`);
      return false;
    }
    results.set(id, await check());
    return true;
  };
  const basics: [string, () => Promise<CheckOutcome>][] = [
    ["unknown-method", () => checkUnknownMethod(context, channel)],
    ["unknown-extension-method", () => checkUnknownExtensionMethod(context, channel)],
    ["notifications-unanswered", () => checkNotificationsUnanswered(context, channel)],
    ["invalid-params", () => checkInvalidParams(context, channel)],
  ];
  for (const [id, check] of basics) if (!(await run(id, check))) return { init };

  const created = await checkSessionNew(context, channel);
  results.set("session-new", created.outcome);
  if (created.authRequired) {
    results.skipRest(MAIN_CHECKS, AUTH_REQUIRED_REASON);
    return { init };
  }
  const [first, second] = created.ids;
  if (first === undefined) {
    results.skipRest(MAIN_CHECKS, "No session could be created (see session-new)");
    return { init };
  }
  let withHistory: string | undefined;
  await run("prompt-turn", async () => {
    const turn = await checkPromptTurn(context, channel, first);
    withHistory = turn.completed ? first : undefined;
    return turn.outcome;
  });
  const other = second ?? first;
  const lifecycle: [string, () => Promise<CheckOutcome>][] = [
    ["cancel", () => checkCancel(context, channel, other)],
    ["session-list", () => checkSessionList(context, channel, capabilities, created.ids)],
    ["session-load", () => checkSessionLoad(context, channel, capabilities, withHistory)],
    ["session-resume", () => checkSessionResume(context, channel, capabilities, first)],
    ["session-close", () => checkSessionClose(context, channel, capabilities)],
    ["session-delete", () => checkSessionDelete(context, channel, capabilities, other)],
  ];
  for (const [id, check] of lifecycle) if (!(await run(id, check))) break;
  return { init };
}
