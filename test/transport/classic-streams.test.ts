/**
 * The classic API's stream and error behaviour (issue 9, item 3), checked side by side
 * with the classic SDK (`acp-sdk-classic` 1.9.0, whose answers are those of the official
 * SDK 2.4.0 too) where it behaves the same, and on its own where acp-kit goes further.
 */
import * as classic from "acp-sdk-classic";
import { describe, expect, it } from "vitest";
import * as ours from "../../packages/acp-kit/src/index.js";
import {
  ClientSideConnection,
  ConnectionError,
  ndJsonStream,
  type Agent,
  type Client,
} from "../../packages/acp-kit/src/index.js";

const agentImpl = (): Agent => ({
  initialize: () =>
    Promise.resolve({ protocolVersion: ours.PROTOCOL_VERSION, agentCapabilities: {} }),
  newSession: () => Promise.resolve({ sessionId: "s" }),
  authenticate: () => Promise.resolve({}),
  cancel: () => Promise.resolve(),
  prompt: (params) => {
    const first = params.prompt[0];
    const text = first?.type === "text" ? first.text : "";
    if (text === "plain") throw new Error("boom at /home/user/secret");
    if (text === "json") throw new Error('{"reason":"quota"}');
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a handler may throw anything
    if (text === "string") throw "a string";
    return new Promise(() => undefined); // never answers
  },
});

const clientImpl = (): Client => ({
  requestPermission: () => Promise.resolve({ outcome: { outcome: "cancelled" } }),
  sessionUpdate: () => Promise.resolve(),
});

type Lib = typeof ours;
const libs: [string, Lib][] = [
  ["classic 1.9.0", classic as unknown as Lib],
  ["acp-kit", ours],
];

/** An agent and a client of `lib` joined by two in-memory byte pipes. */
function pair(lib: Lib, options?: ours.AcpConnectionOptions) {
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const agent = new lib.AgentSideConnection(
    agentImpl,
    lib.ndJsonStream(toClient.writable, toAgent.readable),
    ...(options === undefined ? [] : [options]),
  );
  const clientOutput = toAgent.writable;
  const client = new lib.ClientSideConnection(
    clientImpl,
    lib.ndJsonStream(clientOutput, toClient.readable),
  );
  return { agent, client, clientOutput, agentOutput: toClient.writable };
}

const errorOf = async (p: Promise<unknown>): Promise<Record<string, unknown>> => {
  const error = (await p.then(
    () => new Error("resolved"),
    (e: unknown) => e,
  )) as ours.RequestError;
  return { code: error.code, message: error.message, data: error.data };
};

const prompt = (text: string) => ({ sessionId: "s", prompt: [{ type: "text" as const, text }] });

describe("error answers are shaped as the official SDK shapes them", () => {
  it("a thrown Error is -32603 with data.details, -32601 names the method in data", async () => {
    const answers: Record<string, Record<string, unknown>[]> = {};
    for (const [name, lib] of libs) {
      const { client } = pair(lib);
      answers[name] = [
        await errorOf(client.prompt(prompt("plain"))),
        await errorOf(client.prompt(prompt("json"))),
        await errorOf(client.prompt(prompt("string"))),
        await errorOf(client.extMethod("_nope/x", {})),
      ];
    }
    expect(answers["acp-kit"]).toEqual(answers["classic 1.9.0"]);
    expect(answers["acp-kit"]).toEqual([
      { code: -32603, message: "Internal error", data: { details: "boom at /home/user/secret" } },
      { code: -32603, message: "Internal error", data: { reason: "quota" } },
      { code: -32603, message: "Internal error", data: {} },
      { code: -32601, message: '"Method not found": _nope/x', data: { method: "_nope/x" } },
    ]);
  });

  it("exposeErrors: false keeps a thrown Error's message from the peer", async () => {
    const { client } = pair(ours, { exposeErrors: false });
    expect(await errorOf(client.prompt(prompt("plain")))).toEqual({
      code: -32603,
      message: "Internal error",
      data: undefined,
    });
    // A RequestError is meant for the peer: it still goes out as it is.
    expect(await errorOf(client.extMethod("_nope/x", {}))).toMatchObject({ code: -32601 });
  });
});

describe("the streams passed in stay the caller's", () => {
  it("the output is unlocked between writes: closing it works and ends the connection", async () => {
    for (const [name, lib] of libs) {
      const { client, clientOutput } = pair(lib);
      await client.initialize({ protocolVersion: ours.PROTOCOL_VERSION, clientCapabilities: {} });
      expect(clientOutput.locked, name).toBe(false);
      await expect(clientOutput.close(), name).resolves.toBeUndefined();
    }
    // The agent's connection then closes, and leaves its output (the client's input) open,
    // as classic does: the client's connection closes once that is closed too.
    const { agent, client, clientOutput, agentOutput } = pair(ours);
    await client.newSession({ cwd: "/", mcpServers: [] });
    await clientOutput.close();
    await agent.closed;
    expect(agentOutput.locked).toBe(false);
    await agentOutput.close();
    await client.closed;
    const error = await client.newSession({ cwd: "/", mcpServers: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain("ACP connection closed");
  });

  it("aborting the output closes the connection with the reason", async () => {
    const written: Uint8Array[] = [];
    const output = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(chunk) });
    const client = new ClientSideConnection(
      clientImpl,
      ndJsonStream(output, new ReadableStream<Uint8Array>()),
    );
    const first = client.newSession({ cwd: "/", mcpServers: [] }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(written.length).toBe(1);
    const reason = new Error("the user pulled the plug");
    await output.abort(reason);
    const error = (await client
      .newSession({ cwd: "/", mcpServers: [] })
      .catch((e: unknown) => e)) as Error;
    for (const e of [error, (await first) as Error]) {
      expect(e).toBeInstanceOf(ConnectionError);
      expect(e.message).toContain("the user pulled the plug");
      expect(e.cause).toBe(reason);
    }
  });
});

describe("when the connection ends, both streams are left to their owner, as classic leaves them", () => {
  /** A byte output that records what its sink is told. */
  const recordedOutput = () => {
    const events: string[] = [];
    const output = new WritableStream<Uint8Array>({
      write: () => void events.push("write"),
      close: () => void events.push("close"),
      abort: () => void events.push("abort"),
    });
    return { output, events };
  };
  const INIT = `${JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {} },
  })}\n`;

  it("the official suite's close test: closing both pipes after use closes both connections", async () => {
    for (const [name, lib] of libs) {
      const clientToAgent = new TransformStream<Uint8Array, Uint8Array>();
      const agentToClient = new TransformStream<Uint8Array, Uint8Array>();
      const client = new lib.ClientSideConnection(
        clientImpl,
        lib.ndJsonStream(clientToAgent.writable, agentToClient.readable),
      );
      new lib.AgentSideConnection(
        agentImpl,
        lib.ndJsonStream(agentToClient.writable, clientToAgent.readable),
      );
      await client.initialize({ protocolVersion: ours.PROTOCOL_VERSION, clientCapabilities: {} });
      const log: string[] = [];
      client.signal.addEventListener("abort", () => log.push("aborted"));
      // Classic code closes its own streams; the second close threw `Invalid state` when
      // the agent's connection had closed that stream itself on the end of its input.
      await expect(clientToAgent.writable.close(), name).resolves.toBeUndefined();
      await expect(agentToClient.writable.close(), name).resolves.toBeUndefined();
      await client.closed;
      expect(log, name).toEqual(["aborted"]);
      expect(client.signal.aborted, name).toBe(true);
    }
  });

  it("the input ends: the output is neither closed nor locked, the input is unlocked", async () => {
    const seen: Record<string, unknown> = {};
    for (const [name, lib] of libs) {
      const { output, events } = recordedOutput();
      const input = new TransformStream<Uint8Array, Uint8Array>();
      const agent = new lib.AgentSideConnection(
        agentImpl,
        lib.ndJsonStream(output, input.readable),
      );
      const writer = input.writable.getWriter();
      await writer.write(new TextEncoder().encode(INIT));
      await writer.close();
      await agent.closed;
      const reason = agent.signal.reason as Error;
      seen[name] = {
        aborted: agent.signal.aborted,
        reason: reason instanceof Error && reason.message.includes("ACP connection closed"),
        outputLocked: output.locked,
        inputLocked: input.readable.locked,
      };
      // The classic program then ends its own output, once.
      await expect(output.close(), name).resolves.toBeUndefined();
      expect(events, name).toEqual(["write", "close"]);
    }
    expect(seen["acp-kit"]).toEqual(seen["classic 1.9.0"]);
    expect(seen["acp-kit"]).toEqual({
      aborted: true,
      reason: true,
      outputLocked: false,
      inputLocked: false,
    });
  });

  it("the input fails: the output is left alone, the input is unlocked", async () => {
    for (const [name, lib] of libs) {
      const { output, events } = recordedOutput();
      let fail!: (e: unknown) => void;
      const input = new ReadableStream<Uint8Array>({
        start: (c) => void (fail = (e) => c.error(e)),
      });
      const agent = new lib.AgentSideConnection(agentImpl, lib.ndJsonStream(output, input));
      fail(new Error("stream exploded"));
      await agent.closed;
      expect((agent.signal.reason as Error).message, name).toContain("stream exploded");
      expect([output.locked, input.locked], name).toEqual([false, false]);
      await expect(output.close(), name).resolves.toBeUndefined();
      expect(events, name).toEqual(["close"]);
    }
  });

  it("closing the message-level writable does not close the byte output", async () => {
    for (const [name, lib] of libs) {
      const { output, events } = recordedOutput();
      const stream = lib.ndJsonStream(output, new ReadableStream<Uint8Array>());
      const writer = stream.writable.getWriter();
      await writer.write({ jsonrpc: "2.0", method: "hi" });
      await writer.close();
      expect(events, name).toEqual(["write"]);
      expect(output.locked, name).toBe(false);
      await expect(output.close(), name).resolves.toBeUndefined();
    }
  });

  it("a plain Stream of messages: its writable is left open, both locks are given back", async () => {
    const seen: Record<string, unknown> = {};
    for (const [name, lib] of libs) {
      const events: string[] = [];
      let answered!: () => void;
      const answer = new Promise<void>((resolve) => (answered = resolve));
      const writable = new WritableStream<ours.AnyMessage>({
        write: () => {
          events.push("write");
          answered();
        },
        close: () => void events.push("close"),
      });
      let input!: ReadableStreamDefaultController<ours.AnyMessage>;
      const readable = new ReadableStream<ours.AnyMessage>({ start: (c) => void (input = c) });
      const agent = new lib.AgentSideConnection(agentImpl, { readable, writable });
      input.enqueue(JSON.parse(INIT) as ours.AnyMessage);
      await answer;
      input.close();
      await agent.closed;
      seen[name] = { writableLocked: writable.locked, readableLocked: readable.locked };
      // The answer to initialize went out, and the writable is still the caller's to close.
      await expect(writable.close(), name).resolves.toBeUndefined();
      expect(events, name).toEqual(["write", "close"]);
    }
    expect(seen["acp-kit"]).toEqual(seen["classic 1.9.0"]);
    expect(seen["acp-kit"]).toEqual({ writableLocked: false, readableLocked: false });
  });

  it("acp-kit's close() cancels the input, as classic's does, and unlocks it", async () => {
    const cancelled: unknown[] = [];
    const input = new ReadableStream<Uint8Array>({ cancel: (r) => void cancelled.push(r) });
    const { output, events } = recordedOutput();
    const client = new ClientSideConnection(clientImpl, ndJsonStream(output, input));
    client.close();
    await client.closed;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled).toHaveLength(1);
    expect(input.locked).toBe(false);
    expect(events).toEqual([]);
  });

  it("closeOutput: true asks for the output to be closed when the connection ends", async () => {
    const { output, events } = recordedOutput();
    const client = new ClientSideConnection(
      clientImpl,
      ndJsonStream(output, new ReadableStream<Uint8Array>(), { closeOutput: true }),
    );
    void client.newSession({ cwd: "/", mcpServers: [] }).catch(() => undefined);
    client.close();
    await client.closed;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(events).toEqual(["write", "close"]);
  });
});

describe("the output's writer is kept between writes, invisibly to the owner", () => {
  const connect = (output: WritableStream<Uint8Array>) =>
    new ClientSideConnection(clientImpl, ndJsonStream(output, new ReadableStream<Uint8Array>()));
  const written = (): { output: WritableStream<Uint8Array>; chunks: Uint8Array[] } => {
    const chunks: Uint8Array[] = [];
    return {
      chunks,
      output: new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk) }),
    };
  };
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  it("the owner may take a writer between writes; our next write then fails with the reason", async () => {
    const { output, chunks } = written();
    const client = connect(output);
    void client.newSession({ cwd: "/", mcpServers: [] }).catch(() => undefined);
    await tick();
    expect(chunks.length).toBe(1);
    expect(output.locked).toBe(false);
    const writer = output.getWriter();
    expect(output.locked).toBe(true);
    await writer.write(new TextEncoder().encode("owner\n"));
    const error = (await client
      .newSession({ cwd: "/", mcpServers: [] })
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/locked/i);
    expect(chunks.length).toBe(2);
  });

  it("after the owner closed the stream, requests fail saying so", async () => {
    const { output } = written();
    const client = connect(output);
    void client.newSession({ cwd: "/", mcpServers: [] }).catch(() => undefined);
    await tick();
    await output.close();
    const error = (await client
      .newSession({ cwd: "/", mcpServers: [] })
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain("closed by its owner");
  });

  it("leaves the stream as it found it once the connection is closed", async () => {
    const { output } = written();
    const client = connect(output);
    void client.newSession({ cwd: "/", mcpServers: [] }).catch(() => undefined);
    await tick();
    client.close();
    await client.closed;
    await tick();
    expect(Object.getOwnPropertyNames(output)).toEqual([]);
    expect(output.locked).toBe(false);
  });

  it("a stream whose members cannot be shadowed gets a writer per write", async () => {
    const { output, chunks } = written();
    // Node's streams break when frozen, so one member is pinned instead: shadowing fails,
    // and what was shadowed already is put back.
    const close = output.close.bind(output);
    Object.defineProperty(output, "close", { value: close, configurable: false, writable: false });
    const client = connect(output);
    void client.newSession({ cwd: "/", mcpServers: [] }).catch(() => undefined);
    await tick();
    expect(chunks.length).toBe(1);
    expect(Object.getOwnPropertyNames(output)).toEqual(["close"]);
    expect(output.locked).toBe(false);
    await output.close();
    const error = await client.newSession({ cwd: "/", mcpServers: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
  });
});

describe("a connection closed by a failing stream says why", () => {
  it("input fails: pending and later requests carry the reason's message and cause", async () => {
    const reason = new Error("stream exploded");
    let fail!: (e: unknown) => void;
    const input = new ReadableStream<Uint8Array>({ start: (c) => void (fail = (e) => c.error(e)) });
    const client = new ClientSideConnection(clientImpl, ndJsonStream(new WritableStream(), input));
    const pending = client.newSession({ cwd: "/", mcpServers: [] }).catch((e: unknown) => e);
    fail(reason);
    const later = await client.newSession({ cwd: "/", mcpServers: [] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    for (const error of [await pending, later] as Error[]) {
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error.message).toContain("stream exploded");
      expect(error.cause).toBe(reason);
      expect(error).toMatchObject({ code: "connection_closed" });
    }
  });

  it("output fails: pending and later requests carry the reason's message and cause", async () => {
    const reason = new Error("write failed");
    const output = new WritableStream<Uint8Array>({ write: () => Promise.reject(reason) });
    const input = new ReadableStream<Uint8Array>();
    const client = new ClientSideConnection(clientImpl, ndJsonStream(output, input));
    const pending = client.newSession({ cwd: "/", mcpServers: [] }).catch((e: unknown) => e);
    await client.closed;
    const later = await client.newSession({ cwd: "/", mcpServers: [] }).catch((e: unknown) => e);
    for (const error of [await pending, later] as Error[]) {
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error.message).toContain("write failed");
      expect(error.cause).toBe(reason);
    }
  });

  it("close() without a reason: requests reject saying ACP connection closed", async () => {
    const { client } = pair(ours);
    const pending = client.prompt(prompt("wait")).catch((e: unknown) => e);
    client.close();
    const later = await client.newSession({ cwd: "/", mcpServers: [] }).catch((e: unknown) => e);
    for (const error of [await pending, later] as Error[]) {
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error.message).toContain("ACP connection closed");
    }
  });
});
