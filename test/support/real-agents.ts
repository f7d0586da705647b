/**
 * The two real ACP v2 agents (`@agentclientprotocol/codex-acp` and
 * `@agentclientprotocol/claude-agent-acp`), run offline for interop tests.
 *
 * - {@link startFakeModelServer}: a local model API on 127.0.0.1 that speaks just enough
 *   of the OpenAI Responses API (codex: over a websocket, or SSE) and the Anthropic
 *   Messages API (claude: SSE) for a turn to produce one short text answer.
 * - {@link sealedHome}: a temporary HOME with no real credentials whose config points
 *   each agent's model API at that fake server.
 * - {@link spawnRealAgent}: starts an agent over pipes in that HOME, with a clean
 *   environment, optionally as another (non-root) user, and gives a raw NDJSON peer that
 *   records every message the agent writes, in order.
 * - {@link checkAgentMessage}: validates one message the agent sent with acp-kit's v1 or
 *   v2 validators, knowing which method each response answers.
 *
 * See test/real-agents/README.md for what the agents do with this.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { METHOD_SPECS as V1_METHOD_SPECS } from "../../packages/acp-kit/src/schema/methods.gen.js";
import type { MethodSpec } from "../../packages/acp-kit/src/schema/method-spec.js";
import { runValidator, type RawValidator } from "../../packages/acp-kit/src/base/validation.js";
import { METHOD_SPECS as V2_METHOD_SPECS } from "../../packages/acp-kit/src/schema/v2/methods.gen.js";
import { validate } from "../../packages/acp-kit/src/schema/validate.js";
import { validateV2 } from "../../packages/acp-kit/src/schema/v2/validate.js";
import { WebSocketServer } from "ws";

const require = createRequire(import.meta.url);

/** The agents this module can run. */
export type RealAgentKind = "codex" | "claude";

/** The text every turn against the fake model answers. */
export const FAKE_MODEL_TEXT = "hello from the fake model";

/**
 * Words of the conformance checker's long prompt (`LONG_PROMPT`, the turn it cancels or
 * closes). A streamed answer to a request whose latest user message holds them is held:
 * the fake model sends the first half of its text and then nothing more until the agent
 * drops the request (or the server closes). The turn cannot end before the checker's
 * interruption arrives, so `v2-cancel`, `v2-session-close` and `cancel` never race a turn
 * that finished by itself.
 */
export const HELD_TURN_MARKER = "count slowly from 1 to 300";

/** Whether the latest user entry of a model request (OpenAI `input`, Anthropic `messages`) holds the marker. */
function asksForHeldTurn(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const { input, messages } = body as { input?: unknown; messages?: unknown };
  const entries = Array.isArray(messages) ? messages : Array.isArray(input) ? input : [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry: unknown = entries[i];
    if (typeof entry !== "object" || entry === null) continue;
    if ((entry as { role?: unknown }).role !== "user") continue;
    return JSON.stringify(entry).includes(HELD_TURN_MARKER);
  }
  return false;
}

/**
 * The words that make the fake model call an MCP tool: a user message holding
 * `call the MCP tool <name> with <JSON object>` (on one line) gets a tool call instead of
 * text, and once the tool's result comes back, the answer is {@link FAKE_MODEL_TEXT}-like
 * text followed by `tool <name> answered: <result>`. The result is recorded in
 * {@link FakeModelServer.toolResults}.
 *
 * How each agent is asked:
 *
 * - claude (Anthropic Messages): a `tool_use` block for the tool named `mcp__<server>__<name>`
 *   when it is in `tools`; while it is still deferred (named only in the system prompt), a
 *   `ToolSearch` call with `select:mcp__<server>__<name>` first, which loads it.
 * - codex (OpenAI Responses): a `function_call` when a function tool named
 *   `…__<name>` is offered; otherwise (codex 0.166's code mode, where MCP tools are
 *   nested tools of its `exec` tool) a `custom_tool_call` of `exec` whose JavaScript
 *   looks the tool up in `ALL_TOOLS`, calls it and prints its result.
 */
export const TOOL_CALL_MARKER = "call the MCP tool";

/** One tool result the fake model received. */
export interface FakeToolResult {
  /** The tool's name as the prompt gave it (`echo`). */
  readonly tool: string;
  /** The name the model called (`mcp__project-tools__echo`, or `exec` for codex's code mode). */
  readonly calledAs: string;
  /** The result as the agent sent it back, as text. */
  readonly output: string;
}

/** What the fake model answers one request with. */
type ModelStep =
  | { readonly kind: "text"; readonly text: string; readonly result?: FakeToolResult }
  | {
      readonly kind: "call";
      /** The tool the prompt asked for. */
      readonly tool: string;
      readonly name: string;
      /** JSON arguments (a function or `tool_use` call). */
      readonly input?: unknown;
      /** Free-form input (an OpenAI custom tool call). */
      readonly source?: string;
    };

type Entry = Record<string, unknown>;

function isEntry(value: unknown): value is Entry {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text parts of a message entry (OpenAI `input` item or Anthropic message). */
function entryTexts(entry: Entry): string[] {
  const content = entry.content;
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown) =>
    isEntry(part) && typeof part.text === "string" && part.type !== "tool_result"
      ? [part.text]
      : [],
  );
}

/** A tool result's content as text. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        isEntry(part) && typeof part.text === "string" ? part.text : JSON.stringify(part),
      )
      .join("");
  }
  return JSON.stringify(content);
}

/** The tool call the latest marked user message asks for, and the entries after it. */
function requestedCall(
  entries: readonly unknown[],
): { tool: string; args: unknown; after: Entry[] } | undefined {
  const pattern = new RegExp(`${TOOL_CALL_MARKER} (\\S+) with (\\{[^\\n]*\\})`);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (!isEntry(entry) || entry.role !== "user") continue;
    for (const text of entryTexts(entry)) {
      const match = pattern.exec(text);
      if (match === null) continue;
      let args: unknown;
      try {
        args = JSON.parse(match[2] ?? "");
      } catch {
        continue;
      }
      return { tool: match[1] ?? "", args, after: entries.slice(i + 1).filter(isEntry) };
    }
  }
  return undefined;
}

/** Whether `name` is the MCP tool `tool` (`mcp__server__tool`, `server__tool`, or `tool`). */
function namesTool(name: string, tool: string): boolean {
  return name === tool || name.endsWith(`__${tool}`);
}

/** The names of the tools offered in `tools`, namespaces flattened. */
function toolNames(tools: unknown): { name: string; type: string }[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown) => {
    if (!isEntry(tool)) return [];
    const own =
      typeof tool.name === "string"
        ? [{ name: tool.name, type: typeof tool.type === "string" ? tool.type : "function" }]
        : [];
    return tool.type === "namespace" ? [...own, ...toolNames(tool.tools)] : own;
  });
}

/** The next step of an Anthropic Messages request. */
function messagesStep(body: Entry, text: string): ModelStep | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const asked = requestedCall(messages);
  if (asked === undefined) return undefined;
  const calls = new Map<string, string>();
  const results: { name: string; output: string }[] = [];
  for (const message of asked.after) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as unknown[]) {
      if (!isEntry(block)) continue;
      if (block.type === "tool_use" && typeof block.id === "string") {
        calls.set(block.id, typeof block.name === "string" ? block.name : "");
      } else if (block.type === "tool_result" && typeof block.tool_use_id === "string") {
        results.push({
          name: calls.get(block.tool_use_id) ?? "",
          output: resultText(block.content),
        });
      }
    }
  }
  const answered = results.find((r) => namesTool(r.name, asked.tool));
  if (answered !== undefined) {
    const result = { tool: asked.tool, calledAs: answered.name, output: answered.output };
    return {
      kind: "text",
      text: `${text}; tool ${asked.tool} answered: ${answered.output}`,
      result,
    };
  }
  const offered = toolNames(body.tools);
  const tool = offered.find((t) => t.name.startsWith("mcp__") && namesTool(t.name, asked.tool));
  if (tool !== undefined) {
    return { kind: "call", tool: asked.tool, name: tool.name, input: asked.args };
  }
  const searched = results.some((r) => r.name === "ToolSearch");
  if (!searched && offered.some((t) => t.name === "ToolSearch")) {
    const deferred = new RegExp(`mcp__[\\w.-]+__${asked.tool.replace(/[^\w-]/g, "")}\\b`).exec(
      JSON.stringify(body.system ?? "") + JSON.stringify(messages),
    );
    if (deferred !== null) {
      return {
        kind: "call",
        tool: asked.tool,
        name: "ToolSearch",
        input: { query: `select:${deferred[0]}`, max_results: 5 },
      };
    }
  }
  return { kind: "text", text: `${text}; no tool ${asked.tool} was offered` };
}

/** The JavaScript codex's `exec` tool runs to call the MCP tool `tool` with `args`. */
function execSource(tool: string, args: unknown): string {
  return [
    `const wanted = ${JSON.stringify(tool)};`,
    `const entry = ALL_TOOLS.find((t) => t.name === wanted || t.name.endsWith("__" + wanted));`,
    `if (entry === undefined) {`,
    `  text("no tool " + wanted + " among " + ALL_TOOLS.map((t) => t.name).join(","));`,
    `} else {`,
    `  const result = await tools[entry.name](${JSON.stringify(args)});`,
    `  text(typeof result === "string" ? result : JSON.stringify(result));`,
    `}`,
  ].join("\n");
}

/** A tool call the fake model made, by call id. */
interface MadeCall {
  readonly tool: string;
  readonly calledAs: string;
}

/**
 * The next step of an OpenAI Responses request. codex chains its requests with
 * `previous_response_id` and sends only what is new (the tool's output), so the calls
 * this server made are remembered in `made`.
 */
function responsesStep(
  body: Entry,
  text: string,
  made: ReadonlyMap<string, MadeCall>,
): ModelStep | undefined {
  const input = Array.isArray(body.input) ? body.input : [];
  for (let i = input.length - 1; i >= 0; i--) {
    const item: unknown = input[i];
    if (!isEntry(item) || typeof item.call_id !== "string") continue;
    if (item.type !== "function_call_output" && item.type !== "custom_tool_call_output") continue;
    const call = made.get(item.call_id);
    if (call === undefined) continue;
    const output = resultText(item.output);
    const result = { ...call, output };
    return { kind: "text", text: `${text}; tool ${call.tool} answered: ${output}`, result };
  }
  const asked = requestedCall(input);
  if (asked === undefined) return undefined;
  const calls = new Map<string, string>();
  for (const item of asked.after) {
    if (
      (item.type === "function_call" || item.type === "custom_tool_call") &&
      typeof item.call_id === "string"
    ) {
      calls.set(item.call_id, typeof item.name === "string" ? item.name : "");
    } else if (
      (item.type === "function_call_output" || item.type === "custom_tool_call_output") &&
      typeof item.call_id === "string"
    ) {
      const calledAs = calls.get(item.call_id) ?? "";
      if (calledAs === "exec" || namesTool(calledAs, asked.tool)) {
        const output = resultText(item.output);
        const result = { tool: asked.tool, calledAs, output };
        return { kind: "text", text: `${text}; tool ${asked.tool} answered: ${output}`, result };
      }
    }
  }
  const offered = [
    ...toolNames(body.tools),
    ...input.flatMap((item: unknown) =>
      isEntry(item) && item.type === "additional_tools" ? toolNames(item.tools) : [],
    ),
  ];
  const direct = offered.find(
    (t) => t.type === "function" && t.name.includes("__") && namesTool(t.name, asked.tool),
  );
  if (direct !== undefined) {
    return { kind: "call", tool: asked.tool, name: direct.name, input: asked.args };
  }
  if (offered.some((t) => t.name === "exec")) {
    return {
      kind: "call",
      tool: asked.tool,
      name: "exec",
      source: execSource(asked.tool, asked.args),
    };
  }
  return { kind: "text", text: `${text}; no tool ${asked.tool} was offered` };
}

/** The entry script of each agent's `bin`, resolved from node_modules. */
export function agentEntry(kind: RealAgentKind): string {
  const pkg =
    kind === "codex"
      ? "@agentclientprotocol/codex-acp/package.json"
      : "@agentclientprotocol/claude-agent-acp/package.json";
  return join(dirname(require.resolve(pkg)), "dist", "index.js");
}

// ---------------------------------------------------------------------------------------
// Users

/** True when this process runs as root (effective uid 0). */
export function isRoot(): boolean {
  return process.geteuid?.() === 0;
}

/** A user to run an agent as. */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/**
 * The user `nobody` (65534:65534) when this process is root and can switch to it, else
 * undefined (the agent then runs as the current user, who is not root).
 */
export function nonRootUser(): RunAs | undefined {
  if (!isRoot()) return undefined;
  letOthersReachRepository();
  return { uid: 65534, gid: 65534 };
}

/**
 * The agents run from this repository's node_modules: `nobody` must be able to reach it.
 * A clone inside a private temporary folder (`mktemp -d` makes it 0700) would refuse, so
 * each folder above the repository that others cannot enter gets search permission for
 * them (o+x: entering, not listing). Only as root, which a sandboxed CI is.
 */
function letOthersReachRepository(): void {
  let dir = dirname(require.resolve("@agentclientprotocol/claude-agent-acp/package.json"));
  for (;;) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

// ---------------------------------------------------------------------------------------
// The fake model server

/** One request the fake model server received. */
export interface FakeModelRequest {
  readonly method: string;
  readonly path: string;
  /** The parsed JSON body, or undefined when there was none or it was not JSON. */
  readonly body: unknown;
  /** The authorization-like headers, to show which key the agent sent. */
  readonly auth: string | undefined;
  /** Whether the answer was held open ({@link HELD_TURN_MARKER}). */
  readonly held?: boolean;
}

/** A running fake model server. */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly origin: string;
  /** Every request received so far, in arrival order. */
  readonly requests: readonly FakeModelRequest[];
  /** Every tool result that came back for a {@link TOOL_CALL_MARKER} call, in arrival order. */
  readonly toolResults: readonly FakeToolResult[];
  /** Stops listening, drops open connections and resolves when the server closed. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_REQUESTS = 1000;

/**
 * Writes `events` as one SSE answer. With `held`, only the events up to and including the
 * first text delta are written and the answer stays open (see {@link HELD_TURN_MARKER}).
 */
function sse(res: ServerResponse, events: readonly SseEvent[], held = false): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "close",
  });
  for (const { event, data } of held ? heldPrefix(events) : events) {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  if (!held) res.end();
}

/** The events of an answer up to and including its first text delta. */
function heldPrefix<T extends { event: string }>(events: readonly T[]): T[] {
  const first = events.findIndex((e) => e.event.endsWith("_delta") || e.event.endsWith(".delta"));
  return events.slice(0, first + 1);
}

/** One event of a fake model's SSE answer. */
type SseEvent = { event: string; data: unknown };

/** An OpenAI Responses API event: its `type` is also the SSE event name. */
function responsesEvent(type: string, fields: Record<string, unknown>): SseEvent {
  return { event: type, data: { type, ...fields } };
}

/**
 * An OpenAI Responses API answer: `response.created`, then `middle`, then
 * `response.completed` with `output` and a usage of `tokens` (input, output).
 */
function responseStream(
  id: string,
  output: readonly unknown[],
  middle: readonly SseEvent[],
  [input, out]: readonly [number, number],
): SseEvent[] {
  const usage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: out,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + out,
  };
  return [
    responsesEvent("response.created", { response: { id, status: "in_progress" } }),
    ...middle,
    responsesEvent("response.completed", {
      response: { id, status: "completed", output, usage },
    }),
  ];
}

/** The OpenAI Responses API events of a response without output. */
function emptyResponseEvents(id: string): SseEvent[] {
  return responseStream(id, [], [], [0, 0]);
}

/** The OpenAI Responses API events of one tool call (a function or custom tool call). */
function responsesCallEvents(n: number, step: Extract<ModelStep, { kind: "call" }>): SseEvent[] {
  const item =
    step.source === undefined
      ? {
          type: "function_call",
          id: `fc_fake_${n}`,
          call_id: `call_fake_${n}`,
          name: step.name,
          arguments: JSON.stringify(step.input ?? {}),
          status: "completed",
        }
      : {
          type: "custom_tool_call",
          id: `ctc_fake_${n}`,
          call_id: `call_fake_${n}`,
          name: step.name,
          input: step.source,
          status: "completed",
        };
  return responseStream(
    `resp_fake_${n}`,
    [item],
    [
      responsesEvent("response.output_item.added", { output_index: 0, item }),
      responsesEvent("response.output_item.done", { output_index: 0, item }),
    ],
    [10, 5],
  );
}

/** The OpenAI Responses API events of one answer: a text message, or a tool call. */
function responsesAnswerEvents(n: number, step: ModelStep): SseEvent[] {
  return step.kind === "text" ? responsesEvents(n, step.text) : responsesCallEvents(n, step);
}

/** The OpenAI Responses API events of one assistant message with `text`. */
function responsesEvents(n: number, text: string): SseEvent[] {
  const itemId = `msg_fake_${n}`;
  const half = Math.ceil(text.length / 2);
  const parts = [text.slice(0, half), text.slice(half)];
  const message = {
    type: "message",
    id: itemId,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
  return responseStream(
    `resp_fake_${n}`,
    [message],
    [
      responsesEvent("response.output_item.added", {
        output_index: 0,
        item: { ...message, status: "in_progress", content: [] },
      }),
      ...parts.map((delta) =>
        responsesEvent("response.output_text.delta", {
          item_id: itemId,
          output_index: 0,
          content_index: 0,
          delta,
        }),
      ),
      responsesEvent("response.output_item.done", { output_index: 0, item: message }),
    ],
    [10, 5],
  );
}

/** The `message_start` event of an Anthropic Messages API stream. */
function messageStart(id: string, model: string): SseEvent {
  return {
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
  };
}

/** The Anthropic Messages API answer with `step` (text or a tool call), streaming or not as asked. */
function messagesAnswer(
  res: ServerResponse,
  n: number,
  body: unknown,
  step: ModelStep,
  held: boolean,
): void {
  if (step.kind === "call") {
    messagesToolUse(res, n, body, step);
    return;
  }
  const text = step.text;
  const model =
    typeof body === "object" &&
    body !== null &&
    typeof (body as { model?: unknown }).model === "string"
      ? (body as { model: string }).model
      : "claude-fake";
  const stream =
    typeof body === "object" && body !== null && (body as { stream?: unknown }).stream === true;
  const id = `msg_fake_${n}`;
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json", connection: "close" });
    res.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      }),
    );
    return;
  }
  const half = Math.ceil(text.length / 2);
  sse(
    res,
    [
      messageStart(id, model),
      {
        event: "content_block_start",
        data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      },
      ...[text.slice(0, half), text.slice(half)].map((t) => ({
        event: "content_block_delta",
        data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: t } },
      })),
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
      {
        event: "message_delta",
        data: {
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: 5 },
        },
      },
      { event: "message_stop", data: { type: "message_stop" } },
    ],
    held,
  );
}

/** The Anthropic Messages API answer that calls one tool (`stop_reason: "tool_use"`). */
function messagesToolUse(
  res: ServerResponse,
  n: number,
  body: unknown,
  step: Extract<ModelStep, { kind: "call" }>,
): void {
  const model = isEntry(body) && typeof body.model === "string" ? body.model : "claude-fake";
  const id = `msg_fake_${n}`;
  const block = {
    type: "tool_use",
    id: `toolu_fake_${n}`,
    name: step.name,
    input: step.input ?? {},
  };
  const usage = { input_tokens: 10, output_tokens: 5 };
  if (!(isEntry(body) && body.stream === true)) {
    res.writeHead(200, { "content-type": "application/json", connection: "close" });
    res.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model,
        content: [block],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  sse(res, [
    messageStart(id, model),
    {
      event: "content_block_start",
      data: { type: "content_block_start", index: 0, content_block: { ...block, input: {} } },
    },
    {
      event: "content_block_delta",
      data: {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      },
    },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ]);
}

/**
 * Starts the fake model API on 127.0.0.1 (a free port). It answers
 * `POST …/responses` (OpenAI Responses API, SSE), a websocket on `…/responses` (one
 * `response.create` frame in, the same events out as JSON text frames; a warm-up with
 * `generate: false` gets an empty response), `POST …/v1/messages` (Anthropic Messages
 * API, SSE when `stream: true`), `GET …/models` with an empty list, and 404 for anything
 * else. Every request is recorded, up to 1000; later ones get 429, bodies over 16 MB
 * get 413. A streamed answer to the checker's long prompt is held open
 * ({@link HELD_TURN_MARKER}).
 */
export async function startFakeModelServer(text = FAKE_MODEL_TEXT): Promise<FakeModelServer> {
  const requests: FakeModelRequest[] = [];
  const toolResults: FakeToolResult[] = [];
  let count = 0;
  const made = new Map<string, MadeCall>();
  /**
   * The answer to the request numbered `n`: a tool step when it asks for one, else the
   * text. A call gets the id `call_fake_<n>` (OpenAI) or `toolu_fake_<n>` (Anthropic).
   */
  const step = (
    n: number,
    plan: (body: Entry, text: string, made: ReadonlyMap<string, MadeCall>) => ModelStep | undefined,
    body: unknown,
  ): ModelStep => {
    const next: ModelStep = (isEntry(body) ? plan(body, text, made) : undefined) ?? {
      kind: "text",
      text,
    };
    if (next.kind === "text" && next.result !== undefined) toolResults.push(next.result);
    if (next.kind === "call") made.set(`call_fake_${n}`, { tool: next.tool, calledAs: next.name });
    return next;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0]!;
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = raw === "" ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const auth = req.headers.authorization ?? (req.headers["x-api-key"] as string | undefined);
      if (requests.length >= MAX_REQUESTS) {
        res.writeHead(429, { connection: "close" }).end();
        return;
      }
      const streamed =
        path.endsWith("/responses") ||
        (typeof body === "object" &&
          body !== null &&
          (body as { stream?: unknown }).stream === true);
      const held = req.method === "POST" && streamed && asksForHeldTurn(body);
      requests.push({ method: req.method ?? "GET", path, body, auth, held });
      if (tooLarge) {
        res.writeHead(413, { connection: "close" }).end();
      } else if (req.method === "POST" && path.endsWith("/responses")) {
        const n = ++count;
        sse(res, responsesAnswerEvents(n, step(n, responsesStep, body)), held);
      } else if (req.method === "POST" && path.endsWith("/v1/messages")) {
        const n = ++count;
        messagesAnswer(res, n, body, step(n, messagesStep, body), held);
      } else if (req.method === "GET" && path.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json", connection: "close" });
        res.end(JSON.stringify({ object: "list", data: [], models: [] }));
      } else {
        res.writeHead(404, { "content-type": "application/json", connection: "close" });
        res.end(JSON.stringify({ error: { type: "not_found", message: `fake: no ${path}` } }));
      }
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  // codex tries the Responses API over a websocket first: each `response.create` text
  // frame gets the same events as the SSE stream, one JSON text frame each.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  server.on("upgrade", (req, socket, head) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const auth = req.headers.authorization;
    if (!path.endsWith("/responses")) {
      requests.push({ method: "WEBSOCKET", path, body: undefined, auth });
      socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("message", (data) => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.isBuffer(data) ? data.toString("utf8") : "");
        } catch {
          body = undefined;
        }
        if (requests.length >= MAX_REQUESTS) {
          ws.close(1013, "too many requests");
          return;
        }
        // A warm-up (`generate: false`) gets an empty response without output.
        const warmUp =
          typeof body === "object" &&
          body !== null &&
          (body as { generate?: unknown }).generate === false;
        const held = !warmUp && asksForHeldTurn(body);
        requests.push({ method: "WEBSOCKET", path, body, auth, held });
        const n = warmUp ? 0 : ++count;
        const events = warmUp
          ? emptyResponseEvents(`resp_warmup_${requests.length}`)
          : responsesAnswerEvents(n, step(n, responsesStep, body));
        const sent = held ? heldPrefix(events) : events;
        for (const { data: event } of sent) ws.send(JSON.stringify(event));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    toolResults,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------------------
// A plain MCP server over loopback HTTP

/** One HTTP request an {@link McpHttpServer} received. */
export interface McpHttpRecord {
  readonly httpMethod: string;
  /** The JSON-RPC method of the body, when it had one. */
  readonly method: string | undefined;
  /** The `MCP-Protocol-Version` header, or for an `initialize`, the revision it asks for. */
  readonly protocolVersion: string | undefined;
  readonly userAgent: string | undefined;
  /** The HTTP status answered. */
  readonly status: number;
}

/** A running MCP server on 127.0.0.1. */
export interface McpHttpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Every request, in arrival order (recorded once answered). */
  readonly records: readonly McpHttpRecord[];
  /** Resolves once a request with this JSON-RPC method was answered. */
  answered(method: string): Promise<McpHttpRecord>;
  close(): Promise<void>;
}

/**
 * Hosts a web-standard MCP HTTP handler (such as `createMcpHandler(...)` of
 * `@modelcontextprotocol/server`) on node http, 127.0.0.1, path `/mcp`, recording which
 * MCP revision each request speaks.
 */
export async function startMcpHttpServer(handler: {
  fetch(request: Request): Promise<Response>;
}): Promise<McpHttpServer> {
  const records: McpHttpRecord[] = [];
  const waiters: { method: string; resolve: (record: McpHttpRecord) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        let message: Entry = {};
        try {
          const parsed: unknown = JSON.parse(body.toString("utf8"));
          if (isEntry(parsed)) message = parsed;
        } catch {
          // not JSON: the handler answers it
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === "string") headers.set(name, value);
          else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
        }
        const hasBody = req.method !== "GET" && req.method !== "HEAD";
        const response = await handler.fetch(
          new Request(`http://127.0.0.1${req.url ?? "/"}`, {
            method: req.method ?? "GET",
            headers,
            ...(hasBody ? { body } : {}),
          }),
        );
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.flushHeaders();
        const method = typeof message.method === "string" ? message.method : undefined;
        const params = isEntry(message.params) ? message.params : {};
        const header = req.headers["mcp-protocol-version"];
        const record: McpHttpRecord = {
          httpMethod: req.method ?? "GET",
          method,
          protocolVersion:
            typeof header === "string"
              ? header
              : typeof params.protocolVersion === "string"
                ? params.protocolVersion
                : undefined,
          userAgent: req.headers["user-agent"],
          status: response.status,
        };
        // Streamed as it comes: a long-lived event stream (`subscriptions/listen`) must
        // not hold its headers back.
        const reader = response.body?.getReader();
        for (let next = await reader?.read(); next !== undefined && !next.done;) {
          res.write(next.value);
          next = await reader?.read();
        }
        res.end();
        records.push(record);
        for (const waiter of [...waiters]) {
          if (waiter.method !== method) continue;
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(record);
        }
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    records,
    answered: (method) => {
      const seen = records.find((r) => r.method === method);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ method, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------------------
// Sealed homes

/** A temporary HOME for one agent process. */
export interface SealedHome {
  /** The HOME directory. */
  readonly home: string;
  /** An empty working directory for sessions (`session/new` `cwd`). */
  readonly workspace: string;
  /** The environment to run the agent with (nothing inherited but PATH and LANG). */
  readonly env: Record<string, string>;
  /** Removes the whole directory. */
  remove(): void;
}

/** Options for {@link sealedHome}. */
export interface SealedHomeOptions {
  /** The fake model server to point the agent at. */
  readonly model: FakeModelServer;
  /** The user who will own the directory (and run the agent). */
  readonly owner?: RunAs;
  /** Extra environment variables. */
  readonly env?: Record<string, string>;
}

function chownTree(path: string, owner: RunAs): void {
  chownSync(path, owner.uid, owner.gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child, owner);
    else chownSync(child, owner.uid, owner.gid);
  }
}

/**
 * Creates a temporary HOME for `kind`: no credentials, telemetry and update checks off,
 * and the model API's base URL on the fake server.
 *
 * - codex: `$CODEX_HOME/config.toml` sets `openai_base_url = "<fake>/v1"`, so the built-in
 *   `openai` provider (and its api-key login) stays in use but talks to the fake.
 * - claude: `ANTHROPIC_BASE_URL=<fake>` with `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`;
 *   the API key is only given where a test sets `ANTHROPIC_API_KEY` itself.
 */
export function sealedHome(kind: RealAgentKind, options: SealedHomeOptions): SealedHome {
  const home = mkdtempSync(join(tmpdir(), `acp-real-${kind}-`));
  const workspace = join(home, "workspace");
  const tmp = join(home, "tmp");
  mkdirSync(workspace);
  mkdirSync(tmp);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    HOME: home,
    USER: options.owner === undefined ? userInfo().username : "nobody",
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    NO_COLOR: "1",
    CI: "1",
  };
  if (kind === "codex") {
    const codexHome = join(home, ".codex");
    mkdirSync(codexHome);
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        `openai_base_url = "${options.model.origin}/v1"`,
        `check_for_update_on_startup = false`,
        ``,
        `[analytics]`,
        `enabled = false`,
        ``,
      ].join("\n"),
    );
    env.CODEX_HOME = codexHome;
  } else {
    const claudeDir = join(home, ".claude");
    mkdirSync(claudeDir);
    env.CLAUDE_CONFIG_DIR = claudeDir;
    env.ANTHROPIC_BASE_URL = options.model.origin;
    env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1";
    env.DISABLE_AUTOUPDATER = "1";
    env.DISABLE_TELEMETRY = "1";
    env.DISABLE_ERROR_REPORTING = "1";
  }
  Object.assign(env, options.env);
  if (options.owner !== undefined) chownTree(home, options.owner);
  return {
    home,
    workspace,
    env,
    remove: () => rmSync(home, { recursive: true, force: true, maxRetries: 3 }),
  };
}

// ---------------------------------------------------------------------------------------
// The raw NDJSON peer over a child process

/** A JSON-RPC message as received (parsed, unchecked). */
export type WireMessage = Record<string, unknown>;

/** Options for {@link spawnRealAgent}. */
export interface SpawnOptions {
  readonly home: SealedHome;
  /** Run as this user (needs root). */
  readonly runAs?: RunAs;
  /**
   * Answers a request the agent sends; the default answers `-32601`. Every request is
   * recorded in `received` first.
   */
  readonly onRequest?: (message: WireMessage) => { result: unknown } | { error: unknown };
}

/** A running agent with a raw NDJSON peer on its stdio. */
export interface RealAgent {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every message the agent wrote, in order. */
  readonly received: readonly WireMessage[];
  /** Every message sent to the agent, in order. */
  readonly sent: readonly WireMessage[];
  /** The method of each request id sent (to check the response's shape). */
  readonly sentMethods: ReadonlyMap<string | number, string>;
  /** What the agent wrote on stderr. */
  stderr(): string;
  /** Writes one message. */
  send(message: WireMessage): void;
  /**
   * Sends a request with the next numeric id and waits for its response. Resolves with the
   * response and the index of the response in `received`.
   */
  request(
    method: string,
    params: unknown,
    timeoutMs: number,
  ): Promise<{ response: WireMessage; index: number }>;
  /**
   * Waits for the first message at index ≥ `from` in `received` that satisfies `match`;
   * resolves with its index. Rejects after `timeoutMs` or when the agent exits first.
   */
  waitFor(match: (m: WireMessage) => boolean, from: number, timeoutMs: number): Promise<number>;
  /** Resolves with the exit code and signal once the process exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Ends stdin, waits up to `graceMs` for an exit, then SIGTERMs and at last SIGKILLs the
   * agent's process group (it runs detached, so its children go too).
   */
  close(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function timeout(ms: number): { promise: Promise<"timeout">; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** Spawns `kind` with `node <entry>` over pipes, in its own process group. */
export function spawnRealAgent(kind: RealAgentKind, options: SpawnOptions): RealAgent {
  const child = spawn(process.execPath, [agentEntry(kind)], {
    cwd: options.home.workspace,
    env: options.home.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
    ...(options.runAs === undefined ? {} : { uid: options.runAs.uid, gid: options.runAs.gid }),
  });
  const received: WireMessage[] = [];
  const sent: WireMessage[] = [];
  const sentMethods = new Map<string | number, string>();
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...waiters]) w();
  };
  let stderr = "";
  let carry = "";
  let nextId = 1;
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
      wake();
    });
  });
  const send = (message: WireMessage): void => {
    sent.push(message);
    if (
      typeof message.method === "string" &&
      (typeof message.id === "number" || typeof message.id === "string")
    ) {
      sentMethods.set(message.id, message.method);
    }
    if (child.stdin.writable) child.stdin.write(JSON.stringify(message) + "\n");
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    carry += chunk;
    let nl: number;
    while ((nl = carry.indexOf("\n")) !== -1) {
      const line = carry.slice(0, nl).trim();
      carry = carry.slice(nl + 1);
      if (line === "") continue;
      let message: WireMessage;
      try {
        message = JSON.parse(line) as WireMessage;
      } catch {
        message = { "acp-kit/notJson": line };
      }
      received.push(message);
      if (typeof message.method === "string" && message.id !== undefined) {
        const answer = options.onRequest?.(message) ?? {
          error: { code: -32601, message: "Method not found" },
        };
        send({ jsonrpc: "2.0", id: message.id, ...answer });
      }
    }
    wake();
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    if (stderr.length < 1_000_000) stderr += chunk;
  });
  child.stdin.on("error", () => {
    // EPIPE after the agent exited
  });

  const waitFor = async (
    match: (m: WireMessage) => boolean,
    from: number,
    timeoutMs: number,
  ): Promise<number> => {
    const deadline = timeout(timeoutMs);
    try {
      for (;;) {
        for (let i = from; i < received.length; i++) if (match(received[i]!)) return i;
        if (exitInfo !== undefined) {
          throw new Error(
            `${kind} exited (${exitInfo.code ?? exitInfo.signal}) before the awaited message; stderr: ${stderr.slice(-2000)}`,
          );
        }
        let wakeUp!: () => void;
        const woken = new Promise<void>((resolve) => (wakeUp = resolve));
        waiters.add(wakeUp);
        const result = await Promise.race([woken, deadline.promise]);
        waiters.delete(wakeUp);
        if (result === "timeout") {
          for (let i = from; i < received.length; i++) if (match(received[i]!)) return i;
          throw new Error(
            `no matching message from ${kind} within ${timeoutMs} ms; last: ${JSON.stringify(received.slice(-3)).slice(0, 2000)}; stderr: ${stderr.slice(-2000)}`,
          );
        }
      }
    } finally {
      deadline.cancel();
    }
  };

  const close = async (graceMs = 5000) => {
    if (exitInfo !== undefined) {
      killGroup(child.pid, "SIGKILL");
      return exitInfo;
    }
    child.stdin.end();
    for (const signal of [undefined, "SIGTERM", "SIGKILL"] as const) {
      if (signal !== undefined) killGroup(child.pid, signal);
      const t = timeout(graceMs);
      const result = await Promise.race([exited, t.promise]);
      t.cancel();
      if (result !== "timeout") {
        killGroup(child.pid, "SIGKILL");
        return result;
      }
    }
    return exited;
  };

  return {
    child,
    received,
    sent,
    sentMethods,
    stderr: () => stderr,
    send,
    async request(method, params, timeoutMs) {
      const id = nextId++;
      const from = received.length;
      send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
      const index = await waitFor((m) => m.id === id && m.method === undefined, from, timeoutMs);
      return { response: received[index]!, index };
    },
    waitFor,
    exited,
    close,
  };
}

// ---------------------------------------------------------------------------------------
// Validation

/** What {@link checkAgentMessage} found about one message. */
export interface MessageCheck {
  /** What the message is, for example `response session/new` or `notification session/update`. */
  readonly kind: string;
  /** The schema type it was checked against, or undefined for extension (`_…`) methods. */
  readonly type: string | undefined;
  /** Validation issues (empty when valid or unchecked). */
  readonly issues: readonly { path: string; message: string }[];
}

function specFor(version: 1 | 2, method: string): MethodSpec | undefined {
  return (version === 2 ? V2_METHOD_SPECS : V1_METHOD_SPECS).find((s) => s.method === method);
}

function run(
  validator: RawValidator | undefined,
  value: unknown,
): { path: string; message: string }[] {
  if (validator === undefined) return [];
  const result = runValidator(validator, value, false);
  return result.ok ? [] : [...result.issues];
}

/**
 * Checks one message an agent sent against the v1 or v2 schema: the params of a request
 * or notification by its method, a result by the method of the request it answers
 * (`sentMethods`), an error by the `Error` type. Extension methods (`_…`) are reported
 * with `type: undefined` and no issues.
 */
export function checkAgentMessage(
  version: 1 | 2,
  message: WireMessage,
  sentMethods: ReadonlyMap<string | number, string>,
): MessageCheck {
  if (message.jsonrpc !== "2.0") {
    return {
      kind: "not JSON-RPC 2.0",
      type: undefined,
      issues: [{ path: "/jsonrpc", message: "missing" }],
    };
  }
  if (typeof message.method === "string") {
    const kind = `${message.id === undefined ? "notification" : "request"} ${message.method}`;
    const spec = specFor(version, message.method);
    if (spec === undefined) {
      return message.method.startsWith("_")
        ? { kind, type: undefined, issues: [] }
        : { kind, type: undefined, issues: [{ path: "/method", message: "unknown method" }] };
    }
    return { kind, type: spec.paramsType, issues: run(spec.validateParams, message.params) };
  }
  const method = sentMethods.get(message.id as string | number);
  if ("error" in message) {
    const result =
      version === 2 ? validateV2("Error", message.error) : validate("Error", message.error);
    return {
      kind: `error ${method ?? "?"}`,
      type: "Error",
      issues: result.ok ? [] : [...result.issues],
    };
  }
  const spec = method === undefined ? undefined : specFor(version, method);
  return {
    kind: `response ${method ?? "?"}`,
    type: spec?.resultType,
    issues:
      spec === undefined
        ? [{ path: "/id", message: "answers no known request" }]
        : run(spec.validateResult, message.result),
  };
}
