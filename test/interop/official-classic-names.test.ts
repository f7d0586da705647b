/**
 * Classic handler names against the official SDK 2.4.0 on the other side: an agent or
 * client written on a 0.x release (implementing `unstable_closeSession`,
 * `unstable_resumeSession`, `unstable_logout`, `unstable_createElicitation`, ...) answers
 * the official SDK's calls, which use today's method names; our connections' classic
 * senders reach the official handlers of today's methods.
 */
/* eslint-disable @typescript-eslint/no-deprecated -- the classic (deprecated) names are under test */
import {
  agent as officialAgent,
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
  RequestError as TheirRequestError,
} from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  ndJsonStream,
  type Agent,
  type Client,
  type CreateElicitationRequest,
} from "../../packages/acp-kit/src/index.js";
import { caught, interopWire, until } from "../support/interop-wire.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const ELICITATION: CreateElicitationRequest = {
  sessionId: "s-1",
  mode: "form",
  message: "Which branch?",
  requestedSchema: { type: "object", properties: { branch: { type: "string" } } },
};

describe("an agent written on SDK 0.19 (classic unstable_* names) ⇄ official 2.4.0 client()", () => {
  it("answers session/resume, session/close and logout through its classic handlers", async () => {
    const wire = interopWire();
    const calls: [string, unknown][] = [];
    const agent = {
      initialize: () => ({ protocolVersion: 1 }),
      newSession: () => ({ sessionId: "s-1" }),
      authenticate: () => undefined,
      prompt: () => ({ stopReason: "end_turn" as const }),
      cancel: () => undefined,
      unstable_resumeSession: (params: unknown) => {
        calls.push(["unstable_resumeSession", params]);
        return {};
      },
      unstable_closeSession: (params: unknown) => {
        calls.push(["unstable_closeSession", params]);
      },
      unstable_logout: (params: unknown) => {
        calls.push(["unstable_logout", params]);
      },
    } satisfies Agent;
    const ours = new AgentSideConnection(
      () => agent,
      ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
    );
    const theirs = officialClient({ name: "official-client" })
      .onNotification("session/update", () => undefined)
      .onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" } }))
      .connect(theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
    cleanups.push(() => {
      ours.close();
      theirs.close();
    });

    await expect(
      theirs.agent.request("session/resume", { sessionId: "s-1", cwd: "/work" }),
    ).resolves.toEqual({});
    await expect(theirs.agent.request("session/close", { sessionId: "s-1" })).resolves.toEqual({});
    await expect(theirs.agent.request("logout", {})).resolves.toEqual({});
    expect(calls).toEqual([
      ["unstable_resumeSession", { sessionId: "s-1", cwd: "/work" }],
      ["unstable_closeSession", { sessionId: "s-1" }],
      ["unstable_logout", {}],
    ]);
    expect(wire.clientToAgentTap.messages.map((m) => m.method)).toEqual([
      "session/resume",
      "session/close",
      "logout",
    ]);
    // Not implemented under any name: the standard answer.
    const missing = await caught(theirs.agent.request("session/delete", { sessionId: "s-1" }));
    expect(missing).toBeInstanceOf(TheirRequestError);
    expect(missing).toMatchObject({ code: -32601 });
  });
});

describe("a client written on SDK 1.3 (unstable_createElicitation) ⇄ official 2.4.0 agent()", () => {
  it("receives elicitation/create and elicitation/complete from the official agent", async () => {
    const wire = interopWire();
    const seen: [string, unknown][] = [];
    const client = {
      requestPermission: () => ({ outcome: { outcome: "cancelled" as const } }),
      sessionUpdate: () => undefined,
      unstable_createElicitation: (params: CreateElicitationRequest) => {
        seen.push(["create", params]);
        return { action: "accept" as const, content: { branch: "main" } };
      },
      unstable_completeElicitation: (params: unknown) => {
        seen.push(["complete", params]);
      },
    } satisfies Client;
    const theirs = officialAgent({ name: "official-agent" })
      .onRequest("initialize", () => ({ protocolVersion: 1 }))
      .onRequest("session/new", () => ({ sessionId: "s-1" }))
      .onRequest("session/close", (ctx) => {
        seen.push(["close", ctx.params]);
        return {};
      })
      .connect(theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
    const ours = new ClientSideConnection(
      () => client,
      ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
    );
    cleanups.push(() => {
      ours.close();
      theirs.close();
    });

    await expect(theirs.client.request("elicitation/create", ELICITATION)).resolves.toEqual({
      action: "accept",
      content: { branch: "main" },
    });
    await theirs.client.notify("elicitation/complete", { elicitationId: "e-1" });
    expect(await until(() => seen.length === 2)).toBe(true);
    expect(seen).toEqual([
      ["create", ELICITATION],
      ["complete", { elicitationId: "e-1" }],
    ]);

    // Our classic sender reaches the official handler of today's method.
    await ours.initialize({ protocolVersion: 1, clientCapabilities: {} });
    await expect(ours.unstable_closeSession({ sessionId: "s-1" })).resolves.toEqual({});
    expect(seen.at(-1)).toEqual(["close", { sessionId: "s-1" }]);
  });
});
