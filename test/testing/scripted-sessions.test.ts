import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, VERSION } from "../../packages/acp-kit/src/index.js";
import { agentText, CWD, harness, updatesOf } from "./fixtures/scenario-harness.js";

const text = (sessionUpdate: string, value: string) => ({
  sessionUpdate,
  content: { type: "text", text: value },
});

const history = {
  sessions: [
    {
      sessionId: "old",
      cwd: "/old",
      title: "An old chat",
      updatedAt: "2025-01-01T00:00:00Z",
      history: [
        { user: "hi" },
        { thought: "greet" },
        { agent: "hello" },
        { sessionUpdate: "tool_call", toolCallId: "t", title: "Look", status: "completed" },
      ],
    },
    { sessionId: "other", cwd: "/elsewhere" },
  ],
  turns: [{ steps: [{ toolCall: "Work" }, { text: "echo: ${prompt}" }] }],
};

describe("initialize and authentication", () => {
  it("answers with the scenario's info and capabilities, negotiating the version", async () => {
    const h = harness({ turns: [], agent: { protocolVersions: [1, 3] } });
    expect(await h.agent.initialize({ protocolVersion: 3 })).toEqual({
      protocolVersion: 3,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { embeddedContext: true },
        sessionCapabilities: { list: {}, resume: {}, close: {} },
      },
      authMethods: [],
      agentInfo: { name: "acp-scripted-agent", title: "Scripted agent", version: VERSION },
    });
    expect((await h.agent.initialize({ protocolVersion: 2 })).protocolVersion).toBe(3);
    const plain = harness({
      name: "Mine",
      turns: [],
      agent: { capabilities: {}, info: { name: "x", version: "9" } },
    });
    expect(await plain.agent.initialize({ protocolVersion: 7 })).toEqual({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {},
      authMethods: [],
      agentInfo: { name: "x", version: "9" },
    });
  });

  it("requires authentication with a known method before sessions", async () => {
    const authMethods = [
      { id: "login", name: "Log in" },
      { type: "terminal", id: "tty", name: "Terminal login" },
    ];
    const h = harness({
      agent: { requiresAuth: true, authMethods, capabilities: { auth: { logout: {} } } },
      turns: [],
    });
    const init = await h.agent.initialize({ protocolVersion: 1 });
    expect(init.authMethods).toEqual([{ id: "login", name: "Log in" }]);
    await expect(h.newSession()).rejects.toMatchObject({
      code: -32000,
      message: "Authentication required",
    });
    await expect(h.agent.authenticate({ methodId: "tty" })).rejects.toMatchObject({ code: -32602 });
    await expect(h.agent.authenticate({ methodId: "nope" })).rejects.toMatchObject({
      code: -32602,
    });
    await h.agent.authenticate({ methodId: "login" });
    expect(await h.newSession()).toBe("session-1");
    await h.agent.logout({});
    await expect(h.newSession()).rejects.toMatchObject({ code: -32000 });
    const terminalClient = harness({ agent: { authMethods }, turns: [] });
    const answer = await terminalClient.agent.initialize({
      protocolVersion: 1,
      clientCapabilities: { auth: { terminal: true } },
    });
    expect(answer.authMethods).toEqual(authMethods);
  });

  it("mimics env_var logins (the variable must be in its environment) and -32000 at the prompt", async () => {
    const authMethods = [
      { id: "key", name: "API key", type: "env_var", vars: [{ name: "MY_KEY" }] },
    ];
    const scenario = {
      agent: { requiresAuth: "prompt", authMethods },
      turns: [{ steps: [{ text: "logged in" }] }],
    };
    const without = harness(scenario);
    await without.initialize();
    const sessionId = await without.newSession();
    await expect(without.prompt(sessionId, "hi")).rejects.toMatchObject({
      code: -32000,
      data: { details: "not logged in" },
    });
    await expect(without.agent.authenticate({ methodId: "key" })).rejects.toMatchObject({
      code: -32603,
      data: "MY_KEY is not set",
    });
    const withKey = harness(scenario, { env: { MY_KEY: "k" } });
    await withKey.initialize();
    const id = await withKey.newSession();
    await withKey.agent.authenticate({ methodId: "key" });
    expect(await withKey.prompt(id, "hi")).toBe("end_turn");
  });

  it("answers -32601 for methods the scenario does not advertise, -32602 for prompt blocks it does not accept", async () => {
    const h = harness({ agent: { capabilities: {} }, turns: [{ steps: [] }] });
    await h.initialize();
    const sessionId = await h.newSession();
    for (const call of [
      () => h.agent.loadSession({ sessionId, cwd: CWD, mcpServers: [] }),
      () => h.agent.listSessions({}),
      () => h.agent.resumeSession({ sessionId, cwd: CWD }),
      () => h.agent.closeSession({ sessionId }),
      () => h.agent.setSessionMode({ sessionId, modeId: "x" }),
      () => h.agent.logout({}),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: -32601 });
    }
    const image = { type: "image" as const, data: "AA", mimeType: "image/png" };
    await expect(h.agent.prompt({ sessionId, prompt: [image] })).rejects.toMatchObject({
      code: -32602,
      data: { index: 0, type: "image" },
    });
  });
});

describe("sessions: new, load, resume, list, close, delete", () => {
  it("replays a declared session's history on load, then answers", async () => {
    const h = harness(history);
    await h.initialize();
    const start = h.received.length;
    expect(await h.agent.loadSession({ sessionId: "old", cwd: "/old", mcpServers: [] })).toEqual(
      {},
    );
    const replay = h.received.slice(start);
    expect(replay.at(-1)).toMatchObject({ id: 1, result: {} });
    expect(updatesOf(replay)).toEqual([
      text("user_message_chunk", "hi"),
      text("agent_thought_chunk", "greet"),
      text("agent_message_chunk", "hello"),
      { sessionUpdate: "tool_call", toolCallId: "t", title: "Look", status: "completed" },
    ]);
    await expect(
      h.agent.loadSession({ sessionId: "nope", cwd: "/", mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32002,
    });
  });

  it("records new sessions so that load replays what was sent, user messages included", async () => {
    const h = harness(history);
    await h.initialize();
    const sessionId = await h.newSession();
    await h.prompt(sessionId, "one");
    const live = h.updates();
    await h.agent.closeSession({ sessionId });
    await expect(h.prompt(sessionId, "closed")).rejects.toMatchObject({ code: -32002 });
    const start = h.received.length;
    await h.agent.loadSession({ sessionId, cwd: "/moved", mcpServers: [] });
    expect(updatesOf(h.received.slice(start))).toEqual([
      text("user_message_chunk", "one"),
      ...live,
    ]);
    // The session goes on where it was: its tool call ids keep counting.
    await h.prompt(sessionId, "two");
    expect(h.updates().at(-2)).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call_2" });
    // Live, replayed, live.
    expect(agentText(h.updates())).toBe("echo: oneecho: oneecho: two");
  });

  it("resumes without replay and lists sessions by cwd, page by page", async () => {
    const h = harness({ ...history, agent: { listPageSize: 2 } });
    await h.initialize();
    await h.newSession("/old");
    const start = h.received.length;
    expect(await h.agent.resumeSession({ sessionId: "other", cwd: "/elsewhere" })).toEqual({});
    expect(updatesOf(h.received.slice(start))).toEqual([]);
    const first = await h.agent.listSessions({});
    expect(first).toEqual({
      sessions: [
        { sessionId: "old", cwd: "/old", title: "An old chat", updatedAt: "2025-01-01T00:00:00Z" },
        { sessionId: "other", cwd: "/elsewhere" },
      ],
      nextCursor: "2",
    });
    expect(await h.agent.listSessions({ cursor: "2" })).toEqual({
      sessions: [{ sessionId: "session-1", cwd: "/old" }],
    });
    expect((await h.agent.listSessions({ cwd: "/old" })).sessions.map((s) => s.sessionId)).toEqual([
      "old",
      "session-1",
    ]);
    await expect(h.agent.listSessions({ cursor: "x" })).rejects.toMatchObject({ code: -32602 });
  });

  it("reports session info updates in the list, and deletes sessions", async () => {
    const h = harness({
      agent: { capabilities: { sessionCapabilities: { list: {}, delete: {} } } },
      turns: [{ steps: [{ sessionInfo: { title: "Named", updatedAt: "2025-02-02T00:00:00Z" } }] }],
    });
    await h.initialize();
    const sessionId = await h.newSession();
    await h.prompt(sessionId, "x");
    expect((await h.agent.listSessions({})).sessions).toEqual([
      { sessionId, cwd: CWD, title: "Named", updatedAt: "2025-02-02T00:00:00Z" },
    ]);
    await h.agent.deleteSession({ sessionId });
    await h.agent.deleteSession({ sessionId: "never" });
    expect((await h.agent.listSessions({})).sessions).toEqual([]);
  });

  it("close cancels a running turn", async () => {
    const h = harness({ turns: [{ steps: [{ text: "busy" }, { waitForCancel: true }] }] });
    await h.initialize();
    const sessionId = await h.newSession();
    const prompt = h.prompt(sessionId, "go");
    await h.until(() => h.updates().length === 1);
    await h.agent.closeSession({ sessionId });
    expect(await prompt).toBe("cancelled");
    await expect(h.agent.closeSession({ sessionId: "nope" })).rejects.toMatchObject({
      code: -32002,
    });
  });
});

describe("modes, config options and slash commands", () => {
  const scenario = {
    modes: {
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask" },
        { id: "code", name: "Code" },
      ],
    },
    configOptions: [
      {
        id: "model",
        name: "Model",
        type: "select",
        currentValue: "a",
        options: [
          {
            group: "g",
            name: "G",
            options: [
              { value: "a", name: "A" },
              { value: "b", name: "B" },
            ],
          },
        ],
      },
      { id: "fast", name: "Fast", type: "boolean", currentValue: false },
    ],
    commands: [{ name: "explain", description: "Explain", input: { hint: "file" } }],
    turns: [{ steps: [] }],
  };

  it("answers session setup with modes and config options, then advertises commands", async () => {
    const h = harness(scenario);
    await h.agent.initialize({
      protocolVersion: 1,
      clientCapabilities: { session: { configOptions: { boolean: {} } } },
    });
    const response = await h.agent.newSession({ cwd: CWD, mcpServers: [] });
    expect(response).toEqual({
      sessionId: "session-1",
      modes: scenario.modes,
      configOptions: scenario.configOptions,
    });
    await h.until(() => h.updates().length === 1);
    expect(h.methods().slice(-2)).toEqual(["response", "session/update"]);
    expect(h.updates()).toEqual([
      { sessionUpdate: "available_commands_update", availableCommands: scenario.commands },
    ]);
  });

  it("switches modes and config options, with updates, and rejects unknown values", async () => {
    const h = harness(scenario);
    await h.initialize();
    const { sessionId, configOptions } = await h.agent.newSession({ cwd: CWD, mcpServers: [] });
    expect(configOptions).toEqual([scenario.configOptions[0]]); // no boolean options for this client
    await h.agent.setSessionMode({ sessionId, modeId: "code" });
    await expect(h.agent.setSessionMode({ sessionId, modeId: "nope" })).rejects.toMatchObject({
      code: -32602,
    });
    const changed = await h.agent.setSessionConfigOption({
      sessionId,
      configId: "model",
      value: "b",
    });
    const model = { ...scenario.configOptions[0], currentValue: "b" };
    expect(changed).toEqual({ configOptions: [model] });
    await expect(
      h.agent.setSessionConfigOption({ sessionId, configId: "model", value: "z" }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      h.agent.setSessionConfigOption({ sessionId, configId: "x", value: "a" }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(h.updates()).toEqual([
      { sessionUpdate: "available_commands_update", availableCommands: scenario.commands },
      { sessionUpdate: "current_mode_update", currentModeId: "code" },
      { sessionUpdate: "config_option_update", configOptions: [model] },
    ]);
    expect(await h.agent.resumeSession({ sessionId, cwd: CWD })).toEqual({
      modes: { ...scenario.modes, currentModeId: "code" },
      configOptions: [model],
    });
  });
});
