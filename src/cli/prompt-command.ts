/**
 * `acp-kit prompt`: one turn without interaction. Prints the agent's text (stdout), or
 * with `--json` one JSON event per line: every update, every request and its answer,
 * and the stop reason. The exit code says how the turn ended.
 *
 * @module
 */
import { ConnectionError, RequestError } from "../jsonrpc/errors.js";
import type { Client } from "../peer/client.js";
import type * as schema from "../schema/types.gen.js";
import { AgentExitError, AgentStartupError } from "../node/spawn-errors.js";
import { AgentController } from "./controller.js";
import { ExitCodes, exitCodeForStopReason } from "./exit-codes.js";
import type { AgentTarget } from "./target.js";
import type { PermissionPolicy } from "../node/permission-policy.js";

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
}

/** One line of `prompt --json` output. */
export type PromptEvent =
  | { type: "initialize"; agentInfo: schema.Implementation | null; protocolVersion: number }
  | { type: "session"; sessionId: string }
  | { type: "update"; sessionId: string; update: schema.SessionUpdate }
  | { type: "request"; method: string; params: unknown }
  | { type: "response"; method: string; result: unknown }
  | { type: "response"; method: string; error: { code: number; message: string; data?: unknown } }
  | { type: "stop"; stopReason: string }
  | { type: "error"; exitCode: number; message: string };

const CLIENT_REQUESTS: Readonly<Record<string, string>> = {
  requestPermission: "session/request_permission",
  readTextFile: "fs/read_text_file",
  writeTextFile: "fs/write_text_file",
  createTerminal: "terminal/create",
  terminalOutput: "terminal/output",
  waitForTerminalExit: "terminal/wait_for_exit",
  killTerminal: "terminal/kill",
  releaseTerminal: "terminal/release",
};

/** Wraps a client so that each request and its answer becomes an event. */
function tapRequests(client: Client, emit: (event: PromptEvent) => void): Client {
  const tapped: Record<string, unknown> = { ...client };
  for (const [name, method] of Object.entries(CLIENT_REQUESTS)) {
    const original = (client as unknown as Record<string, unknown>)[name];
    if (typeof original !== "function") continue;
    tapped[name] = async (params: unknown, context: unknown) => {
      emit({ type: "request", method, params });
      try {
        const result: unknown = await (original as (p: unknown, c: unknown) => unknown)(
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

/** How a failure maps to an exit code and a message. */
export function describeFailure(error: unknown): { exitCode: number; message: string } {
  if (error instanceof AgentStartupError)
    return { exitCode: ExitCodes.AGENT_START, message: error.message };
  if (error instanceof ConnectionError) {
    if (error.cause instanceof AgentExitError || error.code === "connection_closed") {
      return { exitCode: ExitCodes.AGENT_CRASHED, message: error.message };
    }
    if (error.code === "invalid_response") {
      const issues = (error.issues ?? []).map((i) => `${i.path || "/"}: ${i.message}`).join("; ");
      return { exitCode: ExitCodes.PROTOCOL_ERROR, message: `${error.message}: ${issues}` };
    }
    return { exitCode: ExitCodes.FAILURE, message: error.message };
  }
  if (error instanceof RequestError) {
    if (error.code === -32000) return { exitCode: ExitCodes.AUTH_REQUIRED, message: error.message };
    return {
      exitCode: ExitCodes.PROTOCOL_ERROR,
      message: `The agent answered an error: ${error.message} (${error.code})`,
    };
  }
  return {
    exitCode: ExitCodes.FAILURE,
    message: error instanceof Error ? error.message : String(error),
  };
}

/** Runs the command; resolves with the exit code. */
export async function runPromptCommand(options: PromptCommandOptions): Promise<number> {
  const { out, err, json } = options;
  const write = (event: PromptEvent): void => {
    if (json) out.write(JSON.stringify(event) + "\n");
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
  const controller = new AgentController({
    target: options.target,
    cwd: options.cwd,
    policies: options.policies,
    wrapClient: (client) => {
      const tapped = tapRequests(client, emit);
      const sessionUpdate = tapped.sessionUpdate.bind(tapped);
      tapped.sessionUpdate = async (params) => {
        emit({ type: "update", sessionId: params.sessionId, update: params.update });
        const u = params.update;
        if (!json && u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") {
          out.write(u.content.text);
          seen.text = u.content.text !== "" || seen.text;
        }
        await sessionUpdate(params);
      };
      return tapped;
    },
    ...(options.verbose === true
      ? { onStderr: (line: string) => err.write(`[agent] ${line}\n`) }
      : {}),
  });
  let interrupted = 0;
  const onSigint = (): void => {
    interrupted++;
    if (interrupted === 1) void controller.cancel();
    else void controller.close().finally(() => process.exit(ExitCodes.CANCELLED));
  };
  process.on("SIGINT", onSigint);
  try {
    await controller.start();
    emit({
      type: "initialize",
      agentInfo: controller.info?.agentInfo ?? null,
      protocolVersion: controller.info?.protocolVersion ?? 0,
    });
    if (controller.phase === "auth-required") {
      const methods = controller.authMethods.map((m) => `${m.id} (${m.name})`).join(", ");
      const message = `The agent requires authentication first${methods === "" ? "" : `: ${methods}`}. Log in with \`acp-kit run\`, then try again.`;
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
    const { exitCode, message } = describeFailure(error);
    release();
    emit({ type: "error", exitCode, message });
    if (!json) err.write(`${seen.text ? "\n" : ""}acp-kit: ${message}\n`);
    return exitCode;
  } finally {
    process.off("SIGINT", onSigint);
    await controller.close();
  }
}
