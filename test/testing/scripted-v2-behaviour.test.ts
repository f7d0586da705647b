/**
 * The scripted agent in ACP v2, beyond the parity runs: initialize and auth (`methodId`,
 * `auth/login`, `auth/logout`, -32000 before insertion), resume with replay, held
 * prompts, cancellation, close, and every scenario feature without a v2 equivalent
 * failing with an error that names it. Every message the agent sends validates.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  ClientSideConnection,
  memoryStreamPair,
  PROTOCOL_VERSION,
} from "../../packages/acp-kit/src/index.js";
import {
  assertScenario,
  createScriptedAgentV2,
  runScriptedAgent,
  TestClient,
  type ScriptedAgentOptions,
  type ScriptedCommandRunner,
  type TestClientOptions,
} from "../../packages/acp-kit/src/testing/index.js";
import { transcript, V2Checker } from "./fixtures/v2-parity.js";

function fixture(path: string): unknown {
  return JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
}

const open: { client: TestClient; checker: V2Checker }[] = [];

afterEach(async () => {
  for (const { client, checker } of open.splice(0)) {
    await client.close();
    expect(checker.issues).toEqual([]);
  }
});

/** A v2 TestClient on the scripted agent, every agent message validated. */
function connect(
  scenario: unknown,
  options: ScriptedAgentOptions = {},
  clientOptions: TestClientOptions = {},
): TestClient {
  const client = new TestClient({ protocol: 2, ...clientOptions });
  const checker = new V2Checker();
  const valid = assertScenario(scenario);
  const connection = client.connectV2((c) =>
    createScriptedAgentV2(c, valid, { delayScale: 0, ...options }),
  );
  connection.observe((direction, message) => {
    if (direction === "in") checker.fromAgent(message);
    else checker.fromClient(message);
  });
  open.push({ client, checker });
  return client;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("initialize and auth in v2", () => {
  it("answers v2 info and capabilities; authMethods with methodId and type, terminal ones only for auth.terminal clients", async () => {
    const scenario = {
      agent: {
        info: { name: "a", version: "1" },
        capabilities: {
          promptCapabilities: { image: true, embeddedContext: true },
          sessionCapabilities: { delete: {} },
        },
        authMethods: [
          { id: "token", name: "Token" },
          { id: "key", name: "Key", type: "env_var", vars: [{ name: "K" }] },
          { id: "tui", name: "TUI", type: "terminal", args: ["--login"] },
        ],
      },
      turns: [{ steps: [] }],
    };
    const plain = await connect(scenario).initializeV2();
    expect(plain).toEqual({
      protocolVersion: 2,
      info: { name: "a", version: "1" },
      capabilities: {
        session: {
          prompt: { image: {}, embeddedContext: {} },
          mcp: { stdio: {} },
          delete: {},
        },
      },
      authMethods: [
        { type: "agent", methodId: "token", name: "Token" },
        { type: "agent", methodId: "key", name: "Key" },
      ],
    });
    const terminal = await connect(
      scenario,
      {},
      {
        capabilitiesV2: { auth: { terminal: {} } },
      },
    ).initializeV2();
    expect(terminal.authMethods?.at(-1)).toEqual({
      type: "terminal",
      methodId: "tui",
      name: "TUI",
      args: ["--login"],
    });
  });

  it("requiresAuth: sessions answer -32000 until auth/login; auth/logout logs out", async () => {
    const client = connect(fixture("../cli/fixtures/auth-scenario.json"));
    await expect(client.newSessionV2()).rejects.toMatchObject({ code: -32000 });
    await expect(client.agentV2.login({ methodId: "nope" })).rejects.toMatchObject({
      code: -32602,
    });
    expect(await client.agentV2.login({ methodId: "token" })).toEqual({});
    const { sessionId } = await client.newSessionV2();
    expect(await client.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
    expect(client.textOf(sessionId)).toBe("logged in and answering");
    await client.agentV2.logout({});
    await expect(client.agentV2.listSessions({})).rejects.toMatchObject({ code: -32000 });
  });

  it('requiresAuth "prompt": session/prompt answers -32000 before insertion (no echo, no state); env_var logins need the variable', async () => {
    const scenario = fixture("../cli/fixtures/env-login-scenario.json");
    const client = connect(scenario);
    const { sessionId } = await client.newSessionV2();
    await expect(client.prompt(sessionId, "hi")).rejects.toMatchObject({
      code: -32000,
      data: { details: "not logged in" },
    });
    await tick();
    expect(client.updatesV2(sessionId)).toEqual([]);
    const refused = await client.agentV2.login({ methodId: "api-key" }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: -32603 });
    expect(JSON.stringify(refused) + String(refused)).toContain("ACP_KIT_TEST_KEY is not set");
    const withKey = connect(scenario, { env: { ACP_KIT_TEST_KEY: "k" } });
    await withKey.initializeV2();
    await withKey.agentV2.login({ methodId: "api-key" });
    const next = await withKey.newSessionV2();
    expect(await withKey.prompt(next.sessionId, "hi")).toEqual({ stopReason: "end_turn" });
  });

  it("protocol 2 answers a v1 initialize -32022; auto serves it as v1", async () => {
    const scenario = { turns: [{ steps: [{ text: "hi" }] }] };
    for (const protocol of [2, "auto"] as const) {
      const pair = memoryStreamPair();
      const server = runScriptedAgent(scenario, pair.agent, { protocol, delayScale: 0 });
      const v1 = new ClientSideConnection(
        () => ({ sessionUpdate: () => undefined }) as never,
        pair.client,
      );
      const answer = v1.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      if (protocol === 2) {
        await expect(answer).rejects.toMatchObject({
          code: -32022,
          data: { requested: 1, supported: [2] },
        });
      } else expect((await answer).protocolVersion).toBe(1);
      v1.close();
      server.close();
    }
  });
});

describe("sessions in v2", () => {
  const declared = {
    sessions: [
      {
        sessionId: "old",
        cwd: "/old",
        title: "Old one",
        history: [
          { user: "hi" },
          { agent: "hello" },
          { agent: " there" },
          { thought: "hmm" },
          {
            sessionUpdate: "tool_call",
            toolCallId: "t1",
            title: "Look",
            kind: "search",
            status: "completed",
          },
          {
            sessionUpdate: "plan",
            entries: [{ content: "A", priority: "high", status: "pending" }],
          },
        ],
      },
    ],
    turns: [{ steps: [{ text: "more" }, { toolCall: "Run", status: "completed" }] }],
  };

  it("resume replays a declared session's history and what happened since, then a snapshot", async () => {
    const client = connect(declared);
    await client.resumeSessionV2("old", { cwd: "/old" });
    const replayed = transcript(client.state("old"));
    expect(replayed.thread).toEqual([
      { role: "user", text: "hi" },
      { role: "agent", text: "hello there" },
      { role: "thought", text: "hmm" },
      expect.objectContaining({ tool: "t1", title: "Look", status: "completed" }),
    ]);
    expect(replayed.plan).toEqual([{ content: "A", priority: "high", status: "pending" }]);
    expect(client.updatesV2("old").at(-1)).toEqual({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: null,
    });
    expect(await client.prompt("old", "again")).toEqual({ stopReason: "end_turn" });
    await tick();
    const live = transcript(client.state("old"));
    // A second resume replays the same thread: the declared history, then the turn.
    await client.resumeSessionV2("old", { cwd: "/old" });
    expect(transcript(client.state("old")).thread).toEqual(live.thread);
    expect(live.thread).toHaveLength(7);
  });

  it("lists sessions, closes (-32002 after), and a resume without replay sends only the snapshot", async () => {
    const client = connect(declared);
    await client.initializeV2();
    expect((await client.agentV2.listSessions({})).sessions).toEqual([
      { sessionId: "old", cwd: "/old", title: "Old one" },
    ]);
    const { sessionId } = await client.newSessionV2();
    await expect(
      client.agentV2.prompt({ sessionId: "old", prompt: [{ type: "text", text: "x" }] }),
    ).rejects.toMatchObject({ code: -32002 });
    await client.resumeSessionV2("old", { cwd: "/old", replayFrom: null });
    expect(client.updatesV2("old")).toEqual([
      { sessionUpdate: "state_update", state: "idle", stopReason: null },
    ]);
    await client.agentV2.closeSession({ sessionId });
    await expect(client.prompt(sessionId, "x")).rejects.toMatchObject({ code: -32002 });
    // The agent answers -32002; the v2 client side turns that into success, as the SDK does.
    expect(await client.agentV2.closeSession({ sessionId: "nope" })).toEqual({});
    const close = client.requestsOf("session/close");
    expect(close).toEqual([]);
  });

  it("session/delete (advertised by sessionCapabilities.delete) forgets the session", async () => {
    const client = connect({
      ...declared,
      agent: { capabilities: { sessionCapabilities: { delete: {} } } },
    });
    const { sessionId } = await client.newSessionV2();
    expect(await client.agentV2.deleteSession({ sessionId: "old" })).toEqual({});
    expect(await client.agentV2.deleteSession({ sessionId })).toEqual({});
    expect((await client.agentV2.listSessions({})).sessions).toEqual([]);
    await expect(client.resumeSessionV2("old", { cwd: "/old" })).rejects.toMatchObject({
      code: -32002,
    });
    await expect(
      client.resumeSessionV2("old", { cwd: "/old", replayFrom: { type: "_later" } as never }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it("holds a prompt sent during a turn and answers it once inserted; cancel ends waitForCancel cancelled", async () => {
    const scenario = {
      turns: [
        {
          match: { contains: "wait" },
          steps: [{ text: "waiting" }, { waitForCancel: [{ text: "(stopped)" }] }],
        },
        { match: { contains: "slow" }, steps: [{ delay: 30 }, { text: "slow done" }] },
        { steps: [{ text: "fast" }] },
      ],
    };
    const client = connect(scenario, { delayScale: 1 });
    const { sessionId } = await client.newSessionV2();
    const [slow, fast] = await Promise.all([
      client.prompt(sessionId, "slow"),
      client.prompt(sessionId, "fast"),
    ]);
    expect([slow, fast]).toEqual([{ stopReason: "end_turn" }, { stopReason: "end_turn" }]);
    const kinds = client
      .updatesV2(sessionId)
      .map((u) => (u.sessionUpdate === "state_update" ? u.state : u.sessionUpdate));
    expect(kinds).toEqual([
      "user_message",
      "running",
      "agent_message_chunk",
      "idle",
      "user_message",
      "running",
      "agent_message_chunk",
      "idle",
    ]);
    const waiting = client.prompt(sessionId, "wait");
    await tick();
    await client.cancel(sessionId);
    expect(await waiting).toEqual({ stopReason: "cancelled" });
    expect(client.textOf(sessionId)).toBe("slow donefastwaiting(stopped)");
  });

  it("permission: a cancelled answer runs the cancelled branch and ends cancelled; the subject is the tool call", async () => {
    const scenario = {
      turns: [
        {
          steps: [
            { toolCall: "Delete", kind: "delete", rawInput: { path: "x" } },
            { permission: ["allow_once", "reject_once"], cancelled: [{ text: "no answer" }] },
          ],
        },
      ],
    };
    const client = connect(scenario, {}, { permission: "cancel" });
    const { sessionId } = await client.newSessionV2();
    expect(await client.prompt(sessionId, "go")).toEqual({ stopReason: "cancelled" });
    expect(client.requestsOf("session/request_permission")[0]?.params).toEqual({
      sessionId,
      title: "Delete",
      subject: {
        type: "tool_call",
        toolCall: {
          toolCallId: "call_1",
          title: "Delete",
          kind: "delete",
          status: "pending",
          rawInput: { path: "x" },
        },
      },
      options: [
        { optionId: "allow_once", name: "Allow", kind: "allow_once" },
        { optionId: "reject_once", name: "Reject", kind: "reject_once" },
      ],
    });
    expect(client.textOf(sessionId)).toBe("no answer");
  });
});

describe("agent-owned terminals and negotiation", () => {
  it("terminal steps: output and exit as the agent's terminal; wait: false stops the command", async () => {
    const ran: string[] = [];
    const runCommand: ScriptedCommandRunner = (command, signal) => {
      ran.push([command.command, ...command.args].join(" "));
      if (signal.aborted) return Promise.reject(new Error("stopped"));
      return Promise.resolve({ output: "ok\n", exitCode: 0 });
    };
    const scenario = {
      turns: [
        {
          steps: [
            { toolCall: "Run", kind: "execute" },
            { terminal: "make", args: ["all"], saveAs: "make" },
            { terminal: "sleep", args: ["9"], wait: false, saveAs: "sleep" },
            { text: "${make}|${make.exitCode}|${sleep}|${sleep.exitCode}" },
          ],
        },
      ],
    };
    const client = connect(scenario, { runCommand });
    const { sessionId } = await client.newSessionV2();
    expect(await client.prompt(sessionId, "go")).toEqual({ stopReason: "end_turn" });
    expect(ran).toEqual(["make all", "sleep 9"]);
    expect(client.textOf(sessionId)).toBe("ok\n|0||");
    const terminals = client.state(sessionId)?.terminals ?? [];
    expect(terminals.map((t) => [t.terminalId, t.command, t.exitStatus])).toEqual([
      ["term-1", "make all", { exitCode: 0 }],
      ["term-2", "sleep 9", { signal: "SIGKILL" }],
    ]);
  });

  it("a command still running when the turn is cancelled is stopped; its terminal shows the exit", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const runCommand: ScriptedCommandRunner = (_command, signal) =>
      new Promise((_resolve, reject) => {
        started();
        signal.addEventListener("abort", () => reject(new Error("killed")), { once: true });
      });
    const client = connect(
      { turns: [{ steps: [{ toolCall: "Serve" }, { terminal: "server" }, { text: "never" }] }] },
      { runCommand },
    );
    const { sessionId } = await client.newSessionV2();
    const turn = client.prompt(sessionId, "go");
    await running;
    await client.cancel(sessionId);
    expect(await turn).toEqual({ stopReason: "cancelled" });
    await tick();
    expect(client.state(sessionId)?.terminals[0]?.exitStatus).toEqual({ signal: "SIGTERM" });
    expect(client.textOf(sessionId)).toBe("");
  });

  it('TestClient protocol "auto" falls back to v1 against a v1-only agent', async () => {
    const pair = memoryStreamPair();
    const server = runScriptedAgent({ turns: [{ steps: [{ text: "v1 here" }] }] }, pair.agent, {
      delayScale: 0,
    });
    const client = new TestClient({ protocol: "auto" });
    expect(await client.open(pair.client)).toBe(1);
    expect(client.version).toBe(1);
    const { sessionId } = await client.newSession();
    expect(await client.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
    expect(client.textOf(sessionId)).toBe("v1 here");
    await client.close();
    server.close();
  });
});

describe("what v2 cannot say is an explicit error", () => {
  const failing = async (steps: unknown[], extra: Record<string, unknown> = {}) => {
    const client = connect({ ...extra, turns: [{ steps }] });
    const { sessionId } = await client.newSessionV2();
    return { client, sessionId, outcome: client.prompt(sessionId, "go") };
  };

  it("client files and terminals without a fileSystem or runCommand: the idle error names it, onError branches see it", async () => {
    for (const step of [
      { readFile: "a.txt" },
      { writeFile: "a.txt", content: "x" },
      { terminal: "ls" },
    ]) {
      const { outcome } = await failing([{ toolCall: "T" }, step]);
      await expect(outcome).rejects.toMatchObject({
        code: -32603,
        data: { noV2Equivalent: expect.stringContaining("client") as unknown },
      });
    }
    const { client, sessionId, outcome } = await failing([
      { readFile: "a.txt", onError: [{ text: "${error}" }] },
    ]);
    expect(await outcome).toEqual({ stopReason: "end_turn" });
    expect(client.textOf(sessionId)).toContain("has no v2 equivalent");
  });

  it("a raw current_mode_update in a scenario without modes", async () => {
    const { outcome } = await failing([
      { update: { sessionUpdate: "current_mode_update", currentModeId: "code" } },
    ]);
    await expect(outcome).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("has no v2 equivalent") as unknown,
    });
  });

  it("a declared history a v2 resume cannot replay fails the resume", async () => {
    const client = connect({
      sessions: [
        {
          sessionId: "s",
          cwd: "/p",
          history: [{ sessionUpdate: "current_mode_update", currentModeId: "code" }],
        },
      ],
      turns: [{ steps: [] }],
    });
    await expect(client.resumeSessionV2("s", { cwd: "/p" })).rejects.toMatchObject({
      code: -32603,
      data: { noV2Equivalent: expect.stringContaining("current_mode_update") as unknown },
    });
  });

  it("permission with its own call: the subject carries the call, no tool call is sent before", async () => {
    const scenario = {
      turns: [
        {
          steps: [
            {
              permission: ["allow_once", "reject_once"],
              call: { title: "rm -rf build", kind: "execute" },
              reject: [{ text: "left alone" }],
            },
          ],
        },
      ],
    };
    const client = connect(scenario, {}, { permission: "deny" });
    const { sessionId } = await client.newSessionV2();
    expect(await client.prompt(sessionId, "go")).toEqual({ stopReason: "end_turn" });
    expect(client.requestsOf("session/request_permission")[0]?.params).toMatchObject({
      title: "rm -rf build",
      subject: {
        type: "tool_call",
        toolCall: {
          toolCallId: "call_1",
          title: "rm -rf build",
          kind: "execute",
          status: "pending",
        },
      },
    });
    expect(client.textOf(sessionId)).toBe("left alone");
    expect(
      client.updatesV2(sessionId).filter((u) => u.sessionUpdate === "tool_call_update"),
    ).toEqual([]);
  });
});
