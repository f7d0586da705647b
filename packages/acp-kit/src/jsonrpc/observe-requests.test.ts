/**
 * {@link peerRequestObserver} on a real client connection over an in-memory pair: the
 * agent's requests and the client's answers, paired by id, and nothing else.
 */
import { describe, expect, it } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  memoryStreamPair,
  RequestError,
  type PeerRequestEvent,
} from "../index.js";
import { peerRequestObserver } from "./observe-requests.js";

describe("peerRequestObserver", () => {
  it("pairs each request of the peer with the answer written, by id", async () => {
    const { agent: a, client: b } = memoryStreamPair();
    const agentSide = new AgentSideConnection(
      () => ({
        initialize: () => ({ protocolVersion: 1, agentCapabilities: {} }),
        authenticate: () => ({}),
        cancel: () => undefined,
        newSession: () => ({ sessionId: "s1" }),
        prompt: () => ({ stopReason: "end_turn" as const }),
      }),
      a,
    );
    const client = new ClientSideConnection(
      () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => undefined,
        readTextFile: () => {
          throw RequestError.resourceNotFound("/w/missing.txt");
        },
      }),
      b,
    );
    const events: PeerRequestEvent[] = [];
    client.observe(peerRequestObserver((event) => events.push(event)));
    // Our own request and its answer, and a notification: none of them is reported.
    await client.initialize({ protocolVersion: 1 });
    await agentSide.sessionUpdate({
      sessionId: "s1",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
    });
    const permission = {
      sessionId: "s1",
      toolCall: { toolCallId: "t1" },
      options: [{ optionId: "allow", name: "Allow", kind: "allow_once" as const }],
    };
    await agentSide.requestPermission(permission);
    await expect(
      agentSide.readTextFile({ sessionId: "s1", path: "/w/missing.txt" }),
    ).rejects.toBeInstanceOf(RequestError);
    expect(events.map((e) => [e.type, e.method])).toEqual([
      ["request", "session/request_permission"],
      ["response", "session/request_permission"],
      ["request", "fs/read_text_file"],
      ["response", "fs/read_text_file"],
    ]);
    expect(events[1]).toMatchObject({
      params: permission,
      result: { outcome: { outcome: "cancelled" } },
    });
    expect(events[3]).toMatchObject({
      params: { path: "/w/missing.txt" },
      error: { code: -32002 },
    });
    expect(events[0]?.id).toBe(events[1]?.id);
  });

  it("leaves out an answer to a request it never saw, and malformed messages", () => {
    const events: PeerRequestEvent[] = [];
    const observe = peerRequestObserver((event) => events.push(event));
    observe("out", { jsonrpc: "2.0", id: 7, result: {} });
    observe("in", "not a message");
    observe("in", { jsonrpc: "2.0", id: 1, result: {} });
    observe("in", { jsonrpc: "2.0", id: 2, method: "x/y", params: { a: 1 } });
    observe("out", { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no" } });
    // Answered once: a second answer to the same id is not the request's.
    observe("out", { jsonrpc: "2.0", id: 2, result: {} });
    expect(events).toEqual([
      { type: "request", id: 2, method: "x/y", params: { a: 1 } },
      {
        type: "response",
        id: 2,
        method: "x/y",
        params: { a: 1 },
        error: { code: -32601, message: "no" },
      },
    ]);
  });
});
