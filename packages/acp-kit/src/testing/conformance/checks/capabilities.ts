/**
 * Checks of the agent's calls to the client: only what the client advertised, and
 * well-formed.
 *
 * @module
 */
import { failed, passed, skipped, type CheckOutcome } from "../catalog.js";
import type { WireLog, WireRecord } from "../log.js";
import type { CheckChannel } from "./support.js";

function initializeOf(log: WireLog, connection: string): WireRecord[] {
  const found = log.records.find(
    (record) =>
      record.connection === connection &&
      record.direction === "out" &&
      record.message?.type === "request" &&
      record.message.method === "initialize",
  );
  return found === undefined ? [] : [found];
}

/**
 * No `fs/*` or `terminal/*` call on the connection that advertised neither (`bare`), and
 * no `elicitation/*` call on any (the checker never advertises elicitation).
 *
 * @param bareSkipped - Why the bare connection could not run a prompt turn, if it could not.
 */
export function checkClientCapabilities(
  log: WireLog,
  main: CheckChannel | undefined,
  bare: CheckChannel | undefined,
  bareSkipped: string | undefined,
): CheckOutcome {
  const channels = [bare, main].filter((channel) => channel !== undefined);
  const ungated = channels.flatMap((channel) => channel.client.ungated);
  if (ungated.length > 0) {
    const methods = [...new Set(ungated.map((r) => (r.message as { method: string }).method))];
    const connections = [...new Set(ungated.map((record) => record.connection))];
    return failed(
      `The agent called ${methods.join(", ")} although the client did not advertise ` +
        "the capability",
      log.excerpt([
        ...connections.flatMap((connection) => initializeOf(log, connection)),
        ...ungated,
      ]),
    );
  }
  if (bareSkipped !== undefined) return skipped(bareSkipped);
  const used = channels.some((channel) => channel.client.calls.length > 0);
  return passed(
    used
      ? []
      : ["The agent made no file-system or terminal calls, even where they were advertised."],
  );
}

/** The fs, terminal and permission requests the agent made were well-formed. */
export function checkClientRequests(log: WireLog, main: CheckChannel | undefined): CheckOutcome {
  if (main === undefined || main.client.calls.length === 0) {
    return skipped("The agent made no file-system, terminal or permission requests to check");
  }
  const notes: string[] = [];
  const open = main.client.unreleasedTerminals;
  if (open.length > 0) {
    notes.push(
      `Terminals never released: ${open.join(", ")} (agents MUST release them, rule 121).`,
    );
  }
  const problems = main.client.problems;
  const first = problems[0];
  if (first === undefined) return passed(notes);
  const method = (first.record.message as { method: string } | undefined)?.method ?? "?";
  return failed(
    `${problems.length} malformed request(s); the first, ${method}: ${first.problem}`,
    log.excerpt(problems.map((problem) => problem.record)),
    notes,
  );
}
