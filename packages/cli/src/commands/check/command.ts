/**
 * `acp-kit check` and `check-client`: their options and actions (see `check.ts`).
 *
 * @module
 */
import type { Command } from "commander";
import { useColor } from "../../color.js";
import { ExitCodes } from "../../exit-codes.js";
import { withRemoteOptions, type RemoteFlags } from "../../remote-target.js";
import { agentTarget, fail } from "../context.js";
import { directory, positiveInteger, withProtocolOptions, type ProtocolFlag } from "../options.js";

/** Adds `check` (the conformance checks against an agent) and `check-client` (the probe). */
export function addCheckCommands(program: Command): void {
  withProtocolOptions(withRemoteOptions(program.command("check")))
    .description("run the conformance checks against an agent")
    .argument("[agent...]", "an agent name, or its command after --")
    .option("--json", "print the report as JSON")
    .option("--cwd <dir>", "the working directory for the agent's sessions", directory)
    .option(
      "--request-timeout <ms>",
      "how long to wait for the answer to an ordinary request (default 30000)",
      positiveInteger,
    )
    .option(
      "--auth <method>",
      "log in with this method of the agent first (env_var methods read their variables from this environment)",
    )
    .addHelpText(
      "after",
      `
Examples:
  acp-kit check -- node my-agent.js
  acp-kit check --json claude > report.json
  acp-kit check --protocol 2 -- node my-v2-agent.js
  CODEX_API_KEY=... acp-kit check --auth codex-api-key codex

Results are MUST failures (not conformant), SHOULD warnings, INCONCLUSIVE (no login,
network, an offline model: run again), passes and skips; see docs/checklist.md.
Exit code 0 when no MUST check failed, ${ExitCodes.CHECK_FAILED} when one failed.`,
    )
    .action(
      async (
        words: string[],
        opts: RemoteFlags & {
          json?: boolean;
          cwd?: string;
          requestTimeout?: number;
          auth?: string;
          protocol?: ProtocolFlag;
        },
      ) => {
        try {
          const target = await agentTarget(words, opts);
          const { runCheckCommand } = await import("./check.js");
          // The progress lines go to stderr: colour them by what stderr is.
          process.exitCode = await runCheckCommand(target, {
            ...(opts.json === undefined ? {} : { json: opts.json }),
            ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
            ...(opts.requestTimeout === undefined ? {} : { requestTimeoutMs: opts.requestTimeout }),
            ...(opts.auth === undefined ? {} : { auth: opts.auth }),
            ...(opts.protocol === undefined ? {} : { protocol: opts.protocol }),
            color: useColor(process.stderr),
          });
        } catch (error) {
          fail(error);
        }
      },
    );

  program
    .command("check-client")
    .description(
      "a probe agent to configure in your editor: on the first prompt it checks the editor",
    )
    .option("--report <file>", "where to write the JSON report")
    .addHelpText(
      "after",
      `
Configure your editor's agent command as: acp-kit check-client
Then send any prompt; the probe exercises the editor and answers with its report.`,
    )
    .action(async (opts: { report?: string }) => {
      try {
        const { runCheckClient } = await import("./check.js");
        process.exitCode = await runCheckClient(opts);
      } catch (error) {
        fail(error);
      }
    });
}
