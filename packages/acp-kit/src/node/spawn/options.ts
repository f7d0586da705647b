/**
 * The options of {@link spawnAgent}, their defaults and their validation.
 *
 * @module
 */
import type { AcpConnectionOptions } from "../../peer/acp-connection.js";
import type { Agent } from "../../peer/agent.js";
import type { Client } from "../../peer/client.js";
import { DEFAULT_KILL_GRACE_MS } from "../process-group.js";
import type { ResolveAgentOptions } from "../registry/resolve.js";

/**
 * How long {@link SpawnedAgent.initialize} waits for the answer by default: 120 s.
 * Generous on purpose: an agent started through `npx` may first download itself.
 */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 120_000;

/** How long {@link spawnAgent} waits for the process to start: 30 s. */
export const DEFAULT_SPAWN_TIMEOUT_MS = 30_000;

/** How many stderr lines are kept by default: 100. */
export const DEFAULT_STDERR_LINES = 100;

/**
 * What happens to the agent's stderr: `"pipe"` keeps its last lines (for
 * {@link SpawnedAgent.stderr} and error messages) and hands each line to `onStderr`;
 * `"inherit"` passes it through to this process's stderr; `"ignore"` discards it.
 */
export type AgentStderrMode = "pipe" | "inherit" | "ignore";

/** Options of {@link spawnAgent}. */
export interface SpawnAgentOptions {
  /**
   * The program to run: a name looked up on the `PATH`, or a path. Required unless
   * `registry` is given.
   */
  readonly command?: string;
  /** Its arguments (after the registry's, with `registry`). */
  readonly args?: readonly string[];
  /**
   * An agent's id in the ACP registry, instead of `command`: it is installed into the
   * cache when needed and started from there, with the registry's arguments and
   * environment (`env` is merged over the latter). See `resolveAgent`.
   */
  readonly registry?: string;
  /** With `registry`: where the registry and the cache are, progress, refresh. */
  readonly registryOptions?: ResolveAgentOptions;
  /** Windows only: pass the arguments to the program unquoted (they are quoted already). */
  readonly windowsVerbatimArguments?: boolean;
  /**
   * Environment variables. By default they are merged over `process.env`; a value of
   * `undefined` removes a variable. With `inheritEnv: false` they are the whole
   * environment.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Whether `env` is merged over `process.env` (default `true`). */
  readonly inheritEnv?: boolean;
  /** The agent's working directory (default: this process's). */
  readonly cwd?: string;
  /**
   * Your client, or a factory that receives the connection (the agent). Default: a client
   * that implements nothing, so the agent's requests are answered `-32601` and its
   * notifications are dropped.
   */
  readonly client?: Client | ((agent: Agent) => Client);
  /** Options of the `ClientSideConnection`: logger, `requestTimeoutMs`, `lenient`. */
  readonly connection?: AcpConnectionOptions;
  /** The largest message accepted from the agent, in bytes (see `ndJsonStream`). */
  readonly maxMessageBytes?: number;
  /** What happens to the agent's stderr (default `"pipe"`); see {@link AgentStderrMode}. */
  readonly stderr?: AgentStderrMode;
  /** With `stderr: "pipe"`: how many of the last lines are kept (default 100). */
  readonly stderrLines?: number;
  /** With `stderr: "pipe"`: called with each line the agent writes to stderr. */
  readonly onStderr?: (line: string) => void;
  /**
   * Called with each line the agent writes to its stdout that is not JSON: a login URL or
   * code, a question, a log line. Such a line is never answered with a parse error (an
   * agent waiting for an authorization code would read the answer as the code); without
   * this option it is dropped.
   */
  readonly onStdout?: (line: string) => void;
  /** Milliseconds between SIGTERM and SIGKILL when the agent is stopped (default 2000). */
  readonly killGraceMs?: number;
  /** Milliseconds to wait for the process to start (default 30 000). */
  readonly spawnTimeoutMs?: number;
  /**
   * Default time limit of {@link SpawnedAgent.initialize}, in milliseconds (default
   * 120 000; `0` or `Infinity` for none).
   */
  readonly initializeTimeoutMs?: number;
  /**
   * The ACP version to speak with the agent. `1` (the default) speaks v1 directly.
   * `"auto"` asks for v2 and goes on in whichever version the agent answers; `2` wants v2.
   * Either way {@link SpawnedAgent.connection} is a v1 connection: a v2 agent is bridged
   * (see `bridge` in `acp-kit/v2` for what v1 can show of v2), a v1 agent relayed as is.
   * {@link SpawnedAgent.protocol} says which version the agent speaks.
   */
  readonly protocol?: "auto" | 1 | 2;
}

/**
 * Options with defaults applied.
 * @internal
 */
export interface SpawnSettings {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly toClient: (agent: Agent) => Client;
  readonly connection: AcpConnectionOptions;
  readonly maxMessageBytes: number | undefined;
  readonly stderr: AgentStderrMode;
  readonly stderrLines: number;
  readonly onStderr: ((line: string) => void) | undefined;
  readonly onStdout: ((line: string) => void) | undefined;
  readonly killGraceMs: number;
  readonly spawnTimeoutMs: number;
  readonly initializeTimeoutMs: number | undefined;
  readonly windowsVerbatimArguments: boolean;
  readonly protocol: "auto" | 1 | 2;
}

function nonNegative(
  name: string,
  value: number | undefined,
  fallback: number,
  unit = "a number of milliseconds",
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new RangeError(
      `spawnAgent: \`${name}\` must be ${unit} >= 0, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

const STDERR_MODES: readonly AgentStderrMode[] = ["pipe", "inherit", "ignore"];

function protocolOf(value: unknown): "auto" | 1 | 2 {
  if (value === undefined) return 1;
  if (value === "auto" || value === 1 || value === 2) return value;
  throw new RangeError(
    `spawnAgent: \`protocol\` must be "auto", 1 or 2, got ${JSON.stringify(value)}`,
  );
}

/** Only implements nothing: requests are answered -32601, notifications dropped. */
const NO_CLIENT = {} as Client;

/**
 * Checks the options and applies the defaults.
 * @internal
 */
export function resolveSpawnOptions(options: SpawnAgentOptions): SpawnSettings {
  // Callers without types may pass anything: say what is wrong instead of failing later.
  const given = options as Partial<SpawnAgentOptions> | undefined;
  if (typeof given?.command !== "string" || given.command === "") {
    throw new TypeError(
      "spawnAgent: `command` must be a non-empty string (the agent to run), or give `registry`",
    );
  }
  if (given.args !== undefined && !given.args.every((arg) => typeof arg === "string")) {
    throw new TypeError("spawnAgent: `args` must be an array of strings");
  }
  const stderr = given.stderr ?? "pipe";
  if (!(STDERR_MODES as readonly string[]).includes(stderr)) {
    throw new TypeError(
      `spawnAgent: \`stderr\` must be "pipe", "inherit" or "ignore", got ${JSON.stringify(stderr)}`,
    );
  }
  const env: NodeJS.ProcessEnv = given.inheritEnv === false ? {} : { ...process.env };
  for (const [key, value] of Object.entries(given.env ?? {})) {
    if (value === undefined) Reflect.deleteProperty(env, key);
    else env[key] = value;
  }
  const { maxMessageBytes } = given;
  if (
    maxMessageBytes !== undefined &&
    (typeof maxMessageBytes !== "number" ||
      !Number.isFinite(maxMessageBytes) ||
      maxMessageBytes < 1)
  ) {
    throw new RangeError(
      `spawnAgent: \`maxMessageBytes\` must be a number of bytes >= 1, got ${String(maxMessageBytes)}`,
    );
  }
  const client = given.client;
  const initializeTimeoutMs = nonNegative(
    "initializeTimeoutMs",
    given.initializeTimeoutMs,
    DEFAULT_INITIALIZE_TIMEOUT_MS,
  );
  return {
    command: given.command,
    args: given.args ?? [],
    env,
    cwd: given.cwd ?? process.cwd(),
    toClient: typeof client === "function" ? client : () => client ?? NO_CLIENT,
    connection: given.connection ?? {},
    maxMessageBytes,
    stderr,
    stderrLines: Math.floor(
      nonNegative("stderrLines", given.stderrLines, DEFAULT_STDERR_LINES, "a number of lines"),
    ),
    onStderr: given.onStderr,
    onStdout: given.onStdout,
    killGraceMs: nonNegative("killGraceMs", given.killGraceMs, DEFAULT_KILL_GRACE_MS),
    spawnTimeoutMs: nonNegative("spawnTimeoutMs", given.spawnTimeoutMs, DEFAULT_SPAWN_TIMEOUT_MS),
    initializeTimeoutMs:
      initializeTimeoutMs === 0 || initializeTimeoutMs === Infinity
        ? undefined
        : initializeTimeoutMs,
    windowsVerbatimArguments: given.windowsVerbatimArguments === true,
    protocol: protocolOf(given.protocol),
  };
}
