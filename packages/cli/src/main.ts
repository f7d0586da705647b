/**
 * The `acp-kit` command line: talk to any ACP agent, run the demo, trace traffic, and
 * check conformance. Each command's options and action live in `commands/<command>/`;
 * this file only assembles the program.
 *
 * @module
 */
import { Command } from "commander";
import { VERSION } from "acp-kit";
import { addAgentsCommands } from "./commands/agents/command.js";
import { addBridgeCommand } from "./commands/bridge/command.js";
import { addCheckCommands } from "./commands/check/command.js";
import { addConductorCommand } from "./commands/conductor/command.js";
import { addDemoCommand } from "./commands/demo/command.js";
import { addMcpShimCommand } from "./commands/mcp-shim/command.js";
import { addOwnerCommands } from "./commands/owner/command.js";
import { addPromptCommand } from "./commands/prompt/command.js";
import { addRemoteStdioCommand } from "./commands/remote/command.js";
import { addRunCommand } from "./commands/run/command.js";
import { addServeCommand } from "./commands/serve/command.js";
import { addSessionsCommands } from "./commands/sessions/command.js";
import { addTraceCommand } from "./commands/trace/command.js";
import { ExitCodes } from "./exit-codes.js";

/**
 * Makes a closed stdout (`acp-kit prompt --json ... | head`) end the program quietly, as
 * command-line tools do, instead of crashing on `EPIPE`. Exiting runs the exit hook that
 * ends the agent's process group. Errors on stderr are ignored: there is nowhere left to
 * report them. Not for `trace`, which keeps proxying and recording on its own terms.
 */
function exitOnBrokenPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? ExitCodes.OK);
    throw error;
  });
  process.stderr.on("error", () => undefined);
}

/** Builds the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("acp-kit")
    .description(
      "Talk to Agent Client Protocol agents: an interactive client, a demo, a traffic tracer and a conformance checker.",
    )
    .version(VERSION, "-v, --version")
    .showHelpAfterError("(run with --help for usage)")
    .enablePositionalOptions()
    // Commander's own errors (an unknown option, a bad --cwd) are usage errors: exit 2.
    // Set before the commands are added, which inherit it.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : ExitCodes.USAGE))
    .hook("preAction", (_program, action) => {
      if (action.name() !== "trace") exitOnBrokenPipe();
    });

  addRunCommand(program);
  addDemoCommand(program);
  addPromptCommand(program);
  addConductorCommand(program);
  addMcpShimCommand(program);
  addBridgeCommand(program);
  addTraceCommand(program);
  addCheckCommands(program);
  addServeCommand(program);
  addOwnerCommands(program);
  addRemoteStdioCommand(program);
  addAgentsCommands(program);
  addSessionsCommands(program);
  return program;
}

await buildProgram().parseAsync(process.argv);
