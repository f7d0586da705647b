/**
 * acp-kit's `negotiate()` (a client that speaks v1 and v2) against the official SDK
 * 2.4.0 agents: its `agentProtocolRouter()` with v1 only, v2 only and both, a v1
 * `agent()` and a v2 `agent()` used without a router, and agents that refuse v2 with an
 * error or by leaving.
 */
import {
  agent as theirV1Agent,
  ndJsonStream as theirNdJsonStream,
  RequestError as TheirRequestError,
} from "@agentclientprotocol/sdk";
import {
  agent as theirV2Agent,
  agentProtocolRouter,
} from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { ndJsonStream } from "../../packages/acp-kit/src/index.js";
import {
  negotiate,
  NegotiationError,
  type NegotiateOptions,
} from "../../packages/acp-kit/src/v2/index.js";
import { interopWire, type InteropWire } from "../support/interop-wire.js";

const INFO = { name: "negotiating-client", version: "1.0.0" };

function v1App() {
  return theirV1Agent()
    .onRequest("initialize", (ctx) => ({
      protocolVersion: 1,
      agentInfo: { name: "v1-agent", version: "1" },
      agentCapabilities: {},
      authMethods: [],
      _meta: { sawFs: ctx.params.clientCapabilities?.fs?.readTextFile ?? null },
    }))
    .onRequest("session/new", () => ({ sessionId: "v1-session" }));
}

function v2App() {
  return theirV2Agent()
    .onRequest("initialize", () => ({
      protocolVersion: 2,
      info: { name: "v2-agent", version: "2" },
    }))
    .onRequest("session/new", () => ({ sessionId: "v2-session" }));
}

function options(extra: Partial<NegotiateOptions> = {}): NegotiateOptions {
  return {
    info: INFO,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
    v1: () => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: () => undefined,
    }),
    v2: () => ({ sessionUpdate: () => undefined }),
    ...extra,
  };
}

function ourSide(wire: InteropWire) {
  return ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable, {
    closeOutput: true,
  });
}

function theirSide(wire: InteropWire) {
  return theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable);
}

async function sessionOf(agreed: Awaited<ReturnType<typeof negotiate>>): Promise<string> {
  if (agreed.version === 2) return (await agreed.connection.newSession({ cwd: "/" })).sessionId;
  return (await agreed.connection.newSession({ cwd: "/", mcpServers: [] })).sessionId;
}

describe("negotiate() against the official agents", () => {
  it("the official router with v1 and v2: v2", async () => {
    const wire = interopWire();
    agentProtocolRouter().withV1(v1App()).withV2(v2App()).connect(theirSide(wire));
    const agreed = await negotiate(ourSide(wire), options());
    expect(agreed.version).toBe(2);
    expect(agreed.response.protocolVersion).toBe(2);
    expect(await sessionOf(agreed)).toBe("v2-session");
    // Requests only ever go out once: initialize once, then the session.
    expect(wire.clientToAgentTap.withMethod("initialize")).toHaveLength(1);
    agreed.connection.close();
  });

  it("the official router with v1 only: v1 on the same connection, with the v1 fields the projection drops", async () => {
    const wire = interopWire();
    agentProtocolRouter().withV1(v1App()).connect(theirSide(wire));
    const agreed = await negotiate(ourSide(wire), options());
    expect(agreed.version).toBe(1);
    expect(await sessionOf(agreed)).toBe("v1-session");
    expect(wire.clientToAgentTap.withMethod("initialize")).toHaveLength(1);
    // The router projected the dual-shape request onto v1 without file system access.
    expect(agreed.response._meta).toEqual({ sawFs: false });
    agreed.connection.close();
  });

  it("a v1 agent without a router: v1, and the dual-shape request gave it the v1 capabilities", async () => {
    const wire = interopWire();
    v1App().connect(theirSide(wire));
    const agreed = await negotiate(ourSide(wire), options());
    expect(agreed.version).toBe(1);
    expect(agreed.response._meta).toEqual({ sawFs: true });
    expect(await sessionOf(agreed)).toBe("v1-session");
    agreed.connection.close();
  });

  it("the official router with v2 only: v2; and asking it for v1 only fails with -32022", async () => {
    const wire = interopWire();
    agentProtocolRouter().withV2(v2App()).connect(theirSide(wire));
    const agreed = await negotiate(ourSide(wire), options());
    expect(agreed.version).toBe(2);
    expect(await sessionOf(agreed)).toBe("v2-session");
    agreed.connection.close();

    const again = interopWire();
    agentProtocolRouter().withV2(v2App()).connect(theirSide(again));
    const failure = await negotiate(ourSide(again), options({ protocol: 1 })).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(NegotiationError);
    const error = failure as NegotiationError;
    expect(error.ended).toBe(false);
    expect(error.attempts.map((a) => [a.version, (a.error as { code?: number }).code])).toEqual([
      [1, -32022],
    ]);
  });

  it("an agent that answers a v2 request with an error is asked again in v1 on the same connection", async () => {
    const wire = interopWire();
    theirV1Agent()
      .onRequest("initialize", (ctx) => {
        if (ctx.params.protocolVersion !== 1)
          throw new TheirRequestError(-32600, "Invalid request", "only protocol version 1");
        return { protocolVersion: 1, agentCapabilities: {}, authMethods: [] };
      })
      .onRequest("session/new", () => ({ sessionId: "v1-session" }))
      .connect(theirSide(wire));
    const agreed = await negotiate(ourSide(wire), options());
    expect(agreed.version).toBe(1);
    expect(await sessionOf(agreed)).toBe("v1-session");
    expect(
      wire.clientToAgentTap
        .withMethod("initialize")
        .map((m) => (m.params as { protocolVersion: number }).protocolVersion),
    ).toEqual([2, 1]);
    agreed.connection.close();
  });

  it("an agent that leaves on a v2 request: a NegotiationError that says to start it again", async () => {
    const wire = interopWire();
    const reader = wire.clientToAgent.readable.getReader();
    void reader.read().then(async () => {
      // It read the request and exits: its output ends.
      await wire.agentToClient.writable.close();
    });
    const failure = await negotiate(ourSide(wire), options()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NegotiationError);
    expect((failure as NegotiationError).ended).toBe(true);
    expect((failure as NegotiationError).attempts.map((a) => a.version)).toEqual([2]);
  });

  it("protocol 2 against a v1-only agent fails without falling back", async () => {
    const wire = interopWire();
    v1App().connect(theirSide(wire));
    const failure = await negotiate(ourSide(wire), options({ protocol: 2 })).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(NegotiationError);
    expect((failure as Error).message).toContain("does not speak ACP v2");
    expect(wire.clientToAgentTap.withMethod("initialize")).toHaveLength(1);
  });
});
