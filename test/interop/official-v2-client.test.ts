/**
 * acp-kit's v2 client side against the official SDK 2.4.0 v2 `agent()`, differentially:
 * a scripted official agent emits every `SessionUpdate` variant of the pinned schema (and
 * an unknown `_x` one), holds prompts during a turn, answers them `-32800` on cancel,
 * answers a second `session/close` `-32002`, and answers `tool_call/cancel` and
 * `terminal/cancel`. The official v2 `client()` drives it first (the baseline), then
 * acp-kit's `ClientSideConnection`; both must see the same updates and answers, on real
 * NDJSON byte pipes, and folding ours with `reduceSessionV2` gives the transcript written
 * out below.
 */
import {
  agent as officialAgent,
  client as officialClient,
  ndJsonStream as theirNdJsonStream,
  RequestError as TheirRequestError,
  type AgentContext,
} from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { emptySessionState } from "../../packages/acp-kit/src/session/state.js";
import {
  ClientSideConnection,
  ndJsonStream,
  reduceSessionV2,
  RequestError,
  terminalOutputText,
  validateV2,
  type RequestPermissionResponse,
  type SessionUpdate,
  type UpdateSessionNotification,
} from "../../packages/acp-kit/src/v2/index.js";
import {
  caught,
  deferred,
  interopWire,
  until,
  type Deferred,
  type InteropWire,
} from "../support/interop-wire.js";

const ROOT = "/work/project";
const INFO = { name: "v2-agent", version: "1.0.0" };
const CLIENT_INFO = { name: "v2-client", version: "1.0.0" };
const INIT_RESPONSE = { protocolVersion: 2, info: INFO, capabilities: { session: {} } };
const SESSION = "s-1";
const b64 = (bytes: string | Uint8Array): string => Buffer.from(bytes).toString("base64");
const text = (t: string) => ({ type: "text" as const, text: t });
/** "✅" is three bytes in UTF-8: split across two chunks, decoded whole. */
const CHECK = new TextEncoder().encode("✅");

/** Every update variant of the pinned v2 schema, in the order the "everything" turn sends them. */
const EVERYTHING: readonly Record<string, unknown>[] = [
  { sessionUpdate: "user_message_chunk", messageId: "u-extra", content: text("also ") },
  { sessionUpdate: "user_message_chunk", messageId: "u-extra", content: text("this") },
  { sessionUpdate: "agent_thought_chunk", messageId: "th-1", content: text("Let me ") },
  { sessionUpdate: "agent_thought_chunk", messageId: "th-1", content: text("think") },
  { sessionUpdate: "agent_thought", messageId: "th-2", content: [text("A whole thought")] },
  { sessionUpdate: "agent_message_chunk", messageId: "a-1", content: text("Hel") },
  { sessionUpdate: "agent_message_chunk", messageId: "a-1", content: text("lo") },
  // A whole-message upsert replaces what the chunks built; later chunks append to it.
  { sessionUpdate: "agent_message", messageId: "a-1", content: [text("Hi")] },
  { sessionUpdate: "agent_message_chunk", messageId: "a-1", content: text(" there") },
  { sessionUpdate: "agent_message", messageId: "a-2", content: [text("to be cleared")] },
  { sessionUpdate: "agent_message", messageId: "a-2", content: null },
  { sessionUpdate: "state_update", state: "requires_action", background: null },
  { sessionUpdate: "state_update", state: "running", background: [] },
  {
    sessionUpdate: "tool_call_update",
    toolCallId: "t1",
    name: "shell",
    title: "Run tests",
    kind: "execute",
    status: "in_progress",
    rawInput: { cmd: "npm test" },
    locations: [{ path: `${ROOT}/a.ts`, line: 3 }],
    capabilities: { cancel: {} },
    _meta: { a: 1, b: 2 },
  },
  {
    sessionUpdate: "tool_call_content_chunk",
    toolCallId: "t1",
    content: { type: "content", content: text("out 1") },
  },
  {
    sessionUpdate: "tool_call_content_chunk",
    toolCallId: "t1",
    content: { type: "terminal", terminalId: "term-1" },
  },
  // `null` clears: title → "", kind → other, locations → [], rawInput removed; `_meta` by key.
  {
    sessionUpdate: "tool_call_update",
    toolCallId: "t1",
    title: null,
    kind: null,
    locations: null,
    rawInput: null,
    status: "paused",
    _meta: { a: null, c: 3 },
  },
  // A first update with only content creates the call with the defaults.
  {
    sessionUpdate: "tool_call_update",
    toolCallId: "t2",
    content: [
      {
        type: "diff",
        changes: [
          { operation: "modify", path: `${ROOT}/a.ts` },
          { operation: "move", oldPath: `${ROOT}/b.ts`, path: `${ROOT}/c.ts` },
        ],
        patch: { format: "git_patch", text: "--- a/a.ts\n+++ b/a.ts\n" },
      },
    ],
  },
  {
    sessionUpdate: "tool_call_update",
    toolCallId: "t2",
    status: "completed",
    rawOutput: { ok: 1 },
  },
  {
    sessionUpdate: "state_update",
    state: "running",
    background: [
      { type: "tool_call", toolCallId: "t1" },
      { type: "terminal", terminalId: "term-1" },
      { type: "_x_work", ref: "w1" },
    ],
  },
  {
    sessionUpdate: "terminal_update",
    terminalId: "term-1",
    command: "npm test",
    cwd: ROOT,
    size: { cols: 80, rows: 24 },
    capabilities: { cancel: {} },
  },
  {
    sessionUpdate: "terminal_output_chunk",
    terminalId: "term-1",
    data: b64(new Uint8Array([...new TextEncoder().encode("42 tests "), ...CHECK.subarray(0, 1)])),
  },
  {
    sessionUpdate: "terminal_output_chunk",
    terminalId: "term-1",
    data: b64(new Uint8Array([...CHECK.subarray(1), 10])),
  },
  { sessionUpdate: "terminal_update", terminalId: "term-2", output: { data: b64("old\n") } },
  { sessionUpdate: "terminal_update", terminalId: "term-2", output: { data: b64("snapshot\n") } },
  { sessionUpdate: "terminal_output_chunk", terminalId: "term-2", data: b64("more\n") },
  { sessionUpdate: "terminal_update", terminalId: "term-2", exitStatus: { exitCode: 0 } },
  {
    sessionUpdate: "plan_update",
    plan: {
      type: "items",
      planId: "p1",
      entries: [{ content: "Write tests", priority: "high", status: "in_progress" }],
    },
  },
  {
    sessionUpdate: "plan_update",
    plan: {
      type: "items",
      planId: "p2",
      entries: [{ content: "Ship", priority: "low", status: "pending" }],
    },
  },
  {
    sessionUpdate: "plan_update",
    plan: {
      type: "items",
      planId: "p1",
      entries: [{ content: "Write tests", priority: "high", status: "completed" }],
    },
  },
  { sessionUpdate: "plan_removed", planId: "p2" },
  {
    sessionUpdate: "available_commands_update",
    availableCommands: [
      {
        type: "command",
        name: "test",
        description: "Run tests",
        input: { type: "text", hint: "filter" },
      },
    ],
  },
  {
    sessionUpdate: "config_option_update",
    configOptions: [
      {
        type: "select",
        configId: "model",
        name: "Model",
        currentValue: "fast",
        options: [
          { value: "fast", name: "Fast" },
          { value: "smart", name: "Smart" },
        ],
      },
      { type: "boolean", configId: "yolo", name: "YOLO", currentValue: false },
    ],
  },
  { sessionUpdate: "session_info_update", title: "Testing", updatedAt: "2026-11-28T12:00:00Z" },
  {
    sessionUpdate: "usage_update",
    used: 1200,
    size: 200000,
    cost: { amount: 0.12, currency: "USD" },
  },
  { sessionUpdate: "notice", severity: "warning", title: "Rate limited", description: "Slower" },
  { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" },
  { sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: text("Summary: ") },
  { sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: text("tests") },
  { sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" },
  { sessionUpdate: "_x_custom", payload: { any: "thing" } },
];

/** The idle each `stop:<reason>` prompt ends with. */
const IDLES: Readonly<Record<string, Record<string, unknown>>> = {
  end_turn: { stopReason: "end_turn" },
  max_tokens: {
    stopReason: "max_tokens",
    usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30 },
  },
  max_turn_requests: { stopReason: "max_turn_requests" },
  refusal: { stopReason: "refusal" },
  cancelled: { stopReason: "cancelled" },
  error: {
    stopReason: "error",
    error: { code: -32603, message: "the model failed", data: { retryAfter: 5 } },
  },
  _x_custom: { stopReason: "_x_custom" },
  snapshot: { stopReason: null },
};

/** Lets the test end the turn the "hold" prompt started. */
interface Control {
  release?: Deferred<void>;
}

/** The scripted official v2 agent. */
function scriptedAgent(wire: InteropWire, control: Control): { close(): void } {
  let ids = 0;
  let busy = false;
  const held: { start(): void; reject(error: unknown): void }[] = [];
  const closed = new Set<string>();
  const turnState = { cancelled: false };
  const update = (cx: AgentContext, u: Record<string, unknown>): Promise<void> =>
    cx.notify("session/update", { sessionId: SESSION, update: u } as never);

  const startTurn = async (
    cx: AgentContext,
    prompt: readonly unknown[],
  ): Promise<{ messageId: string }> => {
    busy = true;
    turnState.cancelled = false;
    const messageId = `u-${++ids}`;
    await update(cx, { sessionUpdate: "user_message", messageId, content: prompt });
    await update(cx, { sessionUpdate: "state_update", state: "running" });
    const first = prompt[0] as { type?: unknown; text?: unknown } | undefined;
    const said = first?.type === "text" && typeof first.text === "string" ? first.text : "";
    void (async () => {
      let idle: Record<string, unknown> = { stopReason: "end_turn" };
      if (said === "everything") for (const u of EVERYTHING) await update(cx, u);
      else if (said.startsWith("stop:")) idle = IDLES[said.slice(5)] ?? idle;
      else if (said === "ask" || said === "ask-withdrawn") {
        const withdraw = new AbortController();
        const asked = cx.request(
          "session/request_permission",
          {
            sessionId: SESSION,
            title: "Run the tests?",
            subject: { type: "tool_call", toolCall: { toolCallId: "t1" } },
            options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
          } as never,
          { cancellationSignal: withdraw.signal },
        );
        if (said === "ask-withdrawn") setTimeout(() => withdraw.abort(), 20);
        const answer = await asked.then(
          (response) => {
            const { outcome } = response as { outcome: { outcome: string; optionId?: string } };
            return `${outcome.outcome}:${outcome.optionId ?? "-"}`;
          },
          (error: unknown) => `rejected:${String((error as { code?: unknown }).code)}`,
        );
        await update(cx, {
          sessionUpdate: "agent_message",
          messageId: `answer-${said}`,
          content: [text(answer)],
        });
      } else if (said === "hold") {
        control.release = deferred();
        await control.release.promise;
        if (turnState.cancelled) idle = { stopReason: "cancelled" };
      }
      await update(cx, { sessionUpdate: "state_update", state: "idle", ...idle });
      busy = false;
      held.shift()?.start();
    })();
    return { messageId };
  };

  const connection = officialAgent()
    .onRequest("initialize", () => INIT_RESPONSE)
    .onRequest("session/new", () => ({ sessionId: SESSION }))
    .onRequest("session/list", () => ({ sessions: [] }))
    .onRequest("session/resume", () => ({}))
    .onRequest("session/close", (ctx) => {
      if (closed.has(ctx.params.sessionId))
        throw new TheirRequestError(-32002, "Resource not found", { sessionId: SESSION });
      closed.add(ctx.params.sessionId);
      return {};
    })
    .onRequest("session/prompt", (ctx) => {
      const cx = ctx.client;
      if (!busy) return startTurn(cx, ctx.params.prompt);
      return new Promise((resolve, reject) =>
        held.push({
          start: () => void startTurn(cx, ctx.params.prompt).then(resolve, reject),
          reject,
        }),
      );
    })
    .onNotification("session/cancel", () => {
      for (const h of held.splice(0)) h.reject(TheirRequestError.requestCancelled());
      turnState.cancelled = true;
      control.release?.resolve();
    })
    .onRequest("tool_call/cancel", async (ctx) => {
      if (ctx.params.toolCallId !== "t1")
        throw TheirRequestError.invalidParams(
          { toolCallId: ctx.params.toolCallId },
          "the tool call is unknown or not cancellable",
        );
      await update(ctx.client, {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "cancelled",
      });
      return {};
    })
    .onRequest("terminal/cancel", async (ctx) => {
      if (ctx.params.terminalId !== "term-1")
        throw TheirRequestError.invalidParams(
          { terminalId: ctx.params.terminalId },
          "the terminal is unknown or not cancellable",
        );
      await update(ctx.client, {
        sessionUpdate: "terminal_update",
        terminalId: "term-1",
        exitStatus: { signal: "SIGTERM" },
      });
      return {};
    })
    .connect(theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
  return { close: () => connection.close() };
}

/** What a client under test offers the scenarios: the calls, by their v2 method names. */
interface ClientUnderTest {
  /** The `session/update` params delivered to the client, in order. */
  readonly updates: UpdateSessionNotification[];
  request(method: string, params: unknown): Promise<unknown>;
  notify(method: string, params: unknown): Promise<void>;
  close(): void;
}

type StartClient = (wire: InteropWire) => ClientUnderTest;

const theirClient: StartClient = (wire) => {
  const updates: UpdateSessionNotification[] = [];
  const connection = officialClient()
    .onNotification("session/update", (ctx) => {
      updates.push(ctx.params as UpdateSessionNotification);
    })
    .onRequest("session/request_permission", (ctx) => askUser(ctx.params, ctx.signal) as never)
    .connect(theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
  return {
    updates,
    request: (method, params) => connection.agent.request(method as never, params as never),
    notify: (method, params) => connection.agent.notify(method as never, params as never),
    close: () => connection.close(),
  };
};

const ourClient: StartClient = (wire) => {
  const updates: UpdateSessionNotification[] = [];
  const connection = new ClientSideConnection(
    () => ({
      sessionUpdate: (params) => {
        updates.push(params);
      },
      requestPermission: (params, context) => askUser(params, context?.signal),
    }),
    ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable, { closeOutput: true }),
  );
  // The typed calls, by method: what an application would call.
  const calls: Record<string, (params: never) => Promise<unknown>> = {
    initialize: (p) => connection.initialize(p),
    "session/new": (p) => connection.newSession(p),
    "session/prompt": (p) => connection.prompt(p),
    "session/close": (p) => connection.closeSession(p),
    "tool_call/cancel": (p) => connection.cancelToolCall(p),
    "terminal/cancel": (p) => connection.cancelTerminal(p),
  };
  return {
    updates,
    request: (method, params) => {
      const call = calls[method];
      if (call === undefined) throw new Error(`no typed call for ${method}`);
      return call(params as never);
    },
    notify: (method, params) =>
      method === "session/cancel"
        ? connection.cancel(params as never)
        : connection.notify(method, params),
    close: () => connection.close(),
  };
};

/**
 * The user of both clients: answers a permission request after 60 ms, or `cancelled` as
 * soon as the agent withdraws it (`$/cancel_request` aborts the handler's signal).
 */
function askUser(
  _params: unknown,
  signal: AbortSignal | undefined,
): Promise<RequestPermissionResponse> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => resolve({ outcome: { outcome: "selected", optionId: "ok" } }),
      60,
    );
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve({ outcome: { outcome: "cancelled" } });
    });
  });
}

const prompt = (said: string) => ({ sessionId: SESSION, prompt: [text(said)] });
const isIdle = (n: UpdateSessionNotification): boolean =>
  (n.update as { state?: unknown }).state === "idle";
const idles = (c: ClientUnderTest): number => c.updates.filter(isIdle).length;

/** Starts the scripted agent and `start` on a fresh wire, initialized, with a session. */
async function open(
  start: StartClient,
): Promise<{ client: ClientUnderTest; control: Control; done: () => void }> {
  const wire = interopWire();
  const control: Control = {};
  const agent = scriptedAgent(wire, control);
  const client = start(wire);
  expect(
    await client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO, capabilities: {} }),
  ).toEqual(INIT_RESPONSE);
  expect(await client.request("session/new", { cwd: ROOT })).toEqual({ sessionId: SESSION });
  return {
    client,
    control,
    done: () => {
      client.close();
      agent.close();
    },
  };
}

/** Sends `said` and waits for the turn's idle. */
async function turn(client: ClientUnderTest, said: string): Promise<unknown> {
  const before = idles(client);
  const answer = await client.request("session/prompt", prompt(said));
  expect(await until(() => idles(client) > before)).toBe(true);
  return answer;
}

/** Every variant, then every stop reason: the updates each client was given. */
async function everyVariant(start: StartClient): Promise<{
  updates: UpdateSessionNotification[];
  answers: unknown[];
}> {
  const { client, done } = await open(start);
  try {
    const answers = [await turn(client, "everything")];
    for (const reason of Object.keys(IDLES)) answers.push(await turn(client, `stop:${reason}`));
    return { updates: client.updates, answers };
  } finally {
    done();
  }
}

/** A summary of a folded thread item, for an explicit expected transcript. */
function summary(item: ReturnType<typeof emptySessionState>["thread"][number]): unknown {
  switch (item.type) {
    case "message":
      return {
        message: `${item.role}:${item.messageId}`,
        text: item.content.map((b) => (b.type === "text" ? b.text : b.type)).join(""),
      };
    case "tool_call": {
      const { type: _type, ...rest } = item;
      return { tool: rest };
    }
    case "compaction":
      return {
        compaction: item.compactionId,
        status: item.status,
        summary: item.summary.map((b) => (b.type === "text" ? b.text : b.type)).join(""),
      };
    default:
      return item;
  }
}

describe("acp-kit's v2 client side against the official v2 agent (differential)", () => {
  it("receives every update variant as the official client does, and folds it into the expected transcript", async () => {
    const baseline = await everyVariant(theirClient);
    const result = await everyVariant(ourClient);
    expect(result.answers).toEqual(baseline.answers);
    expect(result.answers.map((a) => (a as { messageId: string }).messageId)).toEqual(
      Array.from({ length: 9 }, (_, i) => `u-${i + 1}`),
    );
    // The official client delivers every variant (the unknown one too) as sent.
    expect(baseline.updates.map((n) => n.update)).toEqual(
      expect.arrayContaining(EVERYTHING.map((u): unknown => expect.objectContaining(u))),
    );
    // One difference, the official client's: its zod schema for an idle has no `usage`
    // (the unstable schema acp-kit pins has it), so it drops it. acp-kit keeps it.
    const withoutIdleUsage = (n: UpdateSessionNotification): UpdateSessionNotification => {
      if (!isIdle(n)) return n;
      const { usage: _usage, ...update } = n.update as Record<string, unknown>;
      return { ...n, update: update as SessionUpdate };
    };
    const maxTokens = (c: { updates: UpdateSessionNotification[] }) =>
      c.updates.find((n) => (n.update as { stopReason?: unknown }).stopReason === "max_tokens");
    expect(maxTokens(baseline)?.update).not.toHaveProperty("usage");
    expect(maxTokens(result)?.update).toEqual({
      sessionUpdate: "state_update",
      state: "idle",
      ...IDLES.max_tokens,
    });
    expect(result.updates.map(withoutIdleUsage)).toEqual(baseline.updates);
    for (const n of result.updates)
      expect(validateV2("UpdateSessionNotification", n).ok, JSON.stringify(n)).toBe(true);

    const state = result.updates
      .map((n) => n.update)
      .reduce(reduceSessionV2, emptySessionState(SESSION));
    expect(state.thread.map(summary)).toEqual([
      { message: "user:u-1", text: "everything" },
      { message: "user:u-extra", text: "also this" },
      { message: "thought:th-1", text: "Let me think" },
      { message: "thought:th-2", text: "A whole thought" },
      { message: "agent:a-1", text: "Hi there" },
      { message: "agent:a-2", text: "" },
      {
        tool: {
          toolCallId: "t1",
          name: "shell",
          title: "",
          kind: "other",
          status: "paused",
          content: [
            { type: "content", content: text("out 1") },
            { type: "terminal", terminalId: "term-1" },
          ],
          locations: [],
          statusHistory: ["pending", "in_progress", "paused"],
          placeholder: false,
          cancelled: false,
          _meta: { b: 2, c: 3 },
        },
      },
      {
        tool: {
          toolCallId: "t2",
          title: "",
          kind: "other",
          status: "completed",
          content: [EVERYTHING[17]!.content as unknown[]].flat(),
          locations: [],
          statusHistory: ["pending", "completed"],
          placeholder: false,
          cancelled: false,
          rawOutput: { ok: 1 },
        },
      },
      { compaction: "c1", status: "completed", summary: "Summary: tests" },
      ...Array.from({ length: 8 }, (_, i) => ({
        message: `user:u-${i + 2}`,
        text: `stop:${Object.keys(IDLES)[i]}`,
      })),
    ]);
    expect(state.plans).toEqual([
      {
        type: "items",
        planId: "p1",
        entries: [{ content: "Write tests", priority: "high", status: "completed" }],
      },
    ]);
    expect(state.availableCommands).toEqual(
      (
        EVERYTHING.find((u) => u.sessionUpdate === "available_commands_update") as {
          availableCommands: unknown;
        }
      ).availableCommands,
    );
    // The transcript names options by `id`, as v1 does (v2's `configId`).
    expect(state.configOptions).toEqual(
      (
        EVERYTHING.find((u) => u.sessionUpdate === "config_option_update") as {
          configOptions: Record<string, unknown>[];
        }
      ).configOptions.map(({ configId, ...rest }) => ({ ...rest, id: configId })),
    );
    expect(state.info).toEqual({
      title: "Testing",
      updatedAt: "2026-11-28T12:00:00Z",
      _meta: null,
    });
    expect(state.usage).toEqual({
      used: 1200,
      size: 200000,
      cost: { amount: 0.12, currency: "USD" },
    });
    expect(state.notices).toEqual([
      { severity: "warning", title: "Rate limited", description: "Slower" },
    ]);
    expect(state.terminals.map((t) => ({ ...t, text: terminalOutputText(t) }))).toEqual([
      {
        terminalId: "term-1",
        command: "npm test",
        cwd: ROOT,
        output: [EVERYTHING[21]!.data, EVERYTHING[22]!.data],
        text: "42 tests ✅\n",
        exitStatus: null,
        size: { cols: 80, rows: 24 },
        cancellable: true,
        _meta: null,
      },
      {
        terminalId: "term-2",
        command: null,
        cwd: null,
        output: [b64("snapshot\n"), b64("more\n")],
        text: "snapshot\nmore\n",
        exitStatus: { exitCode: 0 },
        size: null,
        cancellable: false,
        _meta: null,
      },
    ]);
    expect(state.unknown).toEqual([{ sessionUpdate: "_x_custom", payload: { any: "thing" } }]);
    // The last idle is a snapshot without a stop reason: the background list stays as last
    // reported (the idles of the stop:<reason> turns carried none).
    expect(state.activity).toEqual({
      state: "idle",
      stopReason: null,
      error: null,
      background: [
        { type: "tool_call", toolCallId: "t1" },
        { type: "terminal", terminalId: "term-1" },
        { type: "_x_work", ref: "w1" },
      ],
    });
    // Each stop reason as folded, error with its error object.
    const activities = result.updates
      .filter(isIdle)
      .map((n) => reduceSessionV2(emptySessionState(SESSION), n.update).activity);
    expect(activities.map((a) => [a?.stopReason, a?.error])).toEqual([
      ["end_turn", null],
      ["end_turn", null],
      ["max_tokens", null],
      ["max_turn_requests", null],
      ["refusal", null],
      ["cancelled", null],
      ["error", IDLES.error!.error],
      ["_x_custom", null],
      [null, null],
    ]);
  });

  it("a held prompt resolves with its messageId only once the turn before it is idle", async () => {
    const run = async (start: StartClient): Promise<unknown[]> => {
      const { client, control, done } = await open(start);
      try {
        const events: unknown[] = [];
        const first = await client.request("session/prompt", prompt("hold"));
        events.push(["first", first]);
        expect(await until(() => control.release !== undefined)).toBe(true);
        const firstRelease = control.release!;
        const second = client.request("session/prompt", prompt("hold")).then((answer) => {
          events.push(["second", answer, "idles seen", idles(client)]);
        });
        await new Promise((r) => setTimeout(r, 50));
        events.push(["still held", idles(client)]);
        firstRelease.resolve();
        await second;
        expect(control.release).not.toBe(firstRelease);
        control.release!.resolve();
        expect(await until(() => idles(client) === 2)).toBe(true);
        return events;
      } finally {
        done();
      }
    };
    const baseline = await run(theirClient);
    expect(baseline).toEqual([
      ["first", { messageId: "u-1" }],
      ["still held", 0],
      ["second", { messageId: "u-2" }, "idles seen", 1],
    ]);
    expect(await run(ourClient)).toEqual(baseline);
  });

  it("session/cancel answers a held prompt -32800; a prompt after the cancel is unaffected", async () => {
    const run = async (start: StartClient): Promise<unknown[]> => {
      const { client, control, done } = await open(start);
      try {
        await client.request("session/prompt", prompt("hold"));
        expect(await until(() => control.release !== undefined)).toBe(true);
        const held = caught(client.request("session/prompt", prompt("held")));
        await new Promise((r) => setTimeout(r, 20));
        await client.notify("session/cancel", { sessionId: SESSION });
        const error = (await held) as { code: number; message: string };
        expect(await until(() => idles(client) === 1)).toBe(true);
        const after = await client.request("session/prompt", prompt("after"));
        expect(await until(() => idles(client) === 2)).toBe(true);
        const stops = client.updates
          .filter(isIdle)
          .map((n) => (n.update as { stopReason?: unknown }).stopReason);
        return [error.constructor.name, error.code, error.message, after, stops];
      } finally {
        done();
      }
    };
    const baseline = await run(theirClient);
    expect(baseline).toEqual([
      "RequestError",
      -32800,
      "Request cancelled",
      { messageId: "u-2" },
      ["cancelled", "end_turn"],
    ]);
    const result = await run(ourClient);
    expect(result).toEqual(baseline);
  });

  it("session/close twice is {} both times (the agent's -32002 the second time); tool_call/cancel and terminal/cancel answers", async () => {
    const run = async (start: StartClient): Promise<unknown[]> => {
      const { client, done } = await open(start);
      try {
        await turn(client, "everything");
        const before = client.updates.length;
        const answers: unknown[] = [
          await client.request("tool_call/cancel", { sessionId: SESSION, toolCallId: "t1" }),
          await client.request("terminal/cancel", { sessionId: SESSION, terminalId: "term-1" }),
        ];
        for (const bad of [
          client.request("tool_call/cancel", { sessionId: SESSION, toolCallId: "nope" }),
          client.request("terminal/cancel", { sessionId: SESSION, terminalId: "nope" }),
        ]) {
          const error = (await caught(bad)) as { code: number; message: string; data: unknown };
          answers.push([error.code, error.message, error.data]);
        }
        answers.push(
          await client.request("session/close", { sessionId: SESSION }),
          await client.request("session/close", { sessionId: SESSION }),
        );
        answers.push(client.updates.slice(before).map((n) => n.update));
        return answers;
      } finally {
        done();
      }
    };
    const baseline = await run(theirClient);
    expect(baseline).toEqual([
      {},
      {},
      [
        -32602,
        "Invalid params: the tool call is unknown or not cancellable",
        { toolCallId: "nope" },
      ],
      [
        -32602,
        "Invalid params: the terminal is unknown or not cancellable",
        { terminalId: "nope" },
      ],
      {},
      {},
      [
        { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "cancelled" },
        {
          sessionUpdate: "terminal_update",
          terminalId: "term-1",
          exitStatus: { signal: "SIGTERM" },
        },
      ],
    ]);
    expect(await run(ourClient)).toEqual(baseline);
  });
});

/**
 * A hand-driven agent on raw NDJSON: the test writes what it sends and reads what the
 * client sends, to answer `initialize` in ways no conforming agent would.
 */
function rawAgent(wire: InteropWire): {
  send(message: unknown): Promise<void>;
  next(method?: string): Promise<Record<string, unknown>>;
  close(): void;
} {
  const writer = wire.agentToClient.writable.getWriter();
  let seen = 0;
  void wire.clientToAgent.readable.pipeTo(new WritableStream());
  return {
    send: (message) => writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`)),
    async next(method) {
      for (;;) {
        expect(await until(() => wire.clientToAgentTap.messages.length > seen)).toBe(true);
        const message = wire.clientToAgentTap.messages[seen++]!;
        if (method === undefined || message.method === method) return message;
      }
    },
    close: () => void writer.close().catch(() => undefined),
  };
}

describe("acp-kit's v2 client side: permission requests (differential)", () => {
  it("answers a permission request, and answers cancelled when the agent withdraws it", async () => {
    const run = async (start: StartClient): Promise<unknown[]> => {
      const { client, done } = await open(start);
      try {
        await turn(client, "ask");
        await turn(client, "ask-withdrawn");
        return client.updates
          .map((n) => n.update)
          .filter((u) => u.sessionUpdate === "agent_message");
      } finally {
        done();
      }
    };
    const baseline = await run(theirClient);
    expect(baseline).toEqual([
      {
        sessionUpdate: "agent_message",
        messageId: "answer-ask",
        content: [text("selected:ok")],
      },
      {
        sessionUpdate: "agent_message",
        messageId: "answer-ask-withdrawn",
        content: [text("cancelled:-")],
      },
    ]);
    expect(await run(ourClient)).toEqual(baseline);
  });
});

describe("acp-kit's v2 client side: initialize answers and early requests", () => {
  it("a v1-shaped initialize answer rejects with -32600 and leaves the connection usable for a retry", async () => {
    const wire = interopWire();
    const agent = rawAgent(wire);
    const client = ourClient(wire);
    try {
      const v1 = caught(client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO }));
      const first = await agent.next("initialize");
      await agent.send({
        jsonrpc: "2.0",
        id: first.id,
        result: { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [] },
      });
      const error = (await v1) as RequestError;
      expect(error).toBeInstanceOf(RequestError);
      expect({ code: error.code, message: error.message }).toEqual({
        code: -32600,
        message: "Invalid request: The v2 API only supports protocol version 2",
      });
      expect(error.data).toMatchObject({ receivedProtocolVersion: 1 });

      // An answer that is neither v2 nor names a version: invalid, the connection stays.
      const bad = caught(client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO }));
      const malformed = await agent.next("initialize");
      await agent.send({ jsonrpc: "2.0", id: malformed.id, result: { info: CLIENT_INFO } });
      expect(await bad).toMatchObject({ name: "ConnectionError", code: "invalid_response" });

      // A v2-shaped answer with another version: the same refusal.
      const v3 = caught(client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO }));
      const second = await agent.next("initialize");
      await agent.send({
        jsonrpc: "2.0",
        id: second.id,
        result: { ...INIT_RESPONSE, protocolVersion: 3 },
      });
      expect(await v3).toMatchObject({
        code: -32600,
        message: "Invalid request: The v2 API only supports protocol version 2",
        data: { receivedProtocolVersion: 3 },
      });

      // The retry succeeds on the same connection.
      const retry = client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO });
      const third = await agent.next("initialize");
      await agent.send({ jsonrpc: "2.0", id: third.id, result: INIT_RESPONSE });
      expect(await retry).toEqual(INIT_RESPONSE);
      const session = client.request("session/new", { cwd: ROOT });
      const newSession = await agent.next("session/new");
      await agent.send({ jsonrpc: "2.0", id: newSession.id, result: { sessionId: SESSION } });
      expect(await session).toEqual({ sessionId: SESSION });
    } finally {
      client.close();
      agent.close();
    }
  });

  it("the agent's requests before initialize are refused -32600; during it they wait (notifications too); notifications before it are dropped", async () => {
    const probe = async (start: StartClient): Promise<unknown[]> => {
      const wire = interopWire();
      const agent = rawAgent(wire);
      const client = start(wire);
      try {
        const permission = {
          sessionId: SESSION,
          title: "Run?",
          options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
        };
        await agent.send({
          jsonrpc: "2.0",
          id: 1,
          method: "session/request_permission",
          params: permission,
        });
        await agent.send({
          jsonrpc: "2.0",
          method: "session/update",
          params: {
            sessionId: SESSION,
            update: { sessionUpdate: "state_update", state: "running" },
          },
        });
        expect(await until(() => wire.clientToAgentTap.messages.length >= 1)).toBe(true);
        const init = client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO });
        const request = await agent.next("initialize");
        // While initialize is in flight: a request and a notification that must wait for it.
        await agent.send({
          jsonrpc: "2.0",
          id: 2,
          method: "session/request_permission",
          params: permission,
        });
        await agent.send({
          jsonrpc: "2.0",
          method: "session/update",
          params: { sessionId: SESSION, update: { sessionUpdate: "state_update", state: "idle" } },
        });
        await new Promise((r) => setTimeout(r, 30));
        const deliveredDuring = client.updates.length;
        const beforeAnswer = wire.clientToAgentTap.messages.filter((m) => m.id === 2).length;
        await agent.send({ jsonrpc: "2.0", id: request.id, result: INIT_RESPONSE });
        await init;
        await until(() => client.updates.length > 0, 500);
        expect(await until(() => wire.clientToAgentTap.messages.some((m) => m.id === 2))).toBe(
          true,
        );
        const messages = wire.clientToAgentTap.messages;
        return [
          messages.find((m) => m.id === 1),
          beforeAnswer,
          messages.find((m) => m.id === 2 && !("method" in m)),
          deliveredDuring,
          client.updates,
        ];
      } finally {
        client.close();
        agent.close();
      }
    };
    const baseline = await probe(theirClient);
    const result = await probe(ourClient);
    // Neither client has a permission handler: once initialized, -32601.
    expect(baseline[1]).toBe(0);
    expect(result).toEqual(baseline);
  });
});

describe("acp-kit's v2 client side: initialize through the generic request()", () => {
  it('request("initialize") is initialize(): same checks, and it initializes the connection', async () => {
    const wire = interopWire();
    const agent = rawAgent(wire);
    const connection = new ClientSideConnection(
      () => ({ sessionUpdate: () => undefined }),
      ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable, { closeOutput: true }),
    );
    try {
      const v1 = caught(
        connection.request("initialize", { protocolVersion: 2, info: CLIENT_INFO }),
      );
      const first = await agent.next("initialize");
      await agent.send({ jsonrpc: "2.0", id: first.id, result: { protocolVersion: 1 } });
      expect(await v1).toMatchObject({ code: -32600, data: { receivedProtocolVersion: 1 } });
      const ok = connection.request("initialize", { protocolVersion: 2, info: CLIENT_INFO });
      const second = await agent.next("initialize");
      await agent.send({ jsonrpc: "2.0", id: second.id, result: INIT_RESPONSE });
      expect(await ok).toEqual(INIT_RESPONSE);
      expect(connection.initialized?.response).toEqual(INIT_RESPONSE);
      const session = connection.request("session/new", { cwd: ROOT });
      const newSession = await agent.next("session/new");
      await agent.send({ jsonrpc: "2.0", id: newSession.id, result: { sessionId: SESSION } });
      expect(await session).toEqual({ sessionId: SESSION });
    } finally {
      connection.close();
      agent.close();
    }
  });
});

describe("acp-kit's v2 client side: its own requests around initialize (differential)", () => {
  it("refuses requests before initialize locally, holds them while it is in flight, and refuses a repeat after other requests", async () => {
    const probe = async (start: StartClient): Promise<unknown[]> => {
      const wire = interopWire();
      const agent = rawAgent(wire);
      const client = start(wire);
      // The official client throws some refusals synchronously: read them as rejections.
      const outcome = (p: Promise<unknown>): Promise<unknown> =>
        p.then(
          (value) => ({ value }),
          (error: unknown) => {
            const { code, message, data } = error as Record<string, unknown>;
            return { code, message, data };
          },
        );
      try {
        const early = await outcome(client.request("session/new", { cwd: ROOT }));
        const sentBefore = wire.clientToAgentTap.messages.length;
        const init = outcome(
          client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO }),
        );
        const request = await agent.next("initialize");
        // Sent while initialize is in flight: it must wait for the answer.
        const pipelined = outcome(client.request("session/new", { cwd: ROOT }));
        await new Promise((r) => setTimeout(r, 30));
        const sentDuring = wire.clientToAgentTap.messages.map((m) => m.method);
        await agent.send({ jsonrpc: "2.0", id: request.id, result: INIT_RESPONSE });
        const newSession = await agent.next("session/new");
        await agent.send({ jsonrpc: "2.0", id: newSession.id, result: { sessionId: SESSION } });
        const answers = [await init, await pipelined];
        const repeat = await outcome(
          Promise.resolve().then(() =>
            client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO }),
          ),
        );
        await new Promise((r) => setTimeout(r, 10));
        return [
          early,
          sentBefore,
          sentDuring,
          answers,
          repeat,
          wire.clientToAgentTap.messages.map((m) => m.method),
        ];
      } finally {
        client.close();
        agent.close();
      }
    };
    const baseline = await probe(theirClient);
    expect(baseline).toEqual([
      {
        code: -32600,
        message: "Invalid request",
        data: "ACP v2 connection must be initialized before 'session/new'",
      },
      0,
      ["initialize"],
      [{ value: INIT_RESPONSE }, { value: { sessionId: SESSION } }],
      {
        code: -32600,
        message: "Invalid request",
        data: "ACP v2 initialize must not be repeated after other requests",
      },
      ["initialize", "session/new"],
    ]);
    expect(await probe(ourClient)).toEqual(baseline);
  });
});

describe("acp-kit's v2 client side on malformed updates (differential)", () => {
  it("delivers, repairs or drops each malformed update as the official client does", async () => {
    const MALFORMED: readonly Record<string, unknown>[] = [
      { sessionUpdate: "agent_message_chunk", content: text("no messageId") },
      { sessionUpdate: "tool_call_update", title: "no toolCallId" },
      { sessionUpdate: "state_update", state: "idle", stopReason: 5 },
      { sessionUpdate: "state_update", state: "running", background: "not a list" },
      { sessionUpdate: "state_update", state: "_paused" },
      {
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "p", entries: [{ content: "x" }] },
      },
      { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "not base64!" },
      { sessionUpdate: "future_kind", x: 1 },
      { sessionUpdate: "agent_message", messageId: "m", content: [{ type: "_x_block", a: 1 }] },
      { sessionUpdate: "usage_update", used: "many", size: 1 },
    ];
    const probe = async (start: StartClient): Promise<unknown[]> => {
      const wire = interopWire();
      const agent = rawAgent(wire);
      const client = start(wire);
      try {
        const init = client.request("initialize", { protocolVersion: 2, info: CLIENT_INFO });
        const request = await agent.next("initialize");
        await agent.send({ jsonrpc: "2.0", id: request.id, result: INIT_RESPONSE });
        await init;
        for (const [i, update] of MALFORMED.entries())
          await agent.send({
            jsonrpc: "2.0",
            method: "session/update",
            params: { sessionId: SESSION, update: { ...update, _meta: { i } } },
          });
        // A valid last one marks the end.
        await agent.send({
          jsonrpc: "2.0",
          method: "session/update",
          params: {
            sessionId: SESSION,
            update: { sessionUpdate: "notice", severity: "info", title: "end" },
          },
        });
        expect(
          await until(() =>
            client.updates.some((n) => (n.update as { title?: unknown }).title === "end"),
          ),
        ).toBe(true);
        return client.updates.map((n) => n.update);
      } finally {
        client.close();
        agent.close();
      }
    };
    const baseline = await probe(theirClient);
    const result = await probe(ourClient);
    // Both drop the updates missing a required id (0, 1) or with a mistyped required
    // field (9), and repair the rest the same way: a malformed optional part is removed
    // (the stop reason, the background list, a malformed plan entry), unknown variants kept.
    expect(baseline.map((u) => (u as { _meta?: { i?: number } })._meta?.i ?? "end")).toEqual([
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      "end",
    ]);
    expect(baseline[0]).toEqual({ sessionUpdate: "state_update", state: "idle", _meta: { i: 2 } });
    expect(result).toEqual(baseline);
  });
});
