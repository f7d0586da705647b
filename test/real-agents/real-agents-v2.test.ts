/**
 * Interop with the real v2 agents, offline: `@agentclientprotocol/codex-acp` and
 * `@agentclientprotocol/claude-agent-acp` (exact versions in package.json), spawned over
 * pipes in sealed temporary homes, their model APIs pointed at a local fake.
 *
 * Each test speaks raw NDJSON to the agent and records what it answers. Every message an
 * agent sends is checked with acp-kit's v1 or v2 validators; what the agents do is
 * written down in test/real-agents/README.md. Waits are bounded and rely on message order
 * only (never on a wall-clock race).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checkAgentMessage,
  FAKE_MODEL_TEXT,
  isRoot,
  nonRootUser,
  sealedHome,
  spawnRealAgent,
  startFakeModelServer,
  type FakeModelServer,
  type RealAgent,
  type RealAgentKind,
  type RunAs,
  type SealedHome,
  type WireMessage,
} from "../support/real-agents.js";

/** One wait for one answer; spawn+initialize takes 0.4-0.9 s here (see the README). */
const WAIT_MS = 45_000;
/** A whole prompt turn against the fake model (1-2 s here). */
const TURN_MS = 90_000;
const TEST_MS = 180_000;

const CLIENT_INFO = { name: "acp-kit-real-agents-test", version: "0.0.0" };
const V2_INIT = { protocolVersion: 2, info: CLIENT_INFO, capabilities: {} };
const V1_CLIENT_CAPABILITIES = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
const V1_INIT = {
  protocolVersion: 1,
  clientInfo: CLIENT_INFO,
  clientCapabilities: V1_CLIENT_CAPABILITIES,
};
const DUAL_INIT = {
  ...V2_INIT,
  clientInfo: CLIENT_INFO,
  clientCapabilities: V1_CLIENT_CAPABILITIES,
};

let model: FakeModelServer;
const running: { agent: RealAgent; home: SealedHome }[] = [];

// One fake model server per test, so its requests and message ids are the test's own.
beforeEach(async () => {
  model = await startFakeModelServer();
});

afterEach(async () => {
  for (const { agent, home } of running.splice(0)) {
    await agent.close();
    home.remove();
  }
  await model.close();
});

function start(
  kind: RealAgentKind,
  options: { runAs?: RunAs; env?: Record<string, string> } = {},
): { agent: RealAgent; home: SealedHome } {
  const home = sealedHome(kind, { model, owner: options.runAs, env: options.env });
  const agent = spawnRealAgent(kind, { home, runAs: options.runAs });
  const entry = { agent, home };
  running.push(entry);
  return entry;
}

/** Every message the agent sent that fails the schema of `version`, with its issues. */
function schemaFailures(agent: RealAgent, version: 1 | 2): { kind: string; issues: unknown }[] {
  return agent.received
    .map((m) => checkAgentMessage(version, m, agent.sentMethods))
    .filter((c) => c.issues.length > 0)
    .map((c) => ({ kind: c.kind, issues: c.issues }));
}

function result(response: WireMessage): Record<string, unknown> {
  expect(response.error, JSON.stringify(response.error)).toBeUndefined();
  return response.result as Record<string, unknown>;
}

function update(m: WireMessage): Record<string, unknown> | undefined {
  if (m.method !== "session/update") return undefined;
  return (m.params as { update?: Record<string, unknown> }).update;
}

/** A string as is, anything else as JSON. */
function label(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The `kind` of an `_auth/status_update` extension notification, else undefined. */
function authKind(m: WireMessage): string | undefined {
  if (m.method !== "_auth/status_update") return undefined;
  return (m.params as { authStatus?: { kind?: string } }).authStatus?.kind;
}

const isIdle = (m: WireMessage): boolean => {
  const u = update(m);
  return u?.sessionUpdate === "state_update" && u.state === "idle";
};

/** The labels of a turn's messages that the lifecycle is about, in order. */
const LIFECYCLE = new Set([
  "user_message",
  "user_message_chunk",
  "agent_message",
  "agent_message_chunk",
  "state_update",
]);

interface Turn {
  readonly messageId: string;
  /** The lifecycle updates, labelled, in receive order (without the prompt response). */
  readonly sequence: string[];
  /**
   * How many of `sequence` arrived before the prompt response. The agents send the echo
   * before they answer (their code awaits it), but where the answer falls among the
   * other updates is not fixed by the protocol nor by their code, so tests assert a
   * bound, not the exact position.
   */
  readonly responseAfter: number;
  /** The other session/update kinds seen during the turn (sorted, unique). */
  readonly otherUpdates: string[];
  /** The turn's messages, raw. */
  readonly messages: WireMessage[];
}

/**
 * Sends `session/prompt` and collects every message until both the prompt response and a
 * `state_update` idle arrived (in whichever order the agent sends them).
 */
async function promptTurn(agent: RealAgent, sessionId: string, text: string): Promise<Turn> {
  const from = agent.received.length;
  const { response, index } = await agent.request(
    "session/prompt",
    { sessionId, prompt: [{ type: "text", text }] },
    TURN_MS,
  );
  const { messageId } = result(response) as { messageId: string };
  const idle = await agent.waitFor(isIdle, from, TURN_MS);
  const messages = agent.received.slice(from, Math.max(index, idle) + 1);
  const sequence: string[] = [];
  const other = new Set<string>();
  let responseAfter = -1;
  for (const m of messages) {
    if (m === response) {
      responseAfter = sequence.length;
      continue;
    }
    const u = update(m);
    if (u === undefined) continue;
    const kind = String(u.sessionUpdate);
    if (!LIFECYCLE.has(kind)) {
      other.add(kind);
      continue;
    }
    const sameId = u.messageId === messageId ? " (prompt's messageId)" : "";
    sequence.push(
      kind === "state_update"
        ? `state_update ${label(u.state)}${u.stopReason === undefined ? "" : ` ${label(u.stopReason)}`}`
        : `${kind}${sameId}`,
    );
  }
  return { messageId, sequence, responseAfter, otherUpdates: [...other].sort(), messages };
}

function agentText(turn: Turn): { ids: string[]; text: string } {
  const ids = new Set<string>();
  let text = "";
  for (const m of turn.messages) {
    const u = update(m);
    if (u?.sessionUpdate !== "agent_message_chunk") continue;
    ids.add(String(u.messageId));
    text += (u.content as { text: string }).text;
  }
  return { ids: [...ids], text };
}

// ---------------------------------------------------------------------------------------

describe("codex-acp 2.6.0 (real, offline)", () => {
  it(
    "v2: initialize answers v2; session/new needs a login; auth/login api-key; a whole turn against the fake model",
    async () => {
      const { agent, home } = start("codex");
      const init = result((await agent.request("initialize", V2_INIT, WAIT_MS)).response);
      expect(init.protocolVersion).toBe(2);
      expect(init.info).toEqual({
        name: "@agentclientprotocol/codex-acp",
        title: "Codex",
        version: "2.6.0",
      });
      expect(init.authMethods).toEqual([
        {
          methodId: "api-key",
          type: "agent",
          name: "API Key",
          description: "Use an API key to authenticate",
          _meta: { "api-key": { provider: "openai" } },
        },
        {
          methodId: "chat-gpt",
          type: "agent",
          name: "ChatGPT",
          description: "Use ChatGPT to authenticate",
        },
      ]);
      expect(init.capabilities).toMatchObject({
        session: { prompt: { embeddedContext: {}, image: {} }, mcp: { stdio: {}, http: {} } },
      });
      expect("clientCapabilities" in init || "agentCapabilities" in init).toBe(false);

      // No credentials in the sealed home: the login wall, without data.
      const refused = (await agent.request("session/new", { cwd: home.workspace }, WAIT_MS))
        .response;
      expect(refused.error).toEqual({ code: -32000, message: "Authentication required" });

      // The api-key method reads CODEX_API_KEY / OPENAI_API_KEY, which are not set.
      const noKey = (await agent.request("auth/login", { methodId: "api-key" }, WAIT_MS)).response;
      expect(noKey.error).toEqual({
        code: -32603,
        message: "Internal error: CODEX_API_KEY or OPENAI_API_KEY is not set",
        data: { envVars: ["CODEX_API_KEY", "OPENAI_API_KEY"] },
      });

      // The key can also come in `_meta["api-key"].apiKey`.
      const login = await agent.request(
        "auth/login",
        { methodId: "api-key", _meta: { "api-key": { apiKey: "sk-fake-acp-kit" } } },
        WAIT_MS,
      );
      expect(result(login.response)).toEqual({});
      // The extension notification `_auth/status_update` follows, unordered with respect
      // to the responses (it comes from an account watcher): "none" after the refusal,
      // "api_key" after the login.
      const status = await agent.waitFor((m) => authKind(m) === "api_key", 0, WAIT_MS);
      expect(agent.received[status]!.params).toEqual({
        authStatus: { kind: "api_key", label: "OpenAI API key" },
      });
      for (const m of agent.received)
        if (authKind(m) !== undefined) expect(["none", "api_key"]).toContain(authKind(m));

      const created = result(
        (await agent.request("session/new", { cwd: home.workspace }, WAIT_MS)).response,
      );
      const sessionId = created.sessionId as string;
      expect(typeof sessionId).toBe("string");
      expect((created.configOptions as { configId: string }[]).map((o) => o.configId)).toEqual(
        expect.arrayContaining(["mode", "model"]),
      );

      const turn = await promptTurn(agent, sessionId, "say hello");
      expect(turn.sequence).toEqual([
        "state_update running",
        "user_message_chunk (prompt's messageId)",
        "agent_message_chunk",
        "agent_message_chunk",
        "state_update idle end_turn",
      ]);
      // After the echo (seen here: right after it, before the agent's text).
      expect(turn.responseAfter).toBeGreaterThanOrEqual(2);
      // Other updates during the turn: codex's thread status and title, the usage.
      expect(["session_info_update", "usage_update"]).toEqual(
        expect.arrayContaining(turn.otherUpdates),
      );
      // The agent message's id is the Responses API output item's id, passed through.
      expect(agentText(turn)).toEqual({ ids: ["msg_fake_1"], text: FAKE_MODEL_TEXT });
      const idle = update(turn.messages.find(isIdle)!)!;
      expect(idle.background).toBeUndefined();
      expect(idle.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });

      // It used the fake through the Responses API websocket with the key it was given:
      // a warm-up (`generate: false`), then the turn.
      const calls = model.requests.filter((r) => r.auth === "Bearer sk-fake-acp-kit");
      expect(calls.map((r) => [r.method, r.path, (r.body as { type?: string }).type])).toEqual([
        ["WEBSOCKET", "/v1/responses", "response.create"],
        ["WEBSOCKET", "/v1/responses", "response.create"],
      ]);
      expect((calls[0]!.body as { generate?: boolean }).generate).toBe(false);

      expect(schemaFailures(agent, 2)).toEqual([]);
    },
    TEST_MS,
  );

  it(
    "v1: a classic initialize answers protocolVersion 1 in the v1 shape",
    async () => {
      const { agent, home } = start("codex");
      const init = result((await agent.request("initialize", V1_INIT, WAIT_MS)).response);
      expect(init.protocolVersion).toBe(1);
      expect(init.agentInfo).toEqual({
        name: "@agentclientprotocol/codex-acp",
        title: "Codex",
        version: "2.6.0",
      });
      expect("info" in init || "capabilities" in init).toBe(false);
      expect(init.authMethods).toEqual([
        {
          id: "api-key",
          name: "API Key",
          description: "Use an API key to authenticate",
          _meta: { "api-key": { provider: "openai" } },
        },
        { id: "chat-gpt", name: "ChatGPT", description: "Use ChatGPT to authenticate" },
      ]);
      expect(init.agentCapabilities).toMatchObject({
        auth: { logout: {} },
        loadSession: true,
        promptCapabilities: { embeddedContext: true, image: true },
        mcpCapabilities: { acp: false, http: true, sse: false },
      });
      const refused = (
        await agent.request("session/new", { cwd: home.workspace, mcpServers: [] }, WAIT_MS)
      ).response;
      expect(refused.error).toEqual({ code: -32000, message: "Authentication required" });
      expect(schemaFailures(agent, 1)).toEqual([]);
    },
    TEST_MS,
  );

  it(
    "dual-shape initialize (v2 fields plus v1 clientInfo/clientCapabilities) answers exactly the v2 answer",
    async () => {
      const dual = start("codex").agent;
      const plain = start("codex").agent;
      const [a, b] = await Promise.all([
        dual.request("initialize", DUAL_INIT, WAIT_MS),
        plain.request("initialize", V2_INIT, WAIT_MS),
      ]);
      expect(result(a.response).protocolVersion).toBe(2);
      expect(a.response.result).toEqual(b.response.result);
      expect(schemaFailures(dual, 2)).toEqual([]);
    },
    TEST_MS,
  );
});

// ---------------------------------------------------------------------------------------

/** Claude Code offers `bypassPermissions` only to a non-root user (or with IS_SANDBOX). */
function modeValues(created: Record<string, unknown>): string[] {
  const mode = (created.configOptions as { configId: string; options: { value: string }[] }[]).find(
    (o) => o.configId === "mode",
  )!;
  return mode.options.map((o) => o.value);
}

describe("claude-agent-acp 0.101.0 (real, offline)", () => {
  it(
    "v2 as a non-root user: initialize answers v2; session/new creates a session; a whole turn against the fake model",
    async () => {
      const runAs = nonRootUser();
      const { agent, home } = start("claude", {
        runAs,
        env: { ANTHROPIC_API_KEY: "sk-ant-fake-acp-kit" },
      });
      const init = result((await agent.request("initialize", V2_INIT, WAIT_MS)).response);
      expect(init.protocolVersion).toBe(2);
      expect(init.info).toEqual({
        name: "@agentclientprotocol/claude-agent-acp",
        title: "Claude Agent",
        version: "0.101.0",
      });
      expect(init.authMethods).toEqual([]);
      expect(init.capabilities).toMatchObject({
        session: { prompt: { image: {}, embeddedContext: {} }, mcp: { stdio: {}, http: {} } },
      });

      const created = (await agent.request("session/new", { cwd: home.workspace }, WAIT_MS))
        .response;
      const session = result(created);
      const sessionId = session.sessionId as string;
      expect(typeof sessionId).toBe("string");
      expect(modeValues(session)).toEqual([
        "default",
        "acceptEdits",
        "plan",
        "auto",
        "bypassPermissions",
      ]);
      // The key in the environment is reported in the extension `_auth/status_update`.
      const status = await agent.waitFor((m) => authKind(m) !== undefined, 0, WAIT_MS);
      expect(agent.received[status]!.params).toEqual({
        authStatus: { kind: "api_key", label: "Anthropic API key", detail: "ANTHROPIC_API_KEY" },
      });

      const turn = await promptTurn(agent, sessionId, "say hello");
      expect(turn.sequence).toEqual([
        "user_message (prompt's messageId)",
        "state_update running",
        "agent_message_chunk",
        "agent_message_chunk",
        "state_update idle end_turn",
      ]);
      // After the echo (seen here: right after it, before `running`).
      expect(turn.responseAfter).toBeGreaterThanOrEqual(1);
      // Other updates during the turn: commands, usage, and a notice from Claude Code.
      expect(["available_commands_update", "notice", "usage_update"]).toEqual(
        expect.arrayContaining(turn.otherUpdates),
      );
      // The agent message's id is the Anthropic message id, passed through.
      expect(agentText(turn)).toEqual({ ids: ["msg_fake_1"], text: FAKE_MODEL_TEXT });
      // It reported background work (`[]`) on the first state update, so on every one.
      for (const m of turn.messages) {
        const u = update(m);
        if (u?.sessionUpdate === "state_update") expect(u.background).toEqual([]);
      }
      const calls = model.requests.filter((r) => r.auth === "sk-ant-fake-acp-kit");
      expect(calls.map((r) => [r.method, r.path, (r.body as { stream?: boolean }).stream])).toEqual(
        [["POST", "/v1/messages", true]],
      );

      expect(schemaFailures(agent, 2)).toEqual([]);
    },
    TEST_MS,
  );

  it(
    "v2 as the current user (root in CI), no key: session/new creates a session (as root without the bypassPermissions mode); a prompt ends idle with the login error",
    async () => {
      const { agent, home } = start("claude");
      result((await agent.request("initialize", V2_INIT, WAIT_MS)).response);
      const session = result(
        (await agent.request("session/new", { cwd: home.workspace }, WAIT_MS)).response,
      );
      expect(typeof session.sessionId).toBe("string");
      if (isRoot()) {
        expect(modeValues(session)).toEqual(["default", "acceptEdits", "plan", "auto"]);
        const bypass = (
          await agent.request(
            "session/set_config_option",
            {
              sessionId: session.sessionId,
              configId: "mode",
              type: "id",
              value: "bypassPermissions",
            },
            WAIT_MS,
          )
        ).response;
        expect(bypass.error).toEqual({
          code: -32602,
          message: "Invalid params: Invalid value for config option mode: bypassPermissions",
        });
      } else {
        expect(modeValues(session)).toContain("bypassPermissions");
      }
      // Without a key it reports "not logged in", yet creates the session.
      const status = await agent.waitFor((m) => authKind(m) !== undefined, 0, WAIT_MS);
      expect(agent.received[status]!.params).toEqual({
        authStatus: { kind: "none", label: "Not logged in" },
      });
      // A prompt is taken in, then fails after insertion: idle with stopReason "error"
      // carrying the -32000 login error (v2's rule for failures after insertion).
      const turn = await promptTurn(agent, session.sessionId as string, "hi");
      expect(turn.sequence).toEqual([
        "user_message (prompt's messageId)",
        "state_update running",
        "state_update idle error",
      ]);
      expect(turn.responseAfter).toBeGreaterThanOrEqual(1);
      const idle = update(turn.messages.find(isIdle)!)!;
      expect(idle.error).toEqual({ code: -32000, message: "Authentication required" });
      expect(idle.background).toEqual([]);
      expect(model.requests).toEqual([]);
      expect(schemaFailures(agent, 2)).toEqual([]);
    },
    TEST_MS,
  );

  it(
    "v1: a classic initialize answers protocolVersion 1 in the v1 shape; session/new has v1 modes",
    async () => {
      const { agent, home } = start("claude", { runAs: nonRootUser() });
      const init = result((await agent.request("initialize", V1_INIT, WAIT_MS)).response);
      expect(init.protocolVersion).toBe(1);
      expect(init.agentInfo).toEqual({
        name: "@agentclientprotocol/claude-agent-acp",
        title: "Claude Agent",
        version: "0.101.0",
      });
      expect("info" in init || "capabilities" in init).toBe(false);
      expect(init.authMethods).toEqual([]);
      expect(init.agentCapabilities).toMatchObject({
        auth: { logout: {} },
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
      });
      const session = result(
        (await agent.request("session/new", { cwd: home.workspace, mcpServers: [] }, WAIT_MS))
          .response,
      );
      expect(session.modes).toMatchObject({ currentModeId: "auto" });
      expect(schemaFailures(agent, 1)).toEqual([]);
    },
    TEST_MS,
  );

  it(
    "dual-shape initialize (v2 fields plus v1 clientInfo/clientCapabilities) answers exactly the v2 answer",
    async () => {
      const dual = start("claude").agent;
      const plain = start("claude").agent;
      const [a, b] = await Promise.all([
        dual.request("initialize", DUAL_INIT, WAIT_MS),
        plain.request("initialize", V2_INIT, WAIT_MS),
      ]);
      expect(result(a.response).protocolVersion).toBe(2);
      expect(a.response.result).toEqual(b.response.result);
      expect(schemaFailures(dual, 2)).toEqual([]);
    },
    TEST_MS,
  );
});

// ---------------------------------------------------------------------------------------

describe.each(["codex", "claude"] as const)("%s: v2 connection edges", (kind) => {
  it(
    "a request before initialize, a higher version, a repeated initialize, an unknown method",
    async () => {
      const { agent, home } = start(kind);
      const early = (await agent.request("session/new", { cwd: home.workspace }, WAIT_MS)).response;
      expect(early.error).toEqual({
        code: -32600,
        message: "Invalid request",
        data: "first ACP request must be initialize",
      });
      // Asked for version 3, it answers 2.
      const v3 = { ...V2_INIT, protocolVersion: 3 };
      expect(
        result((await agent.request("initialize", v3, WAIT_MS)).response).protocolVersion,
      ).toBe(2);
      // A repeated initialize must not go down to 1; at 2 it is answered again.
      const down = (await agent.request("initialize", V1_INIT, WAIT_MS)).response;
      expect(down.error).toEqual({
        code: -32600,
        message: "Invalid request: a repeated initialize must request protocol version 2 or later",
      });
      expect(
        result((await agent.request("initialize", V2_INIT, WAIT_MS)).response).protocolVersion,
      ).toBe(2);
      const unknown = (await agent.request("nope/nope", {}, WAIT_MS)).response;
      expect(unknown.error).toEqual({
        code: -32601,
        message: '"Method not found": nope/nope',
        data: { method: "nope/nope" },
      });
      // auth/logout answers {} (the v2 rule: advertised methods, so logout must work).
      expect(result((await agent.request("auth/logout", {}, WAIT_MS)).response)).toEqual({});
      expect(schemaFailures(agent, 2)).toEqual([]);
    },
    TEST_MS,
  );
});
