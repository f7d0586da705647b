import { describe, expect, it, vi } from "vitest";
import { rawPeer, tick } from "../../../../test/support/raw-peer.js";
import {
  AgentSideConnection,
  ClientSideConnection,
  memoryStreamPair,
  RequestError,
  type Agent,
  type Client,
  type SessionNotification,
  type SessionUpdate,
} from "../index.js";

function baseAgent(overrides: Partial<Agent> = {}): Agent {
  return {
    initialize: () => ({ protocolVersion: 1 }),
    newSession: () => ({ sessionId: "s" }),
    authenticate: () => undefined,
    prompt: () => ({ stopReason: "end_turn" }),
    cancel: () => undefined,
    ...overrides,
  };
}

function baseClient(overrides: Partial<Client> = {}): Client {
  return {
    requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
    sessionUpdate: () => undefined,
    ...overrides,
  };
}

const call = (id: number, method: string, params?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

describe("ordering and cancellation across a real pair", () => {
  it("an agent's cancel may wait for the turn, which waits for a permission answer sent after the cancel", async () => {
    const pair = memoryStreamPair();
    let turnDone: Promise<unknown> = Promise.resolve();
    const agentSide = new AgentSideConnection(
      (client) =>
        baseAgent({
          prompt: ({ sessionId }) => {
            const turn = client
              .requestPermission({
                sessionId,
                toolCall: { toolCallId: "t1" },
                options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
              })
              .then(({ outcome }) => ({
                stopReason:
                  outcome.outcome === "cancelled" ? ("cancelled" as const) : ("end_turn" as const),
              }));
            turnDone = turn;
            return turn;
          },
          // Waits for the turn to end: the permission answer must still get through.
          cancel: async () => {
            await turnDone;
          },
        }),
      pair.agent,
    );
    let answerPermission!: (outcome: { outcome: "cancelled" }) => void;
    let onAsked!: () => void;
    const asked = new Promise<void>((resolve) => (onAsked = resolve));
    const conn = new ClientSideConnection(
      () =>
        baseClient({
          requestPermission: () =>
            new Promise((answer) => {
              answerPermission = (outcome) => answer({ outcome });
              onAsked();
            }),
        }),
      pair.client,
    );
    const prompt = conn.prompt({ sessionId: "s", prompt: [] });
    await asked;
    await conn.cancel({ sessionId: "s" });
    answerPermission({ outcome: "cancelled" });
    await expect(prompt).resolves.toEqual({ stopReason: "cancelled" });
    agentSide.signal.throwIfAborted();
  });

  it("closes the connection when the factory throws", async () => {
    const peer = rawPeer({ closeOutput: true });
    expect(
      () =>
        new AgentSideConnection(() => {
          throw new Error("bad config");
        }, peer.stream),
    ).toThrow("bad config");
    await peer.outputClosed;
  });
});

describe("AgentSideConnection routing", () => {
  it("sends {} for void results of empty-result methods and fills absent params", async () => {
    const peer = rawPeer();
    const logout = vi.fn();
    new AgentSideConnection(() => baseAgent({ logout }), peer.stream);
    await peer.write(call(1, "authenticate", { methodId: "x" }));
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    await peer.write({ jsonrpc: "2.0", id: 2, method: "logout" });
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(logout).toHaveBeenCalledWith({}, expect.objectContaining({ id: 2, method: "logout" }));
  });

  it("answers -32601 for protocol methods the agent does not implement and no ext handler", async () => {
    const peer = rawPeer();
    new AgentSideConnection(() => baseAgent(), peer.stream);
    await peer.write(call(1, "session/load", { sessionId: "s", cwd: "/", mcpServers: [] }));
    expect(await peer.next()).toMatchObject({ id: 1, error: { code: -32601 } });
    await peer.write(call(2, "_vendor/thing", {}));
    expect(await peer.next()).toMatchObject({
      id: 2,
      error: { code: -32601, data: { method: "_vendor/thing" } },
    });
  });

  it("answers -32602 with the failing paths before the handler runs", async () => {
    const peer = rawPeer();
    const newSession = vi.fn(() => ({ sessionId: "s" }));
    new AgentSideConnection(() => baseAgent({ newSession }), peer.stream);
    await peer.write(call(1, "session/new", { cwd: 42 }));
    const answer = await peer.next();
    expect(answer).toMatchObject({
      id: 1,
      error: { code: -32602, data: { method: "session/new" } },
    });
    const issues = (answer.error as { data: { issues: { path: string }[] } }).data.issues;
    expect(issues.map((i) => i.path).sort()).toEqual(["/cwd", "/mcpServers"]);
    expect(newSession).not.toHaveBeenCalled();
  });

  it("answers -32603 when a handler with a required result returns nothing", async () => {
    const peer = rawPeer();
    new AgentSideConnection(
      () => baseAgent({ newSession: (() => undefined) as never }),
      peer.stream,
    );
    await peer.write(call(1, "session/new", { cwd: "/", mcpServers: [] }));
    expect(await peer.next()).toMatchObject({ id: 1, error: { code: -32603 } });
  });

  it("routes unknown requests and notifications to extMethod / extNotification", async () => {
    const peer = rawPeer();
    const extNotification = vi.fn();
    new AgentSideConnection(
      () =>
        baseAgent({
          extMethod: (method, params) => ({ method, echoed: params }),
          extNotification,
        }),
      peer.stream,
    );
    await peer.write(call(1, "_acme/ping", { n: 1 }));
    expect(await peer.next()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { method: "_acme/ping", echoed: { n: 1 } },
    });
    await peer.write({ jsonrpc: "2.0", method: "_acme/note", params: { k: "v" } });
    await tick(5);
    expect(extNotification).toHaveBeenCalledWith("_acme/note", { k: "v" });
  });

  it("routes unstable methods to unstable_ handlers", async () => {
    const peer = rawPeer();
    new AgentSideConnection(
      () => baseAgent({ unstable_forkSession: (p) => ({ sessionId: `${p.sessionId}-fork` }) }),
      peer.stream,
    );
    await peer.write(call(1, "session/fork", { sessionId: "a", cwd: "/", mcpServers: [] }));
    expect(await peer.next()).toMatchObject({ id: 1, result: { sessionId: "a-fork" } });
  });

  it("passes a RequestError thrown by a handler through unchanged", async () => {
    const peer = rawPeer();
    new AgentSideConnection(
      () =>
        baseAgent({
          newSession: () => {
            throw RequestError.authRequired({ hint: "login" });
          },
        }),
      peer.stream,
    );
    await peer.write(call(1, "session/new", { cwd: "/", mcpServers: [] }));
    expect(await peer.next()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32000, message: "Authentication required", data: { hint: "login" } },
    });
  });
});

describe("ClientSideConnection", () => {
  it("reads a null result of an empty-result method as {}", async () => {
    const peer = rawPeer();
    const agent = new ClientSideConnection(() => baseClient(), peer.stream);
    const p = agent.authenticate({ methodId: "m" });
    const req = await peer.next();
    await peer.write({ jsonrpc: "2.0", id: req.id, result: null });
    await expect(p).resolves.toEqual({});
  });

  it("rejects an invalid result with a ConnectionError naming the issues", async () => {
    const peer = rawPeer();
    const agent = new ClientSideConnection(() => baseClient(), peer.stream);
    const p = agent.prompt({ sessionId: "s", prompt: [] });
    const req = await peer.next();
    await peer.write({ jsonrpc: "2.0", id: req.id, result: { stopReason: "bored" } });
    const error = await p.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ConnectionError", code: "invalid_response" });
    expect((error as { issues: { path: string }[] }).issues[0]?.path).toBe("/stopReason");
  });

  it("delivers update kinds it does not know to sessionUpdate, and drops invalid known ones", async () => {
    const peer = rawPeer();
    const seen: SessionNotification[] = [];
    new ClientSideConnection(
      () => baseClient({ sessionUpdate: (n) => void seen.push(n) }),
      peer.stream,
    );
    const note = (update: unknown) =>
      peer.write({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } });
    await note({ sessionUpdate: "hologram_update", frames: 3 });
    await note({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: 7 } });
    await note({ sessionUpdate: "agent_message_chunk", content: { type: "video", url: "x" } });
    await tick(10);
    expect(seen.map((n) => n.update)).toEqual([
      { sessionUpdate: "hologram_update", frames: 3 },
      { sessionUpdate: "agent_message_chunk", content: { type: "video", url: "x" } },
    ]);
  });

  it("keeps unknown fields everywhere, at every depth", async () => {
    const peer = rawPeer();
    const seen: SessionNotification[] = [];
    new ClientSideConnection(
      () => baseClient({ sessionUpdate: (n) => void seen.push(n) }),
      peer.stream,
    );
    const params = {
      sessionId: "s",
      futureTopLevel: { a: [1, 2] },
      update: {
        sessionUpdate: "agent_message_chunk",
        futureField: true,
        content: { type: "text", text: "hi", futureInner: "kept" },
      },
    };
    await peer.write({ jsonrpc: "2.0", method: "session/update", params });
    await tick(5);
    expect(seen).toEqual([params]);
  });

  it("types unknown variants so that an exhaustive switch must handle them", () => {
    // Compile-time check: the default branch receives the unknown variant, not `never`.
    const describeUpdate = (u: SessionUpdate): string => {
      switch (u.sessionUpdate) {
        case "agent_message_chunk":
          return u.content.type;
        case "tool_call":
          return u.title;
        default: {
          const kind: string = u.sessionUpdate;
          return kind;
        }
      }
    };
    expect(describeUpdate({ sessionUpdate: "tool_call", toolCallId: "t", title: "T" })).toBe("T");
  });
});

describe("TerminalHandle", () => {
  it("drives the terminal methods with the session and terminal ids, releasing once", async () => {
    const pair = memoryStreamPair();
    const calls: string[] = [];
    const client = baseClient({
      createTerminal: (p) => {
        calls.push(`create ${p.command}`);
        return { terminalId: "t1" };
      },
      terminalOutput: (p) => {
        calls.push(`output ${p.sessionId}/${p.terminalId}`);
        return { output: "hi\n", truncated: false, exitStatus: { exitCode: 0 } };
      },
      waitForTerminalExit: (p) => {
        calls.push(`wait ${p.terminalId}`);
        return { exitCode: 0 };
      },
      killTerminal: (p) => void calls.push(`kill ${p.terminalId}`),
      releaseTerminal: (p) => void calls.push(`release ${p.terminalId}`),
    });
    new ClientSideConnection(() => client, pair.client);
    let connection!: AgentSideConnection;
    new AgentSideConnection((c) => {
      connection = c;
      return baseAgent();
    }, pair.agent);
    {
      await using terminal = await connection.createTerminal({
        sessionId: "s",
        command: "echo",
        args: ["hi"],
      });
      expect(terminal.id).toBe("t1");
      expect(await terminal.waitForExit()).toEqual({ exitCode: 0 });
      expect(await terminal.currentOutput()).toMatchObject({ output: "hi\n" });
      expect(await terminal.kill()).toEqual({});
      await terminal.release();
    }
    expect(calls).toEqual(["create echo", "wait t1", "output s/t1", "kill t1", "release t1"]);
  });
});
