/**
 * `acp-kit bridge --as v1|v2 -- <agent command...>`: serves its client over stdio as an
 * agent of the version named, and speaks to the agent in whatever version the agent
 * negotiates, translating when they differ (see `bridge` in `acp-kit/v2`).
 *
 * @module
 */
import { Readable, Writable } from "node:stream";
import { setTimeout as later } from "node:timers";
import { ndJsonStream, type AnyMessage, type Stream } from "acp-kit";
import { agentStdioStream } from "acp-kit/node";
import { bridge, type ProtocolChoice } from "acp-kit/v2";
import type { AgentTarget } from "../../target.js";
import { printable } from "../../terminal-text.js";
import { exitCodeOf } from "../../trace/trace-proxy.js";
import { startTracedAgent, type TracedAgent } from "../../trace/traced-agent.js";

/** Options of {@link runBridgeCommand}. */
export interface BridgeCommandOptions {
  /** The version served to the client. */
  readonly as: 1 | 2;
  /** Which version to ask the agent for. */
  readonly protocol: ProtocolChoice;
  /** Say nothing on stderr but errors and the agent's own stderr. */
  readonly quiet?: boolean;
}

/** How long the agent may take to exit once its input ended, before it is stopped (ms). */
const EXIT_GRACE_MS = 3000;
/** How long after SIGTERM the rest of its group gets SIGKILL (ms). */
const KILL_GRACE_MS = 2000;

/**
 * The agent's stream as the negotiation uses it. An agent that refuses the v2 `initialize`
 * and exits may be gone before the v1 `initialize` reaches it: writing it fails (EPIPE),
 * and the failure can reach the negotiation before the end of the agent's output does,
 * as a failed write or as an error of the output. Either way the agent has left, and the
 * negotiation must see it so (the end of the output) to start it again for v1. So while
 * `negotiating`, a failed write ends the agent (`leave`) and counts as written, and an
 * error of the output ends it (the agent ended too); afterwards failures pass as they are.
 */
function leavesOnBrokenPipe(
  stream: Stream,
  negotiating: () => boolean,
  leave: () => Promise<void>,
): Stream {
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const readable = new ReadableStream<AnyMessage>(
    {
      pull: async (controller) => {
        try {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          if (!negotiating()) throw error;
          await leave();
          controller.close();
        }
      },
      cancel: (reason: unknown) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const writable = new WritableStream<AnyMessage>({
    write: async (message) => {
      try {
        await writer.write(message);
      } catch (error) {
        if (!negotiating()) throw error;
        await leave();
      }
    },
    close: () => writer.close(),
    abort: (reason: unknown) => writer.abort(reason),
  });
  return { readable, writable };
}

function note(text: string): void {
  process.stderr.write(`acp-kit bridge: ${printable(text, true)}\n`);
}

/** Runs the bridge until the client or the agent ends; resolves with the exit code. */
export async function runBridgeCommand(
  target: AgentTarget,
  options: BridgeCommandOptions,
): Promise<number> {
  const spec = {
    command: target.command,
    args: target.args,
    cwd: process.cwd(),
    env: { ...process.env, ...target.env },
  };
  const agents: TracedAgent[] = [];
  let negotiating = true;
  const start = async (): Promise<Stream> => {
    const agent = await startTracedAgent(spec);
    agents.push(agent);
    agent.child.stderr.pipe(process.stderr, { end: false });
    const stream = ndJsonStream(
      Writable.toWeb(agent.child.stdin),
      Readable.toWeb(agent.child.stdout) as ReadableStream<Uint8Array>,
      {
        closeOutput: true,
        // What the agent prints outside ACP (a login URL) goes to stderr, never answered.
        onNonJsonLine: (line) => process.stderr.write(`[agent] ${printable(line)}\n`),
      },
    );
    return leavesOnBrokenPipe(
      stream,
      () => negotiating,
      () => agent.terminate(KILL_GRACE_MS),
    );
  };
  let downstream: Stream;
  try {
    downstream = await start();
  } catch (error) {
    note(
      `could not start ${target.label}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 127;
  }
  const running = bridge(agentStdioStream({ closeOutput: true }), downstream, {
    as: options.as,
    protocol: options.protocol,
    restart: async () => {
      await agents[agents.length - 1]?.terminate(KILL_GRACE_MS);
      if (options.quiet !== true)
        note("the agent left on a v2 initialize: starting it again for v1");
      return start();
    },
  });
  const stop = (signal: NodeJS.Signals): void => {
    running.close(new Error(`stopped by ${signal}`));
    for (const agent of agents) void agent.terminate(KILL_GRACE_MS, signal);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, stop);
  running.ready.then(
    (versions) => {
      negotiating = false;
      if (options.quiet === true) return;
      note(
        versions.translating
          ? `client speaks ACP v${versions.client}, the agent v${versions.agent}: translating`
          : `client and agent speak ACP v${versions.agent}: relaying`,
      );
    },
    (error: unknown) => {
      negotiating = false;
      note(
        `the agent could not be initialized: ${error instanceof Error ? error.message : String(error)}`,
      );
    },
  );
  await running.closed;
  const last = agents[agents.length - 1];
  if (last !== undefined) {
    const exited = await Promise.race([
      last.exited,
      new Promise<undefined>((resolve) => {
        later(() => resolve(undefined), EXIT_GRACE_MS).unref();
      }),
    ]);
    if (exited === undefined) await last.terminate(KILL_GRACE_MS);
  }
  if (options.quiet !== true && running.lossyTotal > 0) {
    const kinds = Object.entries(running.lossy)
      .map(([kind, count]) => `${kind} ×${String(count)}`)
      .join(", ");
    note(
      `${String(running.lossyTotal)} steps could not be shown exactly in the client's version: ${kinds}`,
    );
  }
  const status = last?.exitStatus;
  return status === undefined ? 0 : exitCodeOf(status);
}
