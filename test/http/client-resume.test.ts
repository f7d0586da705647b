/**
 * The remote clients survive the network: a TCP proxy between client and server cuts,
 * stalls and delays connections in the middle of a turn of 10,000 updates, and every
 * update still arrives, once, in order. When the server no longer has what was missed,
 * the client says so clearly (a resume gap) instead of hanging.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  ClientSideConnection,
  PROTOCOL_VERSION,
  type Client,
  type SessionNotification,
} from "../../packages/acp-kit/src/index.js";
import {
  connectHttp,
  connectWebSocket,
  ResumeGapError,
  type RemoteClientOptions,
  type RemoteEvent,
  type RemoteStream,
} from "../../packages/acp-kit/src/http/client/index.js";
import { startTcpProxy, type TcpProxy } from "./client-proxy.js";
import { createAcpNodeServer } from "../../packages/acp-kit/src/http/server/index.js";
import {
  startAgent,
  startResumableServer,
  type ResumableServer,
} from "./client-resumable-server.js";

/**
 * acp-kit's own server (src/http/server), resumable with the shipped retention, serving the
 * same test agent; `retention`: keep only that many messages instead.
 */
async function startOurServer(retention?: number): Promise<ResumableServer> {
  const resumes = { sse: 0, ws: 0, gaps: 0 };
  const server = createAcpNodeServer({
    agent: (stream) => startAgent(stream),
    resumable:
      retention === undefined
        ? true
        : { retentionMessages: retention, retentionWindowSeconds: 0, retentionSeconds: 60 },
    keepAliveMs: 100,
    logger: (event) => {
      if (event.type === "stream-resumed") {
        if (event.transport === "websocket") resumes.ws++;
        else resumes.sse++;
      }
      if (event.type === "resume-failed") resumes.gaps++;
    },
  });
  const { port } = await server.listen(0, "127.0.0.1");
  return { url: `http://127.0.0.1:${port}/acp`, port, resumes, close: () => server.close() };
}

type StartServer = (retention?: number) => Promise<ResumableServer>;

const TURN = 10_000;

type Connect = (url: string, options: RemoteClientOptions) => RemoteStream;
const transports: [string, Connect][] = [
  ["HTTP/SSE", connectHttp],
  ["WebSocket", connectWebSocket],
];

const OPTIONS = {
  reconnect: { initialDelayMs: 20, maxDelayMs: 200, maxAttempts: 30 },
  keepAliveTimeoutMs: 600,
  requestTimeoutMs: 1_500,
} satisfies RemoteClientOptions;

function recordingClient(updates: Map<string, string[]>): Client {
  return {
    sessionUpdate: (n: SessionNotification) => {
      const u = n.update;
      const list = updates.get(n.sessionId) ?? [];
      updates.set(n.sessionId, list);
      if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
        list.push(u.content.text);
    },
    requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
  };
}

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const matrix: [string, string, Connect, StartServer][] = [];
for (const [name, connect] of transports) {
  matrix.push([name, "the spec's minimal test server", connect, startResumableServer]);
  matrix.push([name, "acp-kit's server", connect, startOurServer]);
}

describe.each(matrix)(
  "%s, %s: reconnect and resume through a faulty network",
  (name, _server, connect, start) => {
    let server: ResumableServer | undefined;
    let proxy: TcpProxy | undefined;
    let stream: RemoteStream | undefined;

    afterEach(async () => {
      await stream?.close();
      await proxy?.close();
      await server?.close();
    });

    it(`a turn of ${TURN} updates arrives whole and in order through cuts, a stall and delays`, async () => {
      server = await start();
      proxy = await startTcpProxy(server.port);
      const events: RemoteEvent[] = [];
      stream = connect(`http://127.0.0.1:${proxy.port}/acp`, {
        ...OPTIONS,
        onEvent: (e) => events.push(e),
      });
      const updates = new Map<string, string[]>();
      const connection = new ClientSideConnection(() => recordingClient(updates), stream);
      await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
      const seen = () => updates.get(sessionId)?.length ?? 0;
      const turn = connection.prompt({ sessionId, prompt: [{ type: "text", text: String(TURN) }] });
      const p = proxy;
      const resumes = () => events.filter((e) => e.type === "reconnected" && e.resumed).length;
      // Chaos, bounded: each step waits for progress so that it lands mid-turn, and for the
      // resume of the cut before it, so that it cuts a live connection (on a loaded machine
      // the client may still be reconnecting when the next step comes).
      await waitFor(() => seen() > 300);
      expect(p.cut()).toBeGreaterThan(0);
      await waitFor(() => resumes() >= 1 && seen() > 2_000);
      p.delayMs = 3;
      await pause(150);
      p.delayMs = 0;
      expect(p.cut()).toBeGreaterThan(0);
      await waitFor(() => resumes() >= 2 && seen() > 4_000);
      p.stall(true); // a dead peer: open sockets, no bytes; only the keep-alive can tell
      await pause(1_500);
      p.stall(false);
      await waitFor(() => seen() > 7_000);
      p.cut();
      await expect(turn).resolves.toEqual({ stopReason: "end_turn" });
      const got = updates.get(sessionId) ?? [];
      expect(got.length).toBe(TURN);
      expect(got).toEqual(Array.from({ length: TURN }, (_, i) => String(i)));
      const resumed = events.filter((e) => e.type === "reconnected" && e.resumed);
      expect(resumed.length, JSON.stringify(events)).toBeGreaterThanOrEqual(2);
      expect(name === "WebSocket" ? server.resumes.ws : server.resumes.sse).toBeGreaterThanOrEqual(
        2,
      );
      expect(
        events.some(
          (e) =>
            e.type === "reconnecting" &&
            /keep-alive|No data|No answer|1006|closed|terminated/.test(e.reason),
        ),
      ).toBe(true);
      // The connection still works after all that.
      const again = await connection.newSession({ cwd: "/", mcpServers: [] });
      await expect(
        connection.prompt({ sessionId: again.sessionId, prompt: [{ type: "text", text: "10" }] }),
      ).resolves.toEqual({ stopReason: "end_turn" });
      expect(updates.get(again.sessionId)).toHaveLength(10);
    });

    it("when the missed messages have left the server's buffer: a clear resume-gap error", async () => {
      server = await start(50);
      proxy = await startTcpProxy(server.port);
      const events: RemoteEvent[] = [];
      stream = connect(`http://127.0.0.1:${proxy.port}/acp`, {
        ...OPTIONS,
        onEvent: (e) => events.push(e),
      });
      const updates = new Map<string, string[]>();
      const connection = new ClientSideConnection(() => recordingClient(updates), stream);
      await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
      const turn = connection
        .prompt({ sessionId, prompt: [{ type: "text", text: "3000" }] })
        .catch((e: unknown) => e);
      await waitFor(() => (updates.get(sessionId)?.length ?? 0) > 0);
      proxy.stall(true);
      await pause(400);
      proxy.cut();
      proxy.stall(false);
      const error = (await turn) as Error;
      expect(error).toBeInstanceOf(Error);
      // HTTP: the session's request fails with the gap; WebSocket: the connection closes, caused by it.
      const gap = name === "WebSocket" ? (error.cause as Error) : error;
      expect(gap.message).toMatch(/no longer has the messages/);
      expect(events.some((e) => e.type === "resume-gap")).toBe(true);
      expect(server.resumes.gaps).toBeGreaterThan(0);
      if (name === "WebSocket") {
        // Over a WebSocket the whole connection is lost: open a new one and load the session.
        await stream.closed;
        expect(events.at(-1)).toMatchObject({
          type: "closed",
          error: expect.any(ResumeGapError) as unknown,
        });
      } else {
        // Over HTTP only that session is: the connection goes on.
        const other = await connection.newSession({ cwd: "/", mcpServers: [] });
        await expect(
          connection.prompt({ sessionId: other.sessionId, prompt: [{ type: "text", text: "5" }] }),
        ).resolves.toEqual({ stopReason: "end_turn" });
      }
    });
  },
);
