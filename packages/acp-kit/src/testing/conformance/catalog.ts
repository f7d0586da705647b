/**
 * The catalog of conformance checks: for each, its id, what it tests and which rules of
 * the conformance checklist (`docs/checklist.md`) it covers.
 *
 * @module
 */
import {
  CHECKLIST_PATHS,
  classOf,
  type CheckResult,
  type CheckSeverity,
  type CheckStatus,
  type ExchangeEntry,
} from "./report.js";

/** What a check is, independently of any run. */
export interface CheckDefinition {
  /** Stable id, kebab-case. */
  readonly id: string;
  /** One line saying what is checked. */
  readonly title: string;
  /** Numbers of the checklist rules it tests. */
  readonly rules: readonly number[];
  /** Other sections of the digest it relies on. */
  readonly sections: readonly string[];
  /** Whether the rule is a MUST or a SHOULD (checks of unnumbered rules are SHOULD). */
  readonly severity: CheckSeverity;
}

function def(
  id: string,
  title: string,
  rules: readonly number[],
  sections: readonly string[] = [],
  severity: CheckSeverity = "must",
): CheckDefinition {
  return { id, title, rules, sections, severity };
}

/** The checks run against an agent, in report order. */
export const AGENT_CHECKS: readonly CheckDefinition[] = [
  def("stdout-purity", "Every line on stdout is a UTF-8 JSON-RPC 2.0 message", [1, 3, 5]),
  def("protocol-version", "initialize answers the requested version or the newest", [14, 15, 17]),
  def("initialize-result", "initialize answers a valid result with its capabilities", [14, 20, 26]),
  def("unknown-method", "An unknown method is answered -32601", [10], ["§2.4", "§5"]),
  def(
    "unknown-extension-method",
    "An unknown `_` extension request is answered -32601",
    [159, 160],
  ),
  def("notifications-unanswered", "Notifications (`_`, `$/`) get no response", [8, 151, 161]),
  def("invalid-params", "Malformed params are answered -32602", [], ["§5", "§6.4"], "should"),
  def("session-new", "session/new answers unique session ids", [35, 76]),
  def("prompt-turn", "A text + resource_link prompt ends with a valid stop reason", [21, 92, 104]),
  def("session-updates", "Every session/update is valid and names a known session", [22, 91, 107]),
  def("cancel", "session/cancel ends the turn `cancelled`, no updates after", [100, 101, 102]),
  def("session-list", "session/list (when advertised) returns a filtered sessions array", [59, 60]),
  def("session-load", "session/load (when advertised) replays before answering", [38, 39]),
  def("session-resume", "session/resume (when advertised) does not replay", [43]),
  def("session-close", "session/close (when advertised) cancels the running turn", [46]),
  def("session-delete", "session/delete (when advertised) removes the session", [69, 70]),
  def(
    "client-capabilities",
    "No fs/terminal/elicitation calls the client did not advertise",
    [114, 117, 130],
  ),
  def("client-requests", "fs, terminal and permission requests are well-formed", [9, 116, 120]),
  def("method-names", "The agent sends only protocol methods or `_` extensions", [159]),
  def("response-ids", "Every response answers one pending request, once", [8, 10]),
];

/**
 * The version negotiation check, run first when the checker asks for v2 (`protocol`
 * `"auto"` or `2`): the agent answers a v2 `initialize` with version 2 or 1.
 */
export const NEGOTIATION_CHECK: CheckDefinition = def(
  "negotiation",
  "A v2 initialize is answered with version 2 or 1, not an error or silence",
  [15, 201],
);

function byId(id: string): CheckDefinition {
  const found = AGENT_CHECKS.find((definition) => definition.id === id);
  if (found === undefined) throw new Error(`Unknown conformance check: ${id}`);
  return found;
}

/** The checks run against an agent that agreed to ACP v2, in report order. */
export const AGENT_CHECKS_V2: readonly CheckDefinition[] = [
  byId("stdout-purity"),
  NEGOTIATION_CHECK,
  def("v2-initialize", "initialize answers a valid v2 result (info, capabilities)", [14, 202]),
  byId("unknown-method"),
  byId("unknown-extension-method"),
  byId("notifications-unanswered"),
  byId("invalid-params"),
  def("v2-session-new", "session/new answers valid v2 results with unique ids", [35, 203]),
  def(
    "v2-prompt-turn",
    "A prompt is answered {messageId}, echoed as a user message, and runs running → idle",
    [21, 204, 205],
  ),
  def(
    "v2-stop-reason",
    "The idle update that ends a turn carries a stop reason",
    [206],
    [],
    "should",
  ),
  def(
    "v2-session-updates",
    "Every session/update is valid v2 and names a known session",
    [91, 107],
  ),
  def(
    "v2-update-order",
    "Content chunks name tool calls and terminals created before them",
    [],
    ["v2 §tool-calls", "v2 §terminals"],
    "should",
  ),
  def("v2-cancel", "session/cancel ends the foreground work idle `cancelled`", [207]),
  def(
    "v2-session-list",
    "session/list (baseline) answers a filtered sessions array",
    [59, 60, 203],
  ),
  def(
    "v2-session-resume",
    "session/resume (baseline) sends a state snapshot before its answer",
    [203, 208],
  ),
  def(
    "v2-session-close",
    "session/close (baseline) ends a running turn idle `cancelled` before answering",
    [46, 203, 209],
  ),
  def("v2-session-delete", "session/delete (when advertised) removes the session", [69, 70]),
  def(
    "v2-client-requests",
    "Permission requests are valid v2; no elicitation the client did not advertise",
    [9, 130],
  ),
  byId("method-names"),
  byId("response-ids"),
];

/** The checks the client probe runs against a client, in report order. */
export const CLIENT_CHECKS: readonly CheckDefinition[] = [
  def("client-initialize", "initialize comes first, with version and capabilities", [11, 12, 20]),
  def("client-info", "The client identifies itself (clientInfo)", [13], [], "should"),
  def("fs-write", "fs/write_text_file creates a file (when advertised)", [115]),
  def("fs-read", "fs/read_text_file returns the file, honouring line/limit", [116]),
  def(
    "fs-read-missing",
    "Reading a missing file is an error (-32002)",
    [],
    ["§3.16", "§5"],
    "should",
  ),
  def(
    "terminal-run",
    "terminal/create, output, wait_for_exit, release (when advertised)",
    [118, 123],
  ),
  def("terminal-kill", "terminal/kill stops the command, the terminal stays usable", [122]),
  def("terminal-output-limit", "Output over outputByteLimit keeps the tail, cut cleanly", [119]),
  def(
    "permission",
    "session/request_permission is answered with an offered option",
    [],
    ["§3.15"],
    "should",
  ),
  def(
    "update-rendering",
    "Every session/update kind is rendered (user confirmation)",
    [105, 111, 113],
    [],
    "should",
  ),
  def("permission-cancel", "Pending permission requests are answered `cancelled` on cancel", [98]),
];

/** What a check function decides: everything of a {@link CheckResult} but its definition. */
export interface CheckOutcome {
  /** What happened. */
  readonly status: CheckStatus;
  /** Why it failed, was inconclusive or was skipped. */
  readonly reason?: string;
  /** Remarks that do not change the status. */
  readonly notes?: readonly string[];
  /** The messages showing a failure. */
  readonly exchange?: readonly ExchangeEntry[];
}

/** A passing outcome, with optional notes. */
export function passed(notes: readonly string[] = []): CheckOutcome {
  return { status: "pass", notes };
}

/** A failing outcome: why, and the messages that show it. */
export function failed(
  reason: string,
  exchange: readonly ExchangeEntry[] = [],
  notes: readonly string[] = [],
): CheckOutcome {
  return { status: "fail", reason, exchange, notes };
}

/**
 * An inconclusive outcome: the environment (a missing login, the network, an offline
 * model) kept the check from deciding; the exchange quotes the request and the answer.
 */
export function inconclusive(
  reason: string,
  exchange: readonly ExchangeEntry[] = [],
  notes: readonly string[] = [],
): CheckOutcome {
  return { status: "inconclusive", reason, exchange, notes };
}

/** A skipped outcome: why it was not run. */
export function skipped(reason: string, notes: readonly string[] = []): CheckOutcome {
  return { status: "skip", reason, notes };
}

/** Combines a definition and an outcome into a result. */
export function checkResult(definition: CheckDefinition, outcome: CheckOutcome): CheckResult {
  return {
    id: definition.id,
    title: definition.title,
    rules: definition.rules,
    sections: definition.sections,
    severity: definition.severity,
    status: outcome.status,
    class: classOf(outcome.status, definition.severity),
    checklist: `${CHECKLIST_PATHS.repository}#${definition.id}`,
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    notes: outcome.notes ?? [],
    exchange:
      outcome.status === "fail" || outcome.status === "inconclusive"
        ? (outcome.exchange ?? [])
        : [],
  };
}

/** The definition with the given id (throws for an unknown id: a programming error). */
export function definitionOf(catalog: readonly CheckDefinition[], id: string): CheckDefinition {
  const found = catalog.find((definition) => definition.id === id);
  if (found === undefined) throw new Error(`Unknown conformance check: ${id}`);
  return found;
}
