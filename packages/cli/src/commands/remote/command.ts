/**
 * The hidden `remote-stdio`: the bridge `--url` runs, ACP on stdio to a remote agent (see
 * `remote-target.ts`).
 *
 * @module
 */
import type { Command } from "commander";
import type { RemoteFlags } from "../../remote-target.js";
import { fail } from "../context.js";

/** Adds the hidden `remote-stdio`. */
export function addRemoteStdioCommand(program: Command): void {
  program
    .command("remote-stdio", { hidden: true })
    .description("the --url bridge: ACP on stdio to a remote agent")
    .argument("<url>", "the endpoint (only shown, with --url-env)")
    .option("--url-env <name>", "the environment variable holding the endpoint")
    .option("--token-env <name>")
    .option("--remote-fs")
    .option("--remote-terminal")
    .action(async (url: string, opts: RemoteFlags & { urlEnv?: string }) => {
      try {
        const { runRemoteStdio } = await import("../../remote-target.js");
        process.exitCode = await runRemoteStdio(url, opts);
        // Done: stdin is not read any more. A WebSocket's closing handshake may still be
        // under way (exiting now would cut it, and the server would keep the connection
        // for a resume); anything else left (a socket the server keeps open) may hold the
        // process no longer than this.
        process.stdin.destroy();
        setTimeout(() => process.exit(), 1_500).unref();
      } catch (error) {
        fail(error);
      }
    });
}
