/* eslint-disable @typescript-eslint/no-deprecated -- the classic API is what acp-kit
   exposes; acp-sdk-classic (1.9.0) only provides its types and marks them deprecated. */
/**
 * acp-kit's implementation of the in-process scenarios, written against the
 * classic API (`AgentSideConnection` / `ClientSideConnection` / `ndJsonStream`).
 * Parameterised by the module providing that API, so the same code runs
 * against acp-kit's dist build or the official SDK 1.9.0 stand-in.
 */
import type * as acp from "acp-sdk-classic";
import type { ClassicModule } from "../lib/kit-module.ts";
import {
  CHUNK_TEXT,
  READ_PATH,
  SMALL_CONTENT,
  assert,
  makePipes,
  pool,
  settleWithin,
  type Impl,
  type StreamResult,
  type TimedResult,
} from "../lib/common.ts";

interface Setup {
  agentConn: acp.AgentSideConnection;
  clientConn: acp.ClientSideConnection;
  sessionId: string;
  /** Number of `session/update`s the client has handled so far. */
  received: () => number;
  teardown: () => Promise<void>;
}

/** Streams `n` agent_message_chunk updates from inside a prompt turn, awaiting each send. */
export async function streamUpdates(
  conn: acp.AgentSideConnection,
  sessionId: string,
  n: number,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    await conn.sessionUpdate({
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: CHUNK_TEXT } },
    });
  }
}

export function makeKitImpl(mod: ClassicModule): Impl {
  async function setup(opts: { streamCount?: number; fileContent?: string }): Promise<Setup> {
    const pipes = makePipes();
    let received = 0;
    const agentConn = new mod.AgentSideConnection(
      (conn) => ({
        initialize: () => ({ protocolVersion: mod.PROTOCOL_VERSION, agentCapabilities: {} }),
        newSession: () => ({ sessionId: "bench-session" }),
        authenticate: () => ({}),
        prompt: async (params) => {
          await streamUpdates(conn, params.sessionId, opts.streamCount ?? 0);
          return { stopReason: "end_turn" };
        },
        cancel: () => undefined,
      }),
      mod.ndJsonStream(pipes.agentToClient.writable, pipes.clientToAgent.readable),
    );

    const content = opts.fileContent ?? SMALL_CONTENT;
    const clientConn = new mod.ClientSideConnection(
      () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => {
          received++;
        },
        readTextFile: () => ({ content }),
      }),
      mod.ndJsonStream(pipes.clientToAgent.writable, pipes.agentToClient.readable),
    );

    await clientConn.initialize({
      protocolVersion: mod.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
    });
    const { sessionId } = await clientConn.newSession({ cwd: "/bench", mcpServers: [] });

    return {
      agentConn,
      clientConn,
      sessionId,
      received: () => received,
      teardown: async () => {
        pipes.end();
        await settleWithin(Promise.all([agentConn.closed, clientConn.closed]), 1000);
      },
    };
  }

  return {
    async streaming(n: number): Promise<StreamResult> {
      const s = await setup({ streamCount: n });
      try {
        const t0 = performance.now();
        const response = await s.clientConn.prompt({
          sessionId: s.sessionId,
          prompt: [{ type: "text", text: "stream" }],
        });
        const ms = performance.now() - t0;
        const receivedAtResolve = s.received();
        assert(response.stopReason === "end_turn", "stopReason");
        return { ms, receivedAtResolve };
      } finally {
        await s.teardown();
      }
    },

    async sequentialReads(n: number): Promise<TimedResult> {
      const s = await setup({});
      try {
        const params = { sessionId: s.sessionId, path: READ_PATH };
        const t0 = performance.now();
        for (let i = 0; i < n; i++) {
          const r = await s.agentConn.readTextFile(params);
          if (r.content !== SMALL_CONTENT) throw new Error("bad content");
        }
        return { ms: performance.now() - t0 };
      } finally {
        await s.teardown();
      }
    },

    async concurrentReads(n: number, inFlight: number): Promise<TimedResult> {
      const s = await setup({});
      try {
        const params = { sessionId: s.sessionId, path: READ_PATH };
        let done = 0;
        const t0 = performance.now();
        await pool(n, inFlight, async () => {
          const r = await s.agentConn.readTextFile(params);
          if (r.content !== SMALL_CONTENT) throw new Error("bad content");
          done++;
        });
        const ms = performance.now() - t0;
        assert(done === n, `completed ${done}/${n}`);
        return { ms };
      } finally {
        await s.teardown();
      }
    },

    async bigRead(content: string): Promise<TimedResult> {
      const s = await setup({ fileContent: content });
      try {
        const t0 = performance.now();
        const r = await s.agentConn.readTextFile({ sessionId: s.sessionId, path: READ_PATH });
        const ms = performance.now() - t0;
        assert(r.content.length === content.length, "big content length");
        return { ms };
      } finally {
        await s.teardown();
      }
    },
  };
}
