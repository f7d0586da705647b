/**
 * Joining the message stream the server hands an agent factory to another message stream
 * (for example an `ndJsonStream` over a child process's stdio, as `acp-kit serve` does).
 *
 * @module
 */
import type { Stream } from "../../base/messages.js";

/**
 * Pipes `served` (what {@link AcpAgentFactory} receives) to `agent` in both directions.
 * Resolves once either direction ends (the client went away, or the agent's output
 * ended); the other direction is then closed too.
 *
 * @example
 * ```ts
 * agent: (stream, { signal }) => {
 *   const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"], detached: true });
 *   const closed = pipeAgentStream(
 *     stream,
 *     // closeOutput: the child's stdin is ended when the client goes away.
 *     ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout), { closeOutput: true }),
 *   );
 *   signal.addEventListener("abort", () => process.kill(-child.pid!, "SIGTERM"));
 *   return { closed };
 * }
 * ```
 */
export function pipeAgentStream(served: Stream, agent: Stream): Promise<void> {
  const stop = new AbortController();
  const toAgent = served.readable.pipeTo(agent.writable, { signal: stop.signal });
  const fromAgent = agent.readable.pipeTo(served.writable, { signal: stop.signal });
  return Promise.race([toAgent, fromAgent])
    .catch(() => undefined)
    .then(() => {
      stop.abort();
      return Promise.allSettled([toAgent, fromAgent]);
    })
    .then(() => undefined);
}
