/**
 * The official SDK 2.4.0 HTTP and WebSocket *clients* against acp-kit's HTTP server (real
 * sockets on 127.0.0.1), serving acp-kit's scripted `AgentSideConnection` unchanged.
 */
import {
  client as officialClient,
  PROTOCOL_VERSION as THEIR_PROTOCOL_VERSION,
  RequestError as TheirRequestError,
  type ClientConnection,
  type Stream as TheirStream,
} from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { AgentSideConnection, NewSessionResponse } from "../../src/index.js";
import { createAcpNodeServer, type AcpNodeServer } from "../../src/http/server/index.js";
import { connectOurAgent } from "../support/interop-ours.js";
import {
  AGENT_CAPABILITIES,
  AgentScript,
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  ClientScript,
  FAIL_ERROR,
  NEW_SESSION,
  NOTES_PATH,
  PERMISSION_REQUEST,
  promptFor,
  ROOT,
  Scenario,
  SCRIPTED_UPDATES,
} from "../support/interop-scenarios.js";
import { caught, until } from "../support/interop-wire.js";

const theirError = (code: number, message: string, data: unknown): Error =>
  new TheirRequestError(code, message, data);
const EXPECTED_READ = 'line two — ünïcödé ✅\nline three "quoted" \\ back\n';

function connectOfficialClient(stream: TheirStream): {
  connection: ClientConnection;
  script: ClientScript;
} {
  const script: ClientScript = new ClientScript({
    cancel: (sessionId): Promise<void> => connection.agent.notify("session/cancel", { sessionId }),
    makeError: theirError,
  });
  const connection: ClientConnection = officialClient({ name: "official-remote-client" })
    .onNotification("session/update", (ctx) => {
      script.sessionUpdate(ctx.params);
    })
    .onRequest("session/request_permission", (ctx) =>
      script.requestPermission(ctx.params, ctx.signal),
    )
    .onRequest("fs/read_text_file", (ctx) => script.fs.read(ctx.params))
    .onRequest("fs/write_text_file", (ctx) => script.fs.write(ctx.params))
    .connect(stream);
  return { connection, script };
}

type Served = { connection: AgentSideConnection; script: AgentScript };

const transports = [
  {
    name: "Streamable HTTP",
    closeReason: "delete",
    open: (url: string): TheirStream => createHttpStream(url),
  },
  {
    name: "WebSocket",
    closeReason: "socket-closed",
    open: (url: string): TheirStream =>
      createWebSocketStream(url.replace(/^http/, "ws"), { WebSocket }),
  },
];

describe.each(transports)(
  "official 2.4.0 $name client → acp-kit server",
  ({ open, closeReason }) => {
    let server: AcpNodeServer;
    let url: string;
    const served: Served[] = [];
    const closes: string[] = [];

    beforeAll(async () => {
      server = createAcpNodeServer({
        agent: (stream) => {
          const agent = connectOurAgent(stream);
          served.push(agent);
          return agent.connection;
        },
        onConnectionClose: (info) => closes.push(info.reason),
      });
      const address = await server.listen(0);
      url = `http://127.0.0.1:${address.port}/acp`;
    });

    afterAll(async () => {
      await server.close();
    });

    async function connect(): Promise<{ connection: ClientConnection; script: ClientScript }> {
      const client = connectOfficialClient(open(url));
      const response = await client.connection.agent.request("initialize", {
        protocolVersion: THEIR_PROTOCOL_VERSION,
        clientCapabilities: CLIENT_CAPABILITIES,
        clientInfo: CLIENT_INFO,
      });
      expect(response).toMatchObject({ protocolVersion: 1, agentCapabilities: AGENT_CAPABILITIES });
      return client;
    }

    const newSession = async (client: { connection: ClientConnection }): Promise<string> =>
      (await client.connection.agent.request<NewSessionResponse>("session/new", NEW_SESSION))
        .sessionId;

    it("initialize, session/new and a prompt turn whose updates all arrive in order", async () => {
      const client = await connect();
      try {
        const sessionId = await newSession(client);
        expect(sessionId).toMatch(/^sess-\d+$/);
        const response = await client.connection.agent.request(
          "session/prompt",
          promptFor(sessionId, Scenario.updates),
        );
        expect(response).toEqual({ stopReason: "end_turn" });
        expect(client.script.updatesOf(sessionId)).toEqual(SCRIPTED_UPDATES);
      } finally {
        client.connection.close();
      }
    });

    it("a permission request answered by the client, file reads and writes, an agent error", async () => {
      const client = await connect();
      const agent = served.at(-1)!;
      try {
        const sessionId = await newSession(client);
        await expect(
          client.connection.agent.request(
            "session/prompt",
            promptFor(sessionId, Scenario.permission),
          ),
        ).resolves.toEqual({ stopReason: "end_turn" });
        expect(client.script.permissionRequests.at(-1)).toEqual(PERMISSION_REQUEST(sessionId));
        expect(agent.script.permission).toEqual({
          response: { outcome: { outcome: "selected", optionId: "allow-once" } },
        });

        await client.connection.agent.request("session/prompt", promptFor(sessionId, Scenario.fs));
        expect(client.script.fs.reads[0]).toEqual({
          sessionId,
          path: NOTES_PATH,
          line: 2,
          limit: 2,
        });
        expect(agent.script.fs?.read).toEqual({ content: EXPECTED_READ });
        expect(client.script.fs.files.get(`${ROOT}/NOTES.md`)).toBe(EXPECTED_READ.toUpperCase());

        const error = await caught(
          client.connection.agent.request("session/prompt", promptFor(sessionId, Scenario.fail)),
        );
        expect(error).toBeInstanceOf(TheirRequestError);
        const e = error as TheirRequestError;
        expect({ code: e.code, message: e.message, data: e.data }).toEqual(FAIL_ERROR);
        const unknown = await caught(client.connection.agent.request("session/frobnicate", {}));
        expect((unknown as TheirRequestError).code).toBe(-32601);
      } finally {
        client.connection.close();
      }
    });

    it("session/cancel mid-turn ends the turn with stopReason cancelled", async () => {
      const client = await connect();
      const agent = served.at(-1)!;
      try {
        const sessionId = await newSession(client);
        const turn = client.connection.agent.request(
          "session/prompt",
          promptFor(sessionId, Scenario.cancel),
        );
        expect(await until(() => client.script.updatesOf(sessionId).length === 2)).toBe(true);
        await client.connection.agent.notify("session/cancel", { sessionId });
        await expect(turn).resolves.toEqual({ stopReason: "cancelled" });
        expect(agent.script.cancels).toContainEqual({ sessionId });
      } finally {
        client.connection.close();
      }
    });

    it("several sessions on one connection and two connections at once", async () => {
      const [a, b] = await Promise.all([connect(), connect()]);
      try {
        const sessionsA = await Promise.all([newSession(a), newSession(a), newSession(a)]);
        const sessionsB = await Promise.all([newSession(b), newSession(b)]);
        expect(new Set(sessionsA).size).toBe(3);
        const turns = [
          ...sessionsA.map((s) => ({ client: a, s })),
          ...sessionsB.map((s) => ({ client: b, s })),
        ];
        const results = await Promise.all(
          turns.map(({ client, s }) =>
            client.connection.agent.request("session/prompt", promptFor(s, Scenario.updates)),
          ),
        );
        expect(results).toEqual(turns.map(() => ({ stopReason: "end_turn" })));
        for (const { client, s } of turns)
          expect(client.script.updatesOf(s)).toEqual(SCRIPTED_UPDATES);
      } finally {
        a.connection.close();
        b.connection.close();
      }
    });

    it("closing the client ends its connection on the server", async () => {
      // Earlier tests closed their clients; wait for the server to see all of them.
      expect(await until(() => server.handler.connectionCount === 0)).toBe(true);
      closes.length = 0;
      const client = await connect();
      expect(server.handler.connectionCount).toBe(1);
      client.connection.close();
      expect(await until(() => server.handler.connectionCount === 0)).toBe(true);
      expect(closes).toEqual([closeReason]);
    });
  },
);
