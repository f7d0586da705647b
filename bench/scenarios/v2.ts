/**
 * S1v2: one ACP v2 prompt turn streaming `n` agent message chunks, agent -> client, timed
 * from the prompt until the client has the turn's idle state (v2 answers the prompt as
 * soon as the message is inserted; the turn ends with `state_update` idle). Both sides emit
 * the same messages: the prompt's echo, `running`, the chunks, `idle`.
 *
 * - `kit`: acp-kit's v2 entry (`acp-kit/v2`, the built `dist/v2.js` beside the classic
 *   module under test): `AgentSideConnection` with `AgentSession` (the chunks through a
 *   message writer), `ClientSideConnection`.
 * - `official`: the official SDK 2.4.0's v2 builders (`agent()` / `client()` from
 *   `@agentclientprotocol/sdk/experimental/v2`).
 */
import {
  agent as theirAgent,
  client as theirClient,
  ndJsonStream as theirNdJsonStream,
} from "@agentclientprotocol/sdk/experimental/v2";
import { CHUNK_TEXT, assert, makePipes, type StreamResult } from "../lib/common.ts";

/** What a v2 cell runs. */
export interface V2Impl {
  /** S1v2: one turn of `n` chunks. */
  streaming(n: number): Promise<StreamResult>;
}

const INFO = { name: "bench", version: "0.0.0" };
const PROMPT = [{ type: "text" as const, text: "stream" }];

type Update = { sessionUpdate?: string; state?: string; stopReason?: string };

/** Counts updates; resolves `idle` on the first idle state after `arm()`. */
function idleWatch(): { count: () => number; arm: () => Promise<void>; seen: (u: Update) => void } {
  let received = 0;
  let done: (() => void) | undefined;
  return {
    count: () => received,
    arm: () => new Promise<void>((resolve) => (done = resolve)),
    seen: (u) => {
      received++;
      if (u.sessionUpdate === "state_update" && u.state === "idle" && done !== undefined) {
        const finish = done;
        done = undefined;
        finish();
      }
    },
  };
}

/** acp-kit's v2 sides, from the built module at `url`. */
export async function kitV2Impl(url: string): Promise<V2Impl> {
  const kit = (await import(url)) as typeof import("../../packages/acp-kit/src/v2/index.ts");
  return {
    async streaming(n) {
      const pipes = makePipes();
      const watch = idleWatch();
      const agent = new kit.AgentSideConnection(
        (connection) => {
          let session: InstanceType<typeof kit.AgentSession> | undefined;
          return {
            initialize: () => ({ protocolVersion: 2, info: INFO, capabilities: { session: {} } }),
            newSession: () => {
              session = new kit.AgentSession(connection, "bench-session");
              return { sessionId: session.sessionId };
            },
            listSessions: () => ({ sessions: [] }),
            resumeSession: () => ({}),
            closeSession: () => undefined,
            prompt: (params) => {
              assert(session !== undefined, "session");
              return session.prompt(params, async (turn) => {
                const message = turn.session.agentMessage();
                for (let i = 0; i < n; i++) await message.append(CHUNK_TEXT);
                return "end_turn" as const;
              });
            },
            cancel: () => undefined,
          };
        },
        kit.ndJsonStream(pipes.agentToClient.writable, pipes.clientToAgent.readable),
      );
      const client = new kit.ClientSideConnection(
        () => ({ sessionUpdate: (params) => watch.seen(params.update as Update) }),
        kit.ndJsonStream(pipes.clientToAgent.writable, pipes.agentToClient.readable),
      );
      try {
        await client.initialize({ protocolVersion: 2, info: INFO });
        const { sessionId } = await client.newSession({ cwd: "/bench" });
        const idle = watch.arm();
        const t0 = performance.now();
        await client.prompt({ sessionId, prompt: PROMPT });
        await idle;
        const ms = performance.now() - t0;
        assert(watch.count() === n + 3, `received ${watch.count()} of ${n + 3}`);
        // The streamed updates only: not the echo, `running` and `idle`.
        return { ms, receivedAtResolve: watch.count() - 3 };
      } finally {
        agent.close();
        client.close();
        pipes.end();
      }
    },
  };
}

/** The official SDK's v2 builders. */
export const officialV2Impl: V2Impl = {
  async streaming(n) {
    const pipes = makePipes();
    const watch = idleWatch();
    let turn = 0;
    const agentConn = theirAgent()
      .onRequest("initialize", () => ({
        protocolVersion: 2,
        info: INFO,
        capabilities: { session: {} },
      }))
      .onRequest("session/new", () => ({ sessionId: "bench-session" }))
      .onRequest("session/list", () => ({ sessions: [] }))
      .onRequest("session/resume", () => ({}))
      .onRequest("session/close", () => ({}))
      .onRequest("session/prompt", async ({ params, client: cx }) => {
        const sessionId = params.sessionId;
        const messageId = `user-${++turn}`;
        await cx.notify("session/update", {
          sessionId,
          update: { sessionUpdate: "user_message", messageId, content: params.prompt },
        });
        await cx.notify("session/update", {
          sessionId,
          update: { sessionUpdate: "state_update", state: "running" },
        });
        void (async () => {
          const reply = `agent-${turn}`;
          for (let i = 0; i < n; i++) {
            await cx.notify("session/update", {
              sessionId,
              update: {
                sessionUpdate: "agent_message_chunk",
                messageId: reply,
                content: { type: "text", text: CHUNK_TEXT },
              },
            });
          }
          await cx.notify("session/update", {
            sessionId,
            update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
          });
        })();
        return { messageId };
      })
      .onNotification("session/cancel", () => undefined)
      .connect(theirNdJsonStream(pipes.agentToClient.writable, pipes.clientToAgent.readable));
    const clientConn = theirClient()
      .onNotification("session/update", ({ params }) => watch.seen(params.update as Update))
      .connect(theirNdJsonStream(pipes.clientToAgent.writable, pipes.agentToClient.readable));
    try {
      await clientConn.agent.request("initialize", { protocolVersion: 2, info: INFO });
      const { sessionId } = await clientConn.agent.request("session/new", { cwd: "/bench" });
      const idle = watch.arm();
      const t0 = performance.now();
      await clientConn.agent.request("session/prompt", { sessionId, prompt: PROMPT });
      await idle;
      const ms = performance.now() - t0;
      assert(watch.count() === n + 3, `received ${watch.count()} of ${n + 3}`);
      // The streamed updates only: not the echo, `running` and `idle`.
      return { ms, receivedAtResolve: watch.count() - 3 };
    } finally {
      agentConn.close();
      clientConn.close();
      pipes.end();
    }
  },
};
