/**
 * Interop with the official TypeScript SDK 2.4.0 (`@agentclientprotocol/sdk`, builder API:
 * `agent()` / `client()`), in both directions:
 *
 * (a) acp-kit's `AgentSideConnection` serving the official `client()`;
 * (b) the official `agent()` serving acp-kit's `ClientSideConnection`.
 *
 * The two sides are joined by two identity byte pipes; each side frames its end with its
 * own `ndJsonStream`, so everything checked here crossed as real NDJSON bytes.
 */
import {
  agent as officialAgent,
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
  PROTOCOL_VERSION as THEIR_PROTOCOL_VERSION,
  RequestError as TheirRequestError,
  type AgentConnection,
  type AgentContext,
  type ClientConnection,
} from "@agentclientprotocol/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConnectionError,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type AgentSideConnection,
  type ClientSideConnection,
  type NewSessionResponse,
  type TerminalOutputResponse,
} from "../../packages/acp-kit/src/index.js";
import {
  connectOurAgent,
  connectOurClient,
  OUR_AGENT_NAME,
  OUR_CLIENT_NAME,
} from "../support/interop-ours.js";
import {
  AGENT_CAPABILITIES,
  AGENT_INFO,
  AgentScript,
  AUTH_METHODS,
  CANCEL_PERMISSION_TOOL_CALL,
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  ClientScript,
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
  TERMINAL_REQUEST,
  type AgentOps,
} from "../support/interop-scenarios.js";
import { caught, interopWire, until, wireTurn, type InteropWire } from "../support/interop-wire.js";

/** Our side's options: the pipe we write is ours to end when our connection closes. */
const OWN_PIPE = { closeOutput: true };

const OFFICIAL_AGENT_NAME = "official-2x-agent";
const OFFICIAL_CLIENT_NAME = "official-2x-client";
const theirError = (code: number, message: string, data: unknown): Error =>
  new TheirRequestError(code, message, data);
const anyParams = (params: unknown): unknown => params;

const EXPECTED_READ = 'line two — ünïcödé ✅\nline three "quoted" \\ back\n';
const TERMINAL_HEAD = "$ npm test -- --reporter=dot\nrunning 42 tests\n";
const EXPECTED_TERMINAL = {
  id: "term-1",
  early: { output: TERMINAL_HEAD, truncated: false },
  exit: { exitCode: 0, signal: null },
  final: {
    output: `${TERMINAL_HEAD}42 passed ✅\n`,
    truncated: false,
    exitStatus: { exitCode: 0, signal: null },
  },
  released: {},
} satisfies { early: TerminalOutputResponse } & Record<string, unknown>;

/** The error as `{ code, message, data }`, checking it is the expected class. */
function wireError(
  error: unknown,
  type: abstract new (...args: never[]) => Error,
): Record<string, unknown> {
  expect(error).toBeInstanceOf(type);
  const e = error as { code: unknown; message: unknown; data: unknown };
  return { code: e.code, message: e.message, data: e.data };
}

// ---------------------------------------------------------------------------------------
// The official 2.x sides

function connectOfficialClient(wire: InteropWire): {
  connection: ClientConnection;
  script: ClientScript;
} {
  const script: ClientScript = new ClientScript({
    cancel: (sessionId): Promise<void> => connection.agent.notify("session/cancel", { sessionId }),
    makeError: theirError,
  });
  const connection: ClientConnection = officialClient({ name: OFFICIAL_CLIENT_NAME })
    .onNotification("session/update", (ctx) => {
      script.sessionUpdate(ctx.params);
    })
    .onRequest("session/request_permission", (ctx) =>
      script.requestPermission(ctx.params, ctx.signal),
    )
    .onRequest("fs/read_text_file", (ctx) => script.fs.read(ctx.params))
    .onRequest("fs/write_text_file", (ctx) => script.fs.write(ctx.params))
    .onRequest("terminal/create", (ctx) => script.terminals.create(ctx.params))
    .onRequest("terminal/output", (ctx) => script.terminals.output(ctx.params))
    .onRequest("terminal/wait_for_exit", (ctx) => script.terminals.waitForExit(ctx.params))
    .onRequest("terminal/kill", (ctx) => script.terminals.kill(ctx.params))
    .onRequest("terminal/release", (ctx) => script.terminals.release(ctx.params))
    .onRequest("_example/ping", anyParams, (ctx) =>
      script.ping(ctx.method, ctx.params, OFFICIAL_CLIENT_NAME),
    )
    .onRequest("_example/slow", anyParams, (ctx) => script.slowRequest(ctx.signal))
    .onNotification("_example/ping", anyParams, (ctx) => {
      script.notified(ctx.method, ctx.params);
    })
    .connect(theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
  return { connection, script };
}

function officialAgentOps(client: AgentContext): AgentOps {
  return {
    update: (n) => client.notify("session/update", n),
    requestPermission: (p, signal) =>
      client.request(
        "session/request_permission",
        p,
        signal === undefined ? undefined : { cancellationSignal: signal },
      ),
    readTextFile: (p) => client.request("fs/read_text_file", p),
    writeTextFile: (p) => client.request("fs/write_text_file", p),
    createTerminal: (p) => client.createTerminal(p),
    makeError: theirError,
  };
}

function connectOfficialAgent(wire: InteropWire): {
  connection: AgentConnection;
  script: AgentScript;
} {
  const script = new AgentScript();
  const connection = officialAgent({ name: OFFICIAL_AGENT_NAME })
    .onRequest("initialize", (ctx) => script.initialize(ctx.params))
    .onRequest("session/new", (ctx) => script.newSession(ctx.params))
    .onRequest("authenticate", () => ({}))
    .onRequest("session/prompt", (ctx) => script.prompt(officialAgentOps(ctx.client), ctx.params))
    .onNotification("session/cancel", (ctx) => {
      script.cancel(ctx.params);
    })
    .onRequest("_example/ping", anyParams, (ctx) =>
      script.ping(ctx.method, ctx.params, OFFICIAL_AGENT_NAME),
    )
    .onRequest("_example/slow", anyParams, (ctx) =>
      script.slowRequest(ctx.signal, { makeError: theirError }),
    )
    .onNotification("_example/ping", anyParams, (ctx) => {
      script.notified(ctx.method, ctx.params);
    })
    .connect(theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
  return { connection, script };
}

// ---------------------------------------------------------------------------------------

describe("(a) acp-kit AgentSideConnection ⇄ official 2.4.0 client()", () => {
  let wire: InteropWire;
  let ours: { connection: AgentSideConnection; script: AgentScript };
  let theirs: { connection: ClientConnection; script: ClientScript };

  const newSession = async (): Promise<string> =>
    (await theirs.connection.agent.request<NewSessionResponse>("session/new", NEW_SESSION))
      .sessionId;

  beforeAll(() => {
    wire = interopWire();
    // The wire's pipes are the test's: closing our connection ends our pipe (closeOutput),
    // so that the other side's connection sees its input end, as after a process exit.
    ours = connectOurAgent(
      ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, OWN_PIPE),
    );
    theirs = connectOfficialClient(wire);
  });

  afterAll(async () => {
    theirs.connection.close();
    ours.connection.close();
    await Promise.all([ours.connection.closed, theirs.connection.closed]);
  });

  it("initialize: negotiates version 1 and exchanges capabilities and implementation info", async () => {
    expect(THEIR_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION);
    const response = await theirs.connection.agent.request("initialize", {
      protocolVersion: THEIR_PROTOCOL_VERSION,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    expect(response).toEqual({
      protocolVersion: 1,
      agentCapabilities: AGENT_CAPABILITIES,
      authMethods: AUTH_METHODS,
      agentInfo: AGENT_INFO,
    });
    expect(ours.script.initializeParams).toEqual({
      protocolVersion: 1,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    // Real NDJSON bytes crossed, one JSON-RPC 2.0 message per line.
    expect(wire.clientToAgentTap.allBytes && wire.agentToClientTap.allBytes).toBe(true);
    const [request] = wire.clientToAgentTap.withMethod("initialize");
    expect(request).toMatchObject({ jsonrpc: "2.0", method: "initialize" });
    expect(wire.agentToClientTap.responseTo(request?.id)).toMatchObject({
      jsonrpc: "2.0",
      result: { protocolVersion: 1 },
    });
    expect(wire.agentToClientTap.raw.endsWith("\n")).toBe(true);
  });

  it("session/new: the agent gets the request as sent, the client gets id and modes", async () => {
    const response = await theirs.connection.agent.request("session/new", NEW_SESSION);
    expect(response).toEqual({ sessionId: "sess-1", modes: SESSION_MODES });
    expect(ours.script.newSessions.at(-1)).toEqual(NEW_SESSION);
  });

  it("session/prompt: every kind of update arrives, in order, before the response", async () => {
    const sessionId = await newSession();
    const { response, seen } = await theirs.connection.agent
      .request("session/prompt", promptFor(sessionId, Scenario.updates))
      .then((r) => ({ response: r, seen: theirs.script.updatesOf(sessionId) }));
    expect(response).toEqual({ stopReason: "end_turn" });
    expect(seen).toEqual(SCRIPTED_UPDATES);
    const turn = wireTurn(wire, sessionId);
    expect(turn.updatesBefore.map((p) => p.update)).toEqual(SCRIPTED_UPDATES);
    expect(turn.updatesAfter).toEqual([]);
  });

  it("session/prompt through the official ActiveSession helper", async () => {
    const session = await theirs.connection.agent.buildSession(ROOT).start();
    try {
      expect(session.sessionId).toMatch(/^sess-\d+$/);
      expect(session.modes).toEqual(SESSION_MODES);
      const stop = session.prompt(Scenario.updates);
      const kinds: string[] = [];
      for (;;) {
        const message = await session.nextUpdate();
        if (message.kind === "stop") {
          expect(message.stopReason).toBe("end_turn");
          break;
        }
        kinds.push(message.update.sessionUpdate);
      }
      expect(kinds).toEqual(SCRIPTED_UPDATES.map((u) => u.sessionUpdate));
      await expect(stop).resolves.toEqual({ stopReason: "end_turn" });
    } finally {
      session.dispose();
    }
  });

  it("session/request_permission: a round trip from our agent to the official client", async () => {
    const sessionId = await newSession();
    const response = await theirs.connection.agent.request(
      "session/prompt",
      promptFor(sessionId, Scenario.permission),
    );
    expect(response).toEqual({ stopReason: "end_turn" });
    expect(theirs.script.permissionRequests.at(-1)).toEqual(PERMISSION_REQUEST(sessionId));
    expect(ours.script.permission).toEqual({
      response: { outcome: { outcome: "selected", optionId: "allow-once" } },
    });
  });

  it("fs/read_text_file and fs/write_text_file, and a client error with custom code and data", async () => {
    const sessionId = await newSession();
    await theirs.connection.agent.request("session/prompt", promptFor(sessionId, Scenario.fs));
    expect(theirs.script.fs.reads).toEqual([
      { sessionId, path: NOTES_PATH, line: 2, limit: 2 },
      { sessionId, path: "/etc/passwd" },
    ]);
    expect(ours.script.fs?.read).toEqual({ content: EXPECTED_READ });
    expect(ours.script.fs?.write).toEqual({});
    expect(theirs.script.fs.writes).toEqual([
      { sessionId, path: `${ROOT}/NOTES.md`, content: EXPECTED_READ.toUpperCase() },
    ]);
    expect(theirs.script.fs.files.get(`${ROOT}/NOTES.md`)).toBe(EXPECTED_READ.toUpperCase());
    // The official client's handler threw its RequestError; ours arrives intact.
    expect(wireError(ours.script.fs?.denied.error, RequestError)).toEqual(
      DENIED_ERROR("/etc/passwd"),
    );
  });

  it("terminal lifecycle: create → output → wait_for_exit → output → release with our TerminalHandle", async () => {
    const sessionId = await newSession();
    await theirs.connection.agent.request(
      "session/prompt",
      promptFor(sessionId, Scenario.terminal),
    );
    expect(theirs.script.terminals.created).toEqual([TERMINAL_REQUEST(sessionId)]);
    expect(theirs.script.terminals.calls).toEqual([
      "create",
      "output",
      "wait_for_exit",
      "output",
      "release",
    ]);
    expect(ours.script.terminal).toEqual(EXPECTED_TERMINAL);
    expect(theirs.script.terminals.terminals.get("term-1")?.released).toBe(true);
    expect(theirs.script.updatesOf(sessionId)[0]).toMatchObject({
      sessionUpdate: "tool_call",
      content: [{ type: "terminal", terminalId: "term-1" }],
    });
  });

  it("session/cancel mid-turn: later updates still arrive, then stopReason cancelled", async () => {
    const sessionId = await newSession();
    const turn = theirs.connection.agent
      .request("session/prompt", promptFor(sessionId, Scenario.cancel))
      .then((r) => ({ response: r, seen: theirs.script.updatesOf(sessionId) }));
    expect(await until(() => theirs.script.updatesOf(sessionId).length === 2)).toBe(true);
    await theirs.connection.agent.notify("session/cancel", { sessionId });
    const { response, seen } = await turn;
    expect(response).toEqual({ stopReason: "cancelled" });
    expect(ours.script.cancels).toContainEqual({ sessionId });
    expect(seen.map((u) => u.sessionUpdate)).toEqual([
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
    ]);
    expect(seen[2]).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-long",
      status: "failed",
      rawOutput: { cancelled: true },
    });
    expect(wireTurn(wire, sessionId).updatesAfter).toEqual([]);
  });

  it("session/cancel cascade: our agent aborts its permission request, $/cancel_request reaches the official handler", async () => {
    const sessionId = await newSession();
    const response = await theirs.connection.agent.request(
      "session/prompt",
      promptFor(sessionId, Scenario.cancelPermission),
    );
    expect(response).toEqual({ stopReason: "cancelled" });
    // Our side gave up at once, locally.
    expect(ours.script.cascade?.error).toBeInstanceOf(ConnectionError);
    expect((ours.script.cascade?.error as ConnectionError).code).toBe("cancelled");
    // The official client's handler saw its signal abort because of our $/cancel_request.
    expect(await until(() => theirs.script.cascade !== undefined)).toBe(true);
    expect(theirs.script.cascade?.aborted).toBe(true);
    expect(wireError(theirs.script.cascade?.reason, TheirRequestError)).toMatchObject({
      code: -32800,
    });
    const request = wire.agentToClientTap
      .withMethod("session/request_permission")
      .find(
        (m) =>
          (m.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId ===
          CANCEL_PERMISSION_TOOL_CALL,
      );
    expect(wire.agentToClientTap.withMethod("$/cancel_request")).toContainEqual({
      jsonrpc: "2.0",
      method: "$/cancel_request",
      params: { requestId: request?.id },
    });
    // The client still answered (outcome cancelled); our side dropped that late answer quietly.
    expect(await until(() => wire.clientToAgentTap.responseTo(request?.id) !== undefined)).toBe(
      true,
    );
    expect(wire.clientToAgentTap.responseTo(request?.id)).toMatchObject({
      result: { outcome: { outcome: "cancelled" } },
    });
  });

  it("$/cancel_request from the official client (cancellationSignal) aborts our handler, answered -32800", async () => {
    const controller = new AbortController();
    const pending = caught(
      theirs.connection.agent.request(
        "_example/slow",
        { n: 1 },
        { cancellationSignal: controller.signal },
      ),
    );
    expect(await until(() => ours.script.slowCalls === 1)).toBe(true);
    controller.abort("user pressed stop");
    expect(wireError(await pending, TheirRequestError)).toMatchObject({ code: -32800 });
    expect(ours.script.slow?.aborted).toBe(true);
    expect(wireError(ours.script.slow?.reason, RequestError)).toMatchObject({ code: -32800 });
  });

  it("AbortSignal on our outbound request: $/cancel_request is honoured by the official client", async () => {
    const controller = new AbortController();
    const pending = caught(
      ours.connection.request("_example/slow", { n: 2 }, { signal: controller.signal }),
    );
    expect(await until(() => theirs.script.slowCalls === 1)).toBe(true);
    const [request] = wire.agentToClientTap.withMethod("_example/slow");
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe("cancelled");
    expect(await until(() => theirs.script.slow !== undefined)).toBe(true);
    expect(theirs.script.slow?.aborted).toBe(true);
    expect(wireError(theirs.script.slow?.reason, TheirRequestError)).toMatchObject({
      code: -32800,
    });
    expect(await until(() => wire.clientToAgentTap.responseTo(request?.id) !== undefined)).toBe(
      true,
    );
    expect(wire.clientToAgentTap.responseTo(request?.id)).toMatchObject({
      error: { code: -32800 },
    });
  });

  it("errors: our RequestError (custom code and data) arrives intact at the official client", async () => {
    const sessionId = await newSession();
    const error = await caught(
      theirs.connection.agent.request("session/prompt", promptFor(sessionId, Scenario.fail)),
    );
    expect(wireError(error, TheirRequestError)).toEqual(FAIL_ERROR);
  });

  it("errors: unknown methods answer -32601 both ways", async () => {
    const agent = theirs.connection.agent;
    for (const method of ["session/frobnicate", "_example/unknown", "session/list"]) {
      const error = await caught(agent.request(method, {}));
      expect(wireError(error, TheirRequestError)).toMatchObject({ code: -32601 });
    }
    const theirAnswer = await caught(ours.connection.request("_example/unknown", { x: 1 }));
    expect(wireError(theirAnswer, RequestError)).toMatchObject({ code: -32601 });
  });

  it("errors: invalid params answer -32602 from our agent (and from the official client)", async () => {
    const agent = theirs.connection.agent;
    const badNew = await caught(agent.request("session/new", { cwd: 42 } as never));
    const e = wireError(badNew, TheirRequestError);
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ method: "session/new" });
    expect((e.data as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
    const badPrompt = await caught(
      agent.request("session/prompt", { sessionId: "sess-1", prompt: "hi" } as never),
    );
    expect(wireError(badPrompt, TheirRequestError)).toMatchObject({
      code: -32602,
      data: { method: "session/prompt" },
    });
    // A notification with invalid params is dropped: no handler call, no answer.
    const cancelsBefore = ours.script.cancels.length;
    await agent.notify("session/cancel", {} as never);
    await agent.request("_example/ping", { barrier: true });
    expect(ours.script.cancels).toHaveLength(cancelsBefore);
    expect(wire.agentToClientTap.messages.filter((m) => !("method" in m) && m.id === null)).toEqual(
      [],
    );
    // The other way round the official client validates too.
    const theirs32602 = await caught(
      ours.connection.request("fs/read_text_file", { sessionId: "sess-1", path: 42 } as never),
    );
    expect(wireError(theirs32602, RequestError)).toMatchObject({ code: -32602 });
  });

  it("extension method and notification _example/ping, both ways", async () => {
    const params = { n: 1, tags: ["a", "ü"], nested: { deep: [null, true] } };
    await expect(theirs.connection.agent.request("_example/ping", params)).resolves.toEqual({
      pong: true,
      from: OUR_AGENT_NAME,
      echo: params,
    });
    expect(ours.script.extRequests.at(-1)).toEqual({ method: "_example/ping", params });
    await theirs.connection.agent.notify("_example/ping", { n: 2 });
    expect(await until(() => ours.script.extNotifications.length === 1)).toBe(true);
    expect(ours.script.extNotifications).toEqual([{ method: "_example/ping", params: { n: 2 } }]);

    await expect(ours.connection.extMethod("_example/ping", { n: 3 })).resolves.toEqual({
      pong: true,
      from: OFFICIAL_CLIENT_NAME,
      echo: { n: 3 },
    });
    await ours.connection.extNotification("_example/ping", { n: 4 });
    expect(await until(() => theirs.script.extNotifications.length === 1)).toBe(true);
    expect(theirs.script.extNotifications).toEqual([{ method: "_example/ping", params: { n: 4 } }]);
  });

  it("closing our agent fails the official client's pending request and closes its connection", async () => {
    ours.script.resetSlow();
    const pending = caught(theirs.connection.agent.request("_example/slow", { n: 5 }));
    expect(await until(() => ours.script.slowCalls === 2)).toBe(true);
    ours.connection.close();
    await ours.connection.closed;
    expect(await pending).toBeInstanceOf(Error);
    await theirs.connection.closed;
    expect(theirs.connection.signal.aborted).toBe(true);
    expect(await until(() => ours.script.slow !== undefined)).toBe(true);
    expect(ours.script.slow?.aborted).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------

describe("(b) official 2.4.0 agent() ⇄ acp-kit ClientSideConnection", () => {
  let wire: InteropWire;
  let theirs: { connection: AgentConnection; script: AgentScript };
  let ours: { connection: ClientSideConnection; script: ClientScript };

  const newSession = async (): Promise<string> =>
    (await ours.connection.newSession(NEW_SESSION)).sessionId;

  beforeAll(() => {
    wire = interopWire();
    theirs = connectOfficialAgent(wire);
    // The wire's pipes are the test's: closing our connection ends our pipe (closeOutput).
    ours = connectOurClient(
      ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable, OWN_PIPE),
    );
  });

  afterAll(async () => {
    ours.connection.close();
    theirs.connection.close();
    await Promise.all([ours.connection.closed, theirs.connection.closed]);
  });

  it("initialize: negotiates version 1 and exchanges capabilities and implementation info", async () => {
    const response = await ours.connection.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    expect(response).toEqual({
      protocolVersion: THEIR_PROTOCOL_VERSION,
      agentCapabilities: AGENT_CAPABILITIES,
      authMethods: AUTH_METHODS,
      agentInfo: AGENT_INFO,
    });
    // The official agent parses params with defaults filled in (auth.terminal: false).
    expect(theirs.script.initializeParams).toMatchObject({
      protocolVersion: 1,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    expect(wire.clientToAgentTap.allBytes && wire.agentToClientTap.allBytes).toBe(true);
    // On the wire: exactly what we sent.
    expect(wire.clientToAgentTap.withMethod("initialize")[0]).toEqual({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: CLIENT_CAPABILITIES,
        clientInfo: CLIENT_INFO,
      },
    });
  });

  it("session/new: the agent gets the request as sent, the client gets id and modes", async () => {
    const response = await ours.connection.newSession(NEW_SESSION);
    expect(response).toEqual({ sessionId: "sess-1", modes: SESSION_MODES });
    expect(theirs.script.newSessions.at(-1)).toEqual(NEW_SESSION);
  });

  it("session/prompt: every kind of update arrives, in order, before the response", async () => {
    const sessionId = await newSession();
    const { response, seen } = await ours.connection
      .prompt(promptFor(sessionId, Scenario.updates))
      .then((r) => ({ response: r, seen: ours.script.updatesOf(sessionId) }));
    expect(response).toEqual({ stopReason: "end_turn" });
    expect(seen).toEqual(SCRIPTED_UPDATES);
    const turn = wireTurn(wire, sessionId);
    expect(turn.updatesBefore.map((p) => p.update)).toEqual(SCRIPTED_UPDATES);
    expect(turn.updatesAfter).toEqual([]);
  });

  it("session/request_permission: a round trip from the official agent to our client", async () => {
    const sessionId = await newSession();
    await expect(
      ours.connection.prompt(promptFor(sessionId, Scenario.permission)),
    ).resolves.toEqual({ stopReason: "end_turn" });
    expect(ours.script.permissionRequests.at(-1)).toEqual(PERMISSION_REQUEST(sessionId));
    expect(theirs.script.permission).toEqual({
      response: { outcome: { outcome: "selected", optionId: "allow-once" } },
    });
  });

  it("fs/read_text_file and fs/write_text_file, and a client error with custom code and data", async () => {
    const sessionId = await newSession();
    await ours.connection.prompt(promptFor(sessionId, Scenario.fs));
    expect(ours.script.fs.reads).toEqual([
      { sessionId, path: NOTES_PATH, line: 2, limit: 2 },
      { sessionId, path: "/etc/passwd" },
    ]);
    expect(theirs.script.fs?.read).toEqual({ content: EXPECTED_READ });
    expect(theirs.script.fs?.write).toEqual({});
    expect(ours.script.fs.files.get(`${ROOT}/NOTES.md`)).toBe(EXPECTED_READ.toUpperCase());
    // Our client's handler threw our RequestError; the official agent gets it intact.
    expect(wireError(theirs.script.fs?.denied.error, TheirRequestError)).toEqual(
      DENIED_ERROR("/etc/passwd"),
    );
  });

  it("terminal lifecycle: the official agent's TerminalHandle against our client", async () => {
    const sessionId = await newSession();
    await ours.connection.prompt(promptFor(sessionId, Scenario.terminal));
    expect(ours.script.terminals.created).toEqual([TERMINAL_REQUEST(sessionId)]);
    expect(ours.script.terminals.calls).toEqual([
      "create",
      "output",
      "wait_for_exit",
      "output",
      "release",
    ]);
    expect(theirs.script.terminal).toEqual(EXPECTED_TERMINAL);
    expect(ours.script.terminals.terminals.get("term-1")?.released).toBe(true);
  });

  it("session/cancel mid-turn: later updates still arrive, then stopReason cancelled", async () => {
    const sessionId = await newSession();
    const turn = ours.connection
      .prompt(promptFor(sessionId, Scenario.cancel))
      .then((r) => ({ response: r, seen: ours.script.updatesOf(sessionId) }));
    expect(await until(() => ours.script.updatesOf(sessionId).length === 2)).toBe(true);
    await ours.connection.cancel({ sessionId });
    const { response, seen } = await turn;
    expect(response).toEqual({ stopReason: "cancelled" });
    expect(theirs.script.cancels).toContainEqual({ sessionId });
    expect(seen.map((u) => u.sessionUpdate)).toEqual([
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
    ]);
    expect(wireTurn(wire, sessionId).updatesAfter).toEqual([]);
  });

  it("session/cancel cascade: the official agent cancels its permission request, our handler's signal aborts", async () => {
    const sessionId = await newSession();
    await expect(
      ours.connection.prompt(promptFor(sessionId, Scenario.cancelPermission)),
    ).resolves.toEqual({
      stopReason: "cancelled",
    });
    expect(ours.script.cascade?.aborted).toBe(true);
    expect(wireError(ours.script.cascade?.reason, RequestError)).toMatchObject({ code: -32800 });
    // Cooperative cancellation on their side: it waited for our answer.
    expect(theirs.script.cascade).toEqual({ response: { outcome: { outcome: "cancelled" } } });
    const request = wire.agentToClientTap
      .withMethod("session/request_permission")
      .find(
        (m) =>
          (m.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId ===
          CANCEL_PERMISSION_TOOL_CALL,
      );
    expect(wire.agentToClientTap.withMethod("$/cancel_request")).toContainEqual({
      jsonrpc: "2.0",
      method: "$/cancel_request",
      params: { requestId: request?.id },
    });
  });

  it("$/cancel_request from the official agent (cancellationSignal) aborts our handler, answered -32800", async () => {
    const controller = new AbortController();
    const pending = caught(
      theirs.connection.client.request(
        "_example/slow",
        { n: 1 },
        { cancellationSignal: controller.signal },
      ),
    );
    expect(await until(() => ours.script.slowCalls === 1)).toBe(true);
    controller.abort();
    expect(wireError(await pending, TheirRequestError)).toMatchObject({ code: -32800 });
    expect(ours.script.slow?.aborted).toBe(true);
    expect(wireError(ours.script.slow?.reason, RequestError)).toMatchObject({ code: -32800 });
  });

  it("AbortSignal on our outbound request: $/cancel_request is honoured by the official agent", async () => {
    const controller = new AbortController();
    const pending = caught(
      ours.connection.request("_example/slow", { n: 2 }, { signal: controller.signal }),
    );
    expect(await until(() => theirs.script.slowCalls === 1)).toBe(true);
    const [request] = wire.clientToAgentTap.withMethod("_example/slow");
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe("cancelled");
    expect(await until(() => theirs.script.slow !== undefined)).toBe(true);
    expect(theirs.script.slow?.aborted).toBe(true);
    expect(wireError(theirs.script.slow?.reason, TheirRequestError)).toMatchObject({
      code: -32800,
    });
    expect(await until(() => wire.agentToClientTap.responseTo(request?.id) !== undefined)).toBe(
      true,
    );
    expect(wire.agentToClientTap.responseTo(request?.id)).toMatchObject({
      error: { code: -32800 },
    });
  });

  it("timeoutMs on our outbound request: rejects with timeout and cancels the official handler", async () => {
    theirs.script.resetSlow();
    const error = await caught(
      ours.connection.request("_example/slow", { n: 3 }, { timeoutMs: 50 }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe("timeout");
    expect(await until(() => theirs.script.slow !== undefined)).toBe(true);
    expect(theirs.script.slow?.aborted).toBe(true);
    expect(wireError(theirs.script.slow?.reason, TheirRequestError)).toMatchObject({
      code: -32800,
    });
  });

  it("errors: the official agent's RequestError (custom code and data) arrives intact at our client", async () => {
    const sessionId = await newSession();
    const error = await caught(ours.connection.prompt(promptFor(sessionId, Scenario.fail)));
    expect(wireError(error, RequestError)).toEqual(FAIL_ERROR);
  });

  it("errors: unknown methods answer -32601 both ways", async () => {
    for (const method of ["session/frobnicate", "_example/unknown"]) {
      const error = await caught(ours.connection.request(method, {}));
      expect(wireError(error, RequestError)).toMatchObject({ code: -32601 });
    }
    const client = theirs.connection.client;
    // Unknown to our client, and known but not implemented by it.
    for (const method of ["_example/unknown", "terminal/frobnicate", "elicitation/create"]) {
      const params =
        method === "elicitation/create"
          ? {
              sessionId: "sess-1",
              mode: "form",
              message: "Name?",
              requestedSchema: { type: "object", properties: {} },
            }
          : {};
      const error = await caught(client.request(method, params));
      expect(wireError(error, TheirRequestError)).toMatchObject({ code: -32601 });
    }
  });

  it("errors: invalid params answer -32602 from our client (and from the official agent)", async () => {
    const bad = await caught(
      theirs.connection.client.request("fs/read_text_file", { sessionId: "sess-1", path: 42 }),
    );
    const e = wireError(bad, TheirRequestError);
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ method: "fs/read_text_file" });
    expect((e.data as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
    const badPermission = await caught(
      theirs.connection.client.request("session/request_permission", {
        sessionId: "sess-1",
        toolCall: {},
        options: "x",
      }),
    );
    expect(wireError(badPermission, TheirRequestError)).toMatchObject({
      code: -32602,
      data: { method: "session/request_permission" },
    });
    const theirs32602 = await caught(ours.connection.request("session/new", { cwd: 42 } as never));
    expect(wireError(theirs32602, RequestError)).toMatchObject({ code: -32602 });
  });

  it("extension method and notification _example/ping, both ways", async () => {
    const params = { n: 1, tags: ["a", "ü"], nested: { deep: [null, true] } };
    await expect(ours.connection.extMethod("_example/ping", params)).resolves.toEqual({
      pong: true,
      from: OFFICIAL_AGENT_NAME,
      echo: params,
    });
    expect(theirs.script.extRequests.at(-1)).toEqual({ method: "_example/ping", params });
    await ours.connection.extNotification("_example/ping", { n: 2 });
    expect(await until(() => theirs.script.extNotifications.length === 1)).toBe(true);
    expect(theirs.script.extNotifications).toEqual([{ method: "_example/ping", params: { n: 2 } }]);

    await expect(theirs.connection.client.request("_example/ping", { n: 3 })).resolves.toEqual({
      pong: true,
      from: OUR_CLIENT_NAME,
      echo: { n: 3 },
    });
    await theirs.connection.client.notify("_example/ping", { n: 4 });
    expect(await until(() => ours.script.extNotifications.length === 1)).toBe(true);
    expect(ours.script.extNotifications).toEqual([{ method: "_example/ping", params: { n: 4 } }]);
  });

  it("closing our client fails the official agent's pending request and closes its connection", async () => {
    ours.script.resetSlow();
    const pending = caught(theirs.connection.client.request("_example/slow", { n: 5 }));
    expect(await until(() => ours.script.slowCalls === 2)).toBe(true);
    ours.connection.close();
    await ours.connection.closed;
    expect(await pending).toBeInstanceOf(Error);
    await theirs.connection.closed;
    expect(theirs.connection.signal.aborted).toBe(true);
    expect(await until(() => ours.script.slow !== undefined)).toBe(true);
    expect(ours.script.slow?.aborted).toBe(true);
  });
});
