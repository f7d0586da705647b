/**
 * The scripted agent: an {@link Agent} that does what a {@link Scenario} says, and
 * {@link runScriptedAgent} to serve it over any stream.
 *
 * @module
 */
import { isPlainObject, type AnyMessage, type Stream } from "../../base/messages.js";
import type { AcpConnectionOptions } from "../../peer/acp-connection.js";
import type { Agent } from "../../peer/agent.js";
import { AgentSideConnection } from "../../peer/agent-side-connection.js";
import { AgentSideConnection as V2AgentSideConnection } from "../../v2/agent-side-connection.js";
import { protocolRouter, type RoutedSession } from "../../v2/protocol-router.js";
import type { Scenario } from "../scenario/types.js";
import { assertScenario } from "../scenario/validate.js";
import { ScriptedHandlers } from "./handlers.js";
import type { ScriptedAgentOptions } from "./options.js";
import { createScriptedAgentV2 } from "./v2-agent.js";

export type { ScriptedAgentOptions, ScriptedAgentProtocol } from "./options.js";

export { DEFAULT_SCRIPTED_CAPABILITIES } from "./handlers.js";

/** A running scripted agent, whichever version it serves. */
export interface ScriptedAgentServer {
  /** Resolves when the connection ends (never rejects). */
  readonly closed: Promise<void>;
  /** Ends the connection. */
  close(reason?: unknown): void;
}

/**
 * Serves a scenario on `stream`: validates it, then answers as the scenario says until
 * the stream closes. For tests, link it to a client with `memoryStreamPair()`:
 *
 * ```ts
 * const pair = memoryStreamPair();
 * runScriptedAgent(scenario, pair.agent, { delayScale: 0 });
 * const agent = new ClientSideConnection(() => myClient, pair.client);
 * ```
 *
 * @param scenario - The scenario (a parsed JSON document is validated first).
 * @param stream - The message stream (`agentStdioStream()` for a program).
 * @param options - Delays, logger, and options of the connection.
 * @returns The agent's connection (`closed` resolves when the stream ends).
 * @throws ScenarioError when the scenario is not valid.
 */
export function runScriptedAgent(
  scenario: unknown,
  stream: Stream,
  options?: ScriptedAgentOptions & AcpConnectionOptions & { readonly protocol?: 1 },
): AgentSideConnection;
/**
 * With `protocol: 2`: serves the scenario as an ACP v2 agent; returns the v2
 * `AgentSideConnection` (see `createScriptedAgentV2`).
 */
export function runScriptedAgent(
  scenario: unknown,
  stream: Stream,
  options: ScriptedAgentOptions & AcpConnectionOptions & { readonly protocol: 2 },
): V2AgentSideConnection;
/**
 * With `protocol: "auto"`: serves v1 and v2 clients, as the client's first `initialize`
 * chooses (`protocolRouter`); returns the router's session.
 */
export function runScriptedAgent(
  scenario: unknown,
  stream: Stream,
  options: ScriptedAgentOptions & AcpConnectionOptions & { readonly protocol: "auto" },
): RoutedSession;
/** With any `protocol`: returns what ends the connection. */
export function runScriptedAgent(
  scenario: unknown,
  stream: Stream,
  options?: ScriptedAgentOptions & AcpConnectionOptions,
): ScriptedAgentServer;
export function runScriptedAgent(
  scenario: unknown,
  stream: Stream,
  options: ScriptedAgentOptions & AcpConnectionOptions = {},
): ScriptedAgentServer {
  const valid = assertScenario(scenario);
  const protocol = options.protocol ?? 1;
  if (protocol === 2) {
    return new V2AgentSideConnection(
      (connection) => createScriptedAgentV2(connection, valid, options),
      stream,
      options,
    );
  }
  if (protocol === "auto") {
    return protocolRouter({
      v1: (connection) => createScriptedAgent(connection, valid, options),
      v2: (connection) => createScriptedAgentV2(connection, valid, options),
      connectionOptions: options,
    }).connect(stream);
  }
  if (options.printLine === undefined) {
    return new AgentSideConnection(
      (connection) => createScriptedAgent(connection, valid, options),
      stream,
      options,
    );
  }
  // Lines printed outside the protocol: count the client's answers to them (id null).
  let nullIdAnswers = 0;
  const watched: Stream = {
    writable: stream.writable,
    readable: stream.readable.pipeThrough(
      new TransformStream<AnyMessage, AnyMessage>({
        transform(message, controller) {
          const value: unknown = message;
          if (isPlainObject(value) && value.id === null && "error" in value) {
            nullIdAnswers++;
          }
          controller.enqueue(message);
        },
      }),
    ),
  };
  return new AgentSideConnection(
    (connection) => scriptedAgent(connection, valid, options, () => nullIdAnswers),
    watched,
    options,
  );
}

/**
 * The scripted agent for one connection, when you build the connection yourself.
 * It only implements what the scenario advertises: `session/load` needs `loadSession`,
 * `session/list`, `resume`, `close`, `delete` their `sessionCapabilities` entry, `logout`
 * `auth.logout`, `set_mode` the scenario's `modes`, `set_config_option` its
 * `configOptions`; the connection answers the others `-32601`.
 *
 * @param connection - The agent's connection.
 * @param scenario - A valid scenario (see {@link validateScenario}).
 * @param options - Delays and logger.
 */
export function createScriptedAgent(
  connection: AgentSideConnection,
  scenario: Scenario,
  options: ScriptedAgentOptions = {},
): Agent {
  return scriptedAgent(connection, scenario, options, () => 0);
}

/** {@link createScriptedAgent}, told how many answers with id `null` the client sent. */
function scriptedAgent(
  connection: AgentSideConnection,
  scenario: Scenario,
  options: ScriptedAgentOptions,
  nullIdAnswers: () => number,
): Agent {
  const handlers = new ScriptedHandlers(connection, scenario, { ...options, nullIdAnswers });
  const agent: Agent = {
    initialize: (params) => handlers.initialize(params),
    authenticate: (params) => handlers.authenticate(params),
    newSession: (params) => handlers.newSession(params),
    prompt: (params, context) => handlers.prompt(params, context),
    cancel: (params) => handlers.cancel(params),
  };
  const { loadSession, sessionCapabilities = {}, auth } = handlers.capabilities;
  const offered = (marker: object | null | undefined): boolean =>
    marker !== undefined && marker !== null;
  if (loadSession === true) agent.loadSession = (params) => handlers.loadSession(params);
  if (offered(sessionCapabilities.resume)) {
    agent.resumeSession = (params) => handlers.resumeSession(params);
  }
  if (offered(sessionCapabilities.list)) {
    agent.listSessions = (params) => handlers.listSessions(params);
  }
  if (offered(sessionCapabilities.close)) {
    agent.closeSession = (params) => handlers.closeSession(params);
  }
  if (offered(sessionCapabilities.delete)) {
    agent.deleteSession = (params) => handlers.deleteSession(params);
  }
  if (offered(auth?.logout)) agent.logout = () => handlers.logout();
  if (scenario.modes !== undefined) {
    agent.setSessionMode = (params) => handlers.setSessionMode(params);
  }
  if (scenario.configOptions !== undefined) {
    agent.setSessionConfigOption = (params) => handlers.setSessionConfigOption(params);
  }
  return agent;
}
