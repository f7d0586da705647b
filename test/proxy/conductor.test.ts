/**
 * Proxy chains with real processes: the official SDK's client → acp-kit's Conductor →
 * acp-kit proxies (programs, over stdio) → the official SDK's agent (a program). What
 * crosses each hop is read from the conductor's trace.
 */
import {
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
  RequestError as TheirRequestError,
  type ClientConnection,
} from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { ndJsonStream } from "../../packages/acp-kit/src/index.js";
import { commandComponent } from "../../packages/acp-kit/src/node/proxy/command-component.js";
import {
  Conductor,
  type ConductorTraceEvent,
  type ProxyDialect,
} from "../../packages/acp-kit/src/proxy/index.js";
import { interopWire, until } from "../support/interop-wire.js";

const fixture = (name: string): string => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const AGENT = "official agent";

function proxy(name: string) {
  return commandComponent(
    { command: process.execPath, args: [fixture("kit-proxy.mjs")] },
    { env: { ...process.env, PROXY_NAME: name }, name },
  );
}

function agent() {
  return commandComponent(
    { command: process.execPath, args: [fixture("official-agent.mjs")] },
    { name: AGENT },
  );
}

interface Client {
  readonly connection: ClientConnection;
  /** The text of every agent_message_chunk, in order, and where prompts' answers fell. */
  readonly heard: string[];
  /** `_test/aborted` notifications. */
  readonly aborted: unknown[];
}

/** The official client, whose permission answer is `choose`. */
function officialOn(
  stream: { writable: WritableStream<Uint8Array>; readable: ReadableStream<Uint8Array> },
  choose = "allow",
): Client {
  const heard: string[] = [];
  const aborted: unknown[] = [];
  const connection = officialClient({ name: "official-client" })
    .onNotification("session/update", (ctx) => {
      const update = ctx.params.update;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
        heard.push(update.content.text);
    })
    .onNotification(
      "_test/aborted",
      (params: unknown) => params,
      (ctx) => {
        aborted.push(ctx.params);
      },
    )
    .onRequest("session/request_permission", () => ({
      outcome: { outcome: "selected", optionId: choose },
    }))
    .connect(theirNdJsonStream(stream.writable, stream.readable));
  return { connection, heard, aborted };
}

const conductors: Conductor[] = [];
const closers: (() => void)[] = [];
afterEach(() => {
  for (const conductor of conductors.splice(0)) conductor.close();
  for (const close of closers.splice(0)) close();
});

/** A conductor in this process, served to the official client over byte pipes. */
function chain(
  proxies: ReturnType<typeof proxy>[],
  options: { dialect?: ProxyDialect; choose?: string; agent?: ReturnType<typeof agent> } = {},
) {
  const trace: ConductorTraceEvent[] = [];
  const conductor = new Conductor({
    proxies,
    agent: options.agent ?? agent(),
    trace: (event) => trace.push(event),
    ...(options.dialect === undefined ? {} : { dialect: options.dialect }),
  });
  conductors.push(conductor);
  const wire = interopWire();
  const done = conductor.connect(
    ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
  );
  const client = officialOn(
    { writable: wire.clientToAgent.writable, readable: wire.agentToClient.readable },
    options.choose,
  );
  closers.push(() => client.connection.close());
  /** Messages written by the conductor to `to`. */
  const sentTo = (to: string): Record<string, unknown>[] =>
    trace.flatMap((e) =>
      e.type === "message" && e.from === "conductor" && e.to === to
        ? [e.message as Record<string, unknown>]
        : [],
    );
  /** Messages read by the conductor from `from`. */
  const readFrom = (from: string): Record<string, unknown>[] =>
    trace.flatMap((e) =>
      e.type === "message" && e.from === from ? [e.message as Record<string, unknown>] : [],
    );
  return { conductor, client, trace, done, sentTo, readFrom };
}

async function initialize(client: Client, meta?: Record<string, unknown>) {
  return client.connection.agent.request<Record<string, unknown>>("initialize", {
    protocolVersion: 1,
    clientCapabilities: {},
    ...(meta === undefined ? {} : { _meta: meta }),
  });
}

async function newSession(client: Client): Promise<string> {
  const answer = await client.connection.agent.request<{ sessionId: string }>("session/new", {
    cwd: "/tmp",
    mcpServers: [],
  });
  return answer.sessionId;
}

function prompt(client: Client, sessionId: string, text: string) {
  return client.connection.agent.request<Record<string, unknown>>("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
  });
}

describe("Conductor: official client → acp-kit proxies → official agent, over stdio", () => {
  it("initializes each component in the Rust dialect, keeps _meta, leaks no proxy flag", async () => {
    const { client, sentTo, readFrom } = chain([proxy("p1")]);
    const answer = await initialize(client, { traceId: "abc" });
    // The agent's own answer, with what it received: the client's _meta, nothing added.
    expect(answer).toMatchObject({
      agentInfo: { name: "official-agent" },
      _meta: { initializeMeta: { traceId: "abc" } },
    });
    expect(JSON.stringify(answer)).not.toContain("proxy");
    expect(sentTo("p1")[0]).toMatchObject({
      method: "_proxy/initialize",
      params: { protocolVersion: 1, _meta: { traceId: "abc" } },
    });
    expect(readFrom("p1")[0]).toMatchObject({
      method: "_proxy/successor",
      params: { method: "initialize", params: { _meta: { traceId: "abc" } } },
    });
    expect(sentTo(AGENT)[0]).toMatchObject({ method: "initialize", id: 0 });
  });

  it("a prompt: updates through every proxy, a permission round trip, updates before the answer", async () => {
    const { client, sentTo, readFrom } = chain([proxy("p1"), proxy("p2")], { choose: "reject" });
    await initialize(client);
    const sessionId = await newSession(client);
    const answer = await prompt(client, sessionId, "go");
    // p2 is next to the agent: it marks first; each proxy counted the prompt.
    expect(client.heard).toEqual(["[p1] [p2] thinking", "[p1] [p2] decided: reject"]);
    expect(answer).toEqual({ stopReason: "end_turn", _meta: { chosen: "reject", p2: 1, p1: 1 } });
    // The permission request crossed as an envelope to each proxy, plain to the client.
    const permission = readFrom(AGENT).find((m) => m.method === "session/request_permission");
    expect(permission).toBeDefined();
    for (const name of ["p1", "p2"]) {
      expect(
        sentTo(name).some(
          (m) =>
            m.method === "_proxy/successor" &&
            (m.params as { method?: string }).method === "session/request_permission",
        ),
      ).toBe(true);
    }
    // Each hop numbered its own requests: the agent saw initialize, session/new, prompt as 0, 1, 2.
    expect(
      sentTo(AGENT)
        .filter((m) => "method" in m && "id" in m)
        .map((m) => m.id),
    ).toEqual([0, 1, 2]);
  });

  it("$/cancel_request crosses every hop, each with its own id; session/cancel ends a turn", async () => {
    const { client, sentTo, readFrom } = chain([proxy("p1")]);
    await initialize(client);
    const sessionId = await newSession(client);
    const controller = new AbortController();
    const slow = client.connection.agent
      .request("_test/slow", { id: 7 }, { cancellationSignal: controller.signal })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(await until(() => sentTo(AGENT).some((m) => m.method === "_test/slow"))).toBe(true);
    controller.abort();
    const error = await slow;
    expect(error).toBeInstanceOf(TheirRequestError);
    expect((error as TheirRequestError).code).toBe(-32800);
    // The agent saw its request cancelled (and said so before it answered).
    expect(await until(() => client.aborted.length === 1)).toBe(true);
    expect(client.aborted).toEqual([{ id: 7 }]);
    // Hop by hop: client → conductor, conductor → p1, p1 → conductor, conductor → agent.
    const toP1 = sentTo("p1").find((m) => m.method === "_test/slow");
    const fromP1 = readFrom("p1").find(
      (m) => (m.params as { method?: string } | undefined)?.method === "_test/slow",
    );
    const toAgent = sentTo(AGENT).find((m) => m.method === "_test/slow");
    expect(sentTo("p1")).toContainEqual(
      expect.objectContaining({ method: "$/cancel_request", params: { requestId: toP1?.id } }),
    );
    expect(readFrom("p1")).toContainEqual(
      expect.objectContaining({ method: "$/cancel_request", params: { requestId: fromP1?.id } }),
    );
    expect(sentTo(AGENT)).toContainEqual(
      expect.objectContaining({ method: "$/cancel_request", params: { requestId: toAgent?.id } }),
    );
    // A turn cancelled with session/cancel ends with the agent's own answer.
    const waiting = prompt(client, sessionId, "wait");
    expect(await until(() => client.heard.includes("[p1] waiting"))).toBe(true);
    await client.connection.agent.notify("session/cancel", { sessionId });
    expect(await waiting).toMatchObject({ stopReason: "cancelled", _meta: { p1: 1 } });
  });

  it("a component that dies closes the chain, with the cause in the trace", async () => {
    const { client, trace, done } = chain([proxy("p1")]);
    await initialize(client);
    const sessionId = await newSession(client);
    const dying = prompt(client, sessionId, "die").then(
      () => "answered",
      () => "failed",
    );
    expect(await dying).toBe("failed");
    await done;
    expect(trace).toContainEqual(
      expect.objectContaining({ type: "ended", component: AGENT, cause: "exited with code 3" }),
    );
    // The proxy was stopped with the chain.
    expect(
      trace.filter((e) => e.type === "ended").map((e) => e.type === "ended" && e.component),
    ).toContain(AGENT);
  });

  it.each(["rfd", "thinkwell"] as const)(
    "the %s dialect: the proxy answers in kind; no flag reaches the agent or the client",
    async (dialect) => {
      const { client, sentTo, readFrom } = chain([proxy("p1"), proxy("p2")], { dialect });
      const answer = await initialize(client);
      expect(answer).toMatchObject({ _meta: { initializeMeta: null } });
      expect(JSON.stringify(answer)).not.toContain("proxy");
      const init = sentTo("p1")[0];
      const envelope = readFrom("p1")[0];
      if (dialect === "rfd") {
        expect(init).toMatchObject({ method: "proxy/initialize" });
        expect(envelope).toMatchObject({
          method: "proxy/successor",
          params: { method: "initialize" },
        });
      } else {
        expect(init).toMatchObject({ method: "initialize", params: { _meta: { proxy: true } } });
        expect(envelope).toMatchObject({
          method: "_proxy/successor/request",
          params: { method: "initialize", params: { _meta: { proxy: true } } },
        });
        // p1's answer carried the flag, as thinkwell's conductor requires.
        const reply = readFrom("p1").find((m) => m.id === init?.id && "result" in m);
        expect(reply).toMatchObject({ result: { _meta: { proxy: true } } });
      }
      const sessionId = await newSession(client);
      expect(await prompt(client, sessionId, "go")).toMatchObject({ stopReason: "end_turn" });
      expect(client.heard).toEqual(["[p1] [p2] thinking", "[p1] [p2] decided: allow"]);
    },
  );

  it("a nested conductor in proxy mode runs its own proxies inside the chain", async () => {
    const nested = commandComponent(
      { command: process.execPath, args: [fixture("nested-conductor.mjs")] },
      { name: "nested" },
    );
    const { client, sentTo } = chain([proxy("outer"), nested]);
    await initialize(client);
    const sessionId = await newSession(client);
    expect(await prompt(client, sessionId, "go")).toEqual({
      stopReason: "end_turn",
      _meta: { chosen: "allow", inner: 1, outer: 1 },
    });
    expect(client.heard).toEqual(["[outer] [inner] thinking", "[outer] [inner] decided: allow"]);
    expect(sentTo("nested")[0]).toMatchObject({ method: "_proxy/initialize" });
  });
});

describe("a proxy program standalone (it starts its agent)", () => {
  it("serves the official client over its stdio, in front of the official agent", async () => {
    const child = spawn(
      process.execPath,
      [fixture("kit-proxy.mjs"), "--", process.execPath, fixture("official-agent.mjs")],
      { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, PROXY_NAME: "solo" } },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const client = officialOn({
      writable: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      readable: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    });
    await initialize(client);
    const sessionId = await newSession(client);
    expect(await prompt(client, sessionId, "go")).toEqual({
      stopReason: "end_turn",
      _meta: { chosen: "allow", solo: 1 },
    });
    expect(client.heard).toEqual(["[solo] thinking", "[solo] decided: allow"]);
    client.connection.close();
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});

describe("a v2 chain: the official v2 client → conductor → acp-kit proxy → an official v2 agent", () => {
  it("initializes in v2, and a prompt's turn passes through the proxy until idle", async () => {
    const { client: v2Client } = await import("@agentclientprotocol/sdk/experimental/v2");
    const v2Agent = new URL("../node/fixtures/spawn-v2-agent.mjs", import.meta.url).pathname;
    const conductor = new Conductor({
      proxies: [proxy("p2")],
      agent: commandComponent({ command: process.execPath, args: [v2Agent] }, { name: "v2 agent" }),
    });
    conductors.push(conductor);
    const wire = interopWire();
    void conductor.connect(
      ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable, { closeOutput: true }),
    );
    const connection = v2Client().connect(
      theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
    );
    closers.push(() => connection.close());
    const init = await connection.agent.request("initialize", {
      protocolVersion: 2,
      info: { name: "official-v2-client", version: "1.0.0" },
      capabilities: {},
    });
    expect(init).toMatchObject({ protocolVersion: 2, info: { name: "spawn-v2-agent" } });
    const session = await connection.agent.buildSession("/tmp").start();
    await session.prompt("hi");
    // The proxy marked the agent's v2 chunk on its way; the turn ended idle.
    expect(await session.readTextUntilIdle()).toBe("[p2] pong: hi");
  });
});
