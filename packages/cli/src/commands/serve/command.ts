/**
 * `acp-kit serve`: its options and its action (see `serve.ts`).
 *
 * @module
 */
import type { Command } from "commander";
import type { AcpResumableOptions } from "acp-kit/http";
import { UsageError } from "../../target.js";
import { agentTarget, fail } from "../context.js";
import { nonNegativeInteger, nonNegativeNumber, byteSize, positiveInteger } from "../options.js";

/** Adds `serve`: a stdio agent over HTTP and WebSocket. */
export function addServeCommand(program: Command): void {
  program
    .command("serve")
    .description("serve a stdio agent over HTTP and WebSocket (one agent process per connection)")
    .usage("[--host 127.0.0.1] [--port N] [--token-env NAME] <agent> | -- <agent command...>")
    .argument("<command...>", "an agent name or registry id, or the agent's command after --")
    .option("--host <host>", "where to listen; beyond loopback a token is required", "127.0.0.1")
    .option("--port <port>", "the port (0: any free one, printed)", nonNegativeInteger, 8787)
    .option(
      "--token-env <name>",
      "the environment variable holding the bearer token clients must send",
    )
    .option(
      "--idle-timeout <ms>",
      "end a connection and its agent after this long idle",
      positiveInteger,
      600_000,
    )
    .option("--max-connections <n>", "connections open at once", positiveInteger, 64)
    .option("--no-resume", "do not keep sent messages for clients that reconnect")
    .option(
      "--retention-messages <n>",
      "each stream keeps its last n sent messages for clients that resume (default 1000)",
      nonNegativeInteger,
    )
    .option(
      "--retention-window <seconds>",
      "and every message it sent in the last this many seconds, however many (default 60)",
      nonNegativeNumber,
    )
    .option(
      "--retention-bytes <size>",
      "within this size per stream: bytes, or with KiB, MiB, GiB (default 128MiB)",
      byteSize,
    )
    .option(
      "--resume-wait <seconds>",
      "how long a WebSocket connection whose socket dropped waits for a resume (default 300)",
      nonNegativeNumber,
    )
    .addHelpText(
      "after",
      `
Prints the endpoint URL on stdout. Clients: acp-kit run --url http://127.0.0.1:8787/acp
(or ws://... for a WebSocket), or any ACP client with Streamable HTTP or WebSocket support.`,
    )
    .action(
      async (
        words: string[],
        opts: {
          host: string;
          port: number;
          tokenEnv?: string;
          idleTimeout: number;
          maxConnections: number;
          resume: boolean;
          retentionMessages?: number;
          retentionWindow?: number;
          retentionBytes?: number;
          resumeWait?: number;
        },
      ) => {
        try {
          if (words.length === 0) throw new UsageError("Give the agent's command after `--`.");
          const retention: AcpResumableOptions = {
            ...(opts.retentionMessages === undefined
              ? {}
              : { retentionMessages: opts.retentionMessages }),
            ...(opts.retentionWindow === undefined
              ? {}
              : { retentionWindowSeconds: opts.retentionWindow }),
            ...(opts.retentionBytes === undefined ? {} : { retentionBytes: opts.retentionBytes }),
            ...(opts.resumeWait === undefined ? {} : { retentionSeconds: opts.resumeWait }),
          };
          if (!opts.resume && Object.keys(retention).length > 0)
            throw new UsageError(
              "--retention-* and --resume-wait set what is kept for clients that resume; --no-resume keeps nothing.",
            );
          // A named agent or registry id (`acp-kit serve codex-acp`), or a command after `--`;
          // each connection's agent gets this process's environment and the agent's own
          // variables, not the token's (see runServe).
          const target = await agentTarget(words);
          // The agent's own variables (a named or registry agent's) add to this environment,
          // never replace one of it, and never set the variable that holds the server's
          // token (runServe also keeps that variable from the agents).
          const agentEnv = Object.fromEntries(
            Object.entries(target.env ?? {}).filter(
              ([name]) => name !== opts.tokenEnv && process.env[name] === undefined,
            ),
          );
          const { runServe } = await import("./serve.js");
          process.exitCode = await runServe({
            command: target.command,
            args: target.args,
            env: agentEnv,
            ...(target.windowsVerbatimArguments === true ? { windowsVerbatimArguments: true } : {}),
            host: opts.host,
            port: opts.port,
            ...(opts.tokenEnv === undefined ? {} : { tokenEnv: opts.tokenEnv }),
            idleTimeoutMs: opts.idleTimeout,
            maxConnections: opts.maxConnections,
            resumable: opts.resume,
            retention,
            out: process.stdout,
            err: process.stderr,
          });
        } catch (error) {
          fail(error);
        }
      },
    );
}
