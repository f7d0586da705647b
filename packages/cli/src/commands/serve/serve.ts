/**
 * `acp-kit serve -- <agent command>`: serves any stdio agent over Streamable HTTP and
 * WebSocket on one endpoint (`/acp`). Each connection gets its own agent process, in its
 * own process group, ended with that group when the connection ends or idles out.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import type { AcpAgentContext, AcpResumableOptions } from "acp-kit/http";
import { bearerTokenAuth, createAcpNodeServer } from "acp-kit/http";
import type { Stream } from "acp-kit";
import {
  endProcessGroup,
  trackGroup,
  USES_PROCESS_GROUPS,
  type GroupLeader,
} from "acp-kit/internal";
import { ndJsonStream } from "acp-kit";
import { signalExitCode } from "../../signals.js";
import { UsageError } from "../../target.js";
import { printable } from "../../terminal-text.js";
import { tokenFromEnv } from "../../remote-target.js";
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
  /**
   * The environment variable holding the bearer token clients must send (read from this
   * process's environment; the agents do not get it).
   */
  readonly tokenEnv?: string;
  /** Variables the agent needs besides this process's (a registry agent's `env`). */
  readonly env?: Readonly<Record<string, string>>;
  /** End a connection (and its agent) idle this long, in ms (default 600000). */
  readonly idleTimeoutMs: number;
  /** Keep sent messages so that clients can resume after a drop (default on). */
  readonly resumable: boolean;
  /** What is kept for a resume (default: the library's retention). */
  readonly retention?: AcpResumableOptions;
  /** Connections open at once (default 64). */
  readonly maxConnections: number;
  /** Where the URL goes (a line), and where notes go. */
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  /** Ends the server (default: SIGINT, SIGTERM or SIGHUP). */
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
  // The agents still running (or being ended), each with a promise of its end.
  const agents = new Set<Promise<void>>();
  const env = agentEnv(options);
  const server = createAcpNodeServer({
    agent: (stream, context) => {
      const agent = startAgentProcess(options, env, stream, context);
      const ended = agent.ended.finally(() => agents.delete(ended));
      agents.add(ended);
      return { closed: agent.closed };
    },
    ...(token === undefined ? {} : { authenticate: bearerTokenAuth(token) }),
    resumable: options.resumable ? (options.retention ?? true) : false,
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
  const stopSignals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  let stopping = false;
  let onSignal: ((signal: NodeJS.Signals) => void) | undefined;
  await new Promise<void>((resolve) => {
    if (options.signal !== undefined) {
      if (options.signal.aborted) resolve();
      else options.signal.addEventListener("abort", () => resolve(), { once: true });
      return;
    }
    // SIGHUP too: a closed terminal or a dropped ssh session must not leave agents behind.
    // A second signal while stopping exits at once; the exit hook kills what still runs.
    onSignal = (signal) => {
      if (stopping) process.exit(signalExitCode(signal));
      stopping = true;
      resolve();
    };
    for (const signal of stopSignals) process.on(signal, onSignal);
  });
  stopping = true;
  try {
    await server.close();
    // Each connection's agent got SIGTERM when its connection closed: wait for them.
    await Promise.all([...agents]);
  } finally {
    if (onSignal !== undefined) for (const signal of stopSignals) process.off(signal, onSignal);
  }
  return 0;
}

/**
 * The agents' environment: this process's without the variable holding the server's
 * token (the agent has no use for it, and anything it runs could read it), then the
 * agent's own variables (`env`).
 */
function agentEnv(options: ServeOptions): NodeJS.ProcessEnv {
  const { tokenEnv } = options;
  // Windows' variable names ignore case.
  const same = (name: string): boolean =>
    process.platform === "win32"
      ? name.toUpperCase() === tokenEnv?.toUpperCase()
      : name === tokenEnv;
  const inherited = Object.entries(process.env).filter(([name]) => !same(name));
  return { ...Object.fromEntries(inherited), ...options.env };
}

/**
 * Starts the agent of one connection and joins its stdio to the connection's stream; its
 * process group is ended when the connection closes. `closed`: the agent exited;
 * `ended`: the connection closed and the whole group is gone.
 */
function startAgentProcess(
  options: ServeOptions,
  env: NodeJS.ProcessEnv,
  stream: Stream,
  context: AcpAgentContext,
): { closed: Promise<void>; ended: Promise<void> } {
  const child = spawn(options.command, [...options.args], {
    env,
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
    {
      closeOutput: true,
      // What the agent prints outside ACP (a login URL) is shown here, never answered.
      onNonJsonLine: (line) => options.err.write(`[agent] ${printable(line)}\n`),
    },
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
  let ending: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    if (pid === undefined) return exited;
    ending ??= endProcessGroup(leader, { graceMs: 2_000 });
    return ending;
  };
  // Ended: its connection has closed, and its whole group is gone.
  const ended = new Promise<void>((resolve) => {
    const end = (): void => void stop().then(resolve, resolve);
    if (context.signal.aborted) end();
    else context.signal.addEventListener("abort", end, { once: true });
  });
  return { closed: exited, ended };
}
