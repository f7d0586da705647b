/**
 * Interop with the official TypeScript SDK 1.9.0's classic classes (`acp-sdk-classic`:
 * `AgentSideConnection` / `ClientSideConnection`), in both directions:
 *
 * (a) acp-kit's `AgentSideConnection` serving the official classic `ClientSideConnection`;
 * (b) the official classic `AgentSideConnection` serving acp-kit's `ClientSideConnection`.
 *
 * The two sides are joined by two identity byte pipes; each side frames its end with its
 * own `ndJsonStream`, so everything checked here crossed as real NDJSON bytes.
 *
 * Classic handlers get no abort signal, so where the official side must react to
 * `$/cancel_request` it does what a classic implementation can: it answers normally once
 * the notification has crossed the wire (the assertions then check the wire and our side).
 */
/* eslint-disable @typescript-eslint/no-deprecated -- the 1.9 classic classes under test are deprecated upstream */
import {
  AgentSideConnection as ClassicAgentSideConnection,
  ClientSideConnection as ClassicClientSideConnection,
  ndJsonStream as classicNdJsonStream,
  PROTOCOL_VERSION as CLASSIC_PROTOCOL_VERSION,
  RequestError as ClassicRequestError,
  type Agent as ClassicAgent,
  type Client as ClassicClient,
} from "acp-sdk-classic";
import type * as classic from "acp-sdk-classic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConnectionError,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type AgentSideConnection,
  type ClientSideConnection,
  type InitializeResponse,
  type NewSessionResponse,
  type PromptResponse,
  type SessionNotification,
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
import {
  caught,
  interopWire,
  nextCancelRequest,
  until,
  wireTurn,
  type InteropWire,
} from "../support/interop-wire.js";

/** Our side's options: the pipe we write is ours to end when our connection closes. */
const OWN_PIPE = { closeOutput: true };

const CLASSIC_AGENT_NAME = "official-classic-agent";
const CLASSIC_CLIENT_NAME = "official-classic-client";
// acp-kit's types keep unions open (`UnknownContentBlock`, ...) where 1.9's are closed, so
// our fixtures are cast to the classic types where they are handed to the classic API.
const CLASSIC_NEW_SESSION = NEW_SESSION as classic.NewSessionRequest;
const classicPrompt = (sessionId: string, scenario: string): classic.PromptRequest =>
  promptFor(sessionId, scenario) as classic.PromptRequest;
const classicError = (code: number, message: string, data: unknown): Error =>
  new ClassicRequestError(code, message, data);

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
};

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
// The official classic sides

function connectClassicClient(wire: InteropWire): {
  connection: ClassicClientSideConnection;
  script: ClientScript;
} {
  const script: ClientScript = new ClientScript({
    cancel: (sessionId): Promise<void> => connection.cancel({ sessionId }),
    makeError: classicError,
    watchCancelRequest: () => nextCancelRequest(wire.agentToClientTap),
  });
  const connection: ClassicClientSideConnection = new ClassicClientSideConnection(
    () => {
      const client: ClassicClient = {
        sessionUpdate: (n) => {
          script.sessionUpdate(n as SessionNotification);
        },
        requestPermission: (p) => script.requestPermission(p),
        readTextFile: (p) => script.fs.read(p),
        writeTextFile: (p) => script.fs.write(p),
        createTerminal: (p) => script.terminals.create(p),
        terminalOutput: (p) => script.terminals.output(p),
        waitForTerminalExit: (p) => script.terminals.waitForExit(p),
        killTerminal: (p) => script.terminals.kill(p),
        releaseTerminal: (p) => script.terminals.release(p),
        extMethod: (method, params) => {
          if (method === "_example/ping") return script.ping(method, params, CLASSIC_CLIENT_NAME);
          if (method === "_example/slow") return script.slowRequest(undefined);
          throw ClassicRequestError.methodNotFound(method);
        },
        extNotification: (method, params) => {
          // The classic SDK also hands `$/cancel_request` (already acted on) to extNotification.
          if (method.startsWith("$/")) return;
          script.notified(method, params);
        },
      };
      return client;
    },
    classicNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
  );
  return { connection, script };
}

function connectClassicAgent(wire: InteropWire): {
  connection: ClassicAgentSideConnection;
  script: AgentScript;
} {
  const script = new AgentScript();
  const connection = new ClassicAgentSideConnection(
    (conn) => {
      const ops: AgentOps = {
        update: (n) => conn.sessionUpdate(n as classic.SessionNotification),
        requestPermission: (p, signal) =>
          signal === undefined
            ? conn.requestPermission(p as classic.RequestPermissionRequest)
            : conn.request("session/request_permission", p as classic.RequestPermissionRequest, {
                cancellationSignal: signal,
              }),
        readTextFile: (p) => conn.readTextFile(p),
        writeTextFile: (p) => conn.writeTextFile(p),
        createTerminal: (p) => conn.createTerminal(p),
        makeError: classicError,
      };
      const agent: ClassicAgent = {
        initialize: (p) => script.initialize(p),
        newSession: (p) => script.newSession(p),
        authenticate: () => ({}),
        prompt: (p) => script.prompt(ops, p),
        cancel: (p) => {
          script.cancel(p);
        },
        extMethod: (method, params) => {
          if (method === "_example/ping") return script.ping(method, params, CLASSIC_AGENT_NAME);
          if (method === "_example/slow")
            return script.slowUntil(nextCancelRequest(wire.clientToAgentTap));
          throw ClassicRequestError.methodNotFound(method);
        },
        extNotification: (method, params) => {
          // The classic SDK also hands `$/cancel_request` (already acted on) to extNotification.
          if (method.startsWith("$/")) return;
          script.notified(method, params);
        },
      };
      return agent;
    },
    classicNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
  );
  return { connection, script };
}

// ---------------------------------------------------------------------------------------

describe("(a) acp-kit AgentSideConnection ⇄ official 1.9.0 classic ClientSideConnection", () => {
  let wire: InteropWire;
  let ours: { connection: AgentSideConnection; script: AgentScript };
  let theirs: { connection: ClassicClientSideConnection; script: ClientScript };

  const newSession = async (): Promise<string> =>
    (await theirs.connection.newSession(CLASSIC_NEW_SESSION)).sessionId;

  beforeAll(() => {
    wire = interopWire();
    // The wire's pipes are the test's: closing our connection ends our pipe (closeOutput),
    // so that the other side's connection sees its input end, as after a process exit.
    ours = connectOurAgent(
      ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, OWN_PIPE),
    );
    theirs = connectClassicClient(wire);
  });

  afterAll(async () => {
    // The classic classes have no close(): ending our side ends their input, which closes them.
    ours.connection.close();
    await Promise.all([ours.connection.closed, theirs.connection.closed]);
  });

  it("initialize: negotiates version 1 and exchanges capabilities and implementation info", async () => {
    expect(CLASSIC_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION);
    const response = await theirs.connection.initialize({
      protocolVersion: CLASSIC_PROTOCOL_VERSION,
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
    expect(wire.clientToAgentTap.allBytes && wire.agentToClientTap.allBytes).toBe(true);
    const [request] = wire.clientToAgentTap.withMethod("initialize");
    expect(request).toMatchObject({ jsonrpc: "2.0", method: "initialize" });
    expect(wire.agentToClientTap.responseTo(request?.id)).toMatchObject({
      jsonrpc: "2.0",
      result: { protocolVersion: 1 },
    });
  });

  it("session/new: the agent gets the request as sent, the client gets id and modes", async () => {
    const response: NewSessionResponse = await theirs.connection.newSession(CLASSIC_NEW_SESSION);
    expect(response).toEqual({ sessionId: "sess-1", modes: SESSION_MODES });
    expect(ours.script.newSessions.at(-1)).toEqual(NEW_SESSION);
  });

  it("session/prompt: every kind of update arrives, in order, before the response", async () => {
    const sessionId = await newSession();
    const { response, seen } = await theirs.connection
      .prompt(classicPrompt(sessionId, Scenario.updates))
      .then((r) => ({ response: r, seen: theirs.script.updatesOf(sessionId) }));
    expect(response).toEqual({ stopReason: "end_turn" });
    expect(seen).toEqual(SCRIPTED_UPDATES);
    const turn = wireTurn(wire, sessionId);
    expect(turn.updatesBefore.map((p) => p.update)).toEqual(SCRIPTED_UPDATES);
    expect(turn.updatesAfter).toEqual([]);
  });

  it("session/request_permission: a round trip from our agent to the classic client", async () => {
    const sessionId = await newSession();
    await expect(
      theirs.connection.prompt(classicPrompt(sessionId, Scenario.permission)),
    ).resolves.toEqual({
      stopReason: "end_turn",
    });
    expect(theirs.script.permissionRequests.at(-1)).toEqual(PERMISSION_REQUEST(sessionId));
    expect(ours.script.permission).toEqual({
      response: { outcome: { outcome: "selected", optionId: "allow-once" } },
    });
  });

  it("fs/read_text_file and fs/write_text_file, and a client error with custom code and data", async () => {
    const sessionId = await newSession();
    await theirs.connection.prompt(classicPrompt(sessionId, Scenario.fs));
    expect(theirs.script.fs.reads).toEqual([
      { sessionId, path: NOTES_PATH, line: 2, limit: 2 },
      { sessionId, path: "/etc/passwd" },
    ]);
    expect(ours.script.fs?.read).toEqual({ content: EXPECTED_READ });
    expect(ours.script.fs?.write).toEqual({});
    expect(theirs.script.fs.files.get(`${ROOT}/NOTES.md`)).toBe(EXPECTED_READ.toUpperCase());
    expect(wireError(ours.script.fs?.denied.error, RequestError)).toEqual(
      DENIED_ERROR("/etc/passwd"),
    );
  });

  it("terminal lifecycle: create → output → wait_for_exit → output → release with our TerminalHandle", async () => {
    const sessionId = await newSession();
    await theirs.connection.prompt(classicPrompt(sessionId, Scenario.terminal));
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
    const turn = theirs.connection
      .prompt(classicPrompt(sessionId, Scenario.cancel))
      .then((r) => ({ response: r, seen: theirs.script.updatesOf(sessionId) }));
    expect(await until(() => theirs.script.updatesOf(sessionId).length === 2)).toBe(true);
    await theirs.connection.cancel({ sessionId });
    const { response, seen } = await turn;
    expect(response).toEqual({ stopReason: "cancelled" });
    expect(ours.script.cancels).toContainEqual({ sessionId });
    expect(seen.map((u) => u.sessionUpdate)).toEqual([
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
    ]);
    expect(wireTurn(wire, sessionId).updatesAfter).toEqual([]);
  });

  it("session/cancel cascade: our agent aborts its permission request and sends $/cancel_request", async () => {
    const sessionId = await newSession();
    const response: PromptResponse = await theirs.connection.prompt(
      classicPrompt(sessionId, Scenario.cancelPermission),
    );
    expect(response).toEqual({ stopReason: "cancelled" });
    expect(ours.script.cascade?.error).toBeInstanceOf(ConnectionError);
    expect((ours.script.cascade?.error as ConnectionError).code).toBe("cancelled");
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
    // The classic client answered `cancelled` once it saw the cancel; we dropped that late answer.
    expect(await until(() => wire.clientToAgentTap.responseTo(request?.id) !== undefined)).toBe(
      true,
    );
    expect(wire.clientToAgentTap.responseTo(request?.id)).toMatchObject({
      result: { outcome: { outcome: "cancelled" } },
    });
  });

  it("$/cancel_request from the classic client (cancellationSignal) aborts our handler, answered -32800", async () => {
    const controller = new AbortController();
    const pending = caught(
      theirs.connection.request(
        "_example/slow",
        { n: 1 },
        { cancellationSignal: controller.signal },
      ),
    );
    expect(await until(() => ours.script.slowCalls === 1)).toBe(true);
    controller.abort();
    expect(wireError(await pending, ClassicRequestError)).toMatchObject({ code: -32800 });
    expect(ours.script.slow?.aborted).toBe(true);
    expect(wireError(ours.script.slow?.reason, RequestError)).toMatchObject({ code: -32800 });
  });

  it("AbortSignal on our outbound request: we reject at once, send $/cancel_request and drop the late answer", async () => {
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
    expect(wire.agentToClientTap.withMethod("$/cancel_request")).toContainEqual({
      jsonrpc: "2.0",
      method: "$/cancel_request",
      params: { requestId: request?.id },
    });
    expect(await until(() => wire.clientToAgentTap.responseTo(request?.id) !== undefined)).toBe(
      true,
    );
    expect(wire.clientToAgentTap.responseTo(request?.id)).toMatchObject({ result: { late: true } });
    // The connection is still fine afterwards.
    await expect(
      ours.connection.extMethod("_example/ping", { after: "cancel" }),
    ).resolves.toMatchObject({ pong: true });
  });

  it("errors: our RequestError (custom code and data) arrives intact at the classic client", async () => {
    const sessionId = await newSession();
    const error = await caught(theirs.connection.prompt(classicPrompt(sessionId, Scenario.fail)));
    expect(wireError(error, ClassicRequestError)).toEqual(FAIL_ERROR);
  });

  it("errors: unknown methods answer -32601 both ways", async () => {
    for (const method of ["session/frobnicate", "_example/unknown", "session/list"]) {
      const error = await caught(theirs.connection.request(method, {}));
      expect(wireError(error, ClassicRequestError)).toMatchObject({ code: -32601 });
    }
    const theirAnswer = await caught(ours.connection.request("_example/unknown", { x: 1 }));
    expect(wireError(theirAnswer, RequestError)).toMatchObject({ code: -32601 });
  });

  it("errors: invalid params answer -32602 from our agent (and from the classic client)", async () => {
    const badNew = await caught(theirs.connection.request("session/new", { cwd: 42 }));
    const e = wireError(badNew, ClassicRequestError);
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ method: "session/new" });
    expect((e.data as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
    const badPrompt = await caught(
      theirs.connection.request("session/prompt", { sessionId: "sess-1", prompt: "hi" }),
    );
    expect(wireError(badPrompt, ClassicRequestError)).toMatchObject({
      code: -32602,
      data: { method: "session/prompt" },
    });
    // A notification with invalid params is dropped: no handler call, no answer.
    const cancelsBefore = ours.script.cancels.length;
    await theirs.connection.notify("session/cancel", {});
    await theirs.connection.request("_example/ping", { barrier: true });
    expect(ours.script.cancels).toHaveLength(cancelsBefore);
    expect(wire.agentToClientTap.messages.filter((m) => !("method" in m) && m.id === null)).toEqual(
      [],
    );
    const theirs32602 = await caught(
      ours.connection.request("fs/read_text_file", { sessionId: "sess-1", path: 42 } as never),
    );
    expect(wireError(theirs32602, RequestError)).toMatchObject({ code: -32602 });
  });

  it("extension method and notification _example/ping, both ways", async () => {
    const params = { n: 1, tags: ["a", "ü"], nested: { deep: [null, true] } };
    await expect(theirs.connection.extMethod("_example/ping", params)).resolves.toEqual({
      pong: true,
      from: OUR_AGENT_NAME,
      echo: params,
    });
    expect(ours.script.extRequests.at(-1)).toEqual({ method: "_example/ping", params });
    await theirs.connection.extNotification("_example/ping", { n: 2 });
    expect(await until(() => ours.script.extNotifications.length === 1)).toBe(true);
    expect(ours.script.extNotifications).toEqual([{ method: "_example/ping", params: { n: 2 } }]);

    await expect(ours.connection.extMethod("_example/ping", { n: 3 })).resolves.toEqual({
      pong: true,
      from: CLASSIC_CLIENT_NAME,
      echo: { n: 3 },
    });
    await ours.connection.extNotification("_example/ping", { n: 4 });
    expect(await until(() => theirs.script.extNotifications.length === 1)).toBe(true);
    expect(theirs.script.extNotifications).toEqual([{ method: "_example/ping", params: { n: 4 } }]);
  });

  it("closing our agent fails the classic client's pending request and closes its connection", async () => {
    ours.script.resetSlow();
    const pending = caught(theirs.connection.request("_example/slow", { n: 5 }));
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

describe("(b) official 1.9.0 classic AgentSideConnection ⇄ acp-kit ClientSideConnection", () => {
  let wire: InteropWire;
  let theirs: { connection: ClassicAgentSideConnection; script: AgentScript };
  let ours: { connection: ClientSideConnection; script: ClientScript };

  const newSession = async (): Promise<string> =>
    (await ours.connection.newSession(NEW_SESSION)).sessionId;

  beforeAll(() => {
    wire = interopWire();
    theirs = connectClassicAgent(wire);
    // The wire's pipes are the test's: closing our connection ends our pipe (closeOutput).
    ours = connectOurClient(
      ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable, OWN_PIPE),
    );
  });

  afterAll(async () => {
    ours.connection.close();
    await Promise.all([ours.connection.closed, theirs.connection.closed]);
  });

  it("initialize: negotiates version 1 and exchanges capabilities and implementation info", async () => {
    const response: InitializeResponse = await ours.connection.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    expect(response).toEqual({
      protocolVersion: CLASSIC_PROTOCOL_VERSION,
      agentCapabilities: AGENT_CAPABILITIES,
      authMethods: AUTH_METHODS,
      agentInfo: AGENT_INFO,
    });
    // The classic agent parses params with defaults filled in; the wire has what we sent.
    expect(theirs.script.initializeParams).toMatchObject({
      protocolVersion: 1,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    expect(wire.clientToAgentTap.allBytes && wire.agentToClientTap.allBytes).toBe(true);
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

  it("session/request_permission: a round trip from the classic agent to our client", async () => {
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
    expect(wireError(theirs.script.fs?.denied.error, ClassicRequestError)).toEqual(
      DENIED_ERROR("/etc/passwd"),
    );
  });

  it("terminal lifecycle: the classic agent's TerminalHandle against our client", async () => {
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

  it("session/cancel cascade: the classic agent cancels its permission request, our handler's signal aborts", async () => {
    const sessionId = await newSession();
    await expect(
      ours.connection.prompt(promptFor(sessionId, Scenario.cancelPermission)),
    ).resolves.toEqual({
      stopReason: "cancelled",
    });
    expect(ours.script.cascade?.aborted).toBe(true);
    expect(wireError(ours.script.cascade?.reason, RequestError)).toMatchObject({ code: -32800 });
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

  it("$/cancel_request from the classic agent (cancellationSignal) aborts our handler, answered -32800", async () => {
    const controller = new AbortController();
    const pending = caught(
      theirs.connection.request(
        "_example/slow",
        { n: 1 },
        { cancellationSignal: controller.signal },
      ),
    );
    expect(await until(() => ours.script.slowCalls === 1)).toBe(true);
    controller.abort();
    expect(wireError(await pending, ClassicRequestError)).toMatchObject({ code: -32800 });
    expect(ours.script.slow?.aborted).toBe(true);
    expect(wireError(ours.script.slow?.reason, RequestError)).toMatchObject({ code: -32800 });
  });

  it("AbortSignal on our outbound request: we reject at once, send $/cancel_request and drop the late answer", async () => {
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
    expect(wire.clientToAgentTap.withMethod("$/cancel_request")).toContainEqual({
      jsonrpc: "2.0",
      method: "$/cancel_request",
      params: { requestId: request?.id },
    });
    expect(await until(() => wire.agentToClientTap.responseTo(request?.id) !== undefined)).toBe(
      true,
    );
    expect(wire.agentToClientTap.responseTo(request?.id)).toMatchObject({ result: { late: true } });
    await expect(
      ours.connection.extMethod("_example/ping", { after: "cancel" }),
    ).resolves.toMatchObject({ pong: true });
  });

  it("errors: the classic agent's RequestError (custom code and data) arrives intact at our client", async () => {
    const sessionId = await newSession();
    const error = await caught(ours.connection.prompt(promptFor(sessionId, Scenario.fail)));
    expect(wireError(error, RequestError)).toEqual(FAIL_ERROR);
  });

  it("errors: unknown methods answer -32601 both ways", async () => {
    for (const method of ["session/frobnicate", "_example/unknown"]) {
      const error = await caught(ours.connection.request(method, {}));
      expect(wireError(error, RequestError)).toMatchObject({ code: -32601 });
    }
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
      const error = await caught(theirs.connection.request(method, params));
      expect(wireError(error, ClassicRequestError)).toMatchObject({ code: -32601 });
    }
  });

  it("errors: invalid params answer -32602 from our client (and from the classic agent)", async () => {
    const bad = await caught(
      theirs.connection.request("fs/read_text_file", { sessionId: "sess-1", path: 42 }),
    );
    const e = wireError(bad, ClassicRequestError);
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ method: "fs/read_text_file" });
    expect((e.data as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
    const theirs32602 = await caught(ours.connection.request("session/new", { cwd: 42 } as never));
    expect(wireError(theirs32602, RequestError)).toMatchObject({ code: -32602 });
  });

  it("extension method and notification _example/ping, both ways", async () => {
    const params = { n: 1, tags: ["a", "ü"], nested: { deep: [null, true] } };
    await expect(ours.connection.extMethod("_example/ping", params)).resolves.toEqual({
      pong: true,
      from: CLASSIC_AGENT_NAME,
      echo: params,
    });
    expect(theirs.script.extRequests.at(-1)).toEqual({ method: "_example/ping", params });
    await ours.connection.extNotification("_example/ping", { n: 2 });
    expect(await until(() => theirs.script.extNotifications.length === 1)).toBe(true);
    expect(theirs.script.extNotifications).toEqual([{ method: "_example/ping", params: { n: 2 } }]);

    await expect(theirs.connection.extMethod("_example/ping", { n: 3 })).resolves.toEqual({
      pong: true,
      from: OUR_CLIENT_NAME,
      echo: { n: 3 },
    });
    await theirs.connection.extNotification("_example/ping", { n: 4 });
    expect(await until(() => ours.script.extNotifications.length === 1)).toBe(true);
    expect(ours.script.extNotifications).toEqual([{ method: "_example/ping", params: { n: 4 } }]);
  });

  it("closing our client fails the classic agent's pending request and closes its connection", async () => {
    ours.script.resetSlow();
    const pending = caught(theirs.connection.request("_example/slow", { n: 5 }));
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
