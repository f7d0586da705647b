/**
 * {@link SessionClient} against a hand-written agent over an in-memory pair: state kept
 * in step with every answer and update, authentication required at any step, load versus
 * resume, and the time limit of session setup.
 */
import { describe, expect, it, vi } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  ConnectionError,
  memoryStreamPair,
  RequestError,
  type Agent,
  type AgentCapabilities,
  type AuthMethod,
  type SessionConfigOption,
  type SessionNotification,
} from "../index.js";
import {
  AuthRequiredError,
  envVarsOf,
  isTerminalAuth,
  loginPlan,
  terminalLoginCommand,
} from "./auth.js";
import {
  SessionClient,
  UnsupportedByAgentError,
  type SessionClientEvent,
  type SessionClientOptions,
} from "./session-client.js";

const select = (id: string, category: string, currentValue: string): SessionConfigOption => ({
  type: "select",
  id,
  name: id,
  category,
  currentValue,
  options: [
    { value: "a", name: "A" },
    { value: "b", name: "B" },
  ],
});

const methods: AuthMethod[] = [
  { id: "key", name: "API key" },
  { id: "login", name: "Log in", type: "terminal", args: ["--login"], env: { MODE: "login" } },
];

/** A pair: `agent` overrides the default handlers; `calls` records each method called. */
function connect(
  agent: Partial<Agent> & { capabilities?: AgentCapabilities },
  options: SessionClientOptions = {},
): {
  sessions: SessionClient;
  agentSide: AgentSideConnection;
  connection: ClientSideConnection;
  calls: string[];
  send: (n: SessionNotification) => Promise<void>;
} {
  const { agent: a, client: b } = memoryStreamPair();
  const calls: string[] = [];
  const record =
    <P, R>(name: string, fn: (params: P) => R | Promise<R>) =>
    (params: P): R | Promise<R> => {
      calls.push(name);
      return fn(params);
    };
  const base: Agent = {
    initialize: () => ({
      protocolVersion: 1,
      agentCapabilities: agent.capabilities ?? {},
      authMethods: methods,
    }),
    authenticate: record("authenticate", () => ({})),
    cancel: record("cancel", () => undefined),
    newSession: record("newSession", () => ({ sessionId: "s1" })),
    prompt: record("prompt", () => ({ stopReason: "end_turn" as const })),
  };
  const handlers: Agent = { ...base };
  for (const [key, value] of Object.entries(agent)) {
    if (key === "capabilities" || typeof value !== "function") continue;
    (handlers as unknown as Record<string, unknown>)[key] = record(
      key,
      value as (p: unknown) => unknown,
    );
  }
  const agentSide = new AgentSideConnection(() => handlers, a);
  const sessions = new SessionClient(undefined, options);
  const connection = new ClientSideConnection(
    () =>
      sessions.wrap({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => undefined,
      }),
    b,
  );
  sessions.connect(connection);
  return { sessions, agentSide, connection, calls, send: (n) => agentSide.sessionUpdate(n) };
}

async function initialized(
  agent: Partial<Agent> & { capabilities?: AgentCapabilities },
  options: SessionClientOptions = {},
): Promise<ReturnType<typeof connect>> {
  const pair = connect(agent, options);
  // What `initialize` answered, recorded as a caller does.
  pair.sessions.agentInfo = await pair.connection.initialize({ protocolVersion: 1 });
  return pair;
}

describe("SessionClient keeps the state in step", () => {
  it("keeps updates sent before the session/new answer, then folds the answer", async () => {
    const peer: { agentSide?: AgentSideConnection } = {};
    const pair = await initialized({
      newSession: async () => {
        await peer.agentSide?.sessionUpdate({
          sessionId: "early",
          update: {
            sessionUpdate: "available_commands_update",
            availableCommands: [{ name: "review", description: "Review" }],
          },
        });
        await peer.agentSide?.sessionUpdate({
          sessionId: "early",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
        });
        return {
          sessionId: "early",
          modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] },
          configOptions: [select("model", "model", "a")],
        };
      },
    });
    peer.agentSide = pair.agentSide;
    const { sessionId } = await pair.sessions.newSession({ cwd: "/w", mcpServers: [] });
    const session = pair.sessions.session(sessionId);
    expect(session.state.availableCommands?.map((c) => c.name)).toEqual(["review"]);
    expect(session.state.thread).toHaveLength(1);
    expect(session.state.currentModeId).toBe("ask");
    expect(session.state.configOptions?.[0]?.currentValue).toBe("a");
  });

  it("folds the answers of set_config_option, set_mode and the model", async () => {
    const { sessions, calls } = await initialized({
      newSession: () => ({
        sessionId: "s1",
        modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] },
        configOptions: [select("model", "model", "a"), select("effort", "thought_level", "a")],
      }),
      setSessionConfigOption: (params) => ({
        configOptions: [
          select("model", "model", params.configId === "model" ? String(params.value) : "a"),
          select("effort", "thought_level", params.configId === "effort" ? "b" : "a"),
        ],
      }),
      setSessionMode: () => ({}),
    });
    await sessions.newSession({ cwd: "/w", mcpServers: [] });
    const session = sessions.session("s1");
    await session.setConfigOption("effort", "b");
    expect(session.state.configOptions?.map((o) => o.currentValue)).toEqual(["a", "b"]);
    await session.setModel("b");
    expect(session.state.configOptions?.[0]?.currentValue).toBe("b");
    await session.setMode("code");
    expect(session.state.currentModeId).toBe("code");
    expect(calls.filter((c) => c.startsWith("set"))).toEqual([
      "setSessionConfigOption",
      "setSessionConfigOption",
      "setSessionMode",
    ]);
  });

  it("sets a mode through the mode config option when there are no modes", async () => {
    const seen: unknown[] = [];
    const { sessions, calls } = await initialized({
      newSession: () => ({ sessionId: "s1", configOptions: [select("mode", "mode", "a")] }),
      setSessionConfigOption: (params) => {
        seen.push(params);
        return { configOptions: [select("mode", "mode", String(params.value))] };
      },
    });
    await sessions.newSession({ cwd: "/w", mcpServers: [] });
    await sessions.setMode("s1", "b");
    expect(calls).not.toContain("setSessionMode");
    expect(seen).toEqual([{ sessionId: "s1", configId: "mode", value: "b" }]);
    expect(sessions.store.get("s1")?.configOptions?.[0]?.currentValue).toBe("b");
    // A boolean goes as a boolean option.
    await sessions.setConfigOption("s1", "mode", true).catch(() => undefined);
    expect(seen[1]).toEqual({ sessionId: "s1", configId: "mode", type: "boolean", value: true });
  });

  it("sets a mode through the mode config option when the session has modes too", async () => {
    const seen: unknown[] = [];
    const { sessions, calls, send } = await initialized({
      newSession: () => ({
        sessionId: "s1",
        modes: {
          currentModeId: "a",
          availableModes: [
            { id: "a", name: "A" },
            { id: "b", name: "B" },
          ],
        },
        configOptions: [select("agent-mode", "mode", "a")],
      }),
      setSessionConfigOption: (params) => {
        seen.push(params);
        return { configOptions: [select("agent-mode", "mode", String(params.value))] };
      },
      setSessionMode: () => ({}),
    });
    await sessions.newSession({ cwd: "/w", mcpServers: [] });
    await sessions.session("s1").setMode("b");
    // The protocol: a client that understands config options prefers them over modes.
    expect(calls).not.toContain("setSessionMode");
    expect(seen).toEqual([{ sessionId: "s1", configId: "agent-mode", value: "b" }]);
    expect(sessions.store.get("s1")?.configOptions?.[0]?.currentValue).toBe("b");
    // The session's modes show the same setting (they kept "a" before).
    expect(sessions.store.get("s1")?.currentModeId).toBe("b");
    // Whichever way the option changes: here the agent's own update.
    await send({
      sessionId: "s1",
      update: {
        sessionUpdate: "config_option_update",
        configOptions: [select("agent-mode", "mode", "a")],
      },
    });
    expect(sessions.store.get("s1")?.currentModeId).toBe("a");
  });

  it("names the MCP servers the agent does not take, by its mcpCapabilities", async () => {
    const stdio = { name: "files", command: "mcp-files", args: [], env: [] };
    const http = { type: "http" as const, name: "web", url: "http://127.0.0.1:1/mcp", headers: [] };
    const sse = { type: "sse" as const, name: "old", url: "http://127.0.0.1:1/sse", headers: [] };
    const acp = { type: "acp" as const, name: "inline", serverId: "m1" };
    const servers = [stdio, http, sse, acp];
    const none = await initialized({});
    expect(none.sessions.refusedMcpServers(servers)).toEqual([http, sse, acp]);
    const some = await initialized({
      capabilities: { mcpCapabilities: { http: true, acp: true } },
    });
    expect(some.sessions.refusedMcpServers(servers)).toEqual([sse]);
  });

  it("refuses a model when the session has no model option, without a request", async () => {
    const { sessions, calls } = await initialized({});
    await sessions.newSession({ cwd: "/w", mcpServers: [] });
    await expect(sessions.setModel("s1", "x")).rejects.toBeInstanceOf(UnsupportedByAgentError);
    expect(calls).toEqual(["newSession"]);
  });

  it("records the turn, and a cancel reaches the hooks with the running turn", async () => {
    let release!: () => void;
    const cancelling = vi.fn();
    const { sessions } = await initialized(
      {
        prompt: () =>
          new Promise((resolve) => {
            release = () => resolve({ stopReason: "cancelled" });
          }),
        cancel: () => release(),
      },
      { hooks: { cancelling } },
    );
    await sessions.newSession({ cwd: "/w", mcpServers: [] });
    const turn = sessions.session("s1").prompt("Hi");
    await vi.waitFor(() => expect(release).toBeDefined());
    await sessions.cancel("s1");
    expect(cancelling).toHaveBeenCalledWith("s1", expect.any(Promise));
    expect((await turn).stopReason).toBe("cancelled");
    expect(sessions.store.get("s1")?.turns).toMatchObject([
      { ended: true, cancelled: true, stopReason: "cancelled" },
    ]);
  });

  it("closes through session/close when supported, and tells the hooks either way", async () => {
    const closed: string[] = [];
    const withClose = await initialized(
      { capabilities: { sessionCapabilities: { close: {} } }, closeSession: () => ({}) },
      { hooks: { closed: (id) => closed.push(id) } },
    );
    await withClose.sessions.session("s1").close();
    expect(withClose.calls).toEqual(["closeSession"]);
    const without = await initialized({}, { hooks: { closed: (id) => closed.push(id) } });
    await without.sessions.session("s2").close();
    expect(without.calls).toEqual([]);
    expect(closed).toEqual(["s1", "s2"]);
  });

  it("lists only when the agent supports session/list", async () => {
    const listing = await initialized({
      capabilities: { sessionCapabilities: { list: {} } },
      listSessions: () => ({ sessions: [{ sessionId: "old", cwd: "/w" }] }),
    });
    expect((await listing.sessions.listSessions()).sessions).toEqual([
      { sessionId: "old", cwd: "/w" },
    ]);
    const plain = await initialized({});
    await expect(plain.sessions.listSessions()).rejects.toThrow(/does not list/);
    expect(plain.calls).toEqual([]);
  });
});

describe("SessionClient: load or resume", () => {
  const params = { sessionId: "old", cwd: "/w", mcpServers: [] };

  it("loads when the agent can load (the replay lands in the state)", async () => {
    const peer: { agentSide?: AgentSideConnection } = {};
    const pair = await initialized({
      capabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
      loadSession: async ({ sessionId }) => {
        await peer.agentSide?.sessionUpdate({
          sessionId,
          update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "q" } },
        });
        return {};
      },
    });
    peer.agentSide = pair.agentSide;
    expect(pair.sessions.restoreMethod).toBe("session/load");
    const restored = await pair.sessions.restoreSession(params);
    expect(restored.method).toBe("session/load");
    expect(pair.calls).toEqual(["loadSession"]);
    expect(pair.sessions.store.get("old")?.thread).toHaveLength(1);
  });

  it("resumes when the agent can only resume, or when resume is preferred", async () => {
    const onlyResume = await initialized({
      capabilities: { sessionCapabilities: { resume: {} } },
      resumeSession: () => ({}),
    });
    expect((await onlyResume.sessions.restoreSession(params)).method).toBe("session/resume");
    expect(onlyResume.calls).toEqual(["resumeSession"]);
    const preferring = await initialized(
      {
        capabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
        resumeSession: () => ({}),
      },
      { prefer: "resume" },
    );
    expect((await preferring.sessions.restoreSession(params)).method).toBe("session/resume");
  });

  it("refuses when the agent can do neither, without a request", async () => {
    const { sessions, calls } = await initialized({});
    expect(sessions.restoreMethod).toBeUndefined();
    await expect(sessions.restoreSession(params)).rejects.toBeInstanceOf(UnsupportedByAgentError);
    expect(calls).toEqual([]);
  });

  it("tells the hooks about the roots before a load is sent", async () => {
    const order: string[] = [];
    const { sessions } = await initialized(
      {
        capabilities: { loadSession: true },
        loadSession: () => {
          order.push("load");
          return {};
        },
      },
      { hooks: { opening: (id, roots) => order.push(`opening ${id} ${roots.cwd}`) } },
    );
    await sessions.loadSession(params);
    expect(order).toEqual(["opening old /w", "load"]);
  });
});

describe("SessionClient: authentication required at any step", () => {
  it("turns -32000 from session/new into AuthRequiredError, retried after logging in", async () => {
    let loggedIn = false;
    const { sessions, calls } = await initialized({
      newSession: () => {
        if (!loggedIn) throw RequestError.authRequired({ hint: "key" });
        return { sessionId: "s1" };
      },
      authenticate: () => {
        loggedIn = true;
        return {};
      },
    });
    const events: SessionClientEvent[] = [];
    sessions.subscribe((e) => events.push(e));
    const failure = await sessions.newSession({ cwd: "/w", mcpServers: [] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(AuthRequiredError);
    expect(failure).toBeInstanceOf(RequestError);
    const error = failure as AuthRequiredError;
    expect(error).toMatchObject({ code: -32000, method: "session/new", data: { hint: "key" } });
    expect(error.params).toEqual({ cwd: "/w", mcpServers: [] });
    expect(error.authMethods).toEqual(methods);
    expect(events).toEqual([{ type: "auth_required", error }]);
    await sessions.authenticate("key");
    await expect(error.retry()).resolves.toEqual({ sessionId: "s1" });
    expect(calls).toEqual(["newSession", "authenticate", "newSession"]);
  });

  it("does so for a prompt too, and the retried turn is recorded", async () => {
    let loggedIn = false;
    const { sessions } = await initialized({
      prompt: () => {
        if (!loggedIn) throw RequestError.authRequired();
        return { stopReason: "end_turn" };
      },
      authenticate: () => {
        loggedIn = true;
        return {};
      },
    });
    await sessions.newSession({ cwd: "/w", mcpServers: [] });
    const error = await sessions
      .session("s1")
      .prompt("Hi")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ method: "session/prompt", authMethods: methods });
    await sessions.authenticate("key");
    await expect((error as AuthRequiredError).retry()).resolves.toEqual({
      stopReason: "end_turn",
    });
    // The refused turn is taken back: the retry is the one turn, its prompt shown once.
    const state = sessions.store.get("s1");
    expect(state?.turns.map((t) => t.stopReason)).toEqual(["end_turn"]);
    expect(state?.thread.filter((item) => item.type === "message")).toEqual([
      {
        type: "message",
        role: "user",
        messageId: null,
        content: [{ type: "text", text: "Hi" }],
        origin: "client",
      },
    ]);
  });

  it("and for set_config_option, load and list", async () => {
    const deny = (): never => {
      throw RequestError.authRequired();
    };
    const { sessions } = await initialized({
      capabilities: { loadSession: true, sessionCapabilities: { list: {} } },
      setSessionConfigOption: deny,
      loadSession: deny,
      listSessions: deny,
    });
    const steps = await Promise.all([
      sessions.setConfigOption("s1", "x", "y").catch((e: unknown) => e),
      sessions.loadSession({ sessionId: "s1", cwd: "/w", mcpServers: [] }).catch((e: unknown) => e),
      sessions.listSessions().catch((e: unknown) => e),
    ]);
    expect(steps.map((e) => e instanceof AuthRequiredError && e.method)).toEqual([
      "session/set_config_option",
      "session/load",
      "session/list",
    ]);
  });

  it("leaves other errors as they are", async () => {
    const { sessions } = await initialized({
      newSession: () => {
        throw RequestError.internalError({ details: "no key" });
      },
    });
    const error = await sessions.newSession({ cwd: "/w", mcpServers: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).not.toBeInstanceOf(AuthRequiredError);
  });

  it("never sends authenticate for a terminal method", async () => {
    const { sessions, calls } = await initialized({});
    await expect(sessions.authenticate("login")).rejects.toThrow(/terminal login/);
    await expect(sessions.logout()).rejects.toBeInstanceOf(UnsupportedByAgentError);
    expect(calls).toEqual([]);
  });
});

describe("SessionClient: the time limit of session setup", () => {
  const never = (): Promise<never> => new Promise<never>(() => undefined);

  it("rejects a session/new the agent never answers, within the limit", async () => {
    const { sessions } = await initialized({ newSession: never }, { setupTimeoutMs: 100 });
    const started = Date.now();
    const error = await sessions.newSession({ cwd: "/w", mcpServers: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: "timeout" });
    expect(String(error)).toMatch(/session\/new/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("limits load and resume too; a load that timed out is no longer loading", async () => {
    const { sessions } = await initialized(
      {
        capabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
        loadSession: never,
        resumeSession: never,
      },
      { setupTimeoutMs: 50 },
    );
    const params = { sessionId: "old", cwd: "/w", mcpServers: [] };
    await expect(sessions.loadSession(params)).rejects.toMatchObject({ code: "timeout" });
    expect(sessions.store.get("old")?.loading).toBe(false);
    await expect(sessions.resumeSession(params)).rejects.toMatchObject({ code: "timeout" });
    // A call's own limit wins.
    await expect(sessions.resumeSession(params, { timeoutMs: 20 })).rejects.toMatchObject({
      code: "timeout",
    });
  });

  it("waits for ever with 0 (or Infinity), and never limits a prompt", async () => {
    let answer!: () => void;
    const slow = (): Promise<{ sessionId: string }> =>
      new Promise((resolve) => {
        answer = () => resolve({ sessionId: "s1" });
      });
    for (const setupTimeoutMs of [0, Infinity]) {
      const { sessions } = await initialized({ newSession: slow }, { setupTimeoutMs });
      const opening = sessions.newSession({ cwd: "/w", mcpServers: [] });
      const early = await Promise.race([
        opening.then(() => "answered"),
        new Promise((resolve) => setTimeout(() => resolve("waiting"), 300)),
      ]);
      expect(early).toBe("waiting");
      answer();
      await expect(opening).resolves.toEqual({ sessionId: "s1" });
    }
    expect(() => new SessionClient(undefined, { setupTimeoutMs: -1 })).toThrow(RangeError);
  });
});

describe("login plans", () => {
  it("says what each kind of method asks of the client", () => {
    const envMethod = {
      id: "env",
      name: "Key",
      type: "env_var",
      vars: ["CODEX_API_KEY", { name: "BASE_URL", label: "URL", secret: false, optional: true }],
    } as unknown as AuthMethod;
    expect(loginPlan({ id: "key", name: "Key" })).toEqual({ kind: "agent", methodId: "key" });
    expect(loginPlan(methods[1]!)).toEqual({ kind: "terminal", methodId: "login" });
    expect(loginPlan(envMethod)).toEqual({
      kind: "env_var",
      methodId: "env",
      vars: [
        { name: "CODEX_API_KEY", label: null, secret: true, optional: false },
        { name: "BASE_URL", label: "URL", secret: false, optional: true },
      ],
    });
    expect(
      envVarsOf({ id: "v", name: "V", type: "env_var", varName: "KEY" } as unknown as AuthMethod),
    ).toEqual([{ name: "KEY", label: null, secret: true, optional: false }]);
    expect(envVarsOf({ id: "key", name: "Key" })).toBeUndefined();
    // A method of an unknown kind is not a login command.
    expect(isTerminalAuth({ id: "x", name: "X", type: "future" } as unknown as AuthMethod)).toBe(
      false,
    );
  });

  it("builds a terminal login from the agent's own command", () => {
    const method = methods[1];
    if (method === undefined || !isTerminalAuth(method)) throw new Error("fixture");
    expect(
      terminalLoginCommand(method, {
        command: "agent",
        args: ["--acp"],
        env: { MODE: "acp", TOKEN: "t" },
      }),
    ).toEqual({ command: "agent", args: ["--acp", "--login"], env: { MODE: "login", TOKEN: "t" } });
  });
});
