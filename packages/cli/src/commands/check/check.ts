/**
 * `acp-kit check` (the conformance checks against an agent) and `acp-kit check-client`
 * (the probe agent that checks the editor it runs in).
 *
 * @module
 */
import { AgentStartupError } from "acp-kit/node";
import { runAgentChecks } from "acp-kit/testing";
import { runClientProbe } from "acp-kit/testing";
import { formatReport } from "acp-kit/testing";
import type { CheckProtocol, CheckResult, ConformanceReport } from "acp-kit/testing";
import { ExitCodes } from "../../exit-codes.js";
import { renderLine, seg, type Segment } from "../../trace/styled-line.js";
import type { AgentTarget } from "../../target.js";

const MARKS: Readonly<Record<CheckResult["class"], Segment>> = {
  pass: seg("✓", "green"),
  must: seg("✗", "red"),
  should: seg("!", "yellow"),
  inconclusive: seg("?", "yellow"),
  skip: seg("-", "dim"),
};

const CLASS_WORDS: Readonly<Record<CheckResult["class"], string>> = {
  pass: "",
  must: "MUST: ",
  should: "SHOULD: ",
  inconclusive: "INCONCLUSIVE: ",
  skip: "",
};

function progress(result: CheckResult, color: boolean): string {
  const mark = renderLine([MARKS[result.class]], color, 0);
  const why = result.reason ?? result.status;
  return `${mark} ${result.title}${result.status === "pass" ? "" : `: ${CLASS_WORDS[result.class]}${why}`}\n`;
}

/** After this long without a result, the progress says that it is waiting. */
const QUIET_NOTICE_MS = 5000;

/** Runs the agent checks; resolves with the exit code (0 when nothing failed). */
export async function runCheckCommand(
  target: AgentTarget,
  options: {
    json?: boolean;
    cwd?: string;
    requestTimeoutMs?: number;
    /** A login method of the agent to use before the checks (`--auth`). */
    auth?: string;
    /** Which protocol version to check (`--protocol`; default `auto`: negotiated). */
    protocol?: CheckProtocol;
    color: boolean;
  },
): Promise<number> {
  const showProgress = options.json !== true;
  let lastProgress = Date.now();
  let waitingSaid = false;
  const quiet = setInterval(() => {
    if (!showProgress || waitingSaid || Date.now() - lastProgress < QUIET_NOTICE_MS) return;
    waitingSaid = true;
    process.stderr.write(
      renderLine(
        [seg("  … waiting for the agent (each request may take up to the timeout)", "dim")],
        options.color,
        0,
      ) + "\n",
    );
  }, 1000);
  quiet.unref();
  try {
    const report = await runAgentChecks({
      command: target.command,
      args: target.args,
      ...(target.env === undefined ? {} : { env: target.env }),
      ...(target.windowsVerbatimArguments === true ? { windowsVerbatimArguments: true } : {}),
      ...(options.cwd === undefined ? {} : { sessionCwd: options.cwd }),
      ...(options.auth === undefined ? {} : { auth: options.auth }),
      protocol: options.protocol ?? "auto",
      ...(options.requestTimeoutMs === undefined
        ? {}
        : { timeouts: { requestMs: options.requestTimeoutMs } }),
      ...(showProgress
        ? {
            onCheck: (result: CheckResult) => {
              lastProgress = Date.now();
              waitingSaid = false;
              process.stderr.write(progress(result, options.color));
            },
          }
        : {}),
    });
    const remote = remoteFailure(target, report);
    if (remote !== undefined) {
      // Nothing was checked: the connection failed, not the agent.
      process.stderr.write(`acp-kit: ${remote.message}\n`);
      return remote.exitCode;
    }
    process.stdout.write(
      options.json === true
        ? `${JSON.stringify(report, null, 2)}\n`
        : `\n${formatReport(report)}\n`,
    );
    return report.ok ? ExitCodes.OK : ExitCodes.CHECK_FAILED;
  } catch (error) {
    if (error instanceof AgentStartupError) {
      process.stderr.write(`acp-kit: ${error.message}\n`);
      return ExitCodes.AGENT_START;
    }
    throw error;
  } finally {
    clearInterval(quiet);
  }
}

/**
 * For `--url`: when `initialize` got no answer and the bridge said why on stderr (it
 * could not connect, the server refused the credentials or ended the connection), that
 * is the outcome, with the bridge's exit code for it: the agent was never reached.
 */
function remoteFailure(
  target: AgentTarget,
  report: ConformanceReport,
): { exitCode: number; message: string } | undefined {
  if (target.remote !== true) return undefined;
  // The first exchange of the run: the negotiation when there was one, else initialize.
  const initialize =
    report.checks.find((check) => check.id === "negotiation") ??
    report.checks.find((check) => check.id === "initialize-result");
  if (initialize === undefined || initialize.status === "pass") return undefined;
  const line = (report.stderrTail ?? []).filter((text) => text.trim() !== "").at(-1);
  if (line?.startsWith("acp-kit: ") !== true) return undefined;
  const text = line.slice("acp-kit: ".length);
  return {
    exitCode: text.includes(" refused the credentials ")
      ? ExitCodes.AUTH_REQUIRED
      : ExitCodes.REMOTE_FAILED,
    message: `${text.charAt(0).toUpperCase()}${text.slice(1)}`,
  };
}

/** Serves the client probe on this process's stdio until the editor closes it. */
export async function runCheckClient(options: { report?: string }): Promise<number> {
  await runClientProbe({
    ...(options.report === undefined ? {} : { reportPath: options.report }),
    onReport: (_report, path) => {
      if (path !== undefined) process.stderr.write(`acp-kit: client report written to ${path}\n`);
    },
  });
  return ExitCodes.OK;
}
