/**
 * acp-kit's side of the interop tests: an {@link AgentSideConnection} and a
 * {@link ClientSideConnection} playing the shared scripts, through the classic API.
 */
import {
  AgentSideConnection,
  ClientSideConnection,
  RequestError,
  type Agent,
  type Client,
  type Stream,
} from "../../packages/acp-kit/src/index.js";
import { AgentScript, ClientScript, type AgentOps } from "./interop-scenarios.js";

export const OUR_AGENT_NAME = "acp-kit-agent";
export const OUR_CLIENT_NAME = "acp-kit-client";

export const ourError = (code: number, message: string, data: unknown): Error =>
  new RequestError(code, message, data);

/** acp-kit's agent: the scripted agent behind an `AgentSideConnection`. */
export function connectOurAgent(stream: Stream): {
  connection: AgentSideConnection;
  script: AgentScript;
} {
  const script = new AgentScript();
  const connection = new AgentSideConnection((conn) => {
    const ops: AgentOps = {
      update: (n) => conn.sessionUpdate(n),
      requestPermission: (p, signal) =>
        conn.requestPermission(p, signal === undefined ? undefined : { signal }),
      readTextFile: (p) => conn.readTextFile(p),
      writeTextFile: (p) => conn.writeTextFile(p),
      // Our own TerminalHandle drives terminal/output, wait_for_exit and release.
      createTerminal: (p) => conn.createTerminal(p),
      makeError: ourError,
    };
    const agent: Agent = {
      initialize: (p) => script.initialize(p),
      newSession: (p) => script.newSession(p),
      authenticate: () => ({}),
      prompt: (p) => script.prompt(ops, p),
      cancel: (p) => {
        script.cancel(p);
      },
      extMethod: (method, params, context) => {
        if (method === "_example/ping") return script.ping(method, params, OUR_AGENT_NAME);
        if (method === "_example/slow" && context !== undefined)
          return script.slowRequest(context.signal, ops);
        throw RequestError.methodNotFound(method);
      },
      extNotification: (method, params) => {
        script.notified(method, params);
      },
    };
    return agent;
  }, stream);
  return { connection, script };
}

/** acp-kit's client: the scripted client behind a `ClientSideConnection`. */
export function connectOurClient(stream: Stream): {
  connection: ClientSideConnection;
  script: ClientScript;
} {
  const script: ClientScript = new ClientScript({
    cancel: (sessionId): Promise<void> => connection.cancel({ sessionId }),
    makeError: ourError,
  });
  const connection: ClientSideConnection = new ClientSideConnection(() => {
    const client: Client = {
      sessionUpdate: (n) => {
        script.sessionUpdate(n);
      },
      requestPermission: (p, context) => script.requestPermission(p, context?.signal),
      readTextFile: (p) => script.fs.read(p),
      writeTextFile: (p) => script.fs.write(p),
      createTerminal: (p) => script.terminals.create(p),
      terminalOutput: (p) => script.terminals.output(p),
      waitForTerminalExit: (p) => script.terminals.waitForExit(p),
      killTerminal: (p) => script.terminals.kill(p),
      releaseTerminal: (p) => script.terminals.release(p),
      extMethod: (method, params, context) => {
        if (method === "_example/ping") return script.ping(method, params, OUR_CLIENT_NAME);
        if (method === "_example/slow") return script.slowRequest(context?.signal);
        throw RequestError.methodNotFound(method);
      },
      extNotification: (method, params) => {
        script.notified(method, params);
      },
    };
    return client;
  }, stream);
  return { connection, script };
}
