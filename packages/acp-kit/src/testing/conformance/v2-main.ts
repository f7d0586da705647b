/**
 * The main connection of an agent check run in ACP v2: a v2 `initialize`, the answers to
 * what the agent does not know, sessions and the baseline methods, a prompt turn, a
 * cancelled one and one ended by `session/close`.
 *
 * @module
 */
import { skipped, type CheckOutcome } from "./catalog.js";
import {
  checkInvalidParams,
  checkNotificationsUnanswered,
  checkUnknownExtensionMethod,
  checkUnknownMethod,
} from "./checks/methods.js";
import { LIVE_TURN_NEEDED, LOGIN_NEEDED } from "./checks/sessions.js";
import { describe, type CheckChannel, type RunContext } from "./checks/support.js";
import { isPlainObject } from "../../base/messages.js";
import {
  advertisesDelete,
  advertisesSessions,
  checkV2Cancel,
  checkV2Initialize,
  checkV2PromptTurn,
  checkV2SessionClose,
  checkV2SessionDelete,
  checkV2SessionList,
  checkV2SessionNew,
  checkV2SessionResume,
  v2InitializeParams,
} from "./checks/v2.js";
import type { ResultSink } from "./main.js";
import type { WireOutcome } from "./wire.js";

/** The checks decided on the v2 main connection. */
const V2_MAIN_CHECKS = [
  "v2-initialize",
  "unknown-method",
  "unknown-extension-method",
  "notifications-unanswered",
  "invalid-params",
  "v2-session-new",
  "v2-prompt-turn",
  "v2-stop-reason",
  "v2-cancel",
  "v2-session-list",
  "v2-session-resume",
  "v2-session-close",
  "v2-session-delete",
] as const;

/**
 * Logs in with `context.auth` after a v2 `initialize`: `auth/login` with that method (its
 * `methodId` among the answer's `authMethods`). Resolves with why it failed, or
 * `undefined` when it worked or no login was asked for.
 */
async function logInV2(
  context: RunContext,
  channel: CheckChannel,
  init: WireOutcome,
): Promise<string | undefined> {
  const methodId = context.auth;
  if (methodId === undefined || init.kind !== "result") return undefined;
  const result = isPlainObject(init.result) ? init.result : {};
  const methods = Array.isArray(result.authMethods) ? result.authMethods : [];
  const ids = methods.flatMap((method: unknown) =>
    isPlainObject(method) && typeof method.methodId === "string" ? [method.methodId] : [],
  );
  if (!ids.includes(methodId)) {
    return `--auth ${methodId}: the agent offers no such login method (it offers: ${ids.join(", ") || "none"})`;
  }
  const answer = await channel.request("auth/login", { methodId });
  if (answer.kind === "result") return undefined;
  return `--auth ${methodId}: auth/login ${describe(answer)}`;
}

/**
 * Runs the v2 main connection's checks, in order, into `results`; resolves with the
 * `initialize` outcome. Once the agent's process has ended, the checks left are skipped.
 */
export async function runV2MainConnection(
  context: RunContext,
  channel: CheckChannel,
  results: ResultSink,
): Promise<WireOutcome> {
  const init = await channel.request(
    "initialize",
    v2InitializeParams(false),
    context.timeouts.initializeMs,
  );
  results.set("v2-initialize", checkV2Initialize(context.log, init));
  if (init.kind !== "result") {
    results.skipRest(V2_MAIN_CHECKS, "initialize did not succeed (see v2-initialize)");
    return init;
  }
  const loginFailed = await logInV2(context, channel, init);
  if (loginFailed !== undefined) results.note(loginFailed);
  else if (context.auth !== undefined) results.note(`Logged in with --auth ${context.auth}.`);
  const run = async (id: string, check: () => Promise<CheckOutcome>): Promise<boolean> => {
    const ended = channel.process.wire.closed;
    if (ended !== undefined) {
      results.skipRest(V2_MAIN_CHECKS, `The agent had stopped (${ended}) before this check`);
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
  for (const [id, check] of basics) if (!(await run(id, check))) return init;
  if (!advertisesSessions(init)) {
    results.skipRest(V2_MAIN_CHECKS, "Not advertised (capabilities.session)");
    return init;
  }
  const created = await checkV2SessionNew(context, channel);
  results.set("v2-session-new", created.outcome);
  if (created.authRequired) {
    results.skipRest(V2_MAIN_CHECKS, LOGIN_NEEDED);
    results.note(
      "The agent wants a login (session/new answered -32000): the checks that need a session were not run.",
    );
    return init;
  }
  const [first, second] = created.ids;
  if (first === undefined) {
    results.skipRest(V2_MAIN_CHECKS, "No session could be created (see v2-session-new)");
    return init;
  }
  const turnState = { live: true };
  const proceed = await run("v2-prompt-turn", async () => {
    const turn = await checkV2PromptTurn(context, channel, first);
    results.set("v2-stop-reason", turn.stopReason);
    turnState.live = turn.live;
    if (turn.login) {
      results.note(
        "The agent wants a login at the first prompt (session/prompt answered -32000): the checks that need a live turn were not run.",
      );
    }
    return turn.outcome;
  });
  if (!proceed) return init;
  const needsLiveTurn = new Set(["v2-cancel", "v2-session-close"]);
  const { live } = turnState;
  if (!live) for (const id of needsLiveTurn) results.set(id, skipped(LIVE_TURN_NEEDED));
  const other = second ?? first;
  const lifecycle: [string, () => Promise<CheckOutcome>][] = [
    ["v2-cancel", () => checkV2Cancel(context, channel, other)],
    ["v2-session-list", () => checkV2SessionList(context, channel, created.ids)],
    ["v2-session-resume", () => checkV2SessionResume(context, channel, first)],
    ["v2-session-close", () => checkV2SessionClose(context, channel)],
    [
      "v2-session-delete",
      () =>
        advertisesDelete(init)
          ? checkV2SessionDelete(context, channel, other)
          : Promise.resolve(skipped("Not advertised (capabilities.session.delete)")),
    ],
  ];
  for (const [id, check] of lifecycle) {
    if (!live && needsLiveTurn.has(id)) continue;
    if (!(await run(id, check))) break;
  }
  return init;
}
