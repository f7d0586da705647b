/**
 * `acp-kit bridge`: its options and its action (see `bridge.ts`).
 *
 * @module
 */
import { InvalidArgumentError, type Command } from "commander";
import { agentTarget, fail } from "../context.js";
import { parseProtocol, type ProtocolFlag } from "../options.js";

/** Adds `bridge`: an editor in one ACP version, the agent in the one it speaks. */
export function addBridgeCommand(program: Command): void {
  program
    .command("bridge")
    .usage("--as v1|v2 [--protocol auto|1|2] <agent> | --as v1|v2 -- <agent command...>")
    .description(
      "serve an editor in one ACP version and the agent in the version it speaks, translating between v1 and v2",
    )
    .argument("[command...]", "an agent name or registry id, or the agent's command after --")
    .requiredOption("--as <version>", "the version to speak to the editor: v1 or v2", (value) => {
      const version = parseProtocol(value);
      if (version === "auto") throw new InvalidArgumentError("Give v1 or v2.");
      return version;
    })
    .option(
      "--protocol <version>",
      "the version to ask the agent for: auto (the one it speaks), 1 or 2",
      parseProtocol,
      "auto",
    )
    .option("--quiet", "no notes on stderr (the agent's stderr still passes)")
    .addHelpText(
      "after",
      `
Put it in your editor's agent settings in place of the real command. An editor that
speaks v1 using an agent that speaks v2:
  acp-kit bridge --as v1 -- npx -y @agentclientprotocol/codex-acp
What v1 cannot show of v2 (and the reverse) is counted and summed up on stderr at the end;
docs/v2.md lists each step.`,
    )
    .action(
      async (words: string[], opts: { as: 1 | 2; protocol: ProtocolFlag; quiet?: boolean }) => {
        try {
          const target = await agentTarget(words);
          const { runBridgeCommand } = await import("./bridge.js");
          process.exitCode = await runBridgeCommand(target, {
            as: opts.as,
            protocol: opts.protocol,
            ...(opts.quiet === true ? { quiet: true } : {}),
          });
        } catch (error) {
          fail(error);
        }
      },
    );
}
