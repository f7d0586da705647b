/**
 * The conformance report: what `acp-kit check` and the client probe produce, as plain
 * JSON-serialisable data. Its shape is versioned by {@link REPORT_FORMAT_VERSION}.
 *
 * @module
 */
import type {
  AgentCapabilities,
  ClientCapabilities,
  Implementation,
} from "../../schema/types.gen.js";
import type {
  AgentCapabilities as AgentCapabilitiesV2,
  ClientCapabilities as ClientCapabilitiesV2,
} from "../../schema/v2/types.gen.js";

/** The value of {@link ConformanceReport.format}: tells a reader what the JSON is. */
export const REPORT_FORMAT = "acp-kit-conformance";

/** The version of the report's shape; bumped when a field changes meaning or goes away. */
export const REPORT_FORMAT_VERSION = 2;

/**
 * What happened to one check: it passed, it failed, it could not be decided because of
 * the environment (`inconclusive`: no login, a network error, an offline model's timeout),
 * or it was not run (`skip`: not advertised, or it needed a step that did not happen).
 */
export type CheckStatus = "pass" | "fail" | "inconclusive" | "skip";

/**
 * The class of a result, what the verdict makes of it: `must` (a failed MUST: the agent is
 * not conformant), `should` (a failed SHOULD or unnumbered rule: a warning), `inconclusive`
 * (the environment prevented a decision), or `pass` / `skip`.
 */
export type CheckClass = "pass" | "must" | "should" | "inconclusive" | "skip";

/** Where the conformance checklist is, relative to the repository and to the installed package. */
export const CHECKLIST_PATHS = {
  /** In the acp-kit repository. */
  repository: "docs/checklist.md",
  /** In the installed `acp-kit` package. */
  package: "node_modules/acp-kit/checklist.md",
} as const;

/**
 * How strong the rule a check tests is: `must` (a MUST of the protocol) or `should`
 * (a SHOULD, or a recommendation). {@link ConformanceReport.ok} only counts `must` failures.
 */
export type CheckSeverity = "must" | "should";

/** Which way a message went, seen from the client. */
export type ExchangeDirection = "client->agent" | "agent->client";

/** One message of a failing exchange, as it crossed the wire (trimmed when long). */
export interface ExchangeMessage {
  /** Discriminator of {@link ExchangeEntry}. */
  readonly kind: "message";
  /** Position of the message in everything the check run sent and received (from 1). */
  readonly seq: number;
  /** Which of the run's connections carried it (for agent checks: `main`, `bare`, `version`). */
  readonly connection: string;
  /** Which way it went. */
  readonly direction: ExchangeDirection;
  /** The line as sent or received, cut to a few hundred characters. */
  readonly text: string;
  /** Why this line is not a valid message, when it is not. */
  readonly problem?: string;
}

/** Messages left out of an exchange to keep it short. */
export interface ExchangeGap {
  /** Discriminator of {@link ExchangeEntry}. */
  readonly kind: "gap";
  /** How many messages were left out here. */
  readonly omitted: number;
}

/** An entry of {@link CheckResult.exchange}. */
export type ExchangeEntry = ExchangeMessage | ExchangeGap;

/** The result of one check. */
export interface CheckResult {
  /** Stable id, kebab-case, e.g. `cancel`. */
  readonly id: string;
  /** One line saying what is checked. */
  readonly title: string;
  /** The numbers of the rules tested, from the conformance checklist (`docs/checklist.md`, `R<n>`). */
  readonly rules: readonly number[];
  /** Sections of the protocol digest the check relies on besides the numbered rules (e.g. `§5`). */
  readonly sections: readonly string[];
  /** Whether the rule is a MUST or a SHOULD. */
  readonly severity: CheckSeverity;
  /** What happened. */
  readonly status: CheckStatus;
  /** What the verdict makes of it (see {@link CheckClass}). */
  readonly class: CheckClass;
  /** The check's entry in the checklist, e.g. `docs/checklist.md#cancel`. */
  readonly checklist: string;
  /** Why it failed, was inconclusive or was skipped (absent when it passed). */
  readonly reason?: string;
  /** Remarks that do not change the status (SHOULD-level findings, inconclusive parts). */
  readonly notes: readonly string[];
  /** On failure or when inconclusive: the messages that show it, in order (trimmed when long). */
  readonly exchange: readonly ExchangeEntry[];
}

/** Counts of a report's checks by status. */
export interface ReportSummary {
  /** Checks that passed. */
  readonly passed: number;
  /** Checks that failed (MUST and SHOULD). */
  readonly failed: number;
  /** Failed MUST checks: each one makes the agent not conformant. */
  readonly mustFailed: number;
  /** Failed SHOULD checks: warnings. */
  readonly warnings: number;
  /** Checks the environment kept from a decision (login, network, an offline model). */
  readonly inconclusive: number;
  /** Checks that were skipped. */
  readonly skipped: number;
  /** All checks. */
  readonly total: number;
}

/** The agent a report is about. */
export interface AgentSubject {
  /** Discriminator of {@link ReportSubject}. */
  readonly kind: "agent";
  /** The command that started it. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** The directory it was started in. */
  readonly cwd: string;
  /** What it said about itself in `initialize`, if it answered. */
  readonly agentInfo?: Implementation;
  /** The capabilities it advertised, if it answered (v1). */
  readonly agentCapabilities?: AgentCapabilities;
  /** The capabilities it advertised, if it answered in ACP v2 (`capabilities`). */
  readonly agentCapabilitiesV2?: AgentCapabilitiesV2;
}

/** The client a report is about. */
export interface ClientSubject {
  /** Discriminator of {@link ReportSubject}. */
  readonly kind: "client";
  /** What it said about itself in `initialize`, if anything. */
  readonly clientInfo?: Implementation;
  /** The capabilities it advertised (v1). */
  readonly clientCapabilities?: ClientCapabilities;
  /** The capabilities it advertised in ACP v2 (`capabilities`). */
  readonly clientCapabilitiesV2?: ClientCapabilitiesV2;
  /** The protocol version it requested. */
  readonly requestedProtocolVersion?: number;
}

/** What a report is about. */
export type ReportSubject = AgentSubject | ClientSubject;

/** A conformance report: the machine-readable result of a check run. */
export interface ConformanceReport {
  /** Always {@link REPORT_FORMAT}. */
  readonly format: typeof REPORT_FORMAT;
  /** Always {@link REPORT_FORMAT_VERSION} for this shape. */
  readonly formatVersion: typeof REPORT_FORMAT_VERSION;
  /** Whether an agent or a client was checked. */
  readonly kind: ReportSubject["kind"];
  /** The protocol version the checks are written for (the agreed one, when negotiated). */
  readonly protocolVersion: number;
  /**
   * The version the checker and its peer agreed on, when the checker negotiated
   * (`acp-kit check --protocol auto|2`, or a client probe that serves both versions).
   */
  readonly agreedProtocolVersion?: number;
  /** The tool that made the report. */
  readonly tool: { readonly name: string; readonly version: string };
  /** What was checked. */
  readonly subject: ReportSubject;
  /** Every check, in a fixed order, whatever its status. */
  readonly checks: readonly CheckResult[];
  /** Counts by status. */
  readonly summary: ReportSummary;
  /** True when no `must` check failed. */
  readonly ok: boolean;
  /** Remarks about the whole run, said once (a login, why live-turn checks were not run). */
  readonly notes?: readonly string[];
  /** The last lines the agent wrote to stderr (agent reports), for context. */
  readonly stderrTail?: readonly string[];
}

/** Counts checks by status. */
export function summarize(checks: readonly CheckResult[]): ReportSummary {
  const count = (status: CheckStatus): number =>
    checks.filter((check) => check.status === status).length;
  const ofClass = (kind: CheckClass): number =>
    checks.filter((check) => check.class === kind).length;
  return {
    passed: count("pass"),
    failed: count("fail"),
    mustFailed: ofClass("must"),
    warnings: ofClass("should"),
    inconclusive: count("inconclusive"),
    skipped: count("skip"),
    total: checks.length,
  };
}

/** The class of a result from its status and severity. */
export function classOf(status: CheckStatus, severity: CheckSeverity): CheckClass {
  if (status === "fail") return severity;
  return status;
}

/** True when no check of class `must` failed (warnings and inconclusive results do not count). */
export function reportOk(checks: readonly CheckResult[]): boolean {
  return !checks.some((check) => check.class === "must");
}
