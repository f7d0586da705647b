/**
 * Support for the ACP v2 tests over the remote transports: an acp-kit v2 agent (one
 * `AgentSession` per session) whose prompts say what the turn does, a v1 agent for the
 * router, a v1 agent that refuses a v2 `initialize` with an error, and a v2 client that
 * records what it receives.
 */
import {
  AgentSideConnection as V1AgentSideConnection,
  RequestError as V1RequestError,
  type Agent as V1Agent,
} from "../../packages/acp-kit/src/index.js";
import type { Stream } from "../../packages/acp-kit/src/index.js";
import {
  AgentSession,
  RequestError,
  type Agent,
  type AgentSideConnection,
  type Client,
  type RequestContext,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type Turn,
  type TurnStopReason,
  type UpdateSessionNotification,
} from "../../packages/acp-kit/src/v2/index.js";
import { deferred, until, type Deferred } from "../support/interop-wire.js";

/** The v2 agent's `info`. */
export const V2_AGENT_INFO = { name: "remote-v2-agent", version: "2.0.0" };
/** The v1 agent's `agentInfo`. */
export const V1_AGENT_INFO = { name: "remote-v1-agent", version: "1.0.0" };
/** The clients' `info`. */
export const CLIENT_INFO = { name: "remote-v2-client", version: "1.0.0" };

/** The options of the permission request the `ask` turn makes. */
export const PERMISSION = {
  title: "Write NOTES.md?",
  options: [
    { optionId: "yes", name: "Yes", kind: "allow_once" as const },
    { optionId: "no", name: "No", kind: "reject_once" as const },
  ],
};

/** The text of a prompt's first block. */
function textOf(turn: Turn): string {
  const first = turn.prompt[0];
  return first?.type === "text" ? first.text : "";
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/**
 * Plays one turn, by the prompt's text:
 * - `count N`: one agent message of N chunks, `0;` to `N-1;` (yielding now and then, so
 *   the turn spreads over time and over a network cut);
 * - `tool`: a tool call created `in_progress`, then patched `completed` with its content,
 *   then the message `done`;
 * - `ask`: asks the client's permission and says which option came back;
 * - `wait`: a tool call in progress (cancellable with `tool_call/cancel`), until the turn is
 *   cancelled;
 * - anything else: the message `ok`.
 */
async function play(turn: Turn): Promise<TurnStopReason | void> {
  const text = textOf(turn);
  const session = turn.session;
  const count = /^count (\d+)$/.exec(text);
  if (count !== null) {
    const message = session.agentMessage();
    const n = Number(count[1]);
    for (let i = 0; i < n; i++) {
      await message.append(`${i};`);
      if (i % 50 === 49) await tick();
    }
    return "end_turn";
  }
  switch (text) {
    case "tool": {
      const call = await session.toolCall({
        toolCallId: "read-1",
        title: "Read NOTES.md",
        kind: "read",
        status: "in_progress",
      });
      await call.update({
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "the notes" } }],
      });
      await session.agentMessage().append("done");
      return "end_turn";
    }
    case "ask": {
      const answer = await session.requestPermission(PERMISSION);
      const outcome = answer.outcome;
      await session
        .agentMessage()
        .append(outcome.outcome === "selected" ? `chose ${outcome.optionId}` : "cancelled");
      return "end_turn";
    }
    case "wait": {
      await session.toolCall({
        toolCallId: "wait-1",
        title: "Waiting",
        status: "in_progress",
        onCancel: () => undefined,
      });
      await new Promise<void>((resolve) => {
        if (turn.signal.aborted) resolve();
        turn.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      return;
    }
    default:
      await session.agentMessage().append("ok");
      return "end_turn";
  }
}

/** The v2 agent of one connection (for an `AgentSideConnection` or a router's `v2`). */
export function v2Agent(conn: AgentSideConnection): Agent {
  const sessions = new Map<string, AgentSession>();
  let made = 0;
  const get = (sessionId: string): AgentSession => {
    const session = sessions.get(sessionId);
    if (session === undefined || session.closed)
      throw new RequestError(-32002, "Resource not found", { sessionId });
    return session;
  };
  return {
    initialize: () => ({
      protocolVersion: 2,
      info: V2_AGENT_INFO,
      capabilities: { session: {} },
    }),
    newSession: () => {
      const sessionId = `v2-s${++made}`;
      sessions.set(sessionId, new AgentSession(conn, sessionId));
      return { sessionId };
    },
    listSessions: () => ({
      sessions: [...sessions.keys()].map((sessionId) => ({ sessionId, cwd: "/work" })),
    }),
    resumeSession: async (params) => {
      await get(params.sessionId).resume(params);
      return {};
    },
    closeSession: (params) => get(params.sessionId).close(),
    prompt: (params, context) => get(params.sessionId).prompt(params, play, context?.signal),
    cancel: (params) => sessions.get(params.sessionId)?.cancel(),
    cancelToolCall: (params) => get(params.sessionId).cancelToolCall(params),
  };
}

/** A v1 agent: one session `v1-s1`, prompts answered `end_turn` with the text echoed. */
export function v1Agent(conn: V1AgentSideConnection): V1Agent {
  return {
    initialize: () => ({
      protocolVersion: 1,
      agentInfo: V1_AGENT_INFO,
      agentCapabilities: {},
    }),
    newSession: () => ({ sessionId: "v1-s1" }),
    authenticate: () => ({}),
    prompt: async (params) => {
      const first = params.prompt[0];
      await conn.sessionUpdate({
        sessionId: params.sessionId,
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: first?.type === "text" ? first.text : "" },
        },
      });
      return { stopReason: "end_turn" };
    },
    cancel: () => undefined,
  };
}

/**
 * A v1 agent that answers an `initialize` of any version but 1 with `-32600` (as some v1
 * agents do), and counts the `initialize` requests it saw.
 */
export function refusingV1Agent(
  stream: Stream,
  seen: { initialize: number[] } = { initialize: [] },
): V1AgentSideConnection {
  return new V1AgentSideConnection((conn) => {
    const agent = v1Agent(conn);
    return {
      ...agent,
      initialize: (params) => {
        seen.initialize.push(params.protocolVersion);
        if (params.protocolVersion !== 1)
          throw new V1RequestError(-32600, "Invalid request", "only protocol version 1");
        return agent.initialize(params);
      },
    };
  }, stream);
}

/** A permission request as the recording client received it. */
export interface Asked {
  readonly params: RequestPermissionRequest;
  readonly signal: AbortSignal | undefined;
  readonly answer: Deferred<RequestPermissionResponse>;
}

/** A v2 client that records every update and permission request. */
export class V2Recorder {
  readonly updates: UpdateSessionNotification[] = [];
  readonly asked: Asked[] = [];

  /** The client to hand to a `ClientSideConnection` (or `negotiate`'s `v2`). */
  readonly client: Client = {
    sessionUpdate: (params) => {
      this.updates.push(params);
    },
    requestPermission: (params, context?: RequestContext) => {
      const answer = deferred<RequestPermissionResponse>();
      context?.signal.addEventListener("abort", () =>
        answer.resolve({ outcome: { outcome: "cancelled" } }),
      );
      this.asked.push({ params, signal: context?.signal, answer });
      return answer.promise;
    },
  };

  /** The updates of one session, as their `sessionUpdate` kinds. */
  kinds(sessionId: string): string[] {
    return this.of(sessionId).map((u) => u.sessionUpdate);
  }

  /** The updates of one session. */
  of(sessionId: string): UpdateSessionNotification["update"][] {
    return this.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  }

  /** The stop reasons of the session's `idle` states so far. */
  idles(sessionId: string): unknown[] {
    return this.of(sessionId)
      .filter((u) => u.sessionUpdate === "state_update" && u.state === "idle")
      .map((u) => (u as { stopReason?: unknown }).stopReason);
  }

  /** The text of the session's agent message chunks, joined. */
  agentText(sessionId: string): string {
    return this.of(sessionId)
      .map((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
          ? u.content.text
          : "",
      )
      .join("");
  }

  /** Waits until the session has had `count` idle states (fails after `ms`). */
  async untilIdle(sessionId: string, count = 1, ms = 10_000): Promise<void> {
    if (!(await until(() => this.idles(sessionId).length >= count, ms)))
      throw new Error(
        `session ${sessionId}: ${this.idles(sessionId).length} idle states, expected ${count}`,
      );
  }
}
