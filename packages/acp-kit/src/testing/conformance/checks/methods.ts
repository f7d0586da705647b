/**
 * Checks of how the agent answers what it does not know: unknown methods, extension
 * methods, notifications, malformed params.
 *
 * @module
 */
import { failed, inconclusive, passed, type CheckOutcome } from "../catalog.js";
import type { WireRecord } from "../log.js";
import type { RunContext, CheckChannel } from "./support.js";
import { describe, exchangeOf, isAuthRequired, sleep } from "./support.js";

/** The unknown protocol-looking method the checker calls. */
export const UNKNOWN_METHOD = "acp-kit/unknown";
/** The unknown extension method the checker calls. */
export const UNKNOWN_EXTENSION_METHOD = "_acp-kit/unknown";

async function expectError(
  context: RunContext,
  channel: CheckChannel,
  method: string,
  params: unknown,
  code: number,
): Promise<CheckOutcome> {
  const outcome = await channel.request(method, params);
  if (outcome.kind === "error" && outcome.error.code === code) return passed();
  if (isAuthRequired(outcome)) {
    return inconclusive(
      `${method} ${describe(outcome)} before its params were checked; log in (--auth METHOD) and run again`,
      exchangeOf(context.log, outcome),
    );
  }
  return failed(
    `${method} ${describe(outcome)}; expected error ${code}`,
    exchangeOf(context.log, outcome),
  );
}

/** A request for a method the protocol does not define is answered `-32601`. */
export function checkUnknownMethod(
  context: RunContext,
  channel: CheckChannel,
): Promise<CheckOutcome> {
  return expectError(context, channel, UNKNOWN_METHOD, {}, -32601);
}

/** A request for an unknown `_` extension method is answered `-32601`. */
export function checkUnknownExtensionMethod(
  context: RunContext,
  channel: CheckChannel,
): Promise<CheckOutcome> {
  return expectError(context, channel, UNKNOWN_EXTENSION_METHOD, {}, -32601);
}

/** `session/new` with `cwd: 42` is answered `-32602`. */
export function checkInvalidParams(
  context: RunContext,
  channel: CheckChannel,
): Promise<CheckOutcome> {
  return expectError(context, channel, "session/new", { cwd: 42, mcpServers: [] }, -32602);
}

/**
 * Unknown notifications (an extension one, an unknown `$/` one, a `$/cancel_request`
 * naming no request) get no response, and the agent keeps answering afterwards.
 */
export async function checkNotificationsUnanswered(
  context: RunContext,
  channel: CheckChannel,
): Promise<CheckOutcome> {
  const from = context.log.nextSeq;
  channel.notify("_acp-kit/unknown-notification", { note: "please ignore" });
  channel.notify("$/acp-kit/unknown", {});
  channel.notify("$/cancel_request", { requestId: "acp-kit-check-no-such-request" });
  // A request after them: its answer shows the agent is still there, and an agent that
  // handles messages in order would have answered the notifications before it.
  const barrier = await channel.request("_acp-kit/barrier", {});
  await sleep(context.timeouts.quietMs);
  const barrierId =
    barrier.request.message?.type === "request" ? barrier.request.message.id : undefined;
  const stray = context.log.between(channel.name, from, undefined, (record) => {
    const message = record.message;
    if (record.direction !== "in") return false;
    if (isIdlessResponse(record)) return true;
    if (message === undefined) return false;
    return (message.type === "result" || message.type === "error") && message.id !== barrierId;
  });
  // Answers without an id are this check's finding, not a stdout-purity one.
  for (const record of stray) if (record.message === undefined) context.attributed.add(record.seq);
  const shown = context.log.between(channel.name, from, undefined, (record) => {
    const type = record.message?.type;
    return (
      record.direction === "out" ||
      type === "result" ||
      type === "error" ||
      isIdlessResponse(record)
    );
  });
  if (stray.length > 0) {
    return failed(
      `The agent answered a notification (${stray.length} response(s) that match no request)`,
      context.log.excerpt(shown),
    );
  }
  if (barrier.kind === "timeout" || barrier.kind === "closed") {
    return failed(
      `After three unknown notifications, a request ${describe(barrier)}`,
      context.log.excerpt(shown),
    );
  }
  return passed();
}

/**
 * True for a line shaped like a JSON-RPC response without an `id` member (some agents
 * answer notifications so): JSON-RPC 2.0, a `result` or an `error`, no `method`, no `id`.
 */
function isIdlessResponse(record: WireRecord): boolean {
  if (record.direction !== "in" || record.message !== undefined) return false;
  let value: unknown;
  try {
    value = JSON.parse(record.line);
  } catch {
    return false;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const object = value as Record<string, unknown>;
  return (
    object.jsonrpc === "2.0" &&
    !("id" in object) &&
    !("method" in object) &&
    ("result" in object || "error" in object)
  );
}
