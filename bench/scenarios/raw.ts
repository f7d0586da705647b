/**
 * The raw baseline for the in-process scenarios: bare JSON-RPC over ndjson via
 * {@link RawPeer} (JSON.parse/JSON.stringify, no validation, no SDK).
 */
import { RawPeer } from "../lib/raw-peer.js";
import {
  CHUNK_TEXT,
  READ_PATH,
  SESSION_ID,
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
  agentPeer: RawPeer;
  clientPeer: RawPeer;
  received: () => number;
  teardown: () => Promise<void>;
}

/** Streams `n` session/update notifications, awaiting each write. */
export async function rawStreamUpdates(peer: RawPeer, sessionId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await peer.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: CHUNK_TEXT } },
    });
  }
}

function setup(opts: {
  streamCount?: number;
  fileContent?: string;
  write: "each" | "coalesce";
}): Setup {
  const pipes = makePipes();
  let received = 0;
  const content = opts.fileContent ?? SMALL_CONTENT;

  const agentPeer: RawPeer = new RawPeer(
    pipes.agentToClient.writable,
    pipes.clientToAgent.readable,
    {
      write: opts.write,
      onRequest: async (method, params) => {
        if (method !== "session/prompt") throw new Error(`unexpected ${method}`);
        const { sessionId } = params as { sessionId: string };
        await rawStreamUpdates(agentPeer, sessionId, opts.streamCount ?? 0);
        return { stopReason: "end_turn" };
      },
    },
  );
  const clientPeer = new RawPeer(pipes.clientToAgent.writable, pipes.agentToClient.readable, {
    write: opts.write,
    onNotification: (method) => {
      if (method === "session/update") received++;
    },
    onRequest: (method) => {
      if (method !== "fs/read_text_file") throw new Error(`unexpected ${method}`);
      return { content };
    },
  });
  return {
    agentPeer,
    clientPeer,
    received: () => received,
    teardown: async () => {
      pipes.end();
      await settleWithin(Promise.all([agentPeer.closed, clientPeer.closed]), 1000);
    },
  };
}

interface ReadResult {
  content: string;
}

function makeRawImpl(write: "each" | "coalesce"): Impl {
  return {
    async streaming(n: number): Promise<StreamResult> {
      const s = setup({ streamCount: n, write });
      try {
        const t0 = performance.now();
        const response = (await s.clientPeer.request("session/prompt", {
          sessionId: SESSION_ID,
          prompt: [{ type: "text", text: "stream" }],
        })) as { stopReason: string };
        const ms = performance.now() - t0;
        const receivedAtResolve = s.received();
        assert(response.stopReason === "end_turn", "stopReason");
        return { ms, receivedAtResolve };
      } finally {
        await s.teardown();
      }
    },

    async sequentialReads(n: number): Promise<TimedResult> {
      const s = setup({ write });
      try {
        const params = { sessionId: SESSION_ID, path: READ_PATH };
        const t0 = performance.now();
        for (let i = 0; i < n; i++) {
          const r = (await s.agentPeer.request("fs/read_text_file", params)) as ReadResult;
          if (r.content !== SMALL_CONTENT) throw new Error("bad content");
        }
        return { ms: performance.now() - t0 };
      } finally {
        await s.teardown();
      }
    },

    async concurrentReads(n: number, inFlight: number): Promise<TimedResult> {
      const s = setup({ write });
      try {
        const params = { sessionId: SESSION_ID, path: READ_PATH };
        let done = 0;
        const t0 = performance.now();
        await pool(n, inFlight, async () => {
          const r = (await s.agentPeer.request("fs/read_text_file", params)) as ReadResult;
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
      const s = setup({ fileContent: content, write });
      try {
        const t0 = performance.now();
        const r = (await s.agentPeer.request("fs/read_text_file", {
          sessionId: SESSION_ID,
          path: READ_PATH,
        })) as ReadResult;
        const ms = performance.now() - t0;
        assert(r.content.length === content.length, "big content length");
        return { ms };
      } finally {
        await s.teardown();
      }
    },
  };
}

/** The plain raw loop: one awaited write per message. */
export const rawImpl: Impl = makeRawImpl("each");

/** The coalescing raw loop: written at once when idle, what queues meanwhile joined into one chunk. */
export const rawCoalescingImpl: Impl = makeRawImpl("coalesce");
