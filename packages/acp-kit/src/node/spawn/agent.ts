/**
 * {@link spawnAgent}: start an agent command and talk ACP to it over its stdio.
 *
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { stat } from "node:fs/promises";
import { ConnectionError } from "../../jsonrpc/errors.js";
import type { SendRequestOptions } from "../../jsonrpc/connection.js";
import { ClientSideConnection } from "../../peer/client-side-connection.js";
import { PROTOCOL_VERSION } from "../../peer/methods.js";
import type { InitializeRequest, InitializeResponse } from "../../schema/types.gen.js";
import type { Stream } from "../../base/messages.js";
import type { UpdateSessionNotification as UpdateSessionNotificationV2 } from "../../schema/v2/types.gen.js";
import { ndJsonStream } from "../../transport/ndjson.js";
import { memoryStreamPair } from "../../transport/memory.js";
import { bridge, type Bridge } from "../../v2/bridge.js";
import { USES_PROCESS_GROUPS, signalGroup, trackGroup, untrackGroup } from "../process-group.js";
import { AgentExitError, AgentStartupError, spawnFailure, type AgentExit } from "./errors.js";
import { resolveSpawnOptions, type SpawnAgentOptions, type SpawnSettings } from "./options.js";
import { AgentProcessWatch } from "./watch.js";
import { settlesWithin } from "../settles-within.js";
import { resolveAgent } from "../registry/resolve.js";

/** With `registry`: the options with the registry's command, arguments and environment. */
async function fromRegistry(options: SpawnAgentOptions): Promise<SpawnAgentOptions> {
  if (options.registry === undefined) return options;
  if (options.command !== undefined) {
    throw new TypeError("spawnAgent: give either `command` or `registry`, not both");
  }
  const resolved = await resolveAgent(options.registry, options.registryOptions);
  return {
    ...options,
    command: resolved.command,
    args: [...resolved.args, ...(options.args ?? [])],
    env: { ...resolved.env, ...options.env },
    windowsVerbatimArguments: resolved.windowsVerbatimArguments,
  };
}

/** Options of {@link SpawnedAgent.initialize}. */
export interface AgentInitializeOptions {
  /**
   * Milliseconds to wait for the answer (default: the `initializeTimeoutMs` given to
   * {@link spawnAgent}, itself 120 s by default; `0` or `Infinity` for none).
   */
  readonly timeoutMs?: number;
  /** Aborting it rejects the call and sends `$/cancel_request`. */
  readonly signal?: AbortSignal;
}

/**
 * A running agent started by {@link spawnAgent}. Close it with {@link SpawnedAgent.close}
 * or `await using`: that ends the agent and everything it started.
 */
export interface SpawnedAgent extends AsyncDisposable {
  /** The connection to the agent: call `newSession`, `prompt`, ... on it. */
  readonly connection: ClientSideConnection;
  /** The child process (the agent, or the wrapper that started it, such as `npx`). */
  readonly process: ChildProcess;
  /** Its process id (also the id of its process group, except on Windows). */
  readonly pid: number;
  /**
   * The last lines the agent wrote to stderr, oldest first (empty unless `stderr` is
   * `"pipe"`, the default).
   */
  readonly stderr: readonly string[];
  /**
   * Resolves when the process exits, with its exit code or signal. Never rejects. With
   * `protocol: "auto"`, a process that left on the v2 `initialize` of
   * {@link SpawnedAgent.initialize} and was started again does not count: this is the exit
   * of the one that took part in the negotiation's end.
   */
  readonly exited: Promise<AgentExit>;
  /** How the process ended, once it has. */
  readonly exitStatus: AgentExit | undefined;
  /**
   * The ACP version the agent speaks, once {@link SpawnedAgent.initialize} succeeded (with
   * the `protocol` option `1`, always 1).
   */
  readonly protocol: 1 | 2 | undefined;
  /**
   * What the bridge to a v2 agent could not show in v1, by kind (empty when the agent
   * speaks v1). See `bridge` in `acp-kit/v2`.
   */
  readonly lossy: Readonly<Record<string, number>>;
  /**
   * Calls `listener` with each `session/update` of a v2 agent as the agent sent it, before
   * the bridge shows it to the v1 connection (never, when the agent speaks v1). Feed them
   * to a `SessionStore`'s `applyV2` to fold the session in v2 itself: tool-call patches,
   * v2 diffs and the agent's own terminals are then kept as they are, not as v1 shows
   * them. Returns the function that unsubscribes it.
   *
   * ```ts
   * const agent = await spawnAgent({ command: "my-agent", protocol: "auto", client: () => toolkit.client() });
   * agent.observeV2Updates((notification) => toolkit.sessions.applyV2(notification));
   * ```
   */
  observeV2Updates(listener: (notification: UpdateSessionNotificationV2) => void): () => void;
  /**
   * Sends `initialize` with a startup time limit. If the limit passes, it rejects with an
   * {@link AgentStartupError} (`phase: "initialize"`, `code: "timeout"`) quoting the
   * agent's stderr; the agent is left running (close it). If the agent exits first, it
   * rejects with a `ConnectionError("connection_closed")` naming the exit.
   *
   * @param params - Default: `{ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }`.
   * @param options - Time limit and abort signal.
   */
  initialize(
    params?: InitializeRequest,
    options?: AgentInitializeOptions,
  ): Promise<InitializeResponse>;
  /**
   * Stops the agent: closes the connection (pending requests reject), sends SIGTERM to
   * its whole process group, then SIGKILL to whatever is left after the grace period.
   * Resolves with how the agent ended once it has; calling it again returns the same
   * promise.
   */
  close(): Promise<AgentExit>;
}

/** How long an agent whose output ended may take to exit before it is taken as running (ms). */
const EXIT_WAIT_MS = 2000;

/** Max lines of stderr quoted in error messages. */
const ERROR_TAIL_LINES = 20;

/** One started agent process and its watch. */
interface AgentChild {
  readonly process: ChildProcess;
  readonly watch: AgentProcessWatch;
  /** Resolves, once its exit has been taken in (stderr read), with the error it makes. */
  readonly failure: Promise<AgentExitError>;
  /** Settles {@link AgentChild.failure}. */
  readonly fail: (error: AgentExitError) => void;
}

class AgentHandle implements SpawnedAgent {
  readonly connection: ClientSideConnection;
  private closing: Promise<AgentExit> | undefined;
  private readonly bridge: Bridge | undefined;
  private agreed: 1 | 2 | undefined;
  private readonly v2Listeners = new Set<(notification: UpdateSessionNotificationV2) => void>();
  /** The process spoken to (a restart during the negotiation replaces it). */
  private current: AgentChild;
  /** Processes replaced by a restart (stopped, and waited for by `close`). */
  private readonly replaced: AgentChild[] = [];
  /**
   * True while `"auto"` negotiates: an exit then may be the agent leaving on a v2
   * `initialize`, to be started again, so it closes the connection only once the
   * negotiation is over and the process is still the one spoken to.
   */
  private negotiating: boolean;
  /** What waits for the negotiation to end (see `negotiating`). */
  private readonly afterNegotiation: (() => void)[] = [];
  /** Set once {@link AgentHandle.initialize} has sent `initialize` (see `watchChild`). */
  private initializeSent = false;
  /** The exit of the process spoken to once the negotiation is over (see `exited`). */
  private readonly exit: Promise<AgentExit>;
  private settleExit: (exit: AgentExit) => void = () => undefined;

  constructor(
    first: AgentChild,
    private readonly settings: SpawnSettings,
  ) {
    this.current = first;
    this.negotiating = settings.protocol === "auto";
    this.exit = new Promise<AgentExit>((resolve) => (this.settleExit = resolve));
    const stream = this.streamOf(first);
    if (settings.protocol === 1) {
      this.connection = new ClientSideConnection(settings.toClient, stream, settings.connection);
    } else {
      // The client speaks v1 over an in-memory pair; the bridge asks the agent for v2 and
      // relays (v1 agent) or translates (v2 agent).
      const pair = memoryStreamPair();
      this.connection = new ClientSideConnection(
        settings.toClient,
        pair.client,
        settings.connection,
      );
      this.bridge = bridge(pair.agent, stream, {
        as: 1,
        protocol: settings.protocol,
        // An agent that leaves on a v2 initialize (some v1 agents do) is started again
        // and asked for v1.
        restart: () => this.restart(),
        onAgentUpdate: (notification) => {
          for (const listener of [...this.v2Listeners]) listener(notification);
        },
        ...(settings.connection.logger === undefined ? {} : { logger: settings.connection.logger }),
      });
      const negotiated = (): void => {
        this.negotiating = false;
        for (const pending of this.afterNegotiation.splice(0)) pending();
      };
      this.bridge.ready.then((versions) => {
        this.agreed = versions.agent;
        negotiated();
      }, negotiated);
    }
    this.watchChild(first);
  }

  get process(): ChildProcess {
    return this.current.process;
  }

  get pid(): number {
    return this.current.watch.pid;
  }

  private get watch(): AgentProcessWatch {
    return this.current.watch;
  }

  /** The NDJSON stream over a child's stdio (its stdin is ended when the stream closes). */
  private streamOf(child: AgentChild): Stream {
    const { stdin, stdout } = child.process;
    if (stdin === null || stdout === null) throw new Error("spawnAgent: stdio pipes are missing");
    const onStdout = this.settings.onStdout;
    return ndJsonStream(child.watch.stdinWritable(stdin), child.watch.stdoutReadable(stdout), {
      closeOutput: true,
      // The agent's stdout is also where it prints what is not ACP (a login URL, a
      // question): never answered with a parse error, handed to `onStdout`.
      onNonJsonLine: (line) => onStdout?.(line),
      ...(this.settings.maxMessageBytes === undefined
        ? {}
        : { maxMessageBytes: this.settings.maxMessageBytes }),
    });
  }

  /** Runs `then` now, or once the negotiation is over. */
  private whenNegotiated(then: () => void): void {
    if (this.negotiating) this.afterNegotiation.push(then);
    else then();
  }

  /**
   * The child's exit closes the connection and settles `exited` (once it is the one spoken
   * to, see `negotiating`: a process replaced by a restart leaves both alone).
   */
  private watchChild(child: AgentChild): void {
    const connection = this.connection;
    void child.watch.exited.then((exit) => {
      const settle = (): void => {
        if (this.current === child) this.settleExit(exit);
      };
      // Only an exit once `initialize` went out can be followed by a restart: before that,
      // nothing may ever end the negotiation, and the exit is the agent's.
      if (this.initializeSent) this.whenNegotiated(settle);
      else settle();
    });
    child.watch.attach({
      closeWithExit: (exit) => {
        const failure = new AgentExitError(exit, this.capturedTail());
        child.fail(failure);
        const close = (): void => {
          if (this.current !== child) return; // replaced by a restart
          connection.close(failure);
        };
        if (!this.negotiating) {
          close();
          return true;
        }
        // The negotiation sees the output end and may start the agent again; the exit
        // closes the connection only if it does not.
        this.afterNegotiation.push(close);
        return false;
      },
      closed: connection.closed,
    });
  }

  /** True once `close()` was called (read after each await: it may change meanwhile). */
  private stopping(): boolean {
    return this.closing !== undefined;
  }

  /** Starts the agent again (it left during the negotiation); returns its stream. */
  private async restart(): Promise<Stream> {
    // An agent stopped by `close()` is not started again.
    if (this.stopping()) throw new Error("the agent is being stopped");
    const old = this.current;
    this.replaced.push(old);
    await old.watch.terminate();
    if (this.stopping()) throw new Error("the agent is being stopped");
    const next = await startChild(this.settings);
    if (this.stopping()) {
      await next.watch.terminate();
      throw new Error("the agent is being stopped");
    }
    this.current = next;
    this.watchChild(next);
    return this.streamOf(next);
  }

  get stderr(): readonly string[] {
    return this.watch.stderrTail();
  }

  get exited(): Promise<AgentExit> {
    return this.exit;
  }

  get exitStatus(): AgentExit | undefined {
    return this.watch.exitStatus;
  }

  get protocol(): 1 | 2 | undefined {
    return this.agreed;
  }

  get lossy(): Readonly<Record<string, number>> {
    return this.bridge?.lossy ?? {};
  }

  observeV2Updates(listener: (notification: UpdateSessionNotificationV2) => void): () => void {
    this.v2Listeners.add(listener);
    return () => {
      this.v2Listeners.delete(listener);
    };
  }

  async initialize(
    params: InitializeRequest = { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} },
    options: AgentInitializeOptions = {},
  ): Promise<InitializeResponse> {
    const limit = options.timeoutMs ?? this.settings.initializeTimeoutMs;
    const timeoutMs = limit === 0 || limit === Infinity ? undefined : limit;
    const sendOptions: SendRequestOptions = {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    this.initializeSent = true;
    try {
      const response = await this.connection.initialize(params, sendOptions);
      if (this.bridge === undefined) this.agreed = 1;
      else this.agreed = (await this.bridge.ready).agent;
      return response;
    } catch (error) {
      if (!(error instanceof ConnectionError) || error.code !== "timeout") {
        throw (await this.exitBehindBridge()) ?? error;
      }
      throw new AgentStartupError(
        `The agent did not answer initialize within ${timeoutMs ?? 0} ms ` +
          "(startup phase: initialize; its process started and is still running). " +
          "If it is still installing or starting (npx can take a while the first time), " +
          "raise the time limit (initializeTimeoutMs); otherwise check that the command " +
          "starts an ACP agent that speaks on its stdio.",
        {
          phase: "initialize",
          code: "timeout",
          command: this.settings.command,
          stderrTail: this.capturedTail(),
          cause: error,
        },
      );
    }
  }

  close(): Promise<AgentExit> {
    this.closing ??= (async () => {
      this.connection.close(new Error("the agent is being stopped (close() was called)"));
      await Promise.all(this.replaced.map((child) => child.watch.terminate()));
      await this.watch.terminate();
      return this.watch.exited;
    })();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * When the bridge answered `initialize` with an error because the agent exited (and a
   * restart could not help), the error the exit closed the connection with: it names the
   * exit and quotes stderr, as without a bridge. `undefined` when the agent runs.
   */
  private async exitBehindBridge(): Promise<unknown> {
    if (this.bridge === undefined) return undefined;
    await this.bridge.ready.catch(() => undefined);
    const child = this.current;
    if (!(await settlesWithin(child.watch.exited, EXIT_WAIT_MS))) return undefined;
    // Its stderr is read by then; should the watch not take the exit in, say it anyway.
    const exit = child.watch.exitStatus;
    const failure = (await settlesWithin(child.failure, EXIT_WAIT_MS))
      ? await child.failure
      : exit === undefined
        ? undefined
        : new AgentExitError(exit, this.capturedTail());
    if (failure === undefined) return undefined;
    return new ConnectionError("connection_closed", `Connection closed: ${failure.message}`, {
      cause: failure,
    });
  }

  private capturedTail(): readonly string[] | undefined {
    return this.settings.stderr === "pipe" ? this.watch.stderrTail(ERROR_TAIL_LINES) : undefined;
  }
}

async function checkCwd(settings: SpawnSettings): Promise<void> {
  const { cwd, command } = settings;
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(cwd)).isDirectory();
  } catch (error) {
    throw new AgentStartupError(
      `Could not start the agent: its working directory ${JSON.stringify(cwd)} does not exist ` +
        "or cannot be read. Create it, or pass an existing directory as `cwd`.",
      { phase: "spawn", code: "invalid_cwd", command, cause: error },
    );
  }
  if (!isDirectory) {
    throw new AgentStartupError(
      `Could not start the agent: its working directory ${JSON.stringify(cwd)} is not a ` +
        "directory. Pass a directory as `cwd`.",
      { phase: "spawn", code: "invalid_cwd", command },
    );
  }
}

/** Resolves once the child has started; rejects with an {@link AgentStartupError}. */
function started(child: ChildProcess, settings: SpawnSettings): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new AgentStartupError(
          `The agent process did not start within ${settings.spawnTimeoutMs} ms ` +
            "(startup phase: spawn). The machine may be overloaded; raise spawnTimeoutMs.",
          { phase: "spawn", code: "timeout", command: settings.command },
        ),
      );
    }, settings.spawnTimeoutMs);
    const onSpawn = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(spawnFailure(error, settings.command, settings.cwd));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.removeListener("spawn", onSpawn);
      child.removeListener("error", onError);
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
}

/**
 * Starts an agent and connects a {@link ClientSideConnection} to it over its stdio.
 * Resolves once the process has started; rejects with an {@link AgentStartupError} when
 * it cannot be (command not found, not executable, missing working directory).
 *
 * The agent runs in its own process group, so that {@link SpawnedAgent.close} also ends
 * whatever it started (the real agent behind `npx` or `sh -c`, its helpers). When the
 * agent exits on its own, what it left in its group is ended too. If this process exits
 * while agents still run, a `process.on("exit")` hook SIGKILLs their groups; it cannot run
 * when this process is killed by a signal it does not handle (always for SIGKILL; for
 * SIGINT, SIGTERM and SIGHUP add a handler such as
 * `process.on("SIGINT", () => process.exit(130))`). Agents then still see their stdin end.
 * Windows has no process groups: there only the process itself is stopped.
 *
 * When the agent exits, every pending request rejects with
 * `ConnectionError("connection_closed")`, message
 * `Connection closed: the agent exited with code 1; its last stderr lines: ...` and an
 * {@link AgentExitError} as `cause`. They do so within a few tens of milliseconds of the
 * exit, even when a helper the agent started (an MCP or language server) keeps its stdout
 * or stderr open and ignores SIGTERM; the helper itself is SIGKILLed after the grace.
 *
 * ```ts
 * await using agent = await spawnAgent({
 *   command: "npx",
 *   args: ["-y", "@acme/agent"],
 *   client: (agent) => new MyClient(agent),
 * });
 * await agent.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
 * const { sessionId } = await agent.connection.newSession({ cwd, mcpServers: [] });
 * ```
 *
 * With `registry: "<id>"` instead of `command`, the agent is taken from the ACP registry:
 * installed into the user's cache on first use (see `resolveAgent`) and started from
 * there. Registry failures reject with a `RegistryError`.
 *
 * @param options - The command, its environment, your client; see {@link SpawnAgentOptions}.
 */
export async function spawnAgent(options: SpawnAgentOptions): Promise<SpawnedAgent> {
  const settings = resolveSpawnOptions(await fromRegistry(options));
  await checkCwd(settings);
  const first = await startChild(settings);
  try {
    // Runs the caller's client factory, which may throw: the agent must not outlive that.
    return new AgentHandle(first, settings);
  } catch (error) {
    abandon(first.process, first.watch.pid);
    throw error;
  }
}

/** Kills what was started (the whole group) when spawnAgent fails after the spawn. */
function abandon(child: ChildProcess, pid: number | undefined): void {
  if (pid !== undefined) {
    if (!USES_PROCESS_GROUPS || !signalGroup(pid, "SIGKILL")) child.kill("SIGKILL");
    untrackGroup(pid);
  }
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** Starts the agent's process in a group of its own, watched; rejects with an {@link AgentStartupError}. */
async function startChild(settings: SpawnSettings): Promise<AgentChild> {
  const child = spawn(settings.command, [...settings.args], {
    cwd: settings.cwd,
    env: settings.env,
    detached: USES_PROCESS_GROUPS,
    stdio: ["pipe", "pipe", settings.stderr],
    windowsHide: true,
    windowsVerbatimArguments: settings.windowsVerbatimArguments,
  });
  const pid = child.pid;
  if (pid !== undefined && USES_PROCESS_GROUPS) trackGroup(pid);
  // Errors of the child and its pipes are reported through the connection and the
  // watch; without listeners a late one would crash this process.
  child.on("error", (error) =>
    settings.connection.logger?.debug?.("Agent process error", { error }),
  );
  for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.on("error", () => undefined);
  try {
    await started(child, settings);
  } catch (error) {
    abandon(child, pid);
    throw error;
  }
  if (pid === undefined) throw new Error("spawnAgent: the process started without a pid");
  let fail: (error: AgentExitError) => void = () => undefined;
  const failure = new Promise<AgentExitError>((resolve) => (fail = resolve));
  return { process: child, watch: new AgentProcessWatch(child, pid, settings), failure, fail };
}
