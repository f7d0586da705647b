/**
 * Short, one-line descriptions of ACP messages for the trace views (`session/update` kind
 * and text, prompt text, stop reason, tool call title and status, ...), and folding of long
 * payloads. Works on whatever JSON the trace holds: nothing here trusts its shape.
 *
 * @module
 */
import { describePeerError, errorDataText } from "acp-kit";
import { jsonText } from "acp-kit/internal";
import type { TimelineEntry } from "./trace-timeline.js";

/** The longest quoted text in a summary. */
const QUOTE_CHARS = 60;

type Json = Record<string, unknown>;

function obj(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A string, quoted and shortened, on one line. */
export function quote(text: string, max = QUOTE_CHARS): string {
  const flat = text.replace(/\s+/g, " ");
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

/** The text of a content block, or its type. */
function contentText(block: unknown): string | undefined {
  const content = obj(block);
  if (content === undefined) return undefined;
  const text = str(content.text);
  if (text !== undefined) return quote(text);
  const type = str(content.type);
  const where = str(content.uri) ?? str(obj(content.resource)?.uri);
  return type === undefined ? undefined : `[${type}${where === undefined ? "" : ` ${where}`}]`;
}

function join(...parts: (string | undefined)[]): string | undefined {
  const kept = parts.filter((p): p is string => p !== undefined && p !== "");
  return kept.length === 0 ? undefined : kept.join(" ");
}

function count(value: unknown, one: string, many = `${one}s`): string | undefined {
  return Array.isArray(value) ? `${value.length} ${value.length === 1 ? one : many}` : undefined;
}

/** A value's JSON, cut to `max` characters: a peer's value may be deep or huge. */
export function shortJson(value: unknown, max = QUOTE_CHARS): string {
  const text = jsonText(value, { maxChars: max + 1 }) ?? "undefined";
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A string value, quoted; undefined when it is not a string. */
function quoted(value: unknown): string | undefined {
  return typeof value === "string" ? quote(value) : undefined;
}

/** `session/update`: its kind and what it carries. */
function describeUpdate(params: Json): string | undefined {
  const update = obj(params.update);
  if (update === undefined) return undefined;
  const kind = str(update.sessionUpdate) ?? "(no sessionUpdate)";
  switch (kind) {
    case "user_message_chunk":
    case "agent_message_chunk":
    case "agent_thought_chunk":
      return join(kind, contentText(update.content));
    case "tool_call":
      return join(
        kind,
        str(update.toolCallId),
        str(update.kind),
        str(update.status),
        quoted(update.title),
      );
    case "tool_call_update":
      return join(
        kind,
        str(update.toolCallId),
        str(update.kind),
        str(update.status),
        quoted(update.title) ?? quoted(update.name),
      );
    case "plan":
      return join(kind, count(update.entries, "entry", "entries"));
    // ACP v2
    case "user_message":
    case "agent_message":
    case "agent_thought": {
      const content = update.content;
      const blocks = Array.isArray(content) ? content : [];
      return join(
        kind,
        str(update.messageId),
        content === null ? "(cleared)" : contentText(blocks[0]),
        blocks.length > 1 ? `+${blocks.length - 1} blocks` : undefined,
      );
    }
    case "state_update":
      return describeState(update);
    case "tool_call_content_chunk":
      return join(
        kind,
        str(update.toolCallId),
        contentText(obj(update.content)?.content) ?? `[${str(obj(update.content)?.type) ?? "?"}]`,
      );
    case "terminal_update": {
      const exit = obj(update.exitStatus);
      return join(
        kind,
        str(update.terminalId),
        quoted(update.command),
        exit === undefined
          ? undefined
          : `exited ${shortJson(exit.exitCode ?? exit.signal ?? null)}`,
      );
    }
    case "terminal_output_chunk":
      return join(kind, str(update.terminalId), terminalText(update.data));
    case "plan_update": {
      const plan = obj(update.plan);
      return join(kind, str(plan?.planId), count(plan?.entries, "entry", "entries"));
    }
    case "available_commands_update":
      return join(kind, count(update.availableCommands, "command"));
    case "current_mode_update":
      return join(kind, str(update.currentModeId));
    default:
      return kind;
  }
}

/** A v2 `state_update`: the state, an idle's stop reason or error, the background work. */
function describeState(update: Json): string | undefined {
  const error = obj(update.error);
  const background = Array.isArray(update.background) ? update.background.length : undefined;
  return join(
    "state_update",
    str(update.state),
    str(update.stopReason),
    error === undefined ? undefined : join(shortJson(error.code), quoted(error.message)),
    background === undefined ? undefined : `background ${background}`,
  );
}

/** A v2 terminal's base64 output, decoded and quoted. */
function terminalText(data: unknown): string | undefined {
  if (typeof data !== "string") return undefined;
  return quote(Buffer.from(data, "base64").toString("utf8"));
}

/** The params of a request or notification. */
function describeParams(method: string, params: Json): string | undefined {
  switch (method) {
    case "session/update":
      return describeUpdate(params);
    case "initialize":
      return join(
        `protocolVersion ${shortJson(params.protocolVersion)}`,
        str(obj(params.clientInfo)?.name) ?? str(obj(params.info)?.name),
      );
    case "auth/login":
    case "authenticate":
      return str(params.methodId);
    case "session/resume":
      return join(
        str(params.sessionId),
        obj(params.replayFrom) === undefined
          ? undefined
          : `replay from ${str(obj(params.replayFrom)?.type) ?? "?"}`,
      );
    case "tool_call/cancel":
      return str(params.toolCallId);
    case "terminal/cancel":
      return str(params.terminalId);
    case "session/prompt":
      return Array.isArray(params.prompt) ? contentText(params.prompt[0]) : undefined;
    case "session/request_permission":
      return join(
        quoted(obj(params.toolCall)?.title) ?? quoted(params.title),
        str(obj(params.subject)?.type),
        count(params.options, "option"),
      );
    case "fs/read_text_file":
    case "fs/write_text_file":
      return str(params.path);
    case "terminal/create":
      return join(str(params.command), ...(Array.isArray(params.args) ? params.args.map(str) : []));
    case "session/new":
    case "session/load":
      return str(params.cwd);
    default:
      return str(params.sessionId);
  }
}

/** The result of a response to `method`. */
function describeResult(method: string | undefined, result: Json): string | undefined {
  if (typeof result.stopReason === "string") return `stopReason: ${result.stopReason}`;
  switch (method) {
    case "initialize": {
      const info = obj(result.agentInfo) ?? obj(result.info);
      return join(
        `protocolVersion ${shortJson(result.protocolVersion)}`,
        str(info?.name),
        str(info?.version),
      );
    }
    case "session/new":
      return typeof result.sessionId === "string" ? `sessionId ${result.sessionId}` : undefined;
    case "session/prompt":
      // v2 answers a prompt with the id of the inserted message.
      return typeof result.messageId === "string" ? `messageId ${result.messageId}` : undefined;
    case "session/request_permission": {
      const outcome = obj(result.outcome);
      return join(str(outcome?.outcome), str(outcome?.optionId));
    }
    case "fs/read_text_file":
      return typeof result.content === "string" ? `${result.content.length} chars` : undefined;
    default:
      return undefined;
  }
}

/** A one-line description of an entry's content, when there is something to say. */
export function describeEntry(entry: TimelineEntry): string | undefined {
  if (entry.error !== undefined) {
    const { code, message, data } = entry.error;
    if (code === undefined) return join(message, errorDataText(data));
    // The peer of an error the client answered is the agent's client: "the client".
    const peer = entry.dir === "client→agent" ? "the client" : "the agent";
    return describePeerError({ code, message, data }, peer);
  }
  const payload = obj(entry.payload);
  if (payload === undefined) return undefined;
  if (entry.kind === "response") return describeResult(entry.method, payload);
  return entry.method === undefined ? undefined : describeParams(entry.method, payload);
}

/** A size in bytes, for people: `980 B`, `12.3 KB`, `4.5 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A payload folded to its first characters. */
export interface Folded {
  /** The first characters of its compact JSON. */
  readonly text: string;
  /** The size of what was left out, in UTF-8 bytes (0 when nothing was). */
  readonly hiddenBytes: number;
}

/** Payloads at most this many characters over the limit are shown whole. */
const FOLD_SLACK = 32;

/**
 * Folds a value's compact JSON to its first `maxChars` characters (unless it is only a
 * little longer than that). Any depth is written (without recursion).
 */
export function fold(value: unknown, maxChars: number): Folded {
  const json = jsonText(value) ?? "undefined";
  // Folding away a few characters would save nothing: show them.
  if (json.length <= maxChars + FOLD_SLACK) return { text: json, hiddenBytes: 0 };
  const rest = json.slice(maxChars);
  return { text: json.slice(0, maxChars), hiddenBytes: Buffer.byteLength(rest, "utf8") };
}
