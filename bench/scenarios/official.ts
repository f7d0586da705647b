/**
 * The official SDK 2.4.0 implementation of the in-process scenarios, using its
 * builder API (`agent()` / `client()`, `onRequest` / `onNotification`,
 * `AgentContext.request`/`notify`, `ClientContext.request`).
 */
import {
  PROTOCOL_VERSION,
  agent,
  client,
  ndJsonStream,
  type AgentConnection,
  type ClientConnection,
  type ReadTextFileRequest,
} from "@agentclientprotocol/sdk";
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
  agentConn: AgentConnection;
  clientConn: ClientConnection;
  sessionId: string;
  received: () => number;
  teardown: () => Promise<void>;
}

async function setup(opts: { streamCount?: number; fileContent?: string }): Promise<Setup> {
  const pipes = makePipes();
  let received = 0;
  const streamCount = opts.streamCount ?? 0;

  const agentApp = agent()
    .onRequest("initialize", () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest("session/new", () => ({ sessionId: "bench-session" }))
    .onRequest("session/prompt", async ({ params, client: cx }) => {
      for (let i = 0; i < streamCount; i++) {
        await cx.notify("session/update", {
          sessionId: params.sessionId,
          update: {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: CHUNK_TEXT },
          },
        });
      }
      return { stopReason: "end_turn" as const };
    })
    .onNotification("session/cancel", () => undefined);
  const agentConn = agentApp.connect(
    ndJsonStream(pipes.agentToClient.writable, pipes.clientToAgent.readable),
  );

  const content = opts.fileContent ?? SMALL_CONTENT;
  const clientApp = client()
    .onNotification("session/update", () => {
      received++;
    })
    .onRequest("fs/read_text_file", () => ({ content }))
    .onRequest("session/request_permission", () => ({
      outcome: { outcome: "cancelled" as const },
    }));
  const clientConn = clientApp.connect(
    ndJsonStream(pipes.clientToAgent.writable, pipes.agentToClient.readable),
  );

  await clientConn.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
  });
  const { sessionId } = await clientConn.agent.request("session/new", {
    cwd: "/bench",
    mcpServers: [],
  });

  return {
    agentConn,
    clientConn,
    sessionId,
    received: () => received,
    teardown: async () => {
      agentConn.close();
      clientConn.close();
      pipes.end();
      await settleWithin(Promise.all([agentConn.closed, clientConn.closed]), 1000);
    },
  };
}

export const officialImpl: Impl = {
  async streaming(n: number): Promise<StreamResult> {
    const s = await setup({ streamCount: n });
    try {
      const t0 = performance.now();
      const response = await s.clientConn.agent.request("session/prompt", {
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
      const cx = s.agentConn.client;
      const params: ReadTextFileRequest = { sessionId: s.sessionId, path: READ_PATH };
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const r = await cx.request("fs/read_text_file", params);
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
      const cx = s.agentConn.client;
      const params: ReadTextFileRequest = { sessionId: s.sessionId, path: READ_PATH };
      let done = 0;
      const t0 = performance.now();
      await pool(n, inFlight, async () => {
        const r = await cx.request("fs/read_text_file", params);
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
      const r = await s.agentConn.client.request("fs/read_text_file", {
        sessionId: s.sessionId,
        path: READ_PATH,
      });
      const ms = performance.now() - t0;
      assert(r.content.length === content.length, "big content length");
      return { ms };
    } finally {
      await s.teardown();
    }
  },
};
