/**
 * Human-readable renderings of a {@link ConformanceReport}: plain text for terminals and
 * Markdown for chat panes (the client probe answers with it).
 *
 * @module
 */
import type {
  CheckClass,
  CheckResult,
  ConformanceReport,
  ExchangeEntry,
  ReportSubject,
} from "./report.js";

/** How each class of result is labelled in text reports. */
const CLASS_LABELS: Readonly<Record<CheckClass, string>> = {
  pass: "PASS",
  must: "FAIL MUST",
  should: "WARN SHOULD",
  inconclusive: "INCONCLUSIVE",
  skip: "SKIP",
};

function rulesOf(check: CheckResult): string {
  const parts = [
    ...(check.rules.length > 0 ? [check.rules.map((rule) => `R${rule}`).join(", ")] : []),
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
    subject.kind === "agent"
      ? (subject.agentCapabilities ?? subject.agentCapabilitiesV2)
      : (subject.clientCapabilities ?? subject.clientCapabilitiesV2);
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

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** The summary line: counts by class and the verdict. */
function summaryLine(report: ConformanceReport): string {
  const {
    passed,
    skipped,
    total,
    mustFailed: must,
    warnings,
    inconclusive: unsure,
  } = report.summary;
  const verdict = !report.ok
    ? "NOT CONFORMANT"
    : unsure > 0
      ? "OK so far (inconclusive checks remain: see why, and run again)"
      : "OK";
  return (
    `${passed} passed, ${must} failed (MUST), ${plural(warnings, "warning")} (SHOULD), ` +
    `${unsure} inconclusive, ${skipped} skipped (${total} checks): ${verdict}`
  );
}

/**
 * The report as plain text: one line per check (class, id, title, rules), then for
 * results other than a pass the reason, the checklist entry, notes, and the exchange
 * (`->` client to agent, `<-` agent to client); the run's notes; the verdict.
 */
export function formatReport(report: ConformanceReport): string {
  const lines = [
    `acp-kit conformance report (protocol v${report.protocolVersion}, ${report.tool.name} ${report.tool.version})`,
    subjectLine(report.subject),
    capabilityLine(report.subject),
    "",
  ];
  const width = Math.max(...report.checks.map((check) => check.id.length));
  const labelWidth = Math.max(...Object.values(CLASS_LABELS).map((label) => label.length));
  for (const check of report.checks) {
    const severity = check.severity === "should" ? " (SHOULD)" : "";
    const label = CLASS_LABELS[check.class];
    lines.push(
      `${label.padEnd(labelWidth)}  ${check.id.padEnd(width)}  ${check.title}${severity} ${rulesOf(check)}`,
    );
    const indent = " ".repeat(6);
    if (check.reason !== undefined) lines.push(`${indent}${check.reason}`);
    if (check.status === "fail" || check.status === "inconclusive") {
      lines.push(`${indent}see ${check.checklist}`);
    }
    for (const note of check.notes) lines.push(`${indent}note: ${note}`);
    if (check.exchange.length > 0) {
      lines.push(`${indent}exchange:`);
      lines.push(...exchangeLines(check.exchange, `${indent}  `));
    }
  }
  if (report.notes !== undefined && report.notes.length > 0) {
    lines.push("", ...report.notes.map((note) => `note: ${note}`));
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
  const icons: Record<CheckClass, string> = {
    pass: "✅ pass",
    must: "❌ fail (MUST)",
    should: "⚠️ warn (SHOULD)",
    inconclusive: "❔ inconclusive",
    skip: "⏭️ skip",
  };
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
      `| ${icons[check.class]} | \`${check.id}\` | ${escapeCell(what)} | ${escapeCell(rulesOf(check))} |`,
    );
  }
  const detailed = report.checks.filter(
    (check) => check.status !== "pass" || check.notes.length > 0,
  );
  for (const check of detailed) {
    lines.push("", `### ${icons[check.class]}: \`${check.id}\``, "");
    if (check.reason !== undefined) lines.push(check.reason, "");
    for (const note of check.notes) lines.push(`- ${note}`);
    if (check.exchange.length > 0) {
      lines.push("", "```", ...exchangeLines(check.exchange, ""), "```");
    }
  }
  return lines.join("\n") + "\n";
}
