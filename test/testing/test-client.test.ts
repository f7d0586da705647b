/**
 * The TestClient: an in-memory client for agent unit tests. A small AgentKit agent runs
 * a script chosen by the prompt's text.
 */
import { describe, expect, it } from "vitest";
import {
  AgentKit,
  PROTOCOL_VERSION,
  type Agent,
  type AgentSideConnection,
  type PromptTurn,
  type TurnResult,
} from "../../packages/acp-kit/src/index.js";
import {
  TestClient,
  type TestClientOptions,
} from "../../packages/acp-kit/src/testing/test-client/client.js";
import type { AgentSideConnection as V2AgentSideConnection } from "../../packages/acp-kit/src/v2/agent-side-connection.js";
import { assertScenario, createScriptedAgentV2 } from "../../packages/acp-kit/src/testing/index.js";
import type { RequestPermissionRequest as V2RequestPermissionRequest } from "../../packages/acp-kit/src/schema/v2/types.gen.js";
import { until } from "../support/interop-wire.js";

type Script = (turn: PromptTurn, connection: AgentSideConnection) => Promise<TurnResult>;

const SCRIPTS: Record<string, Script> = {
  hello: async (turn) => {
    await turn.text("Hello, ");
    await turn.text("world.");
    turn.plan(["one", "two"]); // published at once
  },
  files: async (turn) => {
    const text = await turn.readTextFile("/project/a.txt");
    const second = await turn.readTextFile("/project/a.txt", { line: 2, limit: 1 });
    await turn.writeTextFile("/project/b.txt", text.toUpperCase());
    await turn.text(`second line: ${second}`);
    await turn.readTextFile("/project/missing.txt"); // -32002: the turn fails
  },
  permission: async (turn) => {
    const call = turn.toolCall({ title: "Edit a.txt", kind: "edit" });
    const decision = await call.requestPermission();
    await turn.text(`decision: ${decision}`);
    if (decision === "cancelled") return "cancelled";
    await call.complete();
  },
  terminal: async (turn) => {
    for (const command of ["npm test", "make"]) {
      const terminal = await turn.createTerminal({
        command: command.split(" ")[0]!,
        args: command.split(" ").slice(1),
        outputByteLimit: 8,
      });
      const exit = await terminal.waitForExit();
      const { output, truncated } = await terminal.currentOutput();
      await terminal.release();
      await turn.text(`${command}: ${exit.exitCode} ${JSON.stringify(output)} ${truncated}\n`);
    }
  },
  ext: async (turn, connection) => {
    const answer = await connection.extMethod("_acme/ping", { n: 1 });
    await connection.extNotification("_acme/note", { hi: true });
    await turn.text(JSON.stringify(answer));
  },
};

class ScriptedAgent implements Agent {
  private readonly kit: AgentKit;
  constructor(private readonly connection: AgentSideConnection) {
    let count = 0;
    this.kit = new AgentKit(connection, { newSessionId: () => `session-${++count}` });
  }
  initialize() {
    return { protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} };
  }
  authenticate() {
    return {};
  }
  newSession() {
    return { sessionId: this.kit.sessions.create(() => undefined).sessionId };
  }
  prompt(params: Parameters<Agent["prompt"]>[0], context?: Parameters<Agent["prompt"]>[1]) {
    const first = params.prompt[0];
    const name = first?.type === "text" ? first.text : "hello";
    const script = SCRIPTS[name] ?? SCRIPTS.hello!;
    return this.kit.prompt(params, context, (turn) => script(turn, this.connection));
  }
  cancel(params: Parameters<Agent["cancel"]>[0]) {
    this.kit.cancel(params);
  }
}

async function start(options: TestClientOptions = {}) {
  const client = new TestClient(options);
  client.connect((connection) => new ScriptedAgent(connection));
  const { sessionId } = await client.newSession();
  return { client, sessionId };
}

describe("TestClient", () => {
  it("records updates in order, folds them into state, and joins the text", async () => {
    const { client, sessionId } = await start();
    const { stopReason } = await client.prompt(sessionId, "hello");
    expect(stopReason).toBe("end_turn");
    expect(client.textOf(sessionId)).toBe("Hello, world.");
    expect(client.updates(sessionId).map((u) => u.sessionUpdate)).toEqual([
      "agent_message_chunk",
      "agent_message_chunk",
      "plan",
    ]);
    expect(client.state(sessionId)?.plan?.map((entry) => entry.content)).toEqual(["one", "two"]);
    expect(client.requests).toEqual([]);
    await client.close();
  });

  it("is deterministic: the same run gives the same records", async () => {
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const { client, sessionId } = await start({ files: { "/project/a.txt": "a\nb\n" } });
      await client.prompt(sessionId, "files").catch(() => undefined);
      runs.push(structuredClone(client.records));
      await client.close();
    }
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]).toHaveLength(5); // 4 requests and 1 update
  });

  it("serves files from the map: line/limit, writes, -32002 for a missing file", async () => {
    const { client, sessionId } = await start({
      files: { "/project/a.txt": "first\nsecond\nthird\n" },
    });
    await expect(client.prompt(sessionId, "files")).rejects.toMatchObject({ code: -32002 });
    expect(client.files.get("/project/b.txt")).toBe("FIRST\nSECOND\nTHIRD\n");
    expect(client.textOf(sessionId)).toBe("second line: second\n");
    expect(
      client.requests.map((r) => [r.method, "error" in (r.response ?? {}) ? "error" : "ok"]),
    ).toEqual([
      ["fs/read_text_file", "ok"],
      ["fs/read_text_file", "ok"],
      ["fs/write_text_file", "ok"],
      ["fs/read_text_file", "error"],
    ]);
    expect(client.requestsOf("fs/read_text_file")[2]?.response).toMatchObject({
      error: { code: -32002 },
    });
    expect(client.capabilities).toEqual({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: false,
    });
    await client.close();
  });

  it("does not advertise files with files: false, and answers fs calls -32601", async () => {
    const { client, sessionId } = await start({ files: false });
    expect(client.capabilities.fs).toEqual({ readTextFile: false, writeTextFile: false });
    await expect(client.prompt(sessionId, "files")).rejects.toMatchObject({ code: -32601 });
    expect(client.requests[0]).toMatchObject({
      method: "fs/read_text_file",
      response: { error: { code: -32601 } },
    });
    await client.close();
  });

  it.each([
    ["allow", "decision: allow_once"],
    ["deny", "decision: reject_once"],
    ["first", "decision: allow_once"],
    ["cancel", "decision: cancelled"],
  ] as const)("answers permission requests with the %s policy", async (permission, text) => {
    const { client, sessionId } = await start({ permission });
    await client.prompt(sessionId, "permission");
    expect(client.textOf(sessionId)).toBe(text);
    expect(client.requestsOf("session/request_permission")).toHaveLength(1);
    await client.close();
  });

  it("answers with a callback (an option id or an outcome)", async () => {
    const { client, sessionId } = await start();
    client.permission = (request) =>
      request.options.find((o) => o.kind === "reject_once")!.optionId;
    await client.prompt(sessionId, "permission");
    client.permission = () => ({ outcome: "cancelled" });
    await client.prompt(sessionId, "permission");
    expect(client.textOf(sessionId)).toBe("decision: reject_oncedecision: cancelled");
    await client.close();
  });

  it("answers a pending permission request `cancelled` when the test cancels the turn", async () => {
    const { client, sessionId } = await start();
    let asked!: () => void;
    const pending = new Promise<void>((resolve) => (asked = resolve));
    client.permission = () => {
      asked();
      return new Promise(() => undefined); // never decides
    };
    const turn = client.prompt(sessionId, "permission");
    await pending;
    await client.cancel(sessionId);
    expect(await turn).toEqual({ stopReason: "cancelled" });
    expect(client.requestsOf("session/request_permission")[0]?.response).toEqual({
      result: { outcome: { outcome: "cancelled" } },
    });
    await client.close();
  });

  it("runs scripted fake terminals: output tail, exit codes, unknown commands exit 127", async () => {
    const { client, sessionId } = await start({
      terminals: { "npm test": { output: "ok: 12 tests\n", exitCode: 0 } },
    });
    expect(client.capabilities.terminal).toBe(true);
    await client.prompt(sessionId, "terminal");
    expect(client.textOf(sessionId)).toBe(
      'npm test: 0 "2 tests\\n" true\nmake: 127 "t found\\n" true\n',
    );
    expect(client.terminals.map((t) => [t.terminalId, t.request.command, t.released])).toEqual([
      ["term-1", "npm", true],
      ["term-2", "make", true],
    ]);
    await client.close();
  });

  it("answers extension methods from its handlers and records extension notifications", async () => {
    const { client, sessionId } = await start({
      extMethods: { "_acme/ping": (params) => ({ pong: params.n }) },
    });
    await client.prompt(sessionId, "ext");
    expect(client.textOf(sessionId)).toBe('{"pong":1}');
    expect(client.records.filter((r) => r.type !== "update")).toEqual([
      {
        type: "request",
        method: "_acme/ping",
        params: { n: 1 },
        response: { result: { pong: 1 } },
      },
      { type: "notification", method: "_acme/note", params: { hi: true } },
    ]);
    await client.close();
  });

  it("v2: answers a permission request the agent withdraws ($/cancel_request) with cancelled", async () => {
    let asked!: () => void;
    const askedOnce = new Promise<void>((resolve) => (asked = resolve));
    // A person who never answers: only the withdrawal can end the question.
    const client = new TestClient({
      permission: () => {
        asked();
        return new Promise<never>(() => undefined);
      },
    });
    let agentSide!: V2AgentSideConnection;
    const scenario = assertScenario({ agent: {}, turns: [{ steps: [] }] });
    client.connectV2((connection) => {
      agentSide = connection;
      return createScriptedAgentV2(connection, scenario);
    });
    await client.initializeV2();
    const withdraw = new AbortController();
    const request = agentSide.requestPermission(
      {
        sessionId: "s1",
        title: "Edit a.txt",
        options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
      } satisfies V2RequestPermissionRequest,
      { signal: withdraw.signal },
    );
    request.catch(() => undefined);
    await askedOnce;
    withdraw.abort();
    const answered = () =>
      client.records.some(
        (r) => r.type === "request" && r.method === "session/request_permission" && r.response,
      );
    expect(await until(answered)).toBe(true);
    expect(client.records.filter((r) => r.type === "request")).toEqual([
      expect.objectContaining({
        method: "session/request_permission",
        response: { result: { outcome: { outcome: "cancelled" } } },
      }),
    ]);
    await client.close();
  });
});
