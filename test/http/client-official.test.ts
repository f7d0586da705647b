/**
 * acp-kit's remote clients (`connectHttp`, `connectWebSocket`) against the official SDK
 * 2.4.0's server transport on loopback, over both Streamable HTTP/SSE and WebSocket: the
 * official `agent()` plays the shared interop script, our `ClientSideConnection` plays
 * the client.
 */
import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PROTOCOL_VERSION,
  RequestError,
  type ClientSideConnection,
} from "../../packages/acp-kit/src/index.js";
import {
  connectHttp,
  connectWebSocket,
  MemoryCookieStore,
  remoteClientCapabilities,
  type RemoteEvent,
  type RemoteStream,
} from "../../packages/acp-kit/src/http/client/index.js";
import { connectOurClient } from "../support/interop-ours.js";
import {
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  DENIED_ERROR,
  FAIL_ERROR,
  NEW_SESSION,
  NOTES_PATH,
  PERMISSION_REQUEST,
  promptFor,
  ROOT,
  Scenario,
  SCRIPTED_UPDATES,
  SESSION_MODES,
  type ClientScript,
} from "../support/interop-scenarios.js";
import { until } from "../support/interop-wire.js";
import { startOfficialServer, type OfficialServer } from "./client-support.js";

const EXPECTED_READ = 'line two — ünïcödé ✅\nline three "quoted" \\ back\n';

type Connect = (url: string, events: RemoteEvent[]) => RemoteStream;
const transports: [string, Connect][] = [
  ["HTTP/SSE", (url, events) => connectHttp(url, { onEvent: (e) => events.push(e) })],
  ["WebSocket", (url, events) => connectWebSocket(url, { onEvent: (e) => events.push(e) })],
];

describe.each(transports)("our %s client ⇄ the official 2.4.0 server", (_name, connect) => {
  let server: OfficialServer;
  let stream: RemoteStream;
  let ours: { connection: ClientSideConnection; script: ClientScript };
  const events: RemoteEvent[] = [];
  const agentScript = () => server.scripts[0];

  beforeAll(async () => {
    server = await startOfficialServer();
    stream = connect(server.url, events);
    ours = connectOurClient(stream);
  });

  afterAll(async () => {
    await stream.close();
    await ours.connection.closed;
    await server.close();
  });

  it("initialize: answered, with a connection id", async () => {
    const response = await ours.connection.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    expect(response.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(response.agentInfo?.name).toBe("interop-agent");
    expect(stream.connectionId).toMatch(/\S/);
    expect(agentScript()?.initializeParams).toMatchObject({ clientInfo: CLIENT_INFO });
  });

  it("session/new: the session id and modes come back", async () => {
    const response = await ours.connection.newSession(NEW_SESSION);
    expect(response).toEqual({ sessionId: "sess-1", modes: SESSION_MODES });
  });

  it("a prompt turn: every update arrives, in order, before the response", async () => {
    const { sessionId } = await ours.connection.newSession(NEW_SESSION);
    const response = await ours.connection.prompt(promptFor(sessionId, Scenario.updates));
    expect(response).toEqual({ stopReason: "end_turn" });
    expect(ours.script.updatesOf(sessionId)).toEqual(SCRIPTED_UPDATES);
  });

  it("a permission request, answered by the client", async () => {
    const { sessionId } = await ours.connection.newSession(NEW_SESSION);
    await expect(
      ours.connection.prompt(promptFor(sessionId, Scenario.permission)),
    ).resolves.toEqual({
      stopReason: "end_turn",
    });
    expect(ours.script.permissionRequests.at(-1)).toEqual(PERMISSION_REQUEST(sessionId));
    expect(agentScript()?.permission).toEqual({
      response: { outcome: { outcome: "selected", optionId: "allow-once" } },
    });
  });

  it("file reads and writes, and the client's error reaching the agent intact", async () => {
    const { sessionId } = await ours.connection.newSession(NEW_SESSION);
    await ours.connection.prompt(promptFor(sessionId, Scenario.fs));
    expect(ours.script.fs.reads.slice(-2)).toEqual([
      { sessionId, path: NOTES_PATH, line: 2, limit: 2 },
      { sessionId, path: "/etc/passwd" },
    ]);
    expect(agentScript()?.fs?.read).toEqual({ content: EXPECTED_READ });
    expect(ours.script.fs.files.get(`${ROOT}/NOTES.md`)).toBe(EXPECTED_READ.toUpperCase());
    const denied = agentScript()?.fs?.denied.error as {
      code: number;
      message: string;
      data: unknown;
    };
    expect({ code: denied.code, message: denied.message, data: denied.data }).toEqual(
      DENIED_ERROR("/etc/passwd"),
    );
  });

  it("session/cancel mid-turn: the turn ends cancelled, later updates still arrive", async () => {
    const { sessionId } = await ours.connection.newSession(NEW_SESSION);
    const turn = ours.connection.prompt(promptFor(sessionId, Scenario.cancel));
    expect(await until(() => ours.script.updatesOf(sessionId).length === 2)).toBe(true);
    await ours.connection.cancel({ sessionId });
    await expect(turn).resolves.toEqual({ stopReason: "cancelled" });
    expect(agentScript()?.cancels).toContainEqual({ sessionId });
    expect(ours.script.updatesOf(sessionId).map((u) => u.sessionUpdate)).toEqual([
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
    ]);
  });

  it("an agent error arrives as a RequestError with code, message and data", async () => {
    const { sessionId } = await ours.connection.newSession(NEW_SESSION);
    const error = await ours.connection
      .prompt(promptFor(sessionId, Scenario.fail))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    const e = error as RequestError;
    expect({ code: e.code, message: e.message, data: e.data }).toEqual(FAIL_ERROR);
  });

  it("several sessions on one connection, turns at once, each gets its own updates", async () => {
    const ids = await Promise.all(
      [1, 2, 3, 4].map(async () => (await ours.connection.newSession(NEW_SESSION)).sessionId),
    );
    expect(new Set(ids).size).toBe(4);
    const responses = await Promise.all(
      ids.map((id) => ours.connection.prompt(promptFor(id, Scenario.updates))),
    );
    expect(responses).toEqual(ids.map(() => ({ stopReason: "end_turn" })));
    for (const id of ids) expect(ours.script.updatesOf(id)).toEqual(SCRIPTED_UPDATES);
  });

  it("two connections at once: separate agents, separate connection ids", async () => {
    const otherEvents: RemoteEvent[] = [];
    const otherStream = connect(server.url, otherEvents);
    const other = connectOurClient(otherStream);
    try {
      await other.connection.initialize({
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: remoteClientCapabilities(),
      });
      expect(otherStream.connectionId).not.toBe(stream.connectionId);
      const [a, b] = await Promise.all([
        ours.connection.newSession(NEW_SESSION),
        other.connection.newSession(NEW_SESSION),
      ]);
      await Promise.all([
        ours.connection.prompt(promptFor(a.sessionId, Scenario.updates)),
        other.connection.prompt(promptFor(b.sessionId, Scenario.updates)),
      ]);
      expect(other.script.updatesOf(b.sessionId)).toEqual(SCRIPTED_UPDATES);
      expect(server.scripts.length).toBeGreaterThanOrEqual(2);
      // The second connection advertised the remote profile: no disk, no terminal.
      expect(server.scripts.at(-1)?.initializeParams?.clientCapabilities).toMatchObject({
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
      });
    } finally {
      await otherStream.close();
      await other.connection.closed;
    }
    expect(otherEvents.at(-1)).toEqual({ type: "closed" });
  });
});

describe("client options against the official server", () => {
  let server: OfficialServer;
  beforeAll(async () => {
    server = await startOfficialServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("custom headers and an injected fetch go out with every request; cookies are kept", async () => {
    const seen: Headers[] = [];
    const store = new MemoryCookieStore();
    const fetchSpy: typeof fetch = async (input, init) => {
      seen.push(new Headers(init?.headers));
      const response = await fetch(input, init);
      // A load balancer would set its affinity cookie on the first answer.
      if (seen.length === 1) {
        const headers = new Headers(response.headers);
        headers.append("Set-Cookie", "SERVERID=a1; Path=/");
        return new Response(response.body, { status: response.status, headers });
      }
      return response;
    };
    const stream = connectHttp(server.url, {
      headers: { Authorization: "Bearer t0k3n" },
      fetch: fetchSpy,
      cookies: store,
    });
    const { connection } = connectOurClient(stream);
    await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    await connection.newSession(NEW_SESSION);
    await stream.close();
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const h of seen) expect(h.get("authorization")).toBe("Bearer t0k3n");
    expect(seen[0]?.get("cookie")).toBeNull();
    for (const h of seen.slice(1)) expect(h.get("cookie")).toBe("SERVERID=a1");
    expect(store.header()).toBe("SERVERID=a1");
  });

  it("an AbortSignal closes the transport; requests in flight fail", async () => {
    const controller = new AbortController();
    const stream = connectHttp(server.url, { signal: controller.signal });
    const { connection } = connectOurClient(stream);
    await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await connection.newSession(NEW_SESSION);
    const turn = connection.prompt(promptFor(sessionId, Scenario.cancel)).catch((e: unknown) => e);
    controller.abort();
    await stream.closed;
    expect(await turn).toBeInstanceOf(Error);
  });

  it("a long-lived AbortSignal does not keep listeners of ended transports", async () => {
    const controller = new AbortController();
    const { signal } = controller;
    for (let i = 0; i < 3; i++) {
      const http = connectHttp(server.url, { signal });
      const { connection } = connectOurClient(http);
      await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      const ws = connectWebSocket(server.url.replace(/^http/, "ws"), { signal });
      expect(getEventListeners(signal, "abort")).toHaveLength(2);
      await Promise.all([http.close(), ws.close()]);
      expect(getEventListeners(signal, "abort")).toHaveLength(0);
    }
    // A transport that ended on its own (unreachable server) lets go too.
    const lost = connectWebSocket("ws://127.0.0.1:9/acp", { reconnect: false, signal });
    await lost.closed;
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    expect(signal.aborted).toBe(false);
  });

  it("a server that is not there: initialize fails with a clear error", async () => {
    const stream = connectHttp("http://127.0.0.1:9/acp", {
      reconnect: false,
      requestTimeoutMs: 2000,
    });
    const { connection } = connectOurClient(stream);
    await expect(
      connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }),
    ).rejects.toThrow();
    const ws = connectWebSocket("ws://127.0.0.1:9/acp", { reconnect: false });
    const wsClient = connectOurClient(ws);
    await expect(
      wsClient.connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }),
    ).rejects.toThrow();
  });
});
