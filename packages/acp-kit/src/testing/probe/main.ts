/**
 * The client probe as a program. Configure it in an editor as the agent command, e.g.
 * `node dist/probe.js --report /tmp/client-report.json` (or `node --import tsx
 * packages/acp-kit/src/testing/probe/main.ts` from a checkout), then send any prompt: the probe exercises
 * the editor and answers with its report. stdout carries the protocol only; everything
 * else goes to stderr.
 *
 * Options:
 *   --report <file>   where the JSON report goes (default: acp-kit-client-report.json in
 *                     the temporary directory)
 *   --help            this text, on stderr
 *
 * @module
 */
import { defaultProbeReportPath, runClientProbe } from "./agent.js";

const USAGE = `usage: acp-kit-probe [--report <file>]

An ACP agent that checks the client (editor) it runs in. Configure it as an agent in
your editor and send any prompt; it answers with a conformance report and writes it as
JSON to --report (default ${defaultProbeReportPath()}).
`;

/** The value of `--report <file>` or `--report=<file>`, if given. */
function reportPath(argv: readonly string[]): string | undefined {
  for (const [index, arg] of argv.entries()) {
    if (arg === "--report") return argv[index + 1];
    if (arg.startsWith("--report=")) return arg.slice("--report=".length);
  }
  return undefined;
}

const argv = process.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  process.stderr.write(USAGE);
  process.exit(0);
}
// An editor stops its agents with signals: leave quietly.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));

const path = reportPath(argv);
try {
  await runClientProbe(path === undefined ? {} : { reportPath: path });
  process.exit(0);
} catch (error) {
  process.stderr.write(
    `acp-kit probe: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
