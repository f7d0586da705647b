/**
 * `acp-kit mcp-shim`: its options and its action (see `mcp-shim.ts`).
 *
 * @module
 */
import type { Command } from "commander";
import { fail } from "../context.js";

/** Adds `mcp-shim`: MCP over stdio to one server of a loopback MCP-over-ACP bridge. */
export function addMcpShimCommand(program: Command): void {
  program
    .command("mcp-shim")
    .description(
      "MCP over stdio to one server of a loopback MCP-over-ACP bridge (run by agents, not by hand)",
    )
    .requiredOption("--url <url>", "the server's bridge URL")
    .requiredOption("--token-env <name>", "the environment variable holding its bearer token")
    .action(async (opts: { url: string; tokenEnv: string }) => {
      try {
        const { runMcpShimCommand } = await import("./mcp-shim.js");
        await runMcpShimCommand(opts.url, opts.tokenEnv);
      } catch (error) {
        fail(error);
      }
    });
}
