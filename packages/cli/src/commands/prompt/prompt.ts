/**
 * `acp-kit prompt`: one turn without interaction. Prints the agent's text (stdout), or
 * with `--json` one JSON event per line: every update, every request and its answer,
 * and the stop reason. The exit code says how the turn ended.
 *
 * @module
 */
import { fstatSync } from "node:fs";
import { Writable } from "node:stream";
import { RequestError, threadLength } from "acp-kit";
import type { Client } from "acp-kit";
import { jsonText } from "acp-kit/internal";
import { peerRequestObserver, type PeerRequestEvent } from "acp-kit";
import { AuthRequiredError, errorDataText, loginPlan } from "acp-kit";
import { wrapClient } from "acp-kit/internal";
import type * as schema from "acp-kit";
import { AgentController } from "../../controller.js";
import {
  promptSession,
  rememberSessions,
  restoreOrNew,
  resumeCommand,
  type SessionMemory,
} from "../../session-memory.js";
import { describeFailure, ExitCodes, exitCodeForStopReason } from "../../exit-codes.js";
import { endOnSignals, signalExitCode } from "../../signals.js";
import type { SessionSettings } from "../../session-options.js";
import type { McpServers } from "../../mcp-config.js";
import type { AgentTarget } from "../../target.js";
import type { PermissionPolicy, PermissionPrompt } from "acp-kit/node";
import { printable } from "../../terminal-text.js";
import { policySource } from "../../policy-flags.js";
import { PromptReport, type PermissionDecider } from "../../prompt-report.js";
import { UsageError } from "../../target.js";

/** Options of {@link runPromptCommand}. */
export interface PromptCommandOptions {
  readonly text: string;
  readonly json: boolean;
  readonly target: AgentTarget;
  readonly cwd: string;
  readonly policies: readonly PermissionPolicy[];
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  /** Forward the agent's stderr lines to `err`. */
  readonly verbose?: boolean;
  /** The session's mode and model (`--mode`, `--model`). */
  readonly settings?: SessionSettings;
  /** The MCP servers the session gets (`--mcp-config`). */
  readonly mcpServers?: McpServers;
  /**
   * Remember the session; `name` (`--session`): send to the session of that name
   * (opened and named when there is none); `continue`: to the most recent one.
   */
  readonly sessions?: {
    readonly memory: SessionMemory;
    readonly name?: string;
    readonly continue?: boolean;
  };
  /**
   * Asks the permission questions no policy answers (on the terminal); without it they
   * get the safe answer (a reject).
   */
  readonly ask?: PermissionPrompt;
  /**
   * `--fail-on-refusal`: a refused permission request makes a turn that ended normally
   * exit {@link ExitCodes.PERMISSION_REFUSED}.
   */
  readonly failOnRefusal?: boolean;
  /** `--timeout`: how long the whole run may take, in ms. */
  readonly timeoutMs?: number;
  /**
   * `--auth METHOD`: log in with this method (its id, or its name) once the agent is
   * initialized, before the session opens. An `env_var` method's variables are read from
   * the environment (never stored).
   */
  readonly auth?: string;
}

/** A login that `--auth` could not do; exit code {@link ExitCodes.AUTH_REQUIRED}. */
class LoginError extends Error {}

/** How long a turn cancelled by `--timeout` may take to end before the agent is ended. */
const CANCEL_GRACE_MS = 3000;

/** A method as listed to the user: its id, name, and what it takes. */
function methodText(method: schema.AuthMethod): string {
  const plan = loginPlan(method);
  const how =
    plan.kind === "env_var"
      ? `; set ${plan.vars.map((v) => v.name).join(", ")}`
      : plan.kind === "terminal"
        ? "; a login command"
        : "";
  return `${method.id} (${method.name}${how})`;
}

/**
 * `--auth METHOD`, right after `initialize`: `authenticate` with an agent method, or with
 * an `env_var` method whose variables the environment sets (the agent was started with
 * them). A missing variable, an unknown method, a terminal method or a refusal is a
 * {@link LoginError} (an unknown method: a usage error) saying what to do.
 */
async function logIn(controller: AgentController, wanted: string): Promise<void> {
  const methods = controller.info?.authMethods ?? [];
  const method =
    methods.find((m) => m.id === wanted) ??
    methods.find((m) => m.name.toLowerCase() === wanted.toLowerCase());
  if (method === undefined) {
    throw new UsageError(
      methods.length === 0
        ? `--auth ${wanted}: the agent offers no login methods.`
        : `--auth ${wanted}: the agent has no such login method; its methods: ${methods.map(methodText).join(", ")}.`,
    );
  }
  const plan = loginPlan(method);
  if (plan.kind === "terminal") {
    throw new LoginError(
      `${method.id} (${method.name}) is a login command of the agent's own: log in with \`acp-kit run\` (/login), then try again.`,
    );
  }
  if (plan.kind === "env_var") {
    const missing = controller.missingLoginVars(method);
    if (missing.length > 0) {
      const names = missing.map((v) => (v.label === null ? v.name : `${v.name} (${v.label})`));
      throw new LoginError(
        `To log in with ${method.id} (${method.name}), set ${names.join(", ")} in the environment (acp-kit never stores it).`,
      );
    }
  }
  const client = controller.client;
  if (client === undefined) throw new LoginError("The agent is not running.");
  try {
    await client.authenticate(method.id);
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    const reason = errorDataText(error.data);
    throw new LoginError(
      `The agent refused the login with ${method.id}: ${error.message}${reason === undefined ? "" : ` (${reason})`}.`,
    );
  }
}

/** The controller's `firstSession`: `--auth`'s login, then the session. */
function firstSessionOf(
  options: PromptCommandOptions,
): ((controller: AgentController) => Promise<void>) | undefined {
  const remembered = rememberedFirst(options);
  const wanted = options.auth;
  if (wanted === undefined) return remembered;
  return async (controller) => {
    await logIn(controller, wanted);
    await (remembered === undefined ? controller.openSession() : remembered(controller));
  };
}

/** The controller's `firstSession` for `--session NAME` and `--continue`. */
function rememberedFirst(
  options: PromptCommandOptions,
): ((controller: AgentController) => Promise<void>) | undefined {
  const sessions = options.sessions;
  if (sessions === undefined || (sessions.name === undefined && sessions.continue !== true)) {
    return undefined;
  }
  const { memory, name } = sessions;
  return async (controller) => {
    const sessionId = await promptSession(controller, memory, sessions);
    // A named session the agent no longer has is forgotten; the name goes to a new one.
    const onLost =
      name === undefined
        ? undefined
        : async (lost: string): Promise<boolean> => {
            await memory.store.forget(memory.agent, memory.cwd, lost);
            options.err.write(
              `acp-kit: the agent no longer has session ${lost}; "${name}" is now a new session.\n`,
            );
            return true;
          };
    await restoreOrNew(controller, sessionId, onLost);
  };
}

/** One line of `prompt --json` output. */
export type PromptEvent =
  | {
      type: "initialize";
      agentInfo: schema.Implementation | null;
      protocolVersion: number;
      /** The version the agent speaks (a v2 agent is bridged, so `protocolVersion` is 1). */
      agentProtocol: number | null;
    }
  | { type: "session"; sessionId: string }
  | { type: "update"; sessionId: string; update: schema.SessionUpdate }
  | { type: "request"; method: string; params: unknown }
  | ({ type: "response"; method: string; result: unknown } & Partial<PermissionNotes>)
  | { type: "response"; method: string; error: { code: number; message: string; data?: unknown } }
  | { type: "stop"; stopReason: string }
  | { type: "error"; exitCode: number; message: string };

/** What the `response` event of a `session/request_permission` adds: who answered. */
interface PermissionNotes {
  /** Who answered: the person asked, a policy (`source`: which), or nobody (the safe answer). */
  decidedBy: "you" | "policy" | "nobody";
  source?: string;
  /** Whether the answer refused the tool call. */
  refused: boolean;
}

/** The key of a permission request by its raw params (its session and tool call), if it is one. */
function permissionKey(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  if (!("sessionId" in params) || !("toolCall" in params)) return undefined;
  const { sessionId, toolCall } = params;
  if (typeof sessionId !== "string" || typeof toolCall !== "object" || toolCall === null) {
    return undefined;
  }
  if (!("toolCallId" in toolCall) || typeof toolCall.toolCallId !== "string") return undefined;
  return `${sessionId}\0${toolCall.toolCallId}`;
}

/**
 * The `request` and `response` events of the requests the agent sends, from the library's
 * pairing of the connection's messages; `notes` adds fields to an answer's event.
 */
function requestEvent(
  event: PeerRequestEvent,
  notes: (method: string, params: unknown) => PermissionNotes | undefined,
): PromptEvent {
  const { method } = event;
  if (event.type === "request") return { type: "request", method, params: event.params };
  if ("error" in event) return { type: "response", method, error: event.error };
  return { type: "response", method, result: event.result ?? {}, ...notes(method, event.params) };
}

/**
 * What to tell the user when the agent needs a login: the agent's own reason when it gave
 * one, each method and what it takes, and how to log in (`--auth` with the method whose
 * variables are set, when there is one).
 */
function authMessage(
  controller: AgentController,
  methods: readonly schema.AuthMethod[],
  data?: unknown,
): string {
  const reason = errorDataText(data);
  const list = methods.map(methodText).join(", ");
  const why = reason === undefined ? "" : ` (${reason})`;
  const ready = methods.find(
    (m) => loginPlan(m).kind === "env_var" && controller.missingLoginVars(m).length === 0,
  );
  const how =
    ready === undefined
      ? "Log in with `--auth METHOD` (an env_var method reads its variables from the environment), or with `acp-kit run`, then try again."
      : `${(envVarNames(ready) ?? []).join(", ")} ${(envVarNames(ready)?.length ?? 0) === 1 ? "is" : "are"} set: log in with \`--auth ${ready.id}\`.`;
  return `The agent requires authentication first${why}${list === "" ? "" : `: ${list}`}. ${how}`;
}

function envVarNames(method: schema.AuthMethod): string[] | undefined {
  const plan = loginPlan(method);
  return plan.kind === "env_var"
    ? plan.vars.filter((v) => !v.optional).map((v) => v.name)
    : undefined;
}

/** A stream that drops what is written (the report's text in `--json` mode). */
function nowhere(): NodeJS.WritableStream {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

/** A duration for messages: `90s`, `1.5s`, `250ms`. */
function durationText(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Number((ms / 1000).toFixed(1))}s`;
}

/** Runs the command; resolves with the exit code. */
export async function runPromptCommand(options: PromptCommandOptions): Promise<number> {
  const { out, err, json } = options;
  const write = (event: PromptEvent): void => {
    // jsonText: an agent's value may be nested deeper than JSON.stringify can write (it
    // threw in the update handler, and the event was lost).
    if (json) out.write(`${jsonText(event) ?? "null"}\n`);
  };
  // Agents may send updates before they answer session/new. Those are held until the
  // `initialize` and `session` events are out, so that every run starts the same way.
  let held: PromptEvent[] | undefined = [];
  const emit = (event: PromptEvent): void => {
    const traffic =
      event.type === "update" || event.type === "request" || event.type === "response";
    if (held !== undefined && traffic) held.push(event);
    else write(event);
  };
  const release = (): void => {
    const events = held ?? [];
    held = undefined;
    for (const event of events) write(event);
  };
  const errTerminal = isTerminal(err);
  const report = json
    ? new PromptReport(nowhere(), nowhere(), false)
    : new PromptReport(out, err, sameDestination(out, err));
  // Who answered each permission request (by session and tool call): the policy that
  // decided, or the person asked.
  const deciders = new Map<string, PermissionDecider>();
  const requestKey = (r: schema.RequestPermissionRequest): string =>
    `${r.sessionId}\0${r.toolCall.toolCallId}`;
  const policies = options.policies.map((policy): PermissionPolicy => (request, context) => {
    const verdict = policy(request, context);
    if (verdict !== undefined) {
      deciders.set(requestKey(request), { by: "policy", source: policySource(policy) });
    }
    return verdict;
  });
  const ask = options.ask;
  const askPermission: PermissionPrompt | undefined =
    ask === undefined
      ? undefined
      : async (request, info) => {
          report.endOutLine();
          const outcome = await ask(request, info);
          if (outcome !== undefined && !info.signal.aborted) {
            deciders.set(requestKey(request), { by: "you" });
          }
          return outcome;
        };
  // The notes for each answered permission request's `response` event, by its session and
  // tool call (the event is made from the message written, not from the handler's params).
  const permissionNotes = new Map<string, PermissionNotes>();
  const notes = (method: string, params: unknown): PermissionNotes | undefined => {
    const key = method === "session/request_permission" ? permissionKey(params) : undefined;
    const found = key === undefined ? undefined : permissionNotes.get(key);
    if (key !== undefined) permissionNotes.delete(key);
    return found;
  };
  const reportPermissions = (client: Client): Client => ({
    ...client,
    requestPermission: async (params, context) => {
      const key = requestKey(params);
      deciders.delete(key);
      const response = await client.requestPermission(params, context);
      const decider = deciders.get(key) ?? { by: "nobody" };
      deciders.delete(key);
      const refused = report.permission(params, response, decider);
      permissionNotes.set(key, {
        decidedBy: decider.by,
        ...(decider.by === "policy" && decider.source !== undefined
          ? { source: decider.source }
          : {}),
        refused,
      });
      return response;
    },
  });
  const firstSession = firstSessionOf(options);
  const controller: AgentController = new AgentController({
    target: options.target,
    cwd: options.cwd,
    policies,
    ...(askPermission === undefined ? {} : { askPermission }),
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    // Each request the agent sends and its answer, as the library pairs them.
    observe: peerRequestObserver((event) => emit(requestEvent(event, notes))),
    wrapClient: (client) =>
      wrapClient(reportPermissions(client), ({ sessionId, update }) => {
        emit({ type: "update", sessionId, update });
      }),
    ...(options.verbose === true
      ? { onStderr: (line: string) => err.write(`[agent] ${line}\n`) }
      : {}),
    // What the agent prints for the user outside ACP (a login URL): always shown.
    onStdout: (line: string) => err.write(`[agent] ${printable(line)}\n`),
    ...(firstSession === undefined ? {} : { firstSession }),
  });
  const offReport = controller.sessions.subscribe(report.update);
  const remembering =
    options.sessions === undefined
      ? undefined
      : rememberSessions(controller, options.sessions.memory, options.sessions.name);
  const say = (text: string): void => {
    if (!json) report.line(`acp-kit: ${text}`);
  };
  const signals = endOnSignals(controller, {
    cancelTurns: true,
    onSignal: (signal, action) => {
      const name = signal === "SIGINT" ? "Ctrl-C" : signal;
      if (action === "cancel") {
        report.cancelling();
        say(`${name}: cancelling the turn (Ctrl-C again to end the agent now)`);
      } else if (signal === "SIGINT") say(`${name}: ending the agent`);
    },
  });
  // --timeout: the turn is cancelled; an agent that does not end it in time is ended.
  const timeout: { fired: boolean; readonly timers: NodeJS.Timeout[] } = {
    fired: false,
    timers: [],
  };
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined) {
    timeout.timers.push(
      setTimeout(() => {
        timeout.fired = true;
        const turn = controller.phase === "prompting";
        say(
          `--timeout ${durationText(timeoutMs)} reached: ${turn ? "cancelling the turn" : "ending the agent"}`,
        );
        if (!turn) {
          void controller.close().catch(() => undefined);
          return;
        }
        report.cancelling();
        void controller.cancel().catch(() => undefined);
        timeout.timers.push(
          setTimeout(() => void controller.close().catch(() => undefined), CANCEL_GRACE_MS),
        );
      }, timeoutMs),
    );
  }
  const timedOut = (): { exitCode: number; message: string } => ({
    exitCode: ExitCodes.TIMED_OUT,
    message: `the run took longer than --timeout ${durationText(timeoutMs ?? 0)}`,
  });
  try {
    await controller.start();
    emit({
      type: "initialize",
      agentInfo: controller.info?.agentInfo ?? null,
      protocolVersion: controller.info?.protocolVersion ?? 0,
      agentProtocol: controller.protocol ?? null,
    });
    if (controller.phase === "auth-required") {
      const message = authMessage(controller, controller.authMethods);
      release();
      emit({ type: "error", exitCode: ExitCodes.AUTH_REQUIRED, message });
      if (!json) err.write(`${message}\n`);
      return ExitCodes.AUTH_REQUIRED;
    }
    const sessionId = controller.sessionId ?? "";
    emit({ type: "session", sessionId });
    release();
    const before = controller.sessions.get(sessionId);
    report.beginTurn(sessionId, before === undefined ? 0 : threadLength(before));
    const { stopReason } = await controller.prompt([{ type: "text", text: options.text }]);
    emit({ type: "stop", stopReason });
    report.finish(stopReason, errTerminal, controller.sessions.get(sessionId));
    if (timeout.fired) {
      const { exitCode, message } = timedOut();
      emit({ type: "error", exitCode, message });
      say(message);
      return exitCode;
    }
    const code = exitCodeForStopReason(stopReason);
    if (code === ExitCodes.OK && options.failOnRefusal === true && report.refused > 0) {
      const message = `${report.refused === 1 ? "a permission request was" : `${report.refused} permission requests were`} refused (--fail-on-refusal)`;
      emit({ type: "error", exitCode: ExitCodes.PERMISSION_REFUSED, message });
      say(message);
      return ExitCodes.PERMISSION_REFUSED;
    }
    return code;
  } catch (error) {
    const signal = signals.received;
    // Ended by a signal or --timeout: that is the news, not the connection it closed on
    // the way.
    const { exitCode, message } = timeout.fired
      ? timedOut()
      : signal !== undefined
        ? { exitCode: signalExitCode(signal), message: `ended by ${signal}` }
        : error instanceof AuthRequiredError
          ? {
              exitCode: ExitCodes.AUTH_REQUIRED,
              message: authMessage(controller, error.authMethods, error.data),
            }
          : error instanceof LoginError
            ? { exitCode: ExitCodes.AUTH_REQUIRED, message: error.message }
            : describeFailure(error, options.target);
    release();
    emit({ type: "error", exitCode, message });
    // Ended by a signal, the program is going: its unfinished tool calls are not listed.
    report.finish(undefined, false, signal === undefined ? controller.state : undefined);
    // A Ctrl-C's end was said when it came.
    if (signal !== "SIGINT") say(message);
    return exitCode;
  } finally {
    for (const timer of timeout.timers) clearTimeout(timer);
    signals.dispose();
    offReport();
    await controller.close();
    await remembering?.done();
    // How to go on with this session, for a person at a terminal (scripts read nothing new).
    const sessionId = remembering?.resumable();
    if (!json && sessionId !== undefined && options.sessions !== undefined && errTerminal) {
      err.write(
        `To resume this session: ${printable(resumeCommand(options.sessions.memory, sessionId))}\n`,
      );
    }
  }
}

/**
 * Whether stdout and stderr end up in the same place (a terminal, or one file or pipe as
 * with `2>&1`): a line on stderr then first ends a line of the agent's text.
 */
function sameDestination(out: NodeJS.WritableStream, err: NodeJS.WritableStream): boolean {
  if (isTerminal(out) && isTerminal(err)) return true;
  if (out !== process.stdout || err !== process.stderr) return false;
  try {
    const [a, b] = [fstatSync(1), fstatSync(2)];
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}
