/**
 * `acp-kit trace` and `trace view`: their options and actions. The tracer itself lives
 * in `src/trace/`.
 *
 * @module
 */
import type { Command } from "commander";
import { useColor } from "../../color.js";
import { withRemoteOptions, type RemoteFlags } from "../../remote-target.js";
import { agentTarget, fail } from "../context.js";

/** Adds `trace` (a recording proxy) and `trace view` (a trace file, readable). */
export function addTraceCommand(program: Command): void {
  const trace = withRemoteOptions(program.command("trace"))
    .usage(
      "[--out FILE] <agent> | [--out FILE] -- <agent command...>  |  trace view FILE [--html PAGE] [--full]",
    )
    .description("a transparent proxy that records every message between an editor and an agent")
    .argument("[command...]", "an agent name or registry id, or the agent's command after --")
    .option("--out <file>", "where to write the trace (ndjson)")
    .addHelpText(
      "after",
      `
Put it in your editor's agent settings in place of the real command:
  acp-kit trace --out /tmp/claude.ndjson -- npx -y @agentclientprotocol/claude-agent-acp
Then read it:
  acp-kit trace view /tmp/claude.ndjson
  acp-kit trace view /tmp/claude.ndjson --html trace.html`,
    )
    .action(async (words: string[], opts: RemoteFlags & { out?: string }) => {
      try {
        // A named agent or registry id (`acp-kit trace claude`), --url, or a command after `--`.
        const target = await agentTarget(words, opts);
        const { runTraceCommand } = await import("../../trace/trace-command.js");
        process.exitCode = await runTraceCommand(target, opts);
      } catch (error) {
        fail(error);
      }
    });
  trace
    .command("view")
    .description("print a readable timeline of a trace file")
    .argument("<file>", "a trace written by acp-kit trace")
    .option("--html <file>", "write a self-contained HTML page instead")
    .option("--full", "do not fold long payloads")
    .action(async (file: string, opts: { html?: string; full?: boolean }) => {
      try {
        const { runTraceView } = await import("../../trace/trace-command.js");
        process.exitCode = await runTraceView(file, { ...opts, color: useColor(process.stdout) });
      } catch (error) {
        fail(error);
      }
    });
}
