/**
 * Human-readable renderings of a {@link ConformanceReport}: plain text for terminals and
 * Markdown for chat panes (the client probe answers with it).
 *
 * @module
 */
import type {
  CheckResult,
  CheckStatus,
  ConformanceReport,
  ExchangeEntry,
  ReportSubject,
} from "./report.js";

const LABELS: Record<CheckStatus, string> = { pass: "PASS", fail: "FAIL", skip: "SKIP" };

function rulesOf(check: CheckResult): string {
  const parts = [
    ...(check.rules.length > 0
      ? [`${check.rules.length === 1 ? "rule" : "rules"} ${check.rules.join(", ")}`]
      : []),
    ...check.sections,
  ];
  return parts.length > 0 ? `[${parts.join("; ")}]` : "";
}

/** The capabilities a peer advertised, as dotted paths (`fs.readTextFile`, `sessionCapabilities.list`). */
export function capabilityPaths(capabilities: unknown, prefix = ""): string[] {
  if (typeof capabilities !== "object" || capabilities === null) return [];
  const paths: string[] = [];
  for (const [key, value] of Object.entries(capabilities as Record<string, unknown>)) {
    if (key === "_meta") continue;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (value === true) paths.push(path);
    else if (typeof value === "object" && value !== null) {
      const inner = capabilityPaths(value, path);
      paths.push(...(inner.length > 0 || Object.keys(value).length > 0 ? inner : [path]));
    }
  }
  return paths;
}

function capabilityLine(subject: ReportSubject): string {
  const capabilities =
    subject.kind === "agent" ? subject.agentCapabilities : subject.clientCapabilities;
  const paths = capabilityPaths(capabilities);
  return `capabilities: ${paths.length > 0 ? paths.join(", ") : "none"}`;
}

function subjectLine(subject: ReportSubject): string {
  if (subject.kind === "agent") {
    const command = [subject.command, ...subject.args].join(" ");
    const info = subject.agentInfo;
    return `agent: ${command}${info === undefined ? "" : ` (${info.name} ${info.version})`}`;
  }
  const info = subject.clientInfo;
  return `client: ${info === undefined ? "(no clientInfo)" : `${info.name} ${info.version}`}`;
}

function exchangeLines(exchange: readonly ExchangeEntry[], indent: string): string[] {
  return exchange.map((entry) => {
    if (entry.kind === "gap") return `${indent}... ${entry.omitted} more message(s) ...`;
    const arrow = entry.direction === "client->agent" ? "->" : "<-";
    const problem = entry.problem === undefined ? "" : `  !! ${entry.problem}`;
    return `${indent}#${entry.seq} ${entry.connection} ${arrow} ${entry.text}${problem}`;
  });
}

function summaryLine(report: ConformanceReport): string {
  const { passed, failed, skipped, total } = report.summary;
  const verdict = report.ok ? "OK" : "NOT CONFORMANT";
  return `${passed} passed, ${failed} failed, ${skipped} skipped (${total} checks): ${verdict}`;
}

/**
 * The report as plain text: one line per check (status, id, title, rules), then for
 * failures and skips the reason, notes, and the failing exchange (`->` client to agent,
 * `<-` agent to client).
 */
export function formatReport(report: ConformanceReport): string {
  const lines = [
    `acp-kit conformance report (protocol v${report.protocolVersion}, ${report.tool.name} ${report.tool.version})`,
    subjectLine(report.subject),
    capabilityLine(report.subject),
    "",
  ];
  const width = Math.max(...report.checks.map((check) => check.id.length));
  for (const check of report.checks) {
    const severity = check.severity === "should" ? " (SHOULD)" : "";
    lines.push(
      `${LABELS[check.status]}  ${check.id.padEnd(width)}  ${check.title}${severity} ${rulesOf(check)}`,
    );
    const indent = " ".repeat(6);
    if (check.reason !== undefined) lines.push(`${indent}${check.reason}`);
    for (const note of check.notes) lines.push(`${indent}note: ${note}`);
    if (check.exchange.length > 0) {
      lines.push(`${indent}exchange:`);
      lines.push(...exchangeLines(check.exchange, `${indent}  `));
    }
  }
  lines.push("", summaryLine(report));
  return lines.join("\n") + "\n";
}

function escapeCell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/**
 * The report as Markdown: a summary, a table of every check, then a section per failed
 * or skipped check with its reason, notes and exchange (in a code block).
 */
export function formatReportMarkdown(report: ConformanceReport): string {
  const icons: Record<CheckStatus, string> = { pass: "✅ pass", fail: "❌ fail", skip: "⏭️ skip" };
  const lines = [
    `## acp-kit conformance report`,
    "",
    `${subjectLine(report.subject)} — protocol v${report.protocolVersion}, ${report.tool.name} ${report.tool.version}`,
    "",
    capabilityLine(report.subject),
    "",
    `**${summaryLine(report)}**`,
    "",
    "| Status | Check | What | Rules |",
    "| --- | --- | --- | --- |",
  ];
  for (const check of report.checks) {
    const what = check.severity === "should" ? `${check.title} (SHOULD)` : check.title;
    lines.push(
      `| ${icons[check.status]} | \`${check.id}\` | ${escapeCell(what)} | ${escapeCell(rulesOf(check))} |`,
    );
  }
  const detailed = report.checks.filter(
    (check) => check.status !== "pass" || check.notes.length > 0,
  );
  for (const check of detailed) {
    lines.push("", `### ${icons[check.status]}: \`${check.id}\``, "");
    if (check.reason !== undefined) lines.push(check.reason, "");
    for (const note of check.notes) lines.push(`- ${note}`);
    if (check.exchange.length > 0) {
      lines.push("", "```", ...exchangeLines(check.exchange, ""), "```");
    }
  }
  return lines.join("\n") + "\n";
}
