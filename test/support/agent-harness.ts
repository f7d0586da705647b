/**
 * Test support for the agent helpers (not part of the package): an agent built on
 * {@link AgentKit} and a recording client, linked over a real in-memory connection pair.
 *
 * @module
 */
import {
  AgentSideConnection,
  ClientSideConnection,
  memoryStreamPair,
  type Agent,
  type Client,
  type PromptResponse,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "../../packages/acp-kit/src/index.js";
import {
  AgentKit,
  type AgentKitOptions,
  type TurnFunction,
} from "../../packages/acp-kit/src/agent/agent-kit.js";

type State = { readonly cwd: string };

/** What the client saw, in arrival order. */
export type Seen =
  | { readonly update: SessionUpdate }
  | { readonly permission: RequestPermissionRequest }
  | { readonly answer: PromptResponse };

/** An agent and a client talking over memory streams. */
export interface Harness {
  /** The agent's kit. */
  readonly kit: AgentKit<State>;
  /** The agent's connection. */
  readonly agent: AgentSideConnection;
  /** The client's connection (it implements `Agent`). */
  readonly client: ClientSideConnection;
  /** Everything the client received so far. */
  readonly seen: Seen[];
  /** Sets the turn function `prompt` runs. */
  onTurn(run: TurnFunction<State>): void;
  /** Creates a session and returns its id. */
  newSession(): Promise<string>;
  /**
   * Sends a prompt and records the answer in {@link Harness.seen} when it arrives (a
   * response is delivered after the notifications that preceded it).
   */
  prompt(sessionId: string, text?: string): Promise<PromptResponse>;
  /** Only the updates seen. */
  updates(): SessionUpdate[];
}

/**
 * Builds a harness.
 *
 * @param client - Client methods to add or replace (the defaults record updates and
 *   answer permission requests with the first option).
 * @param options - Options for the kit.
 */
export function harness(client: Partial<Client> = {}, options?: AgentKitOptions): Harness {
  const pair = memoryStreamPair();
  const seen: Seen[] = [];
  let kit: AgentKit<State> | undefined;
  let current: TurnFunction<State> = () => Promise.resolve("end_turn");
  const agent = new AgentSideConnection((connection) => {
    const made = new AgentKit<State>(connection, options);
    kit = made;
    const impl: Agent = {
      initialize: () => ({ protocolVersion: 1 }),
      authenticate: () => undefined,
      newSession: (params) => ({
        sessionId: made.sessions.create(() => ({ cwd: params.cwd })).sessionId,
      }),
      prompt: (params, context) => made.prompt(params, context, (turn) => current(turn)),
      cancel: (params) => made.cancel(params),
    };
    return impl;
  }, pair.agent);
  const connection = new ClientSideConnection(
    () => ({
      sessionUpdate: (params) => {
        seen.push({ update: params.update });
      },
      requestPermission: (params) => {
        seen.push({ permission: params });
        const first = params.options[0];
        return first === undefined
          ? { outcome: { outcome: "cancelled" } }
          : { outcome: { outcome: "selected", optionId: first.optionId } };
      },
      ...client,
    }),
    pair.client,
  );
  if (kit === undefined) throw new Error("the agent was not created");
  const made = kit;
  return {
    seen,
    onTurn(run: TurnFunction<State>) {
      current = run;
    },
    kit: made,
    agent,
    client: connection,
    async newSession() {
      const { sessionId } = await connection.newSession({ cwd: "/work", mcpServers: [] });
      return sessionId;
    },
    async prompt(sessionId: string, text = "hi") {
      const answer = await connection.prompt({ sessionId, prompt: [{ type: "text", text }] });
      seen.push({ answer });
      return answer;
    },
    updates() {
      return seen.flatMap((entry) => ("update" in entry ? [entry.update] : []));
    },
  };
}

/** Resolves after `ms` milliseconds, or rejects with the signal's reason when it aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** Resolves once `predicate` holds, checking every few milliseconds (fails after 2 s). */
export async function until(predicate: () => boolean): Promise<void> {
  for (let waited = 0; !predicate(); waited += 2) {
    if (waited > 2000) throw new Error("timed out waiting for a condition");
    await pause(2);
  }
}
