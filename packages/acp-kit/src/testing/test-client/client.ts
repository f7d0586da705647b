/**
 * {@link TestClient}: an in-memory ACP client for agent authors' unit tests.
 *
 * @module
 */
import { RequestError } from "../../jsonrpc/errors.js";
import type { MaybePromise, Stream } from "../../base/messages.js";
import type { AcpConnectionOptions } from "../../peer/acp-connection.js";
import { AgentSideConnection } from "../../peer/agent-side-connection.js";
import type { Agent } from "../../peer/agent.js";
import type { Client } from "../../peer/client.js";
import { ClientSideConnection } from "../../peer/client-side-connection.js";
import { PROTOCOL_VERSION } from "../../peer/methods.js";
import type * as schema from "../../schema/types.gen.js";
import type { SessionState } from "../../session/state.js";
import { SessionStore } from "../../session/store.js";
import { memoryStreamPair } from "../../transport/memory.js";
import { VERSION } from "../../base/version.js";
import { MemoryFiles } from "./files.js";
import { PendingTestPermissions, type TestClientPermission } from "./permissions.js";
import { Recorder, type RequestRecord, type TestClientRecord } from "./records.js";
import { FakeTerminals, type FakeTerminal, type TerminalScripts } from "./terminals.js";

/** An extension method handler of a {@link TestClient}. */
export type ExtMethodHandler = (
  params: Record<string, unknown>,
) => MaybePromise<Record<string, unknown>>;

/** Options of a {@link TestClient}. */
export interface TestClientOptions {
  /**
   * Files served by `fs/*`, by absolute path (default: none, but `fs` is advertised).
   * `false` serves no files and does not advertise `fs`.
   */
  readonly files?: Readonly<Record<string, string>> | false;
  /** How permission requests are answered (default `"allow"`); changeable later. */
  readonly permission?: TestClientPermission;
  /**
   * Fake terminals: scripted output and exit per command (nothing runs). `terminal` is
   * advertised only when this is given.
   */
  readonly terminals?: TerminalScripts;
  /** Replaces the capabilities sent in `initialize` (default: what is served). */
  readonly capabilities?: schema.ClientCapabilities;
  /** Sent as `clientInfo` (default `{ name: "acp-kit-test-client", version }`). */
  readonly clientInfo?: schema.Implementation;
  /** The default `cwd` of new sessions (default `"/project"`). */
  readonly cwd?: string;
  /** Handlers of extension requests (`_`-prefixed); others answer `-32601`. */
  readonly extMethods?: Readonly<Record<string, ExtMethodHandler>>;
}

/**
 * An in-memory client that records everything the agent sends, serves files from a map
 * and terminals from scripts, answers permission requests by policy, and folds updates
 * into session state with a {@link SessionStore}.
 *
 * ```ts
 * const client = new TestClient({ files: { "/project/a.txt": "hello" }, permission: "allow" });
 * client.connect((connection) => new MyAgent(connection));
 * const { sessionId } = await client.newSession(); // initializes first
 * await client.prompt(sessionId, "Summarize a.txt");
 * expect(client.textOf(sessionId)).toContain("hello");
 * expect(client.requests.map((r) => r.method)).toEqual(["fs/read_text_file"]);
 * ```
 */
export class TestClient {
  /** The state of every session, folded from its updates. */
  readonly sessions = new SessionStore();
  /** The served files, unless turned off. */
  readonly fileSystem: MemoryFiles | undefined;
  /** The fake terminals, when enabled. */
  readonly terminalScripts: FakeTerminals | undefined;
  /** How permission requests are answered; may be changed between turns. */
  permission: TestClientPermission;
  private readonly recorder = new Recorder();
  private readonly permissions = new PendingTestPermissions();
  private connection: ClientSideConnection | undefined;
  private agentSide: AgentSideConnection | undefined;
  private initialized: Promise<schema.InitializeResponse> | undefined;

  /**
   * Creates a client; nothing runs until {@link TestClient.connect} or {@link TestClient.attach}.
   *
   * @param options - Files, terminals, permission policy, capabilities.
   */
  constructor(private readonly options: TestClientOptions = {}) {
    this.fileSystem = options.files === false ? undefined : new MemoryFiles(options.files ?? {});
    this.terminalScripts =
      options.terminals === undefined ? undefined : new FakeTerminals(options.terminals);
    this.permission = options.permission ?? "allow";
  }

  /** The capabilities sent in `initialize`. */
  get capabilities(): schema.ClientCapabilities {
    if (this.options.capabilities !== undefined) return this.options.capabilities;
    const files = this.fileSystem !== undefined;
    return {
      fs: { readTextFile: files, writeTextFile: files },
      terminal: this.terminalScripts !== undefined,
    };
  }

  /**
   * Runs an agent in memory and connects to it (framed as ndjson, as over stdio).
   * Returns the connection to the agent: call `initialize`, `newSession`, ... on it, or
   * use this client's helpers.
   */
  connect(
    toAgent: (connection: AgentSideConnection) => Agent,
    options?: AcpConnectionOptions,
  ): ClientSideConnection {
    const pair = memoryStreamPair();
    this.agentSide = new AgentSideConnection(toAgent, pair.agent, options);
    return this.attach(pair.client, options);
  }

  /** Connects over any stream (for example a spawned agent's stdio). */
  attach(stream: Stream, options?: AcpConnectionOptions): ClientSideConnection {
    if (this.connection !== undefined) throw new Error("This TestClient is already connected");
    this.connection = new ClientSideConnection(
      () => this.sessions.wrap(this.client()),
      stream,
      options,
    );
    return this.connection;
  }

  /** The connection to the agent (throws before `connect`/`attach`). */
  get agent(): ClientSideConnection {
    if (this.connection === undefined) throw new Error("Call connect() or attach() first");
    return this.connection;
  }

  /** `initialize` with this client's capabilities (once; later calls return the same answer). */
  initialize(params: Partial<schema.InitializeRequest> = {}): Promise<schema.InitializeResponse> {
    this.initialized ??= this.agent.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: this.capabilities,
      clientInfo: this.options.clientInfo ?? { name: "acp-kit-test-client", version: VERSION },
      ...params,
    });
    return this.initialized;
  }

  /** `session/new` (after `initialize`), in the default cwd unless given. */
  async newSession(
    params: Partial<schema.NewSessionRequest> = {},
  ): Promise<schema.NewSessionResponse> {
    await this.initialize();
    return this.sessions.newSession(this.agent, {
      cwd: this.options.cwd ?? "/project",
      mcpServers: [],
      ...params,
    });
  }

  /** `session/load` (after `initialize`): the replayed history lands in the records and state. */
  async loadSession(
    sessionId: string,
    params: Partial<schema.LoadSessionRequest> = {},
  ): Promise<schema.LoadSessionResponse> {
    await this.initialize();
    return this.sessions.loadSession(this.agent, {
      sessionId,
      cwd: this.options.cwd ?? "/project",
      mcpServers: [],
      ...params,
    });
  }

  /** One prompt turn: text (one text block) or content blocks. */
  prompt(
    sessionId: string,
    prompt: string | readonly schema.ContentBlock[],
  ): Promise<schema.PromptResponse> {
    const blocks = typeof prompt === "string" ? [{ type: "text" as const, text: prompt }] : prompt;
    return this.sessions.prompt(this.agent, { sessionId, prompt: [...blocks] });
  }

  /** Cancels the session's turn: pending permission requests answer `cancelled`, then `session/cancel`. */
  async cancel(sessionId: string): Promise<void> {
    this.permissions.cancelSession(sessionId);
    await this.sessions.cancel(this.agent, { sessionId });
  }

  /** Everything the agent sent, in arrival order. */
  get records(): readonly TestClientRecord[] {
    return this.recorder.records;
  }

  /** The requests the agent sent, in arrival order, with the answers given. */
  get requests(): readonly RequestRecord[] {
    return this.recorder.records.filter((record) => record.type === "request");
  }

  /** The requests of one method. */
  requestsOf(method: string): RequestRecord[] {
    return this.requests.filter((record) => record.method === method);
  }

  /** The updates of a session, in arrival order. */
  updates(sessionId: string): schema.SessionUpdate[] {
    return this.recorder.records.flatMap((record) =>
      record.type === "update" && record.sessionId === sessionId ? [record.update] : [],
    );
  }

  /** All the text the agent streamed in a session (`agent_message_chunk` text blocks, joined). */
  textOf(sessionId: string): string {
    let text = "";
    for (const update of this.updates(sessionId)) {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        text += update.content.text;
      }
    }
    return text;
  }

  /** The folded state of a session (thread, plan, mode, ...), if it has any. */
  state(sessionId: string): SessionState | undefined {
    return this.sessions.get(sessionId);
  }

  /** The files (live map: writes of the agent show up here). Empty when files are off. */
  get files(): Map<string, string> {
    return this.fileSystem?.map ?? new Map<string, string>();
  }

  /** The fake terminals created so far. */
  get terminals(): FakeTerminal[] {
    return this.terminalScripts?.list() ?? [];
  }

  /** Closes both ends of the connection. */
  async close(): Promise<void> {
    this.connection?.close();
    this.agentSide?.close();
    await Promise.all([this.connection?.closed, this.agentSide?.closed]);
  }

  /** The recording {@link Client} implementation (used by `connect` and `attach`). */
  client(): Client {
    const r = this.recorder;
    const files = this.fileSystem;
    const terminals = this.terminalScripts;
    const refuse = (method: string) => (): never => {
      throw RequestError.methodNotFound(method);
    };
    const ext = this.options.extMethods ?? {};
    return {
      sessionUpdate: (params) => r.update(params.sessionId, params.update),
      requestPermission: r.request(
        "session/request_permission",
        (p: schema.RequestPermissionRequest) => this.permissions.answer(this.permission, p),
      ),
      readTextFile: r.request(
        "fs/read_text_file",
        files ? (p: schema.ReadTextFileRequest) => files.read(p) : refuse("fs/read_text_file"),
      ),
      writeTextFile: r.request(
        "fs/write_text_file",
        files ? (p: schema.WriteTextFileRequest) => files.write(p) : refuse("fs/write_text_file"),
      ),
      createTerminal: r.request(
        "terminal/create",
        terminals
          ? (p: schema.CreateTerminalRequest) => terminals.create(p)
          : refuse("terminal/create"),
      ),
      terminalOutput: r.request("terminal/output", (p: schema.TerminalOutputRequest) =>
        terminals ? terminals.output(p.terminalId) : refuse("terminal/output")(),
      ),
      waitForTerminalExit: r.request(
        "terminal/wait_for_exit",
        (p: schema.WaitForTerminalExitRequest) =>
          terminals ? terminals.waitForExit(p.terminalId) : refuse("terminal/wait_for_exit")(),
      ),
      killTerminal: r.request("terminal/kill", (p: schema.KillTerminalRequest) =>
        terminals ? terminals.kill(p.terminalId) : refuse("terminal/kill")(),
      ),
      releaseTerminal: r.request("terminal/release", (p: schema.ReleaseTerminalRequest) =>
        terminals ? terminals.release(p.terminalId) : refuse("terminal/release")(),
      ),
      createElicitation: r.request("elicitation/create", refuse("elicitation/create")),
      completeElicitation: (params) => r.notification("elicitation/complete", params),
      extMethod: (method, params) =>
        r.request(method, (p: Record<string, unknown>) => {
          const handler = ext[method];
          return handler === undefined ? refuse(method)() : handler(p);
        })(params),
      extNotification: (method, params) => r.notification(method, params),
    };
  }
}
