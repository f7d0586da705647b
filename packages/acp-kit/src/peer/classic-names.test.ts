/**
 * Handler names of the classic releases (SDK 0.4 to 1.9): an implementation that defines
 * only the old name receives today's method, the connections send today's method under
 * the old name, and today's name wins when both are defined.
 */
import { describe, expect, it } from "vitest";
import { rawPeer, type RawPeer } from "../../../../test/support/raw-peer.js";
import {
  AgentSideConnection,
  ClientSideConnection,
  memoryStreamPair,
  RequestError,
  type Agent,
  type Client,
} from "../index.js";
import { AGENT_CLASSIC_HANDLER_NAMES } from "./agent.js";
import { CLIENT_CLASSIC_HANDLER_NAMES } from "./client.js";

function baseAgent(extra: Record<string, unknown> = {}): Agent {
  return {
    initialize: () => ({ protocolVersion: 1 }),
    newSession: () => ({ sessionId: "s" }),
    authenticate: () => undefined,
    prompt: () => ({ stopReason: "end_turn" }),
    cancel: () => undefined,
    ...extra,
  };
}

function baseClient(extra: Record<string, unknown> = {}): Client {
  return {
    requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
    sessionUpdate: () => undefined,
    ...extra,
  };
}

interface Case {
  /** The wire method today's schema names. */
  readonly method: string;
  /** The classic handler (and sender) name. */
  readonly classic: string;
  readonly kind: "request" | "notification";
  readonly params: Record<string, unknown>;
  /** What the handler returns. */
  readonly returns?: unknown;
  /** The result on the wire. */
  readonly result?: unknown;
}

const AGENT_CASES: readonly Case[] = [
  {
    method: "session/close",
    classic: "unstable_closeSession",
    kind: "request",
    params: { sessionId: "s" },
    result: {},
  },
  {
    method: "session/resume",
    classic: "unstable_resumeSession",
    kind: "request",
    params: { sessionId: "s", cwd: "/w" },
    returns: { modes: null },
    result: { modes: null },
  },
  {
    method: "session/list",
    classic: "unstable_listSessions",
    kind: "request",
    params: {},
    returns: { sessions: [] },
    result: { sessions: [] },
  },
  {
    method: "session/delete",
    classic: "unstable_deleteSession",
    kind: "request",
    params: { sessionId: "s" },
    result: {},
  },
  {
    method: "session/set_config_option",
    classic: "unstable_setSessionConfigOption",
    kind: "request",
    params: { sessionId: "s", configId: "c", value: "v" },
    returns: { configOptions: [] },
    result: { configOptions: [] },
  },
  {
    method: "session/fork",
    classic: "forkSession",
    kind: "request",
    params: { sessionId: "s", cwd: "/w" },
    returns: { sessionId: "s2" },
    result: { sessionId: "s2" },
  },
  { method: "logout", classic: "unstable_logout", kind: "request", params: {}, result: {} },
  {
    method: "session/set_model",
    classic: "unstable_setSessionModel",
    kind: "request",
    params: { sessionId: "s", modelId: "m" },
    result: {},
  },
  {
    method: "session/set_model",
    classic: "setSessionModel",
    kind: "request",
    params: { sessionId: "s", modelId: "m" },
    result: {},
  },
];

const CLIENT_CASES: readonly Case[] = [
  {
    method: "elicitation/create",
    classic: "unstable_createElicitation",
    kind: "request",
    params: {
      sessionId: "s",
      mode: "form",
      message: "Name?",
      requestedSchema: { type: "object", properties: {} },
    },
    returns: { action: "decline" },
    result: { action: "decline" },
  },
  {
    method: "elicitation/complete",
    classic: "unstable_completeElicitation",
    kind: "notification",
    params: { elicitationId: "e1" },
  },
];

let nextId = 1;

/** Sends `method` from a raw peer and returns the answer (requests) after the handler ran. */
async function deliver(peer: RawPeer, c: Case): Promise<Record<string, unknown> | undefined> {
  if (c.kind === "notification") {
    await peer.write({ jsonrpc: "2.0", method: c.method, params: c.params });
    // A request behind it: its answer means the notification was handled first.
    await peer.write({ jsonrpc: "2.0", id: 0, method: "_probe", params: {} });
    await peer.next();
    return undefined;
  }
  const id = nextId++;
  await peer.write({ jsonrpc: "2.0", id, method: c.method, params: c.params });
  const answer = await peer.next();
  expect(answer.id).toBe(id);
  return answer;
}

const PROBE = { extMethod: () => ({}) };

describe("an agent that implements only a classic name receives today's method", () => {
  for (const c of AGENT_CASES) {
    it(`${c.classic} gets ${c.method}`, async () => {
      const peer = rawPeer();
      const seen: unknown[] = [];
      new AgentSideConnection(
        () =>
          baseAgent({
            ...PROBE,
            [c.classic]: (params: unknown) => {
              seen.push(params);
              return c.returns;
            },
          }),
        peer.stream,
      );
      const answer = await deliver(peer, c);
      expect(seen).toEqual([c.params]);
      expect(answer).toMatchObject({ result: c.result });
      await peer.end();
    });
  }

  it("without today's name or a classic one, session/close answers -32601", async () => {
    const peer = rawPeer();
    new AgentSideConnection(() => baseAgent(), peer.stream);
    await peer.write({
      jsonrpc: "2.0",
      id: 1,
      method: "session/close",
      params: { sessionId: "s" },
    });
    expect(await peer.next()).toMatchObject({ id: 1, error: { code: -32601 } });
    await peer.end();
  });

  it("today's name wins over the classic one", async () => {
    const peer = rawPeer();
    const calls: string[] = [];
    new AgentSideConnection(
      () =>
        baseAgent({
          closeSession: () => void calls.push("closeSession"),
          unstable_closeSession: () => void calls.push("unstable_closeSession"),
          unstable_setSessionModel: () => void calls.push("unstable_setSessionModel"),
          setSessionModel: () => void calls.push("setSessionModel"),
        }),
      peer.stream,
    );
    await peer.write({
      jsonrpc: "2.0",
      id: 1,
      method: "session/close",
      params: { sessionId: "s" },
    });
    await peer.next();
    await peer.write({
      jsonrpc: "2.0",
      id: 2,
      method: "session/set_model",
      params: { sessionId: "s", modelId: "m" },
    });
    await peer.next();
    expect(calls).toEqual(["closeSession", "unstable_setSessionModel"]);
    await peer.end();
  });

  it("validates the params of a classic-only method (session/set_model without modelId: -32602)", async () => {
    const peer = rawPeer();
    let called = false;
    new AgentSideConnection(
      () => baseAgent({ unstable_setSessionModel: () => void (called = true) }),
      peer.stream,
    );
    await peer.write({
      jsonrpc: "2.0",
      id: 1,
      method: "session/set_model",
      params: { sessionId: "s" },
    });
    expect(await peer.next()).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(called).toBe(false);
    await peer.end();
  });

  it("covers every classic agent name in the table", () => {
    const tested = new Set(AGENT_CASES.map((c) => `${c.method} ${c.classic}`));
    for (const [method, names] of Object.entries(AGENT_CLASSIC_HANDLER_NAMES)) {
      for (const name of names) expect(tested.has(`${method} ${name}`), name).toBe(true);
    }
  });
});

describe("a client that implements only a classic name receives today's method", () => {
  for (const c of CLIENT_CASES) {
    it(`${c.classic} gets ${c.method}`, async () => {
      const peer = rawPeer();
      const seen: unknown[] = [];
      new ClientSideConnection(
        () =>
          baseClient({
            ...PROBE,
            [c.classic]: (params: unknown) => {
              seen.push(params);
              return c.returns;
            },
          }),
        peer.stream,
      );
      const answer = await deliver(peer, c);
      expect(seen).toEqual([c.params]);
      if (c.kind === "request") expect(answer).toMatchObject({ result: c.result });
      await peer.end();
    });
  }

  it("covers every classic client name in the table", () => {
    const tested = new Set(CLIENT_CASES.map((c) => `${c.method} ${c.classic}`));
    for (const [method, names] of Object.entries(CLIENT_CLASSIC_HANDLER_NAMES)) {
      for (const name of names) expect(tested.has(`${method} ${name}`), name).toBe(true);
    }
  });
});

describe("unstable methods whose shape changed since a classic release follow the current schema", () => {
  it("providers/set with the 0.21 to 1.0 `id` is answered -32602; with `providerId` it reaches the agent", async () => {
    const peer = rawPeer();
    const seen: unknown[] = [];
    new AgentSideConnection(
      () => baseAgent({ unstable_setProvider: (params: unknown) => void seen.push(params) }),
      peer.stream,
    );
    const current = { providerId: "p", apiType: "openai", baseUrl: "https://example.invalid" };
    const { providerId, ...classic } = current;
    await peer.write({
      jsonrpc: "2.0",
      id: 1,
      method: "providers/set",
      params: { id: providerId, ...classic },
    });
    expect(await peer.next()).toMatchObject({
      id: 1,
      error: { code: -32602, data: { method: "providers/set" } },
    });
    await peer.write({ jsonrpc: "2.0", id: 2, method: "providers/set", params: current });
    expect(await peer.next()).toMatchObject({ id: 2, result: {} });
    expect(seen).toEqual([current]);
    await peer.end();
  });

  it("a providers/list result with the classic `id` rejects our call as an invalid response", async () => {
    const peer = rawPeer();
    const connection = new ClientSideConnection(() => baseClient(), peer.stream);
    const listed = connection.unstable_listProviders({}).catch((e: unknown) => e);
    const sent = await peer.next();
    await peer.write({
      jsonrpc: "2.0",
      id: sent.id,
      result: { providers: [{ id: "p", supported: ["openai"], required: false }] },
    });
    expect(await listed).toMatchObject({ code: "invalid_response" });
    await peer.end();
  });
});

type Sender = (params: unknown) => Promise<unknown>;

describe("the connections send today's method under each classic name", () => {
  for (const c of AGENT_CASES) {
    it(`ClientSideConnection.${c.classic} sends ${c.method}`, async () => {
      const peer = rawPeer();
      const connection = new ClientSideConnection(() => baseClient(), peer.stream);
      const send = (connection as unknown as Record<string, Sender>)[c.classic];
      expect(typeof send).toBe("function");
      const result = send!.call(connection, c.params);
      const sent = await peer.next();
      expect(sent).toMatchObject({ method: c.method, params: c.params });
      await peer.write({ jsonrpc: "2.0", id: sent.id, result: c.result });
      await expect(result).resolves.toEqual(c.result);
      await peer.end();
    });
  }

  for (const c of CLIENT_CASES) {
    it(`AgentSideConnection.${c.classic} sends ${c.method}`, async () => {
      const peer = rawPeer();
      const connection = new AgentSideConnection(() => baseAgent(), peer.stream);
      const send = (connection as unknown as Record<string, Sender>)[c.classic];
      expect(typeof send).toBe("function");
      const result = send!.call(connection, c.params);
      const sent = await peer.next();
      expect(sent).toMatchObject({ method: c.method, params: c.params });
      if (c.kind === "request") {
        expect(sent.id).toBeDefined();
        await peer.write({ jsonrpc: "2.0", id: sent.id, result: c.result });
        await expect(result).resolves.toEqual(c.result);
      } else {
        expect(sent.id).toBeUndefined();
        await expect(result).resolves.toBeUndefined();
      }
      await peer.end();
    });
  }

  /* eslint-disable @typescript-eslint/no-deprecated -- the classic names under test */
  it("a 0.23 pair: unstable_setSessionModel from our client reaches a classic agent's handler", async () => {
    const pair = memoryStreamPair();
    const models: string[] = [];
    new AgentSideConnection(
      () =>
        baseAgent({
          unstable_setSessionModel: ({ modelId }: { modelId: string }) => void models.push(modelId),
        }),
      pair.agent,
    );
    const client = new ClientSideConnection(() => baseClient(), pair.client);
    await expect(
      client.unstable_setSessionModel({ sessionId: "s", modelId: "fast" }),
    ).resolves.toEqual({});
    await expect(client.setSessionModel({ sessionId: "s", modelId: "slow" })).resolves.toEqual({});
    expect(models).toEqual(["fast", "slow"]);
    const error = await client
      .unstable_setSessionModel({ sessionId: "s", modelId: 7 } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).code).toBe(-32602);
    client.close();
  });
  /* eslint-enable @typescript-eslint/no-deprecated */
});
