/**
 * acp-kit's `protocolRouter` side by side with the official SDK 2.4.0's
 * `agentProtocolRouter()`: the same bytes in, the same answers out, with v1 only, v2
 * only and both configured; then each router against the official v1 and v2 clients.
 */
import {
  agent as theirV1Agent,
  client as theirV1Client,
  ndJsonStream as theirNdJsonStream,
} from "@agentclientprotocol/sdk";
import {
  agent as theirV2Agent,
  agentProtocolRouter,
  client as theirV2Client,
} from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { ndJsonStream } from "../../packages/acp-kit/src/index.js";
import { protocolRouter } from "../../packages/acp-kit/src/v2/index.js";
import { interopWire, until, type InteropWire } from "../support/interop-wire.js";

const INFO = { name: "router-agent", version: "1.0.0" };
const CLIENT_INFO = { name: "router-client", version: "1.0.0" };

/**
 * Each agent answers `initialize` with the version it received. (Not the whole params:
 * the official agents parse them with defaults filled in and unknown fields dropped, a
 * difference of the agents, not of the routers; the projection is checked on its own.)
 */
const received = (params: unknown): unknown =>
  (params as { protocolVersion?: unknown }).protocolVersion;
const v1Answer = (params: unknown): Record<string, unknown> => ({
  protocolVersion: 1,
  agentInfo: INFO,
  agentCapabilities: {},
  authMethods: [],
  _meta: { received: received(params) },
});
const v2Answer = (params: unknown): Record<string, unknown> => ({
  protocolVersion: 2,
  info: INFO,
  _meta: { received: received(params) },
});

type Versions = { v1: boolean; v2: boolean };
type Start = (wire: InteropWire, versions: Versions) => { close(): void };

const theirs: Start = (wire, versions) => {
  const router = agentProtocolRouter();
  if (versions.v1)
    router.withV1(
      theirV1Agent()
        .onRequest("initialize", (ctx) => v1Answer(ctx.params) as never)
        .onRequest("session/new", () => ({ sessionId: "s-1" })),
    );
  if (versions.v2)
    router.withV2(
      theirV2Agent()
        .onRequest("initialize", (ctx) => v2Answer(ctx.params) as never)
        .onRequest("session/new", () => ({ sessionId: "s-2" })),
    );
  // The official routed connection has no close: the probe's pipes end with the test.
  router.connect(theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
  return { close: () => undefined };
};

const ours: Start = (wire, versions) => {
  const routed = protocolRouter({
    v1: versions.v1
      ? () => ({
          initialize: (params) => v1Answer(params) as never,
          newSession: () => ({ sessionId: "s-1" }),
          authenticate: () => ({}),
          prompt: () => ({ stopReason: "end_turn" }),
          cancel: () => undefined,
        })
      : undefined,
    v2: versions.v2
      ? () => ({
          initialize: (params) => v2Answer(params) as never,
          newSession: () => ({ sessionId: "s-2" }),
          listSessions: () => ({ sessions: [] }),
          resumeSession: () => ({}),
          closeSession: () => ({}),
          prompt: () => ({ messageId: "m" }),
          cancel: () => undefined,
        })
      : undefined,
  }).connect(ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
  return { close: () => routed.close() };
};

const V2_INIT = { protocolVersion: 2, info: CLIENT_INFO, capabilities: { auth: { terminal: {} } } };
const DUAL_INIT = {
  ...V2_INIT,
  clientInfo: CLIENT_INFO,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
};
const V1_INIT = {
  protocolVersion: 1,
  clientInfo: CLIENT_INFO,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: true },
};

/** Messages to send before (and including) the one that chooses, then one more request. */
const PROBES: Record<string, unknown[]> = {
  "errors before the choice, then v2": [
    [{ jsonrpc: "2.0", id: 1, method: "initialize", params: V2_INIT }],
    { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "x" } },
    { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } },
    { jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: "two" } },
    { jsonrpc: "2.0", id: 4, method: "initialize" },
    { jsonrpc: "2.0", id: 5, method: "initialize", params: { protocolVersion: 70000 } },
    { jsonrpc: "2.0", id: null, method: "initialize", params: V2_INIT },
    { jsonrpc: "2.0", id: 6, method: "initialize", params: { protocolVersion: 0 } },
    { jsonrpc: "2.0", id: 7, method: "initialize", params: V2_INIT },
    { jsonrpc: "2.0", id: 8, method: "session/new", params: { cwd: "/", mcpServers: [] } },
  ],
  "a v1 client": [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: V1_INIT },
    { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } },
  ],
  "a dual-shape initialize": [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: DUAL_INIT },
    { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } },
  ],
  "a newer version with a malformed info": [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 3, info: 7 } },
    { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } },
  ],
  "a v2 initialize without info": [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 2 } },
    { jsonrpc: "2.0", id: 2, method: "initialize", params: V2_INIT },
  ],
};

async function probe(start: Start, versions: Versions, messages: unknown[]): Promise<unknown[]> {
  const wire = interopWire();
  const agent = start(wire, versions);
  void wire.agentToClient.readable.pipeTo(new WritableStream());
  const writer = wire.clientToAgent.writable.getWriter();
  const requests = messages.filter(
    (m) => Array.isArray(m) || (typeof m === "object" && m !== null && "id" in m),
  ).length;
  for (const message of messages)
    await writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  await until(() => wire.agentToClientTap.messages.length >= requests);
  // Nothing more is coming: the agents answer every request once.
  agent.close();
  return wire.agentToClientTap.messages;
}

/**
 * The one place the answers may differ: the detail after "invalid initialize params: "
 * is the official router's zod issue dump, ours names the path and the rule.
 */
function withoutSchemaDetail(messages: unknown[]): unknown[] {
  return JSON.parse(
    JSON.stringify(messages).replace(
      /"invalid initialize params: (?:[^"\\]|\\.)*"/g,
      '"invalid initialize params: …"',
    ),
  ) as unknown[];
}

const CONFIGURATIONS: [string, Versions][] = [
  ["v1 only", { v1: true, v2: false }],
  ["v2 only", { v1: false, v2: true }],
  ["v1 and v2", { v1: true, v2: true }],
];

describe("protocolRouter answers as the official agentProtocolRouter does", () => {
  for (const [name, versions] of CONFIGURATIONS) {
    for (const [probeName, messages] of Object.entries(PROBES)) {
      it(`${name}: ${probeName}`, async () => {
        const baseline = await probe(theirs, versions, messages);
        const result = await probe(ours, versions, messages);
        expect(withoutSchemaDetail(result)).toEqual(withoutSchemaDetail(baseline));
      });
    }
  }
});

describe("protocolRouter against the official clients", () => {
  it("serves the official v1 client as v1 and the official v2 client as v2", async () => {
    for (const version of [1, 2] as const) {
      const wire = interopWire();
      const agent = ours(wire, { v1: true, v2: true });
      const stream = theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable);
      if (version === 1) {
        const client = theirV1Client().connect(stream);
        const answer = await client.agent.request("initialize", V1_INIT as never);
        expect(answer.protocolVersion).toBe(1);
        expect(await client.agent.request("session/new", { cwd: "/", mcpServers: [] })).toEqual({
          sessionId: "s-1",
        });
        client.close();
      } else {
        const client = theirV2Client().connect(stream);
        const answer = await client.agent.request("initialize", V2_INIT);
        expect(answer.protocolVersion).toBe(2);
        expect(await client.agent.request("session/new", { cwd: "/" })).toEqual({
          sessionId: "s-2",
        });
        client.close();
      }
      agent.close();
    }
  });
});

describe("protocolRouter's projection of a v2 initialize onto v1", () => {
  it("gives the v1 agent what the official router gives it: no fs or terminal, auth and info kept, v1 extras dropped", async () => {
    const wire = interopWire();
    let seen: unknown;
    const routed = protocolRouter({
      v1: () => ({
        initialize: (params) => {
          seen = params;
          return { protocolVersion: 1 };
        },
        newSession: () => ({ sessionId: "s" }),
        authenticate: () => ({}),
        prompt: () => ({ stopReason: "end_turn" }),
        cancel: () => undefined,
      }),
    }).connect(ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
    void wire.agentToClient.readable.pipeTo(new WritableStream());
    const writer = wire.clientToAgent.writable.getWriter();
    await writer.write(
      new TextEncoder().encode(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { ...DUAL_INIT, capabilities: { ...DUAL_INIT.capabilities, elicitation: { form: {} } }, _meta: { trace: "x" } } })}\n`,
      ),
    );
    expect(await until(() => seen !== undefined)).toBe(true);
    expect(seen).toEqual({
      protocolVersion: 1,
      clientInfo: CLIENT_INFO,
      clientCapabilities: {
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
        session: { configOptions: { boolean: {} } },
        plan: {},
        auth: { terminal: true },
        elicitation: { form: {} },
      },
      _meta: { trace: "x" },
    });
    expect((await routed.chosen)?.version).toBe(1);
    routed.close();
    await routed.closed;
  });
});
