/**
 * Authentication as a client meets it: the typed error for `-32000` (auth required) at
 * any step, with the agent's methods and a way to retry what failed, and the protocol's
 * rules for each kind of method (`agent`, `terminal`, and environment variables).
 * Runtime-neutral: running a login command is the caller's job.
 *
 * @module
 */
import { ErrorCodes } from "../base/error-codes.js";
import { RequestError } from "../jsonrpc/errors.js";
import { isPlainObject } from "../base/messages.js";
import type { AuthMethod, AuthMethodTerminal } from "../schema/types.gen.js";

/**
 * A request failed with `-32000` (authentication required). It carries the agent's auth
 * methods (from its `initialize` answer), the request that failed and {@link retry}, which
 * sends that request again through the same session client, so that a caller can log in
 * and carry on where it stopped.
 *
 * It is a {@link RequestError} with the agent's own code, message and `data`; the agent's
 * error itself is its `cause`.
 */
export class AuthRequiredError extends RequestError {
  /** The method of the request that failed (`session/new`, `session/prompt`, ...). */
  readonly method: string;
  /**
   * The params of the request that failed. Not enumerable: they may hold secrets (the
   * `env` and `headers` of MCP servers), which must not reach a log that prints the error.
   */
  declare readonly params: unknown;
  /** The ways to log in the agent offered in `initialize` (may be empty). */
  readonly authMethods: readonly AuthMethod[];
  /** The agent's error. */
  declare readonly cause: RequestError;
  private readonly again: () => Promise<unknown>;

  /**
   * Made by the session client when a request fails with `-32000`.
   *
   * @param cause - The agent's error.
   * @param failed - The request that failed, the agent's auth methods and how to send the
   *   request again.
   */
  constructor(
    cause: RequestError,
    failed: {
      readonly method: string;
      readonly params: unknown;
      readonly authMethods: readonly AuthMethod[];
      readonly retry: () => Promise<unknown>;
    },
  ) {
    super(cause.code, cause.message, cause.data);
    this.name = "AuthRequiredError";
    Object.defineProperty(this, "cause", { value: cause, configurable: true, writable: true });
    this.method = failed.method;
    Object.defineProperty(this, "params", { value: failed.params, enumerable: false });
    this.authMethods = failed.authMethods;
    this.again = failed.retry;
  }

  /**
   * Sends the failed request again, with the same params, through the session client that
   * sent it (its state is kept in step as for the first attempt). Resolves as the original
   * call would have. Use it after an in-protocol login (`authenticate`); after a login that
   * restarted the agent, send the request through the new connection's client instead.
   */
  retry(): Promise<unknown> {
    return this.again();
  }
}

/** True for an error a peer answered with `-32000` (authentication required). */
export function isAuthRequired(error: unknown): error is RequestError {
  return error instanceof RequestError && error.code === ErrorCodes.AUTH_REQUIRED;
}

/**
 * True for a `terminal` auth method. Checked on the value, not the type: a method of a kind
 * this version does not know (a newer `type`) reaches us as an agent method with its
 * `type` field kept, and must not be run as a login command.
 */
export function isTerminalAuth(
  method: AuthMethod,
): method is AuthMethodTerminal & { type: "terminal" } {
  return (method as { type?: unknown }).type === "terminal";
}

/** An environment variable an auth method asks the client to set when it starts the agent. */
export interface AuthEnvVar {
  /** The variable's name (`OPENAI_API_KEY`). */
  readonly name: string;
  /** What to call it when asking the user, when the agent said. */
  readonly label: string | null;
  /** True unless the agent said the value is not secret: ask for it with hidden input. */
  readonly secret: boolean;
  /** True when the agent said the variable may be left unset. */
  readonly optional: boolean;
}

/**
 * A variable an agent method's description says the agent reads, as Gemini CLI describes
 * its API-key method: "Requires setting the `GEMINI_API_KEY` environment variable".
 */
const DESCRIBED_VAR = /`([A-Z][A-Z0-9_]*)`\s+environment\s+variable/g;

/**
 * The variables of an environment-variable method (`type: "env_var"`, an experimental kind
 * that real agents send: `vars` as names or `{ name, label, secret, optional }`, or one
 * `varName`), or `undefined` for any other method. The protocol's flow for them: start the
 * agent with the variables set, then retry what needed authentication (no `authenticate`
 * call is needed, though agents accept one).
 *
 * An agent method (no `type`) whose description names the variables it needs, as
 * "Requires setting the \`GEMINI_API_KEY\` environment variable" (Gemini CLI), counts
 * as one too: its variables are those names, required and secret. The agent still
 * expects `authenticate` after it was started with them.
 */
export function envVarsOf(method: AuthMethod): AuthEnvVar[] | undefined {
  const raw = method as unknown as Record<string, unknown>;
  if (raw.type === undefined || raw.type === "agent") {
    const description = typeof raw.description === "string" ? raw.description : "";
    const names = [...new Set([...description.matchAll(DESCRIBED_VAR)].map((m) => m[1] ?? ""))];
    if (names.length === 0 || names.includes("")) return undefined;
    return names.map((name) => ({ name, label: null, secret: true, optional: false }));
  }
  if (raw.type !== "env_var") return undefined;
  // A copy: the legacy `varName` is added to it, never to the method's own list.
  const entries: unknown[] = Array.isArray(raw.vars) ? [...(raw.vars as unknown[])] : [];
  if (typeof raw.varName === "string") entries.push(raw.varName);
  const vars: AuthEnvVar[] = [];
  for (const entry of entries) {
    if (typeof entry === "string" && entry !== "") {
      vars.push({ name: entry, label: null, secret: true, optional: false });
    } else if (isPlainObject(entry) && typeof entry.name === "string" && entry.name !== "") {
      vars.push({
        name: entry.name,
        label: typeof entry.label === "string" ? entry.label : null,
        secret: entry.secret !== false,
        optional: entry.optional === true,
      });
    }
  }
  return vars;
}

/** How a client logs in with one auth method. */
export type LoginPlan =
  | {
      /** Send `authenticate` with the method's id, then retry. */
      readonly kind: "agent";
      readonly methodId: string;
    }
  | {
      /**
       * Run {@link terminalLoginCommand} in the user's terminal; exit code 0 is success.
       * Then start the agent again, `initialize`, and retry. Never `authenticate`.
       */
      readonly kind: "terminal";
      readonly methodId: string;
    }
  | {
      /** Start the agent again with these variables set, `initialize`, and retry. */
      readonly kind: "env_var";
      readonly methodId: string;
      readonly vars: readonly AuthEnvVar[];
    };

/** What the protocol has a client do to log in with `method`. */
export function loginPlan(method: AuthMethod): LoginPlan {
  if (isTerminalAuth(method)) return { kind: "terminal", methodId: method.id };
  const vars = envVarsOf(method);
  if (vars !== undefined) return { kind: "env_var", methodId: method.id, vars };
  return { kind: "agent", methodId: method.id };
}

/** How the agent is started: the base of a terminal login command. */
export interface AgentLaunch {
  /** The agent's program. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Variables set (or, `undefined`, removed) on top of the client's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A command to run in the user's terminal. */
export interface LoginCommand {
  /** The program: always the agent's own (a method can never choose it). */
  readonly command: string;
  /** The agent's arguments, then the method's. */
  readonly args: string[];
  /** The launch's variables, overridden by the method's. */
  readonly env: Record<string, string | undefined>;
}

/**
 * The login command of a `terminal` method, as the protocol prescribes: the agent's own
 * program and arguments with the method's `args` appended and its `env` applied over the
 * launch's. Exit code 0 means logged in; anything else (a signal, the user quitting) means
 * not.
 */
export function terminalLoginCommand(
  method: AuthMethodTerminal,
  launch: AgentLaunch,
): LoginCommand {
  return {
    command: launch.command,
    args: [...(launch.args ?? []), ...(method.args ?? [])],
    env: { ...launch.env, ...method.env },
  };
}
