/**
 * A real agent calls a tool that acp-kit's client provides over MCP-over-ACP: the client
 * registers the tool with `McpProvider` (an `acp` declaration), and since neither
 * codex-acp nor claude-agent-acp advertises `acp`, acp-kit's loopback bridge serves it to
 * them as an `http` entry. The fake model asks for the tool, the agent calls it through
 * the bridge, and the result reaches the model. Two ways:
 *
 * - the client bridges its own declarations (`McpHttpBridge` over `mcpProviderTarget`), and
 *   (codex) with the one option of `connectAgent({ mcp, mcpBridge: true })`;
 * - the client declares `acp` through acp-kit's `Conductor`, whose MCP stage advertises
 *   `acp` and bridges it, the agent's MCP requests coming back up as `mcp/message`; and
 *   (codex) through the `acp-kit conductor` command.
 *
 * codex only where the agent runs as this user (root here): claude's turns run as a
 * non-root user, which `connectAgent` and `commandComponent` do not offer.
 *
 * Against the built packages (`acp-kit`, `acp-kit/mcp`, `acp-kit/node`, `acp-kit/proxy`).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import {
  ClientSideConnection,
  memoryStreamPair,
  ndJsonStream,
  type Agent,
  type Client,
  type RequestPermissionRequest,
  type Stream,
} from "acp-kit";
import { fromFetchHandler, McpProvider, type McpRequestHandler } from "acp-kit/mcp";
import {
  allowAll,
  connectAgent,
  McpHttpBridge,
  mcpBridgeMode,
  mcpProviderTarget,
  quoteCommandLine,
  rewriteMcpServers,
} from "acp-kit/node";
import { Conductor, type ConductorComponent } from "acp-kit/proxy";
import { ClientSideConnection as ClientSideConnectionV2 } from "acp-kit/v2";
import * as z from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  agentEntry,
  nonRootUser,
  sealedHome,
  startFakeModelServer,
  TOOL_CALL_MARKER,
  type FakeModelServer,
  type RealAgentKind,
  type SealedHome,
} from "../support/real-agents.js";

const TEST_MS = 180_000;
const cli = join(new URL("../../", import.meta.url).pathname, "packages", "cli", "dist", "cli.js");
const CODEX_LOGIN = { methodId: "api-key", _meta: { "api-key": { apiKey: "sk-fake-acp-kit" } } };
/** The modes in which a tool runs once the client allows it (see real-agents-mcp.test.ts). */
const ASKING_MODE: Record<RealAgentKind, string> = { codex: "workspace-write", claude: "default" };
const PROMPT = `Please ${TOOL_CALL_MARKER} echo with {"message":"from the model"}`;

let model: FakeModelServer;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  model = await startFakeModelServer();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await model.close();
});

function buildServer(): McpServer {
  const server = new McpServer({ name: "editor-tools", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: `echoed by the client: ${message}` }] }),
  );
  return server;
}

/** The tool's handler, recording the MCP methods it serves and waking who waits for one. */
function recordingHandler(): {
  handler: McpRequestHandler;
  served: string[];
  served$: (method: string) => Promise<void>;
} {
  const inner = fromFetchHandler(createMcpHandler(buildServer, { legacy: "reject" }));
  const served: string[] = [];
  const waiters: { method: string; wake: () => void }[] = [];
  const handler: McpRequestHandler = async (context) => {
    const outcome = await inner(context);
    served.push(context.method);
    for (const waiter of waiters.filter((w) => w.method === context.method)) waiter.wake();
    return outcome;
  };
  const served$ = (method: string): Promise<void> =>
    served.includes(method)
      ? Promise.resolve()
      : new Promise((wake) => waiters.push({ method, wake }));
  return { handler, served, served$ };
}

/** A sealed home (claude: with a key, owned by a non-root user when root). */
function home(kind: RealAgentKind): { sealed: SealedHome; runAs: ReturnType<typeof nonRootUser> } {
  const runAs = kind === "claude" ? nonRootUser() : undefined;
  const sealed = sealedHome(kind, {
    model,
    ...(runAs === undefined ? {} : { owner: runAs }),
    ...(kind === "claude" ? { env: { ANTHROPIC_API_KEY: "sk-ant-fake-acp-kit" } } : {}),
  });
  cleanups.push(() => sealed.remove());
  return { sealed, runAs };
}

/** Starts the agent (or `node args...`) over pipes, in its own process group. */
function startAgent(
  kind: RealAgentKind,
  sealed: SealedHome,
  runAs: ReturnType<typeof nonRootUser>,
  args: readonly string[] = [agentEntry(kind)],
) {
  const proc = spawn(process.execPath, [...args], {
    cwd: sealed.workspace,
    env: sealed.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    ...(runAs === undefined ? {} : { uid: runAs.uid, gid: runAs.gid }),
  });
  proc.stderr.resume();
  const exited = new Promise<string>((resolve) =>
    proc.once("exit", (code, signal) => resolve(`exited (${code ?? signal})`)),
  );
  const close = async (): Promise<void> => {
    proc.stdin.end();
    // A conductor stops its agent (its own process group) once its client leaves: give it
    // the time to, or the agent would outlive the test.
    if (args[0] === cli) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
      clearTimeout(timer);
    }
    try {
      if (proc.pid !== undefined) process.kill(-proc.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await exited;
  };
  cleanups.push(close);
  const stream: Stream = ndJsonStream(
    Writable.toWeb(proc.stdin),
    Readable.toWeb(proc.stdout) as ReadableStream<Uint8Array>,
    { closeOutput: true },
  );
  return { stream, exited, close };
}

/** The client's side: allows the agent's permission requests, gathers the agent's text. */
function clientOf(provider: McpProvider, texts: string[]): (agent: Agent) => Client {
  return (connection) => ({
    requestPermission: (params: RequestPermissionRequest) => {
      const allow = params.options.find((o) => o.kind.startsWith("allow"));
      return allow === undefined
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: allow.optionId } };
    },
    sessionUpdate: ({ update }) => {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
        texts.push(update.content.text);
    },
    unstable_messageMcp: provider.attach(connection),
  });
}

/** The agent as a conductor component, started over pipes like {@link startAgent}. */
function agentComponent(kind: RealAgentKind): { component: ConductorComponent; workspace: string } {
  const { sealed, runAs } = home(kind);
  const component: ConductorComponent = {
    name: kind,
    start: () => {
      const started = startAgent(kind, sealed, runAs);
      return Promise.resolve({
        stream: started.stream,
        ended: started.exited,
        close: started.close,
      });
    },
  };
  return { component, workspace: sealed.workspace };
}

describe.each(["codex", "claude"] as const)("%s calls a tool of acp-kit's client", (kind) => {
  it(
    "the client bridges its acp declaration to loopback http; the tool's result reaches the model",
    async () => {
      const { sealed, runAs } = home(kind);
      const { stream } = startAgent(kind, sealed, runAs);
      const provider = new McpProvider();
      const texts: string[] = [];
      const connection = new ClientSideConnection(clientOf(provider, texts), stream);
      const init = await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
      const mode = mcpBridgeMode(init);
      expect(mode).toBe("http");
      const bridge = new McpHttpBridge(mcpProviderTarget(provider));
      cleanups.push(() => bridge.close());
      const { handler, served, served$ } = recordingHandler();
      const tools = provider.register({ name: "editor-tools", handler });
      if (kind === "codex") await connection.authenticate(CODEX_LOGIN);
      const mcpServers = await rewriteMcpServers([tools.declaration], bridge, mode);
      expect(mcpServers[0]).toMatchObject({ type: "http", name: "editor-tools" });
      const { sessionId } = await connection.newSession({
        cwd: sealed.workspace,
        mcpServers: [...mcpServers],
      });
      await connection.setSessionMode({ sessionId, modeId: ASKING_MODE[kind] });
      await served$("tools/list");
      const answer = await connection.prompt({
        sessionId,
        prompt: [{ type: "text", text: PROMPT }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(served).toContain("tools/call");
      expect(model.toolResults).toHaveLength(1);
      expect(model.toolResults[0]?.output).toContain("echoed by the client: from the model");
      expect(texts.join("")).toContain("echoed by the client: from the model");
    },
    TEST_MS,
  );

  it(
    "through acp-kit's Conductor: its MCP stage advertises acp and bridges the declaration; the agent's calls come back as mcp/message",
    async () => {
      const { sealed, runAs } = home(kind);
      const agent: ConductorComponent = {
        name: kind,
        start: () => {
          const started = startAgent(kind, sealed, runAs);
          return Promise.resolve({
            stream: started.stream,
            ended: started.exited,
            close: started.close,
          });
        },
      };
      const mcpMessages: string[] = [];
      const conductor = new Conductor({
        agent,
        mcpBridge: (caller) => new McpHttpBridge(caller),
        trace: (event) => {
          if (event.type !== "message" || event.to !== "client") return;
          const message = event.message as { method?: string; params?: { method?: string } };
          if (message.method === "mcp/message") mcpMessages.push(message.params?.method ?? "?");
        },
      });
      cleanups.push(() => conductor.close());
      const pair = memoryStreamPair();
      void conductor.connect(pair.agent);
      const provider = new McpProvider();
      const texts: string[] = [];
      const connection = new ClientSideConnection(clientOf(provider, texts), pair.client);
      const init = await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
      expect(init.agentCapabilities?.mcpCapabilities?.acp).toBe(true);
      const { handler, served, served$ } = recordingHandler();
      const tools = provider.register({ name: "editor-tools", handler });
      if (kind === "codex") await connection.authenticate(CODEX_LOGIN);
      const { sessionId } = await connection.newSession({
        cwd: sealed.workspace,
        mcpServers: [tools.declaration],
      });
      await connection.setSessionMode({ sessionId, modeId: ASKING_MODE[kind] });
      await served$("tools/list");
      const answer = await connection.prompt({
        sessionId,
        prompt: [{ type: "text", text: PROMPT }],
      });
      expect(answer.stopReason).toBe("end_turn");
      expect(served).toContain("tools/call");
      expect(mcpMessages).toContain("tools/call");
      expect(model.toolResults).toHaveLength(1);
      expect(model.toolResults[0]?.output).toContain("echoed by the client: from the model");
      expect(texts.join("")).toContain("echoed by the client: from the model");
    },
    TEST_MS,
  );

  if (kind === "codex")
    it(
      "through `acp-kit conductor agent AGENT`: the CLI bridges by default",
      async () => {
        const { sealed, runAs } = home(kind);
        const agentCommand = quoteCommandLine([process.execPath, agentEntry(kind)]);
        const { stream } = startAgent(kind, sealed, runAs, [
          cli,
          "conductor",
          "agent",
          agentCommand,
        ]);
        const provider = new McpProvider();
        const texts: string[] = [];
        const connection = new ClientSideConnection(clientOf(provider, texts), stream);
        const init = await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
        expect(init.agentCapabilities?.mcpCapabilities?.acp).toBe(true);
        const { handler, served, served$ } = recordingHandler();
        const tools = provider.register({ name: "editor-tools", handler });
        await connection.authenticate(CODEX_LOGIN);
        const { sessionId } = await connection.newSession({
          cwd: sealed.workspace,
          mcpServers: [tools.declaration],
        });
        await connection.setSessionMode({ sessionId, modeId: ASKING_MODE[kind] });
        await served$("tools/list");
        const answer = await connection.prompt({
          sessionId,
          prompt: [{ type: "text", text: PROMPT }],
        });
        expect(answer.stopReason).toBe("end_turn");
        expect(served).toContain("tools/call");
        expect(model.toolResults[0]?.output).toContain("echoed by the client: from the model");
      },
      TEST_MS,
    );

  if (kind === "codex")
    it(
      "connectAgent({ mcp, mcpBridge: true }): the client's one option bridges its declaration",
      async () => {
        const { sealed } = home(kind);
        const provider = new McpProvider();
        const { handler, served, served$ } = recordingHandler();
        const tools = provider.register({ name: "editor-tools", handler });
        const agent = await connectAgent({
          command: process.execPath,
          args: [agentEntry(kind)],
          env: sealed.env,
          cwd: sealed.workspace,
          mcp: provider,
          mcpBridge: true,
          permissions: { policies: [allowAll()] },
        });
        cleanups.push(async () => {
          await agent.close();
        });
        await agent.connection.authenticate(CODEX_LOGIN);
        const session = await agent.newSession({ mcpServers: [tools.declaration] });
        await agent.connection.setSessionMode({
          sessionId: session.sessionId,
          modeId: ASKING_MODE[kind],
        });
        await served$("tools/list");
        const answer = await agent.connection.prompt({
          sessionId: session.sessionId,
          prompt: [{ type: "text", text: PROMPT }],
        });
        expect(answer.stopReason).toBe("end_turn");
        expect(served).toContain("tools/call");
        expect(model.toolResults).toHaveLength(1);
        expect(model.toolResults[0]?.output).toContain("echoed by the client: from the model");
      },
      TEST_MS,
    );

  it(
    "v2 through acp-kit's Conductor: session.mcp.acp is advertised; the agent discovers and lists the client's tools over the bridge",
    async () => {
      const { component, workspace } = agentComponent(kind);
      const conductor = new Conductor({
        agent: component,
        mcpBridge: (caller) => new McpHttpBridge(caller),
      });
      cleanups.push(() => conductor.close());
      const pair = memoryStreamPair();
      void conductor.connect(pair.agent);
      const provider = new McpProvider();
      const client = new ClientSideConnectionV2(
        (connection) => ({
          sessionUpdate: () => undefined,
          unstable_messageMcp: provider.attach(connection),
        }),
        pair.client,
      );
      const init = await client.initialize({
        protocolVersion: 2,
        info: { name: "acp-kit-real-mcp-test", version: "0.0.0" },
        capabilities: {},
      });
      expect(init.protocolVersion).toBe(2);
      expect(init.capabilities?.session?.mcp).toMatchObject({ acp: {}, http: {} });
      const { handler, served, served$ } = recordingHandler();
      const tools = provider.register({ name: "editor-tools", handler });
      if (kind === "codex") await client.login(CODEX_LOGIN);
      await client.newSession({ cwd: workspace, mcpServers: [tools.declaration] });
      await served$("tools/list");
      expect(served.slice(0, 2)).toEqual(["server/discover", "tools/list"]);
    },
    TEST_MS,
  );
});
