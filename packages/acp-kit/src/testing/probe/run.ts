/**
 * One run of the client probe: every step in order, then the report.
 *
 * @module
 */
import { PROTOCOL_VERSION } from "../../peer/methods.js";
import type { InitializeRequest } from "../../schema/types.gen.js";
import { VERSION } from "../../base/version.js";
import {
  CLIENT_CHECKS,
  checkResult,
  failed,
  passed,
  skipped,
  type CheckOutcome,
} from "../conformance/catalog.js";
import type { ProbeContext } from "./context.js";
import { probeFiles } from "./files.js";
import { probeCancel, probePermission, probeRendering } from "./interactive.js";
import { probeTerminals } from "./terminals.js";
import {
  REPORT_FORMAT,
  REPORT_FORMAT_VERSION,
  reportOk,
  summarize,
  type ConformanceReport,
} from "../conformance/report.js";

/** What the probe saw of the client before the prompt. */
export interface ProbeHistory {
  /** The first `initialize` params, if any came. */
  readonly init: InitializeRequest | undefined;
  /** True when `session/new` came before `initialize`. */
  readonly sessionBeforeInitialize: boolean;
}

function checkInitialize(history: ProbeHistory): CheckOutcome {
  const { init } = history;
  if (init === undefined || history.sessionBeforeInitialize) {
    return failed("session/new arrived before initialize");
  }
  const version = init.protocolVersion;
  if (!Number.isInteger(version) || version < 1) {
    return failed(`initialize asked for protocolVersion ${JSON.stringify(version)}, not a version`);
  }
  const notes: string[] = [];
  if (version !== PROTOCOL_VERSION) {
    notes.push(`The client asked for version ${version}; the probe answered ${PROTOCOL_VERSION}.`);
  }
  if (init.clientCapabilities === undefined) {
    notes.push("No clientCapabilities: clients SHOULD declare them (rule 20).");
  }
  return passed(notes);
}

function checkInfo(history: ProbeHistory): CheckOutcome {
  const info = history.init?.clientInfo;
  if (info == null) return failed("initialize carried no clientInfo");
  return passed([`${info.name} ${info.version}`]);
}

/**
 * Runs every step against the client and returns the report. Once the turn is
 * cancelled, the steps not yet run are skipped.
 */
export async function runProbe(
  context: ProbeContext,
  history: ProbeHistory,
): Promise<ConformanceReport> {
  const outcomes = new Map<string, CheckOutcome>([
    ["client-initialize", checkInitialize(history)],
    ["client-info", checkInfo(history)],
  ]);
  const live = (): boolean => !context.cancelled();
  await context.say(
    "**acp-kit client probe**: this agent checks the client it runs in. It will write and " +
      "read a temporary file, run a few small commands, ask for permission twice and, at the " +
      "end, ask you to press Cancel.\n",
  );
  if (live()) {
    const files = await probeFiles(context);
    outcomes.set("fs-write", files.write);
    outcomes.set("fs-read", files.read);
    outcomes.set("fs-read-missing", files.missing);
  }
  if (live()) {
    const terminals = await probeTerminals(context);
    outcomes.set("terminal-run", terminals.run);
    outcomes.set("terminal-kill", terminals.kill);
    outcomes.set("terminal-output-limit", terminals.limit);
  }
  if (live()) outcomes.set("permission", await probePermission(context));
  if (live()) outcomes.set("update-rendering", await probeRendering(context));
  if (live()) outcomes.set("permission-cancel", await probeCancel(context));
  const notRun = skipped("The turn was cancelled before this step");
  const checks = CLIENT_CHECKS.map((definition) =>
    checkResult(definition, outcomes.get(definition.id) ?? notRun),
  );
  const init = history.init;
  return {
    format: REPORT_FORMAT,
    formatVersion: REPORT_FORMAT_VERSION,
    kind: "client",
    protocolVersion: PROTOCOL_VERSION,
    tool: { name: "acp-kit", version: VERSION },
    subject: {
      kind: "client",
      ...(init?.clientInfo == null ? {} : { clientInfo: init.clientInfo }),
      ...(init?.clientCapabilities === undefined
        ? {}
        : { clientCapabilities: init.clientCapabilities }),
      ...(init === undefined ? {} : { requestedProtocolVersion: init.protocolVersion }),
    },
    checks,
    summary: summarize(checks),
    ok: reportOk(checks),
  };
}
