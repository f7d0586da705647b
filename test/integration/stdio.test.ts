/**
 * Integration over a real child process's stdio: the client side runs here, the agent is
 * `fixtures/stdio-agent.ts` started with `node --import tsx`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ClientSideConnection,
  ConnectionError,
  PROTOCOL_VERSION,
  RequestError,
  ndJsonStream,
  type Client,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
} from "../../packages/acp-kit/src/index.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/stdio-agent.ts", import.meta.url));

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly connection: ClientSideConnection;
  /** Text of every agent_message_chunk received, per session, in arrival order. */
  readonly chunks: Map<string, string[]>;
  /** Everything the agent wrote to stderr so far. */
  stderr(): string;
  readonly exited: Promise<Exit>;
  /** How the client answers permission requests (default: never). */
  onPermission: (params: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
  permissionAsked: boolean;
}

const started: AgentProcess[] = [];

function startAgent(): AgentProcess {
  const child = spawn(process.execPath, ["--import", "tsx", fixture], {
    cwd: repoRoot,
    stdio: "pipe",
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => (stderr += text));
  const exited = new Promise<Exit>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const chunks = new Map<string, string[]>();

  const agent: AgentProcess = {
    child,
    chunks,
    exited,
    stderr: () => stderr,
    permissionAsked: false,
    onPermission: () => new Promise<RequestPermissionResponse>(() => undefined),
    connection: undefined as unknown as ClientSideConnection,
  };
  const client: Client = {
    sessionUpdate({ sessionId, update }) {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        let list = chunks.get(sessionId);
        if (list === undefined) chunks.set(sessionId, (list = []));
        list.push(update.content.text);
      }
    },
    requestPermission(params) {
      agent.permissionAsked = true;
      return agent.onPermission(params);
    },
    async readTextFile({ path }) {
      try {
        return { content: await readFile(path, "utf8") };
      } catch {
        throw RequestError.resourceNotFound(path);
      }
    },
    async writeTextFile({ path, content }) {
      await writeFile(path, content, "utf8");
    },
  };
  (agent as { connection: ClientSideConnection }).connection = new ClientSideConnection(
    () => client,
    ndJsonStream(
      Writable.toWeb(child.stdin),
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      // The child's stdin is ours: closing the connection ends it, and the agent exits.
      { closeOutput: true },
    ),
  );
  started.push(agent);
  return agent;
}

async function initialized(agent: AgentProcess): Promise<string> {
  await agent.connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
  return sessionId;
}

function text(value: string): { type: "text"; text: string } {
  return { type: "text", text: value };
}

/** Resolves with the promise's outcome, or fails the test if it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The rejection of a promise expected to reject. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}

function expectConnectionClosed(error: unknown): void {
  expect(error).toBeInstanceOf(ConnectionError);
  expect((error as ConnectionError).code).toBe("connection_closed");
}

afterAll(() => {
  for (const agent of started)
    if (agent.child.exitCode === null && agent.child.signalCode === null)
      agent.child.kill("SIGKILL");
});

describe("a real agent process over stdio", () => {
  let agent: AgentProcess;
  let sessionId: string;

  beforeAll(async () => {
    agent = startAgent();
    const init = await agent.connection.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      clientInfo: { name: "stdio-test", version: "0.0.0" },
    });
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(init.agentInfo?.name).toBe("stdio-fixture");
    ({ sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] }));
  });

  afterAll(async () => {
    agent.connection.close();
    await within(agent.exited, 5000, "the agent's exit");
  });

  it("creates distinct sessions", async () => {
    expect(sessionId).toBe("s-1");
    const second = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    expect(second.sessionId).toBe("s-2");
  });

  it("delivers a prompt's streamed updates in order, all before its answer", async () => {
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    const count = 200;
    const seenAtAnswer = await agent.connection
      .prompt({ sessionId, prompt: [text(`stream ${count}`)] })
      .then((response) => ({ response, seen: [...(agent.chunks.get(sessionId) ?? [])] }));
    expect(seenAtAnswer.response).toEqual({ stopReason: "end_turn" });
    expect(seenAtAnswer.seen).toEqual(Array.from({ length: count }, (_, i) => `part ${i}`));
  });

  it("runs concurrent prompts on different sessions", async () => {
    const a = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    const b = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    const answers = await Promise.all([
      agent.connection.prompt({ sessionId: a.sessionId, prompt: [text("stream 30")] }),
      agent.connection.prompt({ sessionId: b.sessionId, prompt: [text("stream 40")] }),
    ]);
    expect(answers).toEqual([{ stopReason: "end_turn" }, { stopReason: "end_turn" }]);
    expect(agent.chunks.get(a.sessionId)).toHaveLength(30);
    expect(agent.chunks.get(b.sessionId)).toEqual(
      Array.from({ length: 40 }, (_, i) => `part ${i}`),
    );
  });

  it("round-trips files through the client (fs/read_text_file, fs/write_text_file)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "acp-kit-stdio-"));
    try {
      const input = join(dir, "in.txt");
      const output = join(dir, "out.txt");
      await writeFile(input, "hello, wörld\nsecond line", "utf8");
      const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
      const answer = await agent.connection.prompt({
        sessionId,
        prompt: [text(`fs ${input} ${output}`)],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(agent.chunks.get(sessionId)).toEqual(["read: hello, wörld\nsecond line"]);
      expect(await readFile(output, "utf8")).toBe("HELLO, WÖRLD\nSECOND LINE");

      // The client's error answer reaches the agent with its code.
      await agent.connection.prompt({
        sessionId,
        prompt: [text(`fs ${join(dir, "missing.txt")} ${output}`)],
      });
      expect(agent.chunks.get(sessionId)?.at(-1)).toBe("read failed: -32002");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("round-trips a large file through both pipes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "acp-kit-stdio-"));
    try {
      const input = join(dir, "big.txt");
      const output = join(dir, "big.out");
      const line = "the quick brown fox jumps over the lazy dog, ünïcödé included\n";
      const content = line.repeat(Math.ceil((8 * 1024 * 1024) / line.length));
      await writeFile(input, content, "utf8");
      const { sessionId } = await agent.connection.newSession({ cwd: dir, mcpServers: [] });
      await agent.connection.prompt({ sessionId, prompt: [text(`fs ${input} ${output}`)] });
      expect(agent.chunks.get(sessionId)?.[0]?.length).toBe("read: ".length + content.length);
      expect(await readFile(output, "utf8")).toBe(content.toUpperCase());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects with the agent's error answers, and the connection lives on", async () => {
    const failed = await rejection(agent.connection.prompt({ sessionId, prompt: [text("fail")] }));
    expect(failed).toBeInstanceOf(RequestError);
    expect(failed).toMatchObject({
      code: -32042,
      message: "Deliberate failure",
      data: { reason: "asked to fail" },
    });

    const unknownSession = await rejection(
      agent.connection.prompt({ sessionId: "nope", prompt: [text("stream 1")] }),
    );
    expect(unknownSession).toMatchObject({ code: -32002 });

    const unknownMethod = await rejection(agent.connection.request("_fixture/unknown", {}));
    expect(unknownMethod).toMatchObject({ code: -32601 });

    const invalid = await rejection(agent.connection.request("session/prompt", { sessionId: 42 }));
    expect(invalid).toBeInstanceOf(RequestError);
    expect(invalid).toMatchObject({ code: -32602 });

    await expect(
      agent.connection.prompt({ sessionId, prompt: [text("stream 1")] }),
    ).resolves.toEqual({
      stopReason: "end_turn",
    });
  });

  it("cancels a prompt with session/cancel: updates sent after the cancel arrive before the answer", async () => {
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    const turn = agent.connection
      .prompt({ sessionId, prompt: [text("wait")] })
      .then((response) => ({ response, seen: [...(agent.chunks.get(sessionId) ?? [])] }));
    await waitFor(
      () => agent.chunks.get(sessionId)?.includes("waiting") === true,
      5000,
      "the turn to start",
    );
    await agent.connection.cancel({ sessionId });
    const { response, seen } = await within(turn, 5000, "the cancelled prompt");
    expect(response).toEqual({ stopReason: "cancelled" });
    expect(seen).toEqual(["waiting", "stopping"]);
  });

  it("aborting a request rejects it locally and sends $/cancel_request to the agent", async () => {
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    const controller = new AbortController();
    const turn = agent.connection.prompt(
      { sessionId, prompt: [text("wait")] },
      { signal: controller.signal },
    );
    await waitFor(
      () => agent.chunks.get(sessionId)?.includes("waiting") === true,
      5000,
      "the turn to start",
    );
    controller.abort();
    const error = await within(rejection(turn), 1000, "the aborted prompt");
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe("cancelled");
    await waitFor(
      () => agent.stderr().includes("[fixture] request cancelled"),
      5000,
      "the agent to see the cancel",
    );
  });

  it("answers the agent's permission request", async () => {
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    agent.onPermission = (params) => {
      const allow = params.options.find((option) => option.kind === "allow_once");
      return Promise.resolve({ outcome: { outcome: "selected", optionId: allow?.optionId ?? "" } });
    };
    await agent.connection.prompt({ sessionId, prompt: [text("ask")] });
    expect(agent.chunks.get(sessionId)).toEqual(["permission: yes"]);
  });
});

describe("when the agent process goes away", () => {
  afterEach(() => {
    for (const agent of started)
      if (agent.child.exitCode === null && agent.child.signalCode === null)
        agent.child.kill("SIGKILL");
  });

  it("rejects every pending request with connection_closed when the agent exits mid-request", async () => {
    const agent = startAgent();
    await initialized(agent);
    const other = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    const crashing = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });

    const hanging = rejection(
      agent.connection.prompt({ sessionId: other.sessionId, prompt: [text("hang")] }),
    );
    await waitFor(
      () => agent.chunks.get(other.sessionId)?.includes("hanging") === true,
      5000,
      "the hanging turn",
    );
    const crashed = rejection(
      agent.connection.prompt({ sessionId: crashing.sessionId, prompt: [text("crash")] }),
    );

    const exit = await within(agent.exited, 5000, "the agent's exit");
    expect(exit.code).toBe(3);
    const [first, second] = await within(
      Promise.all([hanging, crashed]),
      2000,
      "the pending requests",
    );
    expectConnectionClosed(first);
    expectConnectionClosed(second);
    await within(agent.connection.closed, 2000, "closed");
    expect(agent.connection.signal.aborted).toBe(true);
    expect(agent.chunks.get(crashing.sessionId)).toEqual(["crashing"]);

    // Later calls fail at once, and notifications are dropped quietly.
    expectConnectionClosed(
      await within(
        rejection(agent.connection.newSession({ cwd: repoRoot, mcpServers: [] })),
        500,
        "a late request",
      ),
    );
    await expect(agent.connection.cancel({ sessionId: other.sessionId })).resolves.toBeUndefined();
  });

  it("rejects pending requests with connection_closed when the agent is killed", async () => {
    const agent = startAgent();
    const sessionId = await initialized(agent);
    const hanging = rejection(agent.connection.prompt({ sessionId, prompt: [text("hang")] }));
    await waitFor(
      () => agent.chunks.get(sessionId)?.includes("hanging") === true,
      5000,
      "the hanging turn",
    );
    agent.child.kill("SIGKILL");
    expect((await within(agent.exited, 5000, "the agent's exit")).signal).toBe("SIGKILL");
    expectConnectionClosed(await within(hanging, 2000, "the pending prompt"));
    await within(agent.connection.closed, 2000, "closed");
  });
});

describe("when the client closes the connection", () => {
  it("the agent side resolves closed, fails its pending requests and exits on its own", async () => {
    const agent = startAgent();
    const sessionId = await initialized(agent);
    // The agent asks permission; this client never answers.
    const turn = rejection(agent.connection.prompt({ sessionId, prompt: [text("ask")] }));
    await waitFor(() => agent.permissionAsked, 5000, "the permission request");

    agent.connection.close();
    expectConnectionClosed(await within(turn, 1000, "the client's pending prompt"));
    await within(agent.connection.closed, 1000, "the client's closed");

    const exit = await within(agent.exited, 5000, "the agent's exit");
    expect(exit).toEqual({ code: 0, signal: null });
    const stderr = agent.stderr();
    expect(stderr).toContain("[fixture] permission failed: connection_closed");
    expect(stderr).toContain("[fixture] closed: connection_closed");
  });

  it("the agent exits when its stdin ends without any traffic", async () => {
    const agent = startAgent();
    await waitFor(() => agent.stderr().includes("[fixture] ready"), 10_000, "the agent to start");
    agent.child.stdin.end();
    expect(await within(agent.exited, 5000, "the agent's exit")).toEqual({ code: 0, signal: null });
    expect(agent.stderr()).toContain("[fixture] closed: connection_closed");
    await within(agent.connection.closed, 2000, "the client's closed");
  });
});
