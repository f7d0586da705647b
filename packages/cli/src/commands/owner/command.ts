/**
 * The session owner's commands: the hidden `session-owner` (the owner process itself), and
 * `status` and `cancel` (asked of an owner from any shell). See `owner.ts`.
 *
 * @module
 */
import type { Command } from "commander";
import { withRemoteOptions, type RemoteFlags } from "../../remote-target.js";
import { UsageError } from "../../target.js";
import { agentTarget, fail, sessionMemory } from "../context.js";
import { directory, mcpServersOf, settingsOf, withProtocol } from "../options.js";

/** Adds the hidden `session-owner`, and `status` and `cancel`. */
export function addOwnerCommands(program: Command): void {
  program
    .command("session-owner", { hidden: true })
    .description("the owner of a session (prompt --session): its spec on stdin")
    .action(async () => {
      try {
        const owner = await import("./owner.js");
        const spec = await owner.readOwnerSpec();
        const target = withProtocol(await agentTarget(spec.words, spec.opts), spec.opts.protocol);
        // The session list's warnings go to the callers waiting.
        const warnings: { to?: (message: string) => void } = {};
        const { RecentSessions } = await import("../../recent-sessions.js");
        const memory = {
          ...(await sessionMemory(target, spec.words, spec.opts)),
          store: new RecentSessions({ warn: (m) => warnings.to?.(m) }),
        };
        const { runSessionOwner } = await import("./session-owner.js");
        await runSessionOwner({
          target,
          memory,
          paths: owner.pathsOf(spec.key),
          ...(spec.opts.session === undefined ? {} : { name: spec.opts.session }),
          ...(spec.opts.continue === true ? { continue: true } : {}),
          settings: settingsOf(spec.opts),
          ...(await mcpServersOf(spec.opts)),
          idleMs: spec.idleMs,
          warnings,
        });
        process.exit(0);
      } catch (error) {
        fail(error);
      }
    });

  for (const [name, description] of [
    ["status", "what a session's owner runs and has queued (every running session without one)"],
    ["cancel", "cancel the turn a session's owner runs (from any shell)"],
  ] as const) {
    withRemoteOptions(program.command(name))
      .description(description)
      .argument("[agent...]", "an agent name, or its command after --")
      .option("--session <name>", "the session of this name (for this agent and directory)")
      .option("--continue", "the most recent session of this agent in this directory")
      .option("--cwd <dir>", "the session's working directory", directory, process.cwd())
      .option("--json", "status as JSON")
      .action(
        async (
          words: string[],
          opts: RemoteFlags & { session?: string; continue?: boolean; cwd: string; json?: boolean },
        ) => {
          try {
            const owner = await import("./owner.js");
            const session = {
              ...(opts.session === undefined ? {} : { name: opts.session }),
              ...(opts.continue === true ? { continue: true } : {}),
            };
            const named = session.name !== undefined || session.continue === true;
            if (named && words.length === 0 && opts.url === undefined) {
              throw new UsageError("Name the agent too: --session NAME AGENT.");
            }
            let key: string | undefined;
            if (named) {
              const target = await agentTarget(words, opts);
              const memory = await sessionMemory(target, words, opts);
              key = await owner.sessionOwnerKey(memory, session);
              if (key === undefined) throw new UsageError("No session to continue here.");
            }
            if (name === "status") {
              process.exitCode = await owner.runStatusCommand(
                key,
                process.stdout,
                opts.json === true,
              );
            } else {
              if (key === undefined)
                throw new UsageError("Say which session: --session NAME AGENT.");
              process.exitCode = await owner.runCancelCommand(key, process.stdout);
            }
          } catch (error) {
            fail(error);
          }
        },
      );
  }
}
