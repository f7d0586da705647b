/**
 * The scripted behaviour both sides play in the interop tests, written once and driven
 * through thin adapters (`AgentOps`, `ClientOps`) over whichever SDK plays that side:
 * acp-kit, the official SDK's 2.x builder API, or its 1.9 classic classes. The same
 * script on both ends of every pairing means the assertions can be shared too.
 */
import type {
  CancelNotification,
  ClientCapabilities,
  AgentCapabilities,
  AuthMethod,
  CreateTerminalRequest,
  CreateTerminalResponse,
  Implementation,
  InitializeRequest,
  InitializeResponse,
  KillTerminalRequest,
  NewSessionRequest,
  NewSessionResponse,
  PromptRequest,
  PromptResponse,
  ReadTextFileRequest,
  ReadTextFileResponse,
  ReleaseTerminalRequest,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  SessionUpdate,
  TerminalExitStatus,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from "../../packages/acp-kit/src/index.js";
import { deferred, whenAborted, type AbortOutcome, type Deferred } from "./interop-wire.js";

// ---------------------------------------------------------------------------------------
// Shared constants

export const ROOT = "/work/project";
export const NOTES_PATH = `${ROOT}/notes.txt`;
export const NOTES = 'line one\nline two — ünïcödé ✅\nline three "quoted" \\ back\nline four\n';

export const CLIENT_INFO: Implementation = {
  name: "interop-client",
  title: "Interop client",
  version: "1.2.3",
};

export const CLIENT_CAPABILITIES: ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  _meta: { "example.com/ping": { version: 2 } },
};

export const AGENT_INFO: Implementation = {
  name: "interop-agent",
  title: "Interop agent",
  version: "0.9.0",
};

export const AGENT_CAPABILITIES: AgentCapabilities = {
  loadSession: false,
  promptCapabilities: { image: true, audio: false, embeddedContext: true },
  mcpCapabilities: { http: true, sse: false },
  _meta: { "example.com/ping": { version: 2 } },
};

export const AUTH_METHODS: AuthMethod[] = [
  { id: "api-key", name: "API key", description: "Paste a key from the dashboard" },
];

export const NEW_SESSION: NewSessionRequest = {
  cwd: ROOT,
  mcpServers: [
    {
      name: "files",
      command: "/usr/local/bin/mcp-files",
      args: ["--root", ROOT],
      env: [{ name: "LOG_LEVEL", value: "debug" }],
    },
  ],
};

export const SESSION_MODES = {
  currentModeId: "code",
  availableModes: [
    { id: "code", name: "Code" },
    { id: "ask", name: "Ask", description: "Answers questions, changes nothing" },
  ],
};

/** Prompt texts that select a scenario. */
export const Scenario = {
  updates: "updates",
  permission: "permission",
  fs: "fs",
  terminal: "terminal",
  cancel: "cancel",
  cancelPermission: "cancel-permission",
  fail: "fail",
} as const;

export function promptFor(sessionId: string, scenario: string): PromptRequest {
  return { sessionId, prompt: [{ type: "text", text: scenario }] };
}

/** The updates of the "updates" scenario, in the order they are sent. */
export const SCRIPTED_UPDATES: SessionUpdate[] = [
  {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: "Let me look at the notes.\n" },
    messageId: "msg-1",
  },
  {
    sessionUpdate: "plan",
    entries: [
      { content: "Read notes.txt", priority: "high", status: "in_progress" },
      { content: "Summarise them", priority: "medium", status: "pending" },
    ],
  },
  {
    sessionUpdate: "tool_call",
    toolCallId: "call-read",
    title: "Reading notes.txt",
    kind: "read",
    status: "pending",
    locations: [{ path: NOTES_PATH, line: 2 }],
    rawInput: { path: NOTES_PATH, nested: { list: [1, 2, 3], flag: true } },
  },
  { sessionUpdate: "tool_call_update", toolCallId: "call-read", status: "in_progress" },
  {
    sessionUpdate: "tool_call_update",
    toolCallId: "call-read",
    status: "completed",
    content: [
      { type: "content", content: { type: "text", text: "4 lines" } },
      { type: "diff", path: NOTES_PATH, oldText: "line one", newText: "line 1" },
    ],
    rawOutput: { lines: 4 },
  },
  {
    sessionUpdate: "usage_update",
    used: 1234,
    size: 200_000,
    cost: { amount: 0.0421, currency: "USD" },
  },
  {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: 'Done — 4 lines, "quoted", ✅ \u2028 and a\nnewline.' },
    messageId: "msg-1",
  },
];

export const PERMISSION_REQUEST = (sessionId: string): RequestPermissionRequest => ({
  sessionId,
  toolCall: {
    toolCallId: "call-edit",
    title: "Edit README.md",
    kind: "edit",
    status: "pending",
    locations: [{ path: `${ROOT}/README.md` }],
  },
  options: [
    { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
    { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
    { optionId: "reject-once", name: "Reject", kind: "reject_once" },
  ],
});

export const CANCEL_PERMISSION_TOOL_CALL = "call-cancel-perm";

export const TERMINAL_REQUEST = (sessionId: string): CreateTerminalRequest => ({
  sessionId,
  command: "npm",
  args: ["test", "--", "--reporter=dot"],
  env: [{ name: "CI", value: "1" }],
  cwd: ROOT,
  outputByteLimit: 4096,
});

/** The error the "fail" scenario throws: a custom code with structured data. */
export const FAIL_ERROR = {
  code: -32099,
  message: "Model quota exceeded",
  data: { retryAfterMs: 1500, model: "m-1", tags: ["quota", "billing"], nested: { ok: false } },
};

/** The error the client's fake file system throws for a path outside the root. */
export const DENIED_ERROR = (path: string) => ({
  code: -32042,
  message: "Path is outside the workspace",
  data: { path, root: ROOT },
});

export type ErrorFactory = (code: number, message: string, data: unknown) => Error;

export interface ExtCall {
  readonly method: string;
  readonly params: unknown;
}

// ---------------------------------------------------------------------------------------
// Agent side

/** A terminal handle: acp-kit's `TerminalHandle` or the official one. */
export interface TerminalLike {
  readonly id: string;
  currentOutput(): Promise<TerminalOutputResponse>;
  waitForExit(): Promise<WaitForTerminalExitResponse>;
  release(): Promise<unknown>;
}

/** How the agent script calls its client, per SDK. */
export interface AgentOps {
  update(notification: SessionNotification): Promise<void>;
  requestPermission(
    params: RequestPermissionRequest,
    signal?: AbortSignal,
  ): Promise<RequestPermissionResponse>;
  readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse | void>;
  createTerminal(params: CreateTerminalRequest): Promise<TerminalLike>;
  makeError: ErrorFactory;
}

export interface Settled<T> {
  response?: T;
  error?: unknown;
}

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { response: await promise };
  } catch (error) {
    return { error };
  }
}

/** The agent's scripted behaviour and what it observed. */
export class AgentScript {
  initializeParams: InitializeRequest | undefined;
  readonly newSessions: NewSessionRequest[] = [];
  readonly cancels: CancelNotification[] = [];
  readonly extRequests: ExtCall[] = [];
  readonly extNotifications: ExtCall[] = [];
  permission: Settled<RequestPermissionResponse> | undefined;
  cascade: Settled<RequestPermissionResponse> | undefined;
  fs:
    | {
        read: ReadTextFileResponse;
        write: WriteTextFileResponse | void;
        denied: Settled<ReadTextFileResponse>;
      }
    | undefined;
  terminal:
    | {
        id: string;
        early: TerminalOutputResponse;
        exit: WaitForTerminalExitResponse;
        final: TerminalOutputResponse;
        released: unknown;
      }
    | undefined;
  slow: AbortOutcome | undefined;
  /** How many `_example/slow` handlers have started. */
  slowCalls = 0;
  private sessionCount = 0;
  private readonly turns = new Map<string, Deferred<void>>();

  initialize(params: InitializeRequest): InitializeResponse {
    this.initializeParams = params;
    return {
      protocolVersion: Math.min(params.protocolVersion, 1),
      agentCapabilities: AGENT_CAPABILITIES,
      authMethods: AUTH_METHODS,
      agentInfo: AGENT_INFO,
    };
  }

  newSession(params: NewSessionRequest): NewSessionResponse {
    this.newSessions.push(params);
    this.sessionCount += 1;
    return { sessionId: `sess-${this.sessionCount}`, modes: SESSION_MODES };
  }

  cancel(params: CancelNotification): void {
    this.cancels.push(params);
    this.turns.get(params.sessionId)?.resolve();
  }

  ping(method: string, params: unknown, from: string): Record<string, unknown> {
    this.extRequests.push({ method, params });
    return { pong: true, from, echo: params };
  }

  notified(method: string, params: unknown): void {
    this.extNotifications.push({ method, params });
  }

  /** Forgets the last `_example/slow` outcome. */
  resetSlow(): void {
    this.slow = undefined;
  }

  /** `_example/slow`: waits to be cancelled, then fails with the signal's reason. */
  async slowRequest(signal: AbortSignal, ops: Pick<AgentOps, "makeError">): Promise<never> {
    this.slowCalls += 1;
    this.slow = await whenAborted(signal);
    if (!this.slow.aborted) throw ops.makeError(-32603, "never cancelled", null);
    throw this.slow.reason;
  }

  /**
   * `_example/slow` for SDKs whose handlers get no abort signal: answers normally once
   * `seen` (the peer's `$/cancel_request` crossed the wire) resolves.
   */
  async slowUntil(seen: Promise<unknown>): Promise<Record<string, unknown>> {
    this.slowCalls += 1;
    await seen;
    this.slow = { aborted: false, reason: undefined };
    return { late: true };
  }

  async prompt(ops: AgentOps, params: PromptRequest): Promise<PromptResponse> {
    const { sessionId } = params;
    const first = params.prompt[0];
    const scenario = first?.type === "text" ? first.text : "";
    const update = (u: SessionUpdate): Promise<void> => ops.update({ sessionId, update: u });
    switch (scenario) {
      case Scenario.updates:
        for (const u of SCRIPTED_UPDATES) await update(u);
        return { stopReason: "end_turn" };
      case Scenario.permission:
        this.permission = await settle(ops.requestPermission(PERMISSION_REQUEST(sessionId)));
        return { stopReason: "end_turn" };
      case Scenario.fs: {
        const read = await ops.readTextFile({ sessionId, path: NOTES_PATH, line: 2, limit: 2 });
        const write = await ops.writeTextFile({
          sessionId,
          path: `${ROOT}/NOTES.md`,
          content: read.content.toUpperCase(),
        });
        const denied = await settle(ops.readTextFile({ sessionId, path: "/etc/passwd" }));
        this.fs = { read, write, denied };
        return { stopReason: "end_turn" };
      }
      case Scenario.terminal: {
        const terminal = await ops.createTerminal(TERMINAL_REQUEST(sessionId));
        await update({
          sessionUpdate: "tool_call",
          toolCallId: "call-term",
          title: "npm test",
          kind: "execute",
          status: "in_progress",
          content: [{ type: "terminal", terminalId: terminal.id }],
        });
        const early = await terminal.currentOutput();
        const exit = await terminal.waitForExit();
        const final = await terminal.currentOutput();
        const released = await terminal.release();
        this.terminal = { id: terminal.id, early, exit, final, released };
        await update({
          sessionUpdate: "tool_call_update",
          toolCallId: "call-term",
          status: "completed",
        });
        return { stopReason: "end_turn" };
      }
      case Scenario.cancel: {
        const turn = this.beginTurn(sessionId);
        await update({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "Working on it…" },
        });
        await update({
          sessionUpdate: "tool_call",
          toolCallId: "call-long",
          title: "Long task",
          kind: "execute",
          status: "in_progress",
        });
        await turn.promise;
        // Updates after session/cancel are allowed, as long as they precede the response.
        await update({
          sessionUpdate: "tool_call_update",
          toolCallId: "call-long",
          status: "failed",
          rawOutput: { cancelled: true },
        });
        return { stopReason: "cancelled" };
      }
      case Scenario.cancelPermission: {
        const turn = this.beginTurn(sessionId);
        const controller = new AbortController();
        void turn.promise.then(() => controller.abort(new Error("the turn was cancelled")));
        await update({
          sessionUpdate: "tool_call",
          toolCallId: CANCEL_PERMISSION_TOOL_CALL,
          title: "rm -rf build",
          kind: "delete",
          status: "pending",
        });
        this.cascade = await settle(
          ops.requestPermission(
            {
              sessionId,
              toolCall: { toolCallId: CANCEL_PERMISSION_TOOL_CALL },
              options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
            },
            controller.signal,
          ),
        );
        await update({
          sessionUpdate: "tool_call_update",
          toolCallId: CANCEL_PERMISSION_TOOL_CALL,
          status: "failed",
        });
        return { stopReason: "cancelled" };
      }
      case Scenario.fail:
        throw ops.makeError(FAIL_ERROR.code, FAIL_ERROR.message, FAIL_ERROR.data);
      default:
        throw ops.makeError(-32602, "Unknown scenario", { scenario });
    }
  }

  private beginTurn(sessionId: string): Deferred<void> {
    const turn = deferred();
    this.turns.set(sessionId, turn);
    void turn.promise.then(() => this.turns.delete(sessionId));
    return turn;
  }
}

// ---------------------------------------------------------------------------------------
// Client side

/** A fake editor file system rooted at {@link ROOT}. */
export class FakeFs {
  readonly files = new Map<string, string>([[NOTES_PATH, NOTES]]);
  readonly reads: ReadTextFileRequest[] = [];
  readonly writes: WriteTextFileRequest[] = [];

  constructor(private readonly makeError: ErrorFactory) {}

  read(params: ReadTextFileRequest): ReadTextFileResponse {
    this.reads.push(params);
    if (!params.path.startsWith(`${ROOT}/`)) {
      const e = DENIED_ERROR(params.path);
      throw this.makeError(e.code, e.message, e.data);
    }
    const content = this.files.get(params.path);
    if (content === undefined)
      throw this.makeError(-32002, "Resource not found", { uri: params.path });
    const lines = content.split(/(?<=\n)/);
    const start = (params.line ?? 1) - 1;
    const end =
      params.limit === undefined || params.limit === null ? lines.length : start + params.limit;
    return { content: lines.slice(start, end).join("") };
  }

  write(params: WriteTextFileRequest): WriteTextFileResponse {
    this.writes.push(params);
    this.files.set(params.path, params.content);
    return {};
  }
}

interface FakeTerminal {
  output: string;
  exit: TerminalExitStatus | undefined;
  released: boolean;
}

/**
 * Fake terminals: a command "runs" until someone waits for it, then prints its last
 * line and exits 0 (deterministic, no processes, no timers left behind).
 */
export class FakeTerminalHost {
  readonly calls: string[] = [];
  readonly created: CreateTerminalRequest[] = [];
  readonly terminals = new Map<string, FakeTerminal>();

  create(params: CreateTerminalRequest): CreateTerminalResponse {
    this.calls.push("create");
    this.created.push(params);
    const terminalId = `term-${this.terminals.size + 1}`;
    this.terminals.set(terminalId, {
      output: `$ ${params.command} ${(params.args ?? []).join(" ")}\nrunning 42 tests\n`,
      exit: undefined,
      released: false,
    });
    return { terminalId };
  }

  output(params: TerminalOutputRequest): TerminalOutputResponse {
    this.calls.push("output");
    const t = this.get(params.terminalId);
    return t.exit === undefined
      ? { output: t.output, truncated: false }
      : { output: t.output, truncated: false, exitStatus: t.exit };
  }

  async waitForExit(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse> {
    this.calls.push("wait_for_exit");
    const t = this.get(params.terminalId);
    await new Promise((r) => setTimeout(r, 5));
    t.output += "42 passed ✅\n";
    t.exit = { exitCode: 0, signal: null };
    return t.exit;
  }

  kill(params: KillTerminalRequest): Record<string, never> {
    this.calls.push("kill");
    this.get(params.terminalId).exit ??= { exitCode: null, signal: "SIGTERM" };
    return {};
  }

  release(params: ReleaseTerminalRequest): Record<string, never> {
    this.calls.push("release");
    this.get(params.terminalId).released = true;
    return {};
  }

  private get(id: string): FakeTerminal {
    const t = this.terminals.get(id);
    if (t === undefined || t.released) throw new Error(`unknown terminal ${id}`);
    return t;
  }
}

/** How the client script calls its agent, per SDK. */
export interface ClientOps {
  cancel(sessionId: string): Promise<void>;
  makeError: ErrorFactory;
  /**
   * For SDKs whose handlers get no abort signal: called when a handler starts, resolves
   * once a further `$/cancel_request` from the agent has crossed the wire.
   */
  watchCancelRequest?: () => Promise<void>;
}

/** The client's scripted behaviour and what it observed. */
export class ClientScript {
  readonly updates: SessionNotification[] = [];
  readonly permissionRequests: RequestPermissionRequest[] = [];
  readonly extRequests: ExtCall[] = [];
  readonly extNotifications: ExtCall[] = [];
  readonly fs: FakeFs;
  readonly terminals = new FakeTerminalHost();
  cascade: AbortOutcome | undefined;
  slow: AbortOutcome | undefined;
  /** How many `_example/slow` handlers have started. */
  slowCalls = 0;
  permissionAnswer: RequestPermissionResponse = {
    outcome: { outcome: "selected", optionId: "allow-once" },
  };

  constructor(private readonly ops: ClientOps) {
    this.fs = new FakeFs(ops.makeError);
  }

  sessionUpdate(notification: SessionNotification): void {
    this.updates.push(notification);
  }

  updatesOf(sessionId: string): SessionUpdate[] {
    return this.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  }

  /**
   * Answers the permission request; for the cancel-permission tool call it cancels the
   * turn first and answers `cancelled` once the agent cancelled this very request.
   */
  async requestPermission(
    params: RequestPermissionRequest,
    signal?: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    this.permissionRequests.push(params);
    if (params.toolCall.toolCallId !== CANCEL_PERMISSION_TOOL_CALL) return this.permissionAnswer;
    const seen = signal === undefined ? this.ops.watchCancelRequest?.() : undefined;
    await this.ops.cancel(params.sessionId);
    if (signal !== undefined) {
      this.cascade = await whenAborted(signal);
    } else {
      await seen;
      this.cascade = { aborted: false, reason: undefined };
    }
    return { outcome: { outcome: "cancelled" } };
  }

  ping(method: string, params: unknown, from: string): Record<string, unknown> {
    this.extRequests.push({ method, params });
    return { pong: true, from, echo: params };
  }

  notified(method: string, params: unknown): void {
    this.extNotifications.push({ method, params });
  }

  /** Forgets the last `_example/slow` outcome. */
  resetSlow(): void {
    this.slow = undefined;
  }

  /** `_example/slow`: waits to be cancelled, then fails the way aborted code does. */
  async slowRequest(signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    this.slowCalls += 1;
    if (signal === undefined) {
      await this.ops.watchCancelRequest?.();
      this.slow = { aborted: false, reason: undefined };
      return { late: true };
    }
    this.slow = await whenAborted(signal);
    if (!this.slow.aborted) throw this.ops.makeError(-32603, "never cancelled", null);
    throw new DOMException("The operation was aborted", "AbortError");
  }
}
