/**
 * The scripted agent: an {@link Agent} that does what a {@link Scenario} says, and
 * {@link runScriptedAgent} to serve it over any stream.
 *
 * @module
 */
import type { Logger } from "../../base/logger.js";
import type { Stream } from "../../base/messages.js";
import type { AcpConnectionOptions } from "../../peer/acp-connection.js";
import type { Agent } from "../../peer/agent.js";
import { AgentSideConnection } from "../../peer/agent-side-connection.js";
import { AgentSideConnection as V2AgentSideConnection } from "../../v2/agent-side-connection.js";
import { protocolRouter, type RoutedSession } from "../../v2/protocol-router.js";
import type { Scenario, ScenarioSession } from "../scenario/types.js";
import { assertScenario } from "../scenario/validate.js";
import { ScriptedHandlers } from "./handlers.js";
import { createScriptedAgentV2 } from "./v2-agent.js";
import type { ScriptedCommandRunner, ScriptedFileSystem } from "./v2-steps.js";

export { DEFAULT_SCRIPTED_CAPABILITIES } from "./handlers.js";

/** Options of the scripted agent. */
export interface ScriptedAgentOptions {
  /**
   * Multiplies every delay of the scenario (`delayMs`, `delay` steps); 0 turns them off
   * (for tests), 2 makes them twice as long. Default 1.
   */
  readonly delayScale?: number;
  /** Where the agent's turns report what they drop. Default: silent. */
  readonly logger?: Logger;
  /**
   * The agent's environment variables, which `authenticate` with an `env_var` method
   * requires (the program passes its own). Default: none.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Called with every session (declared and created) after a session is created and after
   * each prompt turn, to keep them across runs (the program's `--sessions-file`): give
   * them back as the scenario's `sessions` next time. In v2 a session's history is what
   * the scenario declared: what v2 turns sent is not added to it.
   */
  readonly onSessionsChange?: (sessions: ScenarioSession[]) => void;
  /**
   * Which ACP version {@link runScriptedAgent} serves: `1` (default) the classic protocol,
   * `2` ACP v2 only (a v1 `initialize` is answered `-32022`), `"auto"` both, chosen by the
   * client's `initialize` (through `protocolRouter`). docs/scripted-agent.md ("ACP v2")
   * says how each step is said in v2.
   */
  readonly protocol?: ScriptedAgentProtocol;
  /**
   * v2 only: runs the command of a `terminal` step, which the agent then shows as its own
   * terminal (v2 has no client terminals). Without it, `terminal` steps fail in v2. The
   * program passes one that runs the command.
   */
  readonly runCommand?: ScriptedCommandRunner;
  /**
   * v2 only: the files `readFile` and `writeFile` steps use (v2 has no client file
   * system: the agent reads and writes itself). Without it, those steps fail in v2. The
   * program passes the local file system.
   */
  readonly fileSystem?: ScriptedFileSystem;
}

/** The ACP versions the scripted agent can serve: `1`, `2`, or `"auto"` (both). */
export type ScriptedAgentProtocol = 1 | 2 | "auto";

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
  return new AgentSideConnection(
    (connection) => createScriptedAgent(connection, valid, options),
    stream,
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
  const handlers = new ScriptedHandlers(connection, scenario, options);
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
