/**
 * `acp-kit conductor`: its options and its action (see `conductor.ts`).
 *
 * @module
 */
import { InvalidArgumentError, type Command } from "commander";
import { UsageError } from "../../target.js";
import { fail } from "../context.js";

/** Adds `conductor`: a chain of ACP proxies in front of an agent on stdio. */
export function addConductorCommand(program: Command): void {
  program
    .command("conductor")
    .usage(
      '[--trace FILE] [--dialect rust|rfd|thinkwell] agent ["PROXY" ...] "AGENT"  |  proxy "PROXY" ...',
    )
    .description(
      "run a chain of ACP proxies in front of an agent on stdio (the Rust conductor's arguments)",
    )
    .argument(
      "<mode>",
      "agent (the last command is the agent) or proxy (a chain nested in another)",
    )
    .argument("<commands...>", "one command line per component, client side first")
    .option("--trace <file>", "append every message crossing the conductor to FILE (JSON lines)")
    .option(
      "--no-mcp-bridge",
      "do not serve acp MCP servers to an agent without MCP-over-ACP over loopback HTTP",
    )
    .option(
      "--dialect <dialect>",
      "how to speak to the proxies: rust (_proxy/*), rfd (proxy/*) or thinkwell",
      (value: string) => {
        if (value === "rust" || value === "rfd" || value === "thinkwell") return value;
        throw new InvalidArgumentError("Give rust, rfd or thinkwell.");
      },
      "rust",
    )
    .addHelpText(
      "after",
      `
Put it in your editor's agent settings in place of the agent's command:
  acp-kit conductor agent "node tracing-proxy.js" "npx -y @agentclientprotocol/claude-agent-acp"
Each component is one command line (quoted as a shell would). docs/proxies.md says more.`,
    )
    .action(
      async (
        mode: string,
        commands: string[],
        opts: { trace?: string; dialect: "rust" | "rfd" | "thinkwell"; mcpBridge: boolean },
      ) => {
        try {
          if (mode !== "agent" && mode !== "proxy")
            throw new UsageError(`The mode is agent or proxy, not ${JSON.stringify(mode)}.`);
          if (mode === "agent" && commands.length === 0)
            throw new UsageError("Give the agent's command (after the proxies' ones).");
          const { runConductorCommand } = await import("./conductor.js");
          process.exitCode = await runConductorCommand(mode, commands, {
            dialect: opts.dialect,
            mcpBridge: opts.mcpBridge,
            ...(opts.trace === undefined ? {} : { trace: opts.trace }),
          });
        } catch (error) {
          fail(error);
        }
      },
    );
}
