/**
 * `acp-kit agents` with `install` and `remove`: their options and actions (see
 * `registry.ts`).
 *
 * @module
 */
import { Option, type Command } from "commander";
import { fail } from "../context.js";

/** Adds `agents`, `agents install` and `agents remove`. */
export function addAgentsCommands(program: Command): void {
  const agents = program
    .command("agents")
    .description(
      "list the named agents (yours and built-in) and the ACP registry's; install or remove registry agents",
    )
    .addOption(new Option("--json", "print them as JSON"))
    .option("--refresh", "fetch the registry now instead of using the cached copy")
    .addHelpText(
      "after",
      `
The registry is fetched from ACP_REGISTRY_URL (default: the public ACP registry) and cached
under your cache directory; see docs/registry.md. Any registry id works wherever a name does:
  acp-kit run codex-acp`,
    )
    .action(async (opts: { json?: boolean; refresh?: boolean }) => {
      try {
        const { runAgentsList } = await import("./registry.js");
        process.exitCode = await runAgentsList(opts);
      } catch (error) {
        fail(error);
      }
    });
  agents
    .command("install")
    .description("install a registry agent into the cache (once per version)")
    .argument("<id>", "the agent's registry id")
    .option("--refresh", "fetch the registry now and install again")
    .action(async (id: string, opts: { refresh?: boolean }) => {
      try {
        const { runAgentsInstall } = await import("./registry.js");
        process.exitCode = await runAgentsInstall(id, opts);
      } catch (error) {
        fail(error);
      }
    });
  agents
    .command("remove")
    .description("remove every installed version of a registry agent from the cache")
    .argument("<id>", "the agent's registry id")
    .action(async (id: string) => {
      try {
        const { runAgentsRemove } = await import("./registry.js");
        process.exitCode = await runAgentsRemove(id);
      } catch (error) {
        fail(error);
      }
    });
}
