/**
 * The scripted agent's sessions: the ones the scenario declares and the ones created
 * during the run, with what `session/load` replays and what `session/list` reports.
 *
 * @module
 */
import { sessionNotFound } from "../../agent/session-registry.js";
import { RequestError } from "../../jsonrpc/errors.js";
import type * as schema from "../../schema/types.gen.js";
import type { Scenario, ScenarioHistoryEntry, ScenarioSession } from "../scenario/types.js";

/** A tool call as the client last saw it (for permission requests and terminal embedding). */
export interface ToolCallView {
  /** Its title. */
  title: string;
  /** Its kind. */
  kind: schema.ToolKind;
  /** Its status. */
  status: schema.ToolCallStatus;
  /** Its content. */
  content: schema.ToolCallContent[];
  /** Its locations. */
  locations: schema.ToolCallLocation[];
  /** Its raw input. */
  rawInput?: unknown;
}

/** One session of a scripted agent. */
export interface ScriptedSession {
  /** Its id. */
  readonly sessionId: string;
  /** Its working directory (from the last `session/new`, `load` or `resume`). */
  cwd: string;
  /** Its title, for `session/list` (`null`: none). */
  title: string | null;
  /** Its last activity, for `session/list` (`null`: none). */
  updatedAt: string | null;
  /** Its modes and current mode. */
  modes: schema.SessionModeState | undefined;
  /** Its config options with their current values. */
  configOptions: schema.SessionConfigOption[] | undefined;
  /** Its slash commands (undefined: never advertised). */
  commands: schema.AvailableCommand[] | undefined;
  /** Its plan. */
  plan: schema.PlanEntry[];
  /** Everything `session/load` replays: user chunks and every update of its turns. */
  readonly history: schema.SessionUpdate[];
  /** How many prompt turns it has run (in this run of the agent). */
  turns: number;
  /** How many turns without `match` it has run. */
  orderedTurns: number;
  /** How many tool call ids it has generated. */
  toolCallCount: number;
  /** Its tool calls by id. */
  readonly toolCalls: Map<string, ToolCallView>;
  /** Settles once the updates that follow its setup (slash commands) are sent. */
  ready: Promise<void>;
}

/** The sessions of one scripted agent connection. @internal */
export class ScriptedSessionStore {
  private readonly sessions = new Map<string, ScriptedSession>();
  private created = 0;

  constructor(private readonly scenario: Scenario) {
    for (const declared of scenario.sessions ?? []) {
      const session = this.make(declared.sessionId, declared.cwd);
      session.title = declared.title ?? null;
      session.updatedAt = declared.updatedAt ?? null;
      session.history.push(...(declared.history ?? []).map(historyUpdate));
      this.sessions.set(session.sessionId, session);
    }
  }

  /** Creates a session with the next free id (`session-1`, `session-2`, ...). */
  create(cwd: string): ScriptedSession {
    let sessionId: string;
    do sessionId = `session-${++this.created}`;
    while (this.sessions.has(sessionId));
    const session = this.make(sessionId, cwd);
    this.sessions.set(sessionId, session);
    return session;
  }

  /** The session, or `-32002` when there is none. */
  get(sessionId: string): ScriptedSession {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw sessionNotFound(sessionId);
    return session;
  }

  /** True when the session exists. */
  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Forgets a session. */
  delete(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /**
   * One page of `session/list`: sessions in creation order (declared ones first),
   * optionally only those in `cwd`; the cursor is the offset of the page.
   */
  list(params: schema.ListSessionsRequest, pageSize: number): schema.ListSessionsResponse {
    const cursor = params.cursor ?? "0";
    const start = /^\d+$/.test(cursor) ? Number(cursor) : NaN;
    const matching = [...this.sessions.values()].filter(
      (session) => params.cwd === undefined || params.cwd === null || session.cwd === params.cwd,
    );
    if (!Number.isSafeInteger(start) || start > matching.length) {
      throw RequestError.invalidParams({ cursor }, "unknown cursor");
    }
    const page = matching.slice(start, start + pageSize).map(sessionInfo);
    const next = start + pageSize;
    return next < matching.length
      ? { sessions: page, nextCursor: String(next) }
      : { sessions: page };
  }

  /** Every session as a scenario's `sessions` entry (history included), to keep across runs. */
  snapshot(): ScenarioSession[] {
    return [...this.sessions.values()].map((session) => ({
      sessionId: session.sessionId,
      cwd: session.cwd,
      ...(session.title === null ? {} : { title: session.title }),
      ...(session.updatedAt === null ? {} : { updatedAt: session.updatedAt }),
      history: structuredClone(session.history),
    }));
  }

  private make(sessionId: string, cwd: string): ScriptedSession {
    const { modes, configOptions, commands } = this.scenario;
    return {
      sessionId,
      cwd,
      title: null,
      updatedAt: null,
      modes: modes === undefined ? undefined : structuredClone(modes),
      configOptions: configOptions === undefined ? undefined : structuredClone([...configOptions]),
      commands: commands === undefined ? undefined : structuredClone([...commands]),
      plan: [],
      history: [],
      turns: 0,
      orderedTurns: 0,
      toolCallCount: 0,
      toolCalls: new Map(),
      ready: Promise.resolve(),
    };
  }
}

/**
 * The config options a client may see: boolean options only for clients advertising
 * `session.configOptions.boolean`, as the protocol requires.
 * @internal
 */
export function visibleConfigOptions(
  options: readonly schema.SessionConfigOption[],
  client: schema.ClientCapabilities,
): schema.SessionConfigOption[] {
  const booleans = client.session?.configOptions?.boolean;
  if (booleans !== undefined && booleans !== null) return structuredClone([...options]);
  return structuredClone(options.filter((option) => option.type !== "boolean"));
}

function sessionInfo(session: ScriptedSession): schema.SessionInfo {
  const info: schema.SessionInfo = { sessionId: session.sessionId, cwd: session.cwd };
  if (session.title !== null) info.title = session.title;
  if (session.updatedAt !== null) info.updatedAt = session.updatedAt;
  return info;
}

function historyUpdate(entry: ScenarioHistoryEntry): schema.SessionUpdate {
  const text = (value: string): schema.ContentBlock => ({ type: "text", text: value });
  const short = entry as { user?: unknown; agent?: unknown; thought?: unknown };
  if (typeof short.user === "string") {
    return { sessionUpdate: "user_message_chunk", content: text(short.user) };
  }
  if (typeof short.agent === "string") {
    return { sessionUpdate: "agent_message_chunk", content: text(short.agent) };
  }
  if (typeof short.thought === "string") {
    return { sessionUpdate: "agent_thought_chunk", content: text(short.thought) };
  }
  return structuredClone(entry as schema.SessionUpdate);
}
