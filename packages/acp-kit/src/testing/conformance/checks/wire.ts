/**
 * Checks over the whole wire log of a run: stdout purity, method names, response ids
 * and the validity of every `session/update`.
 *
 * @module
 */
import { METHOD_SPECS } from "../../../schema/methods.gen.js";
import type { MethodSpec } from "../../../schema/method-spec.js";
import { failed, passed, type CheckOutcome } from "../catalog.js";
import { sessionOf, type WireLog, type WireRecord } from "../log.js";
import type { CheckChannel } from "./support.js";
import { invalidBecause } from "./support.js";

/** Methods the agent may send to the client, stable and unstable, from a method table. */
function clientMethods(specs: readonly MethodSpec[]): Map<string, MethodSpec> {
  return new Map(
    specs
      .filter((spec) => spec.handledBy !== "agent")
      .map((spec) => [`${spec.kind}:${spec.method}`, spec]),
  );
}

const CLIENT_METHODS = clientMethods(METHOD_SPECS);

function inbound(log: WireLog): WireRecord[] {
  return log.records.filter((record) => record.direction === "in");
}

/**
 * What other output on stdout costs besides the junk lines: on Node 20 the classic
 * recipe's `Writable.toWeb(process.stdout)` silently drops protocol messages written
 * while that output waits for a drain.
 */
const SHARED_STDOUT_WARNING =
  "Warning: something besides the protocol writes to this agent's stdout. Besides the junk " +
  "lines, that can lose protocol messages silently: on Node 20, " +
  "Writable.toWeb(process.stdout) drops a message written while stdout waits for a drain, " +
  "which other output causes. Write logs to stderr; in Node use agentStdioStream() from " +
  "acp-kit/node, which moves console output to stderr and loses nothing.";

/** Every line the agent wrote on stdout is a UTF-8 JSON-RPC 2.0 message. */
export function checkStdoutPurity(
  log: WireLog,
  attributed: ReadonlySet<number> = new Set(),
): CheckOutcome {
  const lines = inbound(log);
  const claimed = lines.filter((record) => attributed.has(record.seq)).length;
  const bad = lines.filter((record) => record.problem !== undefined && !attributed.has(record.seq));
  const blank = lines.filter((record) => record.blank === true).length;
  const notes = [
    ...(blank > 0 ? [`${blank} empty line(s) on stdout (tolerated, but not messages).`] : []),
    ...(claimed > 0
      ? [`${claimed} response(s) without an id are counted under notifications-unanswered.`]
      : []),
  ];
  if (bad.length === 0) {
    if (lines.length === 0) return failed("The agent wrote nothing on stdout");
    return passed(notes);
  }
  const first = bad[0];
  return failed(
    `${bad.length} line(s) on stdout are not JSON-RPC messages; the first: ${first?.problem ?? ""}`,
    log.excerpt(bad),
    [...notes, SHARED_STDOUT_WARNING],
  );
}

/**
 * The agent sends only methods a client handles (stable or unstable), `_` extension
 * methods or `$/` protocol-level ones; `specs` is the method table of the version checked.
 */
export function checkMethodNames(log: WireLog, specs?: readonly MethodSpec[]): CheckOutcome {
  const table = specs === undefined ? CLIENT_METHODS : clientMethods(specs);
  const unstable = new Set<string>();
  const offending = inbound(log).filter((record) => {
    const message = record.message;
    if (message?.type !== "request" && message?.type !== "notification") return false;
    const { method } = message;
    if (method.startsWith("_") || method.startsWith("$/")) return false;
    const spec = table.get(`${message.type}:${method}`);
    if (spec === undefined) return true;
    if (!spec.stable) unstable.add(method);
    return false;
  });
  const notes =
    unstable.size > 0 ? [`Unstable methods used: ${[...unstable].sort().join(", ")}.`] : [];
  if (offending.length === 0) return passed(notes);
  const names = [
    ...new Set(offending.map((r) => (r.message as { method: string } | undefined)?.method)),
  ];
  return failed(
    `The agent sent method(s) the protocol does not define for a client, without a leading ` +
      `underscore: ${names.join(", ")}`,
    log.excerpt(offending),
    notes,
  );
}

/** Every response of the agent answers a request the checker sent on that connection, once. */
export function checkResponseIds(log: WireLog): CheckOutcome {
  const sent = new Set<string>();
  const answered = new Set<string>();
  const offending: WireRecord[] = [];
  for (const record of log.records) {
    const message = record.message;
    if (message === undefined) continue;
    if (record.direction === "out" && message.type === "request") {
      sent.add(`${record.connection}:${JSON.stringify(message.id)}`);
    }
    if (record.direction !== "in" || (message.type !== "result" && message.type !== "error")) {
      continue;
    }
    const key = `${record.connection}:${JSON.stringify(message.id)}`;
    if (!sent.has(key) || answered.has(key)) offending.push(record);
    answered.add(key);
  }
  if (offending.length === 0) return passed();
  return failed(
    `${offending.length} response(s) answer no pending request (unknown id, a second answer, ` +
      "or an answer to a notification)",
    log.excerpt(offending),
  );
}

/** Every `session/update` validates and names a session the agent created on that connection. */
export function checkSessionUpdates(log: WireLog, channels: readonly CheckChannel[]): CheckOutcome {
  const sessions = new Map(channels.map((channel) => [channel.name, channel.client.sessions]));
  const problems: { record: WireRecord; problem: string }[] = [];
  let count = 0;
  for (const record of inbound(log)) {
    const message = record.message;
    if (message?.type !== "notification" || message.method !== "session/update") continue;
    count++;
    const invalid = invalidBecause("SessionNotification", message.params);
    const sessionId = sessionOf(message);
    if (invalid !== undefined) problems.push({ record, problem: invalid });
    else if (sessionId !== undefined && sessions.get(record.connection)?.has(sessionId) !== true) {
      problems.push({ record, problem: `unknown sessionId ${sessionId}` });
    }
  }
  if (problems.length === 0) {
    return passed(count === 0 ? ["The agent sent no session/update at all."] : []);
  }
  const first = problems[0];
  return failed(
    `${problems.length} of ${count} session/update notification(s) are invalid; the first is ` +
      (first?.problem ?? ""),
    log.excerpt(problems.map((p) => p.record)),
  );
}
