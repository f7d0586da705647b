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
  LIVE_TURN_NEEDED,
  LOGIN_NEEDED,
  checkSessionDelete,
  checkSessionList,
  checkSessionLoad,
  checkSessionNew,
  checkSessionResume,
} from "./checks/sessions.js";
import { agentMessage, describe, type CheckChannel, type RunContext } from "./checks/support.js";
import { checkCancel, checkPromptTurn, checkSessionClose } from "./checks/turns.js";
import { skipped, type CheckOutcome } from "./catalog.js";
import type { WireOutcome } from "./wire.js";

/** What the main connection leaves for the checks decided at the end. */
export interface MainState {
  /** The outcome of `initialize` with the current protocol version. */
  readonly init: WireOutcome;
  /** Whether a prompt turn ran against the model (false: no login, network, timeout). */
  readonly live?: boolean;
}

/** Where the main connection reports its outcomes (see `CheckResults`). */
export interface ResultSink {
  /** Sets a check's outcome. */
  set(id: string, outcome: CheckOutcome): void;
  /** Skips the checks of `ids` not decided yet. */
  skipRest(ids: readonly string[], reason: string): void;
  /** Adds a remark about the whole run (said once in the report). */
  note(text: string): void;
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

interface AuthMethodSeen {
  readonly id: string;
  readonly type: string;
  readonly vars: string[];
}

function authMethodsOf(result: unknown): AuthMethodSeen[] {
  const methods =
    typeof result === "object" && result !== null
      ? (result as { authMethods?: unknown }).authMethods
      : undefined;
  if (!Array.isArray(methods)) return [];
  return methods.flatMap((method: unknown) => {
    if (typeof method !== "object" || method === null) return [];
    const { id, type, vars } = method as { id?: unknown; type?: unknown; vars?: unknown };
    if (typeof id !== "string") return [];
    const names = Array.isArray(vars)
      ? vars.flatMap((entry: unknown) => {
          const name =
            typeof entry === "string"
              ? entry
              : typeof entry === "object" && entry !== null
                ? (entry as { name?: unknown }).name
                : undefined;
          return typeof name === "string" ? [name] : [];
        })
      : [];
    return [{ id, type: typeof type === "string" ? type : "agent", vars: names }];
  });
}

/** The login methods an agent offers, in words: `token (agent), key (env_var: API_KEY)`. */
function describeAuthMethods(init: WireOutcome): string {
  const methods = init.kind === "result" ? authMethodsOf(init.result) : [];
  if (methods.length === 0) return "none";
  return methods
    .map((m) => `${m.id} (${m.type}${m.vars.length > 0 ? `: ${m.vars.join(", ")}` : ""})`)
    .join(", ");
}

/**
 * Logs in with `context.auth` after `initialize`: `authenticate` with the method (its
 * environment variables, for an `env_var` method, come from the checker's environment,
 * which the agent inherits). Resolves with why it failed, or `undefined` when it worked
 * or no login was asked for.
 */
export async function logIn(
  context: RunContext,
  channel: CheckChannel,
  init: WireOutcome,
): Promise<string | undefined> {
  const methodId = context.auth;
  if (methodId === undefined || init.kind !== "result") return undefined;
  const method = authMethodsOf(init.result).find((candidate) => candidate.id === methodId);
  if (method === undefined) {
    return `--auth ${methodId}: the agent offers no such login method (it offers: ${describeAuthMethods(init)})`;
  }
  if (method.type === "terminal") {
    return `--auth ${methodId}: a terminal login is interactive; log in with the agent's own command first, then run the check without --auth`;
  }
  const env = context.command.env ?? {};
  const missing = method.vars.filter(
    (name) => ((name in env ? env[name] : process.env[name]) ?? "") === "",
  );
  if (missing.length > 0) {
    return `--auth ${methodId}: set ${missing.join(", ")} in the environment (the agent inherits it)`;
  }
  const answer = await channel.request("authenticate", { methodId });
  if (answer.kind === "result") return undefined;
  if (answer.kind === "error") {
    return `--auth ${methodId}: authenticate answered error ${answer.error.code}: ${agentMessage(answer.error)}`;
  }
  return `--auth ${methodId}: authenticate ${answer.kind === "timeout" ? `did not answer within ${answer.timeoutMs} ms` : `did not answer: ${answer.reason}`}`;
}

/**
 * Undoes a login of `--auth` once a connection's checks are done: `logout` when the agent
 * advertises `auth.logout` (an agent that stored the credential would otherwise keep it
 * after the check). Resolves with what happened, to note in the report, or `undefined`
 * when there was no login to undo (none asked for, it failed, or the agent had stopped).
 */
export async function logOut(
  context: RunContext,
  channel: CheckChannel,
  init: WireOutcome,
  loginFailed: string | undefined,
): Promise<string | undefined> {
  const methodId = context.auth;
  if (methodId === undefined || loginFailed !== undefined || init.kind !== "result") {
    return undefined;
  }
  if (channel.process.wire.closed !== undefined) return undefined;
  const logout = capabilitiesOf(init.result).auth?.logout;
  if (logout === undefined || logout === null) {
    return `The agent cannot log out (no auth.logout): a login it stored with --auth ${methodId} stays after the check.`;
  }
  const answer = await channel.request("logout", {});
  return answer.kind === "result"
    ? `Logged out after the checks (--auth ${methodId}).`
    : `--auth ${methodId}: logout after the checks ${describe(answer)}.`;
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
  const login: { failed?: string } = {};
  const state = await runMainChecks(context, channel, results, login);
  const said = await logOut(context, channel, state.init, login.failed);
  if (said !== undefined) results.note(said);
  return state;
}

/** {@link runMainConnection}'s checks; `login.failed` says why `--auth` failed. */
async function runMainChecks(
  context: RunContext,
  channel: CheckChannel,
  results: ResultSink,
  login: { failed?: string },
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
  const loginFailed = await logIn(context, channel, init);
  if (loginFailed !== undefined) login.failed = loginFailed;
  if (loginFailed !== undefined) results.note(loginFailed);
  else if (context.auth !== undefined) results.note(`Logged in with --auth ${context.auth}.`);
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
    results.skipRest(MAIN_CHECKS, LOGIN_NEEDED);
    results.note(
      `The agent wants a login (session/new answered -32000): the checks that need a session were not run. ` +
        `Its login methods: ${describeAuthMethods(init)}. Run again with --auth METHOD.`,
    );
    return { init, live: false };
  }
  const [first, second] = created.ids;
  if (first === undefined) {
    results.skipRest(MAIN_CHECKS, "No session could be created (see session-new)");
    return { init };
  }
  let withHistory: string | undefined;
  const turnState = { live: true, login: false };
  await run("prompt-turn", async () => {
    const turn = await checkPromptTurn(context, channel, first);
    withHistory = turn.completed ? first : undefined;
    turnState.live = turn.live;
    turnState.login = turn.login === true;
    return turn.outcome;
  });
  const { live } = turnState;
  if (turnState.login) {
    results.note(
      `The agent wants a login at the first prompt (session/prompt answered -32000): the checks that need a live turn were not run. ` +
        `Its login methods: ${describeAuthMethods(init)}. Run again with --auth METHOD.`,
    );
  }
  if (!live) {
    // Said once on prompt-turn; the checks that need a live turn are not run.
    for (const id of ["cancel", "session-load", "session-close"]) {
      results.set(id, skipped(LIVE_TURN_NEEDED));
    }
  }
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
  return { init, live };
}
