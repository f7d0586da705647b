/**
 * `acp-kit prompt`: one turn without interaction. Prints the agent's text (stdout), or
 * with `--json` one JSON event per line: every update, every request and its answer,
 * and the stop reason. The exit code says how the turn ended.
 *
 * @module
 */
import { RequestError } from "acp-kit";
import type { Client } from "acp-kit";
import { CLIENT_HANDLER_NAMES, jsonText } from "acp-kit/internal";
import { METHOD_SPECS } from "acp-kit";
import { AuthRequiredError, errorDataText, loginPlan } from "acp-kit";
import { wrapClient } from "acp-kit/internal";
import type * as schema from "acp-kit";
import { AgentController } from "./controller.js";
import {
  promptSession,
  rememberSessions,
  restoreOrNew,
  resumeCommand,
  type SessionMemory,
} from "./session-memory.js";
import { describeFailure, ExitCodes, exitCodeForStopReason } from "./exit-codes.js";
import { endOnSignals, signalExitCode } from "./signals.js";
import type { SessionChoices } from "./session-options.js";
import type { AgentTarget } from "./target.js";
import type { PermissionPolicy } from "acp-kit/node";
import { printable } from "./terminal-text.js";

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
  readonly choices?: SessionChoices;
  /**
   * Remember the session; `name` (`--session`): send to the session of that name
   * (opened and named when there is none); `continue`: to the most recent one.
   */
  readonly sessions?: {
    readonly memory: SessionMemory;
    readonly name?: string;
    readonly continue?: boolean;
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
  | { type: "response"; method: string; result: unknown }
  | { type: "response"; method: string; error: { code: number; message: string; data?: unknown } }
  | { type: "stop"; stopReason: string }
  | { type: "error"; exitCode: number; message: string };

/** Each request the agent can send the client, with the name of its {@link Client} method. */
const CLIENT_REQUESTS: readonly (readonly [method: string, handler: string])[] =
  METHOD_SPECS.filter((spec) => spec.handledBy === "client" && spec.kind === "request").flatMap(
    (spec) => {
      const handler = (CLIENT_HANDLER_NAMES as Readonly<Record<string, string>>)[spec.method];
      return handler === undefined ? [] : [[spec.method, handler] as const];
    },
  );

/** Wraps a client so that each request and its answer becomes an event. */
function tapRequests(client: Client, emit: (event: PromptEvent) => void): Client {
  const tapped: Record<string, unknown> = { ...client };
  for (const [method, name] of CLIENT_REQUESTS) {
    const original = (client as unknown as Record<string, unknown>)[name];
    if (typeof original !== "function") continue;
    tapped[name] = async (params: unknown, context: unknown) => {
      emit({ type: "request", method, params });
      try {
        const result: unknown = await (original as (p: unknown, c: unknown) => unknown).call(
          client,
          params,
          context,
        );
        emit({ type: "response", method, result: result ?? {} });
        return result;
      } catch (error) {
        const e = error instanceof RequestError ? error : RequestError.internalError();
        emit({ type: "response", method, error: e.toErrorResponse() });
        throw error;
      }
    };
  }
  return tapped as unknown as Client;
}

/**
 * What to tell the user when the agent needs a login: the agent's own reason when it gave
 * one, then each method and what it takes.
 */
function authMessage(methods: readonly schema.AuthMethod[], data?: unknown): string {
  const reason = errorDataText(data);
  const list = methods
    .map((method) => {
      const plan = loginPlan(method);
      const how =
        plan.kind === "env_var"
          ? `; set ${plan.vars.map((v) => v.name).join(", ")}`
          : plan.kind === "terminal"
            ? "; a login command"
            : "";
      return `${method.id} (${method.name}${how})`;
    })
    .join(", ");
  const why = reason === undefined ? "" : ` (${reason})`;
  return `The agent requires authentication first${why}${list === "" ? "" : `: ${list}`}. Log in with \`acp-kit run\`, then try again.`;
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
  const seen = { text: false };
  const firstSession = rememberedFirst(options);
  const controller: AgentController = new AgentController({
    target: options.target,
    cwd: options.cwd,
    policies: options.policies,
    ...(options.choices === undefined ? {} : { choices: options.choices }),
    wrapClient: (client) =>
      wrapClient(tapRequests(client, emit), ({ sessionId, update }) => {
        emit({ type: "update", sessionId, update });
        // A loaded session's history is replayed before its turn: only the turn is printed.
        const replay = controller.phase !== "prompting";
        if (!json && !replay && update.sessionUpdate === "agent_message_chunk") {
          if (update.content.type === "text" && update.content.text !== "") {
            out.write(update.content.text);
            seen.text = true;
          }
        }
      }),
    ...(options.verbose === true
      ? { onStderr: (line: string) => err.write(`[agent] ${line}\n`) }
      : {}),
    ...(firstSession === undefined ? {} : { firstSession }),
  });
  const remembering =
    options.sessions === undefined
      ? undefined
      : rememberSessions(controller, options.sessions.memory, options.sessions.name);
  const signals = endOnSignals(controller, { cancelTurns: true });
  try {
    await controller.start();
    emit({
      type: "initialize",
      agentInfo: controller.info?.agentInfo ?? null,
      protocolVersion: controller.info?.protocolVersion ?? 0,
      agentProtocol: controller.protocol ?? null,
    });
    if (controller.phase === "auth-required") {
      const message = authMessage(controller.authMethods);
      release();
      emit({ type: "error", exitCode: ExitCodes.AUTH_REQUIRED, message });
      if (!json) err.write(`${message}\n`);
      return ExitCodes.AUTH_REQUIRED;
    }
    emit({ type: "session", sessionId: controller.sessionId ?? "" });
    release();
    const { stopReason } = await controller.prompt([{ type: "text", text: options.text }]);
    emit({ type: "stop", stopReason });
    if (!json && seen.text) out.write("\n");
    const code = exitCodeForStopReason(stopReason);
    if (!json && code !== ExitCodes.OK) err.write(`(stop reason: ${stopReason})\n`);
    return code;
  } catch (error) {
    const signal = signals.received;
    // Ended by a signal: that is the news, not the connection it closed on the way.
    const { exitCode, message } =
      signal !== undefined
        ? { exitCode: signalExitCode(signal), message: `ended by ${signal}` }
        : error instanceof AuthRequiredError
          ? {
              exitCode: ExitCodes.AUTH_REQUIRED,
              message: authMessage(error.authMethods, error.data),
            }
          : describeFailure(error, options.target);
    release();
    emit({ type: "error", exitCode, message });
    if (!json) err.write(`${seen.text ? "\n" : ""}acp-kit: ${message}\n`);
    return exitCode;
  } finally {
    signals.dispose();
    await controller.close();
    await remembering?.done();
    // How to go on with this session, for a person at a terminal (scripts read nothing new).
    const sessionId = remembering?.resumable();
    if (!json && sessionId !== undefined && options.sessions !== undefined && isTerminal(err)) {
      err.write(
        `To resume this session: ${printable(resumeCommand(options.sessions.memory, sessionId))}\n`,
      );
    }
  }
}

function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}
