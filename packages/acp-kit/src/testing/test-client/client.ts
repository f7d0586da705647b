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
import type * as v2 from "../../schema/v2/types.gen.js";
import type { Agent as V2Agent, Client as V2Client } from "../../v2/agent.js";
import { AgentSideConnection as V2AgentSideConnection } from "../../v2/agent-side-connection.js";
import { ClientSideConnection as V2ClientSideConnection } from "../../v2/client-side-connection.js";
import { negotiate } from "../../v2/negotiate.js";
import type { SessionState } from "../../session/state.js";
import { SessionStore } from "../../session/store.js";
import { memoryStreamPair } from "../../transport/memory.js";
import { VERSION } from "../../base/version.js";
import { MemoryFiles } from "./files.js";
import { PendingTestPermissions, type TestClientPermission } from "./permissions.js";
import { Recorder, type RequestRecord, type TestClientRecord } from "./records.js";
import { FakeTerminals, type FakeTerminal, type TerminalScripts } from "./terminals.js";
import { V2Sessions } from "./v2.js";

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
  /**
   * The ACP version {@link TestClient.open} speaks: `1` (default), `2`, or `"auto"` (v2
   * when the agent speaks it, else v1, through `negotiate()`). {@link TestClient.connect}
   * and {@link TestClient.attach} are v1, {@link TestClient.connectV2} is v2. A v2 client
   * has no file system or terminals to offer (v2 has none); its updates are folded with
   * `reduceSessionV2` (see docs/testing.md, "ACP v2").
   */
  readonly protocol?: 1 | 2 | "auto";
  /** v2: the client capabilities sent in `initialize` (default `{}`). */
  readonly capabilitiesV2?: v2.ClientCapabilities;
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
  private connectionV2: V2ClientSideConnection | undefined;
  private agentSideV2: V2AgentSideConnection | undefined;
  private initializedV2: Promise<v2.InitializeResponse> | undefined;
  private readonly v2 = new V2Sessions();

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
    if (this.connection !== undefined || this.connectionV2 !== undefined) {
      throw new Error("This TestClient is already connected");
    }
    this.connection = new ClientSideConnection(
      () => this.sessions.wrap(this.client()),
      stream,
      options,
    );
    return this.connection;
  }

  /**
   * Runs a v2 agent in memory and connects to it as a v2 client (the `protocol` option
   * does not matter here). Returns the v2 connection to the agent.
   */
  connectV2(
    toAgent: (connection: V2AgentSideConnection) => V2Agent,
    options?: AcpConnectionOptions,
  ): V2ClientSideConnection {
    if (this.connection !== undefined || this.connectionV2 !== undefined) {
      throw new Error("This TestClient is already connected");
    }
    const pair = memoryStreamPair();
    this.agentSideV2 = new V2AgentSideConnection(toAgent, pair.agent, options);
    this.connectionV2 = new V2ClientSideConnection(() => this.clientV2(), pair.client, options);
    return this.connectionV2;
  }

  /**
   * Connects over any stream with the version of the `protocol` option, and initializes:
   * `1` as {@link TestClient.attach} then `initialize`, `2` a v2 `initialize`, `"auto"`
   * through `negotiate()` (v2 first, v1 when the agent refuses it). Resolves with the
   * version agreed.
   */
  async open(stream: Stream, options?: AcpConnectionOptions): Promise<1 | 2> {
    const protocol = this.options.protocol ?? 1;
    if (protocol === 1) {
      this.attach(stream, options);
      await this.initialize();
      return 1;
    }
    if (this.connection !== undefined || this.connectionV2 !== undefined) {
      throw new Error("This TestClient is already connected");
    }
    const info = this.options.clientInfo ?? { name: "acp-kit-test-client", version: VERSION };
    if (protocol === 2) {
      this.connectionV2 = new V2ClientSideConnection(() => this.clientV2(), stream, options);
      await this.initializeV2();
      return 2;
    }
    const agreed = await negotiate(stream, {
      protocol: "auto",
      info,
      capabilities: this.options.capabilitiesV2 ?? {},
      clientCapabilities: this.capabilities,
      v1: () => this.sessions.wrap(this.client()),
      v2: () => this.clientV2(),
      ...(options === undefined ? {} : { connectionOptions: options }),
    });
    if (agreed.version === 2) {
      this.connectionV2 = agreed.connection;
      this.initializedV2 = Promise.resolve(agreed.response);
    } else {
      this.connection = agreed.connection;
      this.initialized = Promise.resolve(agreed.response);
    }
    return agreed.version;
  }

  /** The version this client speaks, once connected. */
  get version(): 1 | 2 | undefined {
    if (this.connectionV2 !== undefined) return 2;
    return this.connection === undefined ? undefined : 1;
  }

  /** The connection to the agent (throws before `connect`/`attach`). */
  get agent(): ClientSideConnection {
    if (this.connection === undefined) throw new Error("Call connect() or attach() first");
    return this.connection;
  }

  /** The v2 connection to the agent (throws unless connected in v2). */
  get agentV2(): V2ClientSideConnection {
    if (this.connectionV2 === undefined) throw new Error("This TestClient is not connected in v2");
    return this.connectionV2;
  }

  /** v2 `initialize` with this client's info and v2 capabilities (once). */
  initializeV2(params: Partial<v2.InitializeRequest> = {}): Promise<v2.InitializeResponse> {
    this.initializedV2 ??= this.agentV2.initialize({
      protocolVersion: 2,
      info: this.options.clientInfo ?? { name: "acp-kit-test-client", version: VERSION },
      capabilities: this.options.capabilitiesV2 ?? {},
      ...params,
    });
    return this.initializedV2;
  }

  /** v2 `session/new` (after `initialize`); its config options and commands are folded. */
  async newSessionV2(params: Partial<v2.NewSessionRequest> = {}): Promise<v2.NewSessionResponse> {
    await this.initializeV2();
    const response = await this.agentV2.newSession({
      cwd: this.options.cwd ?? "/project",
      ...params,
    });
    this.v2.setup(response.sessionId, response);
    return response;
  }

  /**
   * v2 `session/resume` (after `initialize`), by default with a full replay
   * (`replayFrom: { type: "start" }`): the session's folded state starts over and the
   * replay lands in it, as a v1 `session/load` does.
   */
  async resumeSessionV2(
    sessionId: string,
    params: Partial<v2.ResumeSessionRequest> = {},
  ): Promise<v2.ResumeSessionResponse> {
    await this.initializeV2();
    const request: v2.ResumeSessionRequest = {
      sessionId,
      cwd: this.options.cwd ?? "/project",
      replayFrom: { type: "start" },
      ...params,
    };
    if (request.replayFrom?.type === "start") this.v2.reset(sessionId);
    const response = await this.agentV2.resumeSession(request);
    this.v2.setup(sessionId, response);
    return response;
  }

  /** The v2 updates of a session, in arrival order (also in `records`, as `update_v2`). */
  updatesV2(sessionId: string): v2.SessionUpdate[] {
    return this.recorder.records.flatMap((record) =>
      record.type === "update_v2" && record.sessionId === sessionId ? [record.update] : [],
    );
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

  /**
   * One prompt turn: text (one text block) or content blocks. In v2 it resolves once the
   * session's `idle` ends the turn, with that idle's `stopReason` (an `error` idle rejects
   * with its error, as a failed v1 prompt does).
   */
  async prompt(
    sessionId: string,
    prompt: string | readonly schema.ContentBlock[],
  ): Promise<schema.PromptResponse> {
    const blocks = typeof prompt === "string" ? [{ type: "text" as const, text: prompt }] : prompt;
    if (this.connectionV2 === undefined) {
      return this.sessions.prompt(this.agent, { sessionId, prompt: [...blocks] });
    }
    const agent = this.connectionV2;
    const ended = await this.v2.turn(sessionId, () =>
      agent.prompt({ sessionId, prompt: [...blocks] as v2.ContentBlock[] }),
    );
    return { stopReason: ended.stopReason as schema.StopReason };
  }

  /** Cancels the session's turn: pending permission requests answer `cancelled`, then `session/cancel`. */
  async cancel(sessionId: string): Promise<void> {
    this.permissions.cancelSession(sessionId);
    if (this.connectionV2 !== undefined) {
      await this.connectionV2.cancel({ sessionId });
      return;
    }
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

  /** The updates of a session, in arrival order (v1; in v2 see {@link TestClient.updatesV2}). */
  updates(sessionId: string): schema.SessionUpdate[] {
    if (this.connectionV2 !== undefined) {
      throw new Error("This TestClient speaks v2: read updatesV2(sessionId)");
    }
    return this.recorder.records.flatMap((record) =>
      record.type === "update" && record.sessionId === sessionId ? [record.update] : [],
    );
  }

  /**
   * All the text the agent streamed in a session (`agent_message_chunk` text blocks,
   * joined; in v2 the text blocks of the agent messages as folded).
   */
  textOf(sessionId: string): string {
    let text = "";
    if (this.connectionV2 !== undefined) {
      for (const item of this.v2.has(sessionId) ? this.v2.get(sessionId).state.thread : []) {
        if (item.type !== "message" || item.role !== "agent") continue;
        for (const block of item.content) if (block.type === "text") text += block.text;
      }
      return text;
    }
    for (const update of this.updates(sessionId)) {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        text += update.content.text;
      }
    }
    return text;
  }

  /**
   * The folded state of a session (thread, plan, mode, ...), if it has any. In v2 folded by
   * `reduceSessionV2`: plans are in `plans`, terminals in `terminals`, the foreground
   * state in `activity`.
   */
  state(sessionId: string): SessionState | undefined {
    if (this.connectionV2 !== undefined) {
      return this.v2.has(sessionId) ? this.v2.get(sessionId).state : undefined;
    }
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
    this.connectionV2?.close();
    this.agentSideV2?.close();
    await Promise.all([
      this.connection?.closed,
      this.agentSide?.closed,
      this.connectionV2?.closed,
      this.agentSideV2?.closed,
    ]);
  }

  /**
   * The recording v2 {@link V2Client} (used by {@link TestClient.connectV2} and
   * {@link TestClient.open}): updates are recorded and folded, permission requests
   * answered by the policy (a policy function gets the v2 request).
   */
  clientV2(): V2Client {
    const r = this.recorder;
    const ext = this.options.extMethods ?? {};
    const refuse = (method: string) => (): never => {
      throw RequestError.methodNotFound(method);
    };
    return {
      sessionUpdate: (params) => {
        r.updateV2(params.sessionId, params.update);
        this.v2.update(params);
      },
      // A request the agent withdraws with `$/cancel_request` (its work was cancelled)
      // is answered `cancelled`, as v2 asks of clients.
      requestPermission: (params, context) =>
        r.request(
          "session/request_permission",
          (p: v2.RequestPermissionRequest) =>
            this.permissions.answer(
              this.permission,
              p as unknown as schema.RequestPermissionRequest,
              context?.signal,
            ) as v2.RequestPermissionResponse | Promise<v2.RequestPermissionResponse>,
        )(params),
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
