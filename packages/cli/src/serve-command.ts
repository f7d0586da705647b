/**
 * `acp-kit serve -- <agent command>`: serves any stdio agent over Streamable HTTP and
 * WebSocket on one endpoint (`/acp`). Each connection gets its own agent process, in its
 * own process group, ended with that group when the connection ends or idles out.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import type { AcpAgentContext } from "acp-kit/http";
import { bearerTokenAuth, createAcpNodeServer } from "acp-kit/http";
import type { Stream } from "acp-kit";
import {
  endProcessGroup,
  trackGroup,
  USES_PROCESS_GROUPS,
  type GroupLeader,
} from "acp-kit/internal";
import { ndJsonStream } from "acp-kit";
import { UsageError } from "./target.js";
import { tokenFromEnv } from "./remote-target.js";
import { isLoopbackHost } from "acp-kit/internal";

/** Options of {@link runServe}. */
export interface ServeOptions {
  /** The agent's program and arguments. */
  readonly command: string;
  readonly args: readonly string[];
  /** Pass the arguments to Windows as they are (a registry agent's batch-file command line). */
  readonly windowsVerbatimArguments?: boolean;
  /** Where to listen (default 127.0.0.1). */
  readonly host: string;
  /** The port (0: any free one). */
  readonly port: number;
  /** The environment variable holding the bearer token clients must send. */
  readonly tokenEnv?: string;
  /** End a connection (and its agent) idle this long, in ms (default 600000). */
  readonly idleTimeoutMs: number;
  /** Keep sent messages so that clients can resume after a drop (default on). */
  readonly resumable: boolean;
  /** Connections open at once (default 64). */
  readonly maxConnections: number;
  /** Where the URL goes (a line), and where notes go. */
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  /** Ends the server (default: SIGINT or SIGTERM). */
  readonly signal?: AbortSignal;
}

/** Runs the server until the signal; resolves with the exit code. */
export async function runServe(options: ServeOptions): Promise<number> {
  const token = tokenFromEnv(options.tokenEnv);
  if (token === undefined && !isLoopbackHost(options.host)) {
    throw new UsageError(
      `Refusing to listen on ${options.host} without a token: anyone who can reach it could run the agent. Set one with --token-env NAME, or listen on 127.0.0.1.`,
    );
  }
  const server = createAcpNodeServer({
    agent: (stream, context) => startAgentProcess(options, stream, context),
    ...(token === undefined ? {} : { authenticate: bearerTokenAuth(token) }),
    resumable: options.resumable,
    idleTimeoutMs: options.idleTimeoutMs,
    maxConnectionsPerPrincipal: options.maxConnections,
  });
  const address = await server.listen(options.port, options.host);
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}/acp`;
  options.out.write(`${url}\n`);
  options.err.write(
    `acp-kit: serving "${[options.command, ...options.args].join(" ")}" at ${url} (HTTP and WebSocket; one agent per connection${token === undefined ? "" : "; bearer token required"})\n`,
  );
  await new Promise<void>((resolve) => {
    if (options.signal !== undefined) {
      if (options.signal.aborted) resolve();
      else options.signal.addEventListener("abort", () => resolve(), { once: true });
      return;
    }
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.close();
  return 0;
}

/** Starts the agent of one connection and joins its stdio to the connection's stream. */
function startAgentProcess(
  options: ServeOptions,
  stream: Stream,
  context: AcpAgentContext,
): { closed: Promise<void> } {
  const child = spawn(options.command, [...options.args], {
    detached: USES_PROCESS_GROUPS,
    stdio: ["pipe", "pipe", "inherit"],
    windowsHide: true,
    windowsVerbatimArguments: options.windowsVerbatimArguments === true,
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", (error) => {
      options.err.write(`acp-kit: cannot start the agent: ${error.message}\n`);
      resolve();
    });
  });
  const pid = child.pid;
  if (pid !== undefined && USES_PROCESS_GROUPS) trackGroup(pid);
  child.stdin.on("error", () => undefined);
  child.stdout.on("error", () => undefined);
  // The agent's stdin is ours: it is ended when the client goes away.
  const agent = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    { closeOutput: true },
  );
  void stream.readable.pipeTo(agent.writable).catch(() => undefined);
  void agent.readable.pipeTo(stream.writable).catch(() => undefined);
  let exitedFlag = false;
  void exited.then(() => (exitedFlag = true));
  const leader: GroupLeader = {
    pid: pid ?? -1,
    exited,
    hasExited: () => exitedFlag,
    killLeader: (signal) => child.kill(signal),
  };
  const stop = (): void => {
    if (pid === undefined) return;
    void endProcessGroup(leader, { graceMs: 2_000 });
  };
  if (context.signal.aborted) stop();
  else context.signal.addEventListener("abort", stop, { once: true });
  return { closed: exited };
}
