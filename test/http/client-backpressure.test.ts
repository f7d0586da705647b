/**
 * The HTTP client reads the event streams only as fast as the connection takes the
 * messages: beyond a bounded read-ahead the streams wait (and TCP pushes back on the
 * server). Before, every event was queued at once, and a burst of 100,000 updates cost
 * quadratic time in the queue (3.7 s, now 0.8 s, in `npm run bench`'s remote scenario).
 * What matters here: a consumer that is slow still gets every update, in order, and the
 * turn ends.
 */
import { afterEach, expect, it } from "vitest";
import {
  ClientSideConnection,
  PROTOCOL_VERSION,
  type SessionNotification,
} from "../../packages/acp-kit/src/index.js";
import { connectHttp, type RemoteStream } from "../../packages/acp-kit/src/http/client/index.js";
import { createAcpNodeServer } from "../../packages/acp-kit/src/http/server/index.js";
import { startAgent } from "./client-resumable-server.js";

const TURN = 15_000;
let close: (() => Promise<void>) | undefined;
let stream: RemoteStream | undefined;

afterEach(async () => {
  await stream?.close();
  await close?.();
});

it(`a slow connection still gets all ${TURN} updates of a turn, in order`, async () => {
  const server = createAcpNodeServer({ agent: (s) => startAgent(s) });
  const { port } = await server.listen(0, "127.0.0.1");
  close = () => server.close();
  stream = connectHttp(`http://127.0.0.1:${port}/acp`);
  const got: string[] = [];
  const connection = new ClientSideConnection(
    () => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      // Stalls on the first update: what follows piles up in the connection (up to its
      // backlog of 10,000), then in the client's read-ahead, then its event streams wait.
      sessionUpdate: async (n: SessionNotification) => {
        const u = n.update;
        if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") {
          got.push(u.content.text);
        }
        if (got.length === 1) await new Promise((resolve) => setTimeout(resolve, 500));
      },
    }),
    stream,
  );
  await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
  await expect(
    connection.prompt({ sessionId, prompt: [{ type: "text", text: String(TURN) }] }),
  ).resolves.toEqual({ stopReason: "end_turn" });
  expect(got).toEqual(Array.from({ length: TURN }, (_, i) => String(i)));
});
