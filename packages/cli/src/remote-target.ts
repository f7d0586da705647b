/**
 * `--url`: a remote agent used as a local one. `run`, `prompt`, `check` and `trace` start
 * agents as commands speaking ACP on stdio; for a URL the command is this CLI's own
 * `remote-stdio` bridge, which carries stdio to the remote agent over Streamable HTTP
 * (`http(s)://`) or a WebSocket (`ws(s)://`). The bridge applies the remote client
 * profile: the agent is told there is no file system and no terminal, and any `fs/*` or
 * `terminal/*` request it sends anyway is refused, unless `--remote-fs` /
 * `--remote-terminal` allow them.
 *
 * @module
 */
import type { Command } from "commander";
import type { AnyMessage } from "acp-kit";
import { agentStdioStream } from "acp-kit/node";
import { connectHttp, HttpStatusError, TRANSPORT_ERROR_CODE } from "acp-kit/http";
import { connectWebSocket } from "acp-kit/http";
import { remoteAllows, restrictForRemote } from "acp-kit/http";
import type { RemoteStream } from "acp-kit/http";
import type { ClientCapabilities } from "acp-kit";
import { ExitCodes, REMOTE_FAILURE } from "./exit-codes.js";
import { signalExitCode } from "./signals.js";
import { UsageError, type AgentTarget } from "./target.js";

/** The options `--url` adds to a command. */
export interface RemoteFlags {
  /** The remote agent's endpoint. */
  readonly url?: string;
  /** The environment variable holding a bearer token for it. */
  readonly tokenEnv?: string;
  /** Let the remote agent read and write files through this client. */
  readonly remoteFs?: boolean;
  /** Let the remote agent run commands through this client. */
  readonly remoteTerminal?: boolean;
}

/** Adds `--url`, `--token-env`, `--remote-fs` and `--remote-terminal` to a command. */
export function withRemoteOptions(command: Command): Command {
  return command
    .option("--url <url>", "a remote agent: http(s)://HOST:PORT/acp, or ws(s):// for a WebSocket")
    .option("--token-env <name>", "with --url: the environment variable holding a bearer token")
    .option("--remote-fs", "with --url: let the remote agent read and write files here")
    .option("--remote-terminal", "with --url: let the remote agent run commands here");
}

/** Checks a URL given to `--url` (the message does not repeat it: it may hold a secret). */
function checkUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError("--url: that is not a URL (for example http://127.0.0.1:8787/acp).");
  }
  if (!["http:", "https:", "ws:", "wss:"].includes(url.protocol)) {
    throw new UsageError(`--url: use http(s):// or ws(s)://, not ${url.protocol}`);
  }
  return url;
}

/**
 * A URL as it may be shown: the credentials (`user:password@`) and the value of every
 * query parameter (`?token=...`) replaced by `***`, the fragment left out.
 */
export function redactUrl(url: URL): string {
  const credentials = url.username !== "" || url.password !== "";
  const query = [...url.searchParams.keys()].map((name) => `${encodeURIComponent(name)}=***`);
  return `${url.protocol}//${credentials ? "***@" : ""}${url.host}${url.pathname}${query.length === 0 ? "" : `?${query.join("&")}`}`;
}

/**
 * The variable the `--url` bridge reads its URL from: the command line (seen by `ps`,
 * recorded by `trace`, quoted in messages) carries only the redacted URL.
 */
const URL_VARIABLE = "ACP_KIT_REMOTE_URL";

/**
 * The agent to start for `--url`: this CLI's `remote-stdio` bridge, as a command. `words`
 * (an agent name or command) must be empty: it is one or the other.
 */
export function remoteTarget(
  flags: RemoteFlags,
  words: readonly string[],
): AgentTarget | undefined {
  if (flags.url === undefined) return undefined;
  const rest = words[0] === "--" ? words.slice(1) : words;
  if (rest.length > 0) throw new UsageError("Give either --url or an agent, not both.");
  const url = checkUrl(flags.url);
  const script = process.argv[1];
  if (script === undefined)
    throw new UsageError("--url: cannot find this program to start the bridge.");
  const shown = redactUrl(url);
  const args = [...process.execArgv, script, "remote-stdio", shown, "--url-env", URL_VARIABLE];
  if (flags.tokenEnv !== undefined) args.push("--token-env", flags.tokenEnv);
  if (flags.remoteFs === true) args.push("--remote-fs");
  if (flags.remoteTerminal === true) args.push("--remote-terminal");
  return {
    command: process.execPath,
    args,
    env: { [URL_VARIABLE]: url.href },
    label: shown,
    remote: true,
  };
}

/** Reads the bearer token named by `--token-env`. */
export function tokenFromEnv(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const token = process.env[name];
  if (token === undefined || token === "") {
    throw new UsageError(`--token-env: the environment variable ${name} is not set.`);
  }
  return token;
}

/** Where the bridge connects, with what, and how it names the place. */
interface Endpoint {
  /** The URL to connect to, without credentials (they go in a header). */
  readonly url: URL;
  readonly headers: Record<string, string>;
  /** The URL as shown (see {@link redactUrl}). */
  readonly shown: string;
  /** Takes every secret of the URL and the token out of a text. */
  readonly scrub: (text: string) => string;
  /** What `Authorization` carries: the URL's `user:password`, the token, or nothing. */
  readonly credentials: "url" | "token" | "none";
}

function endpointOf(url: URL, token: string | undefined): Endpoint {
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const headers: Record<string, string> = {};
  if (username !== "" || password !== "") {
    if (token !== undefined) {
      throw new UsageError("--url: give credentials in the URL or --token-env, not both.");
    }
    // As curl does: `user:password@` is HTTP Basic authentication (fetch refuses such URLs).
    headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  } else if (token !== undefined) {
    headers.Authorization = `Bearer ${token}`;
  }
  const secrets = [
    username,
    password,
    url.username,
    url.password,
    ...url.searchParams.values(),
    url.search.slice(1),
    token ?? "",
  ]
    // Longest first (a secret may contain another); very short values would garble the text.
    .filter((secret) => secret.length >= 3)
    .sort((a, b) => b.length - a.length);
  const shown = redactUrl(url);
  const bare = new URL(url.href);
  bare.username = "";
  bare.password = "";
  return {
    url: bare,
    headers,
    shown,
    credentials:
      username !== "" || password !== "" ? "url" : token !== undefined ? "token" : "none",
    scrub: (text) =>
      secrets.reduce(
        (done, secret) => done.split(secret).join("***"),
        text.split(url.href).join(shown),
      ),
  };
}

/** The HTTP status of a transport failure, when the server answered with one. */
function statusOf(error: unknown): number | undefined {
  if (error instanceof HttpStatusError) return error.status;
  const status = (error as { status?: unknown } | null | undefined)?.status;
  if (typeof status === "number") return status;
  const text = error instanceof Error ? error.message : "";
  const match = /\bHTTP (\d{3})\b/.exec(text) ?? /Unexpected server response: (\d{3})/.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * A transport failure in words: fetch's "fetch failed" says less than its cause, and its
 * "terminated" (a response cut off) needs saying what it means.
 */
function failureWords(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (error.message === "fetch failed" && cause instanceof Error) return cause.message;
  return plainWords(error.message);
}

function plainWords(message: string): string {
  return message === "terminated" ? "the server's answer was cut off (terminated)" : message;
}

/**
 * Whether a response is one the transport made for a request it could not deliver or
 * whose answer it lost (see `connectHttp`): code -32603, `data` with only `reason` (the
 * error's name: `Error`, `TypeError`, `HttpStatusError`...), and `status` or `stream`.
 * (A remote agent could send the same shape; it would only be named a transport failure.)
 */
function isTransportAnswer(message: AnyMessage): boolean {
  if (!("error" in message) || message.error.code !== TRANSPORT_ERROR_CODE) return false;
  const data = message.error.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return false;
  const record = data as Record<string, unknown>;
  return (
    typeof record.reason === "string" &&
    record.reason.endsWith("Error") &&
    Object.keys(record).every((key) => key === "reason" || key === "status" || key === "stream")
  );
}

/** How long the bridge waits for the remote end to take its goodbye (DELETE, close frame). */
const GOODBYE_MS = 1_500;

/** The signals that end the bridge (the CLI ends it with SIGTERM when it closes). */
const BRIDGE_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

type Outcome =
  | { readonly kind: "local-end" }
  | { readonly kind: "remote-end" }
  | { readonly kind: "signal"; readonly signal: NodeJS.Signals }
  | { readonly kind: "failure"; readonly error: unknown };

/**
 * `remote-stdio URL`: the bridge. Reads ACP from stdin, sends it to the remote agent, and
 * writes what comes back to stdout. Resolves with the exit code once either side ends:
 * 0 when stdin ended (the connection is closed: HTTP `DELETE`, WebSocket close frame),
 * 128 + the signal's number for a signal (closed the same way), and when the connection
 * failed or the server ended it, {@link ExitCodes.AUTH_REQUIRED} for an HTTP 401 and
 * {@link ExitCodes.REMOTE_FAILED} otherwise, with one line on stderr saying what
 * happened. `flags.urlEnv` names a variable holding the URL to use instead of `url`,
 * which is then only shown. Nothing printed holds the URL's credentials, its query
 * values or the token.
 */
export async function runRemoteStdio(
  url: string,
  flags: RemoteFlags & { readonly urlEnv?: string },
): Promise<number> {
  const given = flags.urlEnv === undefined ? url : process.env[flags.urlEnv];
  if (given === undefined || given === "") {
    throw new UsageError(`--url-env: the environment variable ${flags.urlEnv} is not set.`);
  }
  const endpoint = endpointOf(checkUrl(given), tokenFromEnv(flags.tokenEnv));
  const allow = {
    readFiles: flags.remoteFs === true,
    writeFiles: flags.remoteFs === true,
    terminal: flags.remoteTerminal === true,
  };
  let onSignal: ((signal: NodeJS.Signals) => void) | undefined;
  const signalled = new Promise<Outcome>((resolve) => {
    onSignal = (signal) => resolve({ kind: "signal", signal });
    for (const signal of BRIDGE_SIGNALS) process.once(signal, onSignal);
  });
  const remote: RemoteStream =
    endpoint.url.protocol === "ws:" || endpoint.url.protocol === "wss:"
      ? connectWebSocket(endpoint.url, { headers: endpoint.headers })
      : connectHttp(endpoint.url, { headers: endpoint.headers });
  const local = agentStdioStream();
  const toRemote = remote.writable.getWriter();
  const toLocal = local.writable.getWriter();

  const upstream = (async (): Promise<Outcome> => {
    const reader = local.readable.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) return { kind: "local-end" };
      await toRemote.write(profiled(next.value, allow));
    }
  })().catch((error: unknown): Outcome => ({ kind: "failure", error }));
  const downstream = (async (): Promise<Outcome> => {
    const reader = remote.readable.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) return { kind: "remote-end" };
      const refusal = refuse(next.value, allow);
      if (refusal !== undefined) await toRemote.write(refusal);
      else if (isTransportAnswer(next.value))
        await toLocal.write(failedAnswer(next.value, endpoint));
      else await toLocal.write(next.value);
    }
  })().catch((error: unknown): Outcome => ({ kind: "failure", error }));
  const outcome = await Promise.race([upstream, downstream, signalled]);
  if (onSignal !== undefined) for (const signal of BRIDGE_SIGNALS) process.off(signal, onSignal);
  // Closing ends the server's connection, and with it the agent there (bounded: the CLI
  // that started this bridge ends it 2 s after SIGTERM).
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    remote.close().catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, GOODBYE_MS))),
  ]);
  clearTimeout(timer);
  await toLocal.close().catch(() => undefined);
  switch (outcome.kind) {
    case "local-end":
      return 0;
    case "signal":
      return signalExitCode(outcome.signal);
    case "remote-end":
      process.stderr.write(
        `acp-kit: the server at ${endpoint.shown} ended the connection to the remote agent.\n`,
      );
      return ExitCodes.REMOTE_FAILED;
    case "failure": {
      const status = statusOf(outcome.error);
      const words = endpoint.scrub(failureWords(outcome.error));
      if (status === 401) {
        const hint =
          endpoint.credentials === "url"
            ? "check the credentials in the URL"
            : endpoint.credentials === "token"
              ? `check the token in ${flags.tokenEnv}`
              : "give a token with --token-env";
        process.stderr.write(
          `acp-kit: the server at ${endpoint.shown} refused the credentials (${words}); ${hint}.\n`,
        );
        return ExitCodes.AUTH_REQUIRED;
      }
      process.stderr.write(
        `acp-kit: the connection to the remote agent at ${endpoint.shown} failed: ${words}\n`,
      );
      return ExitCodes.REMOTE_FAILED;
    }
  }
}

/**
 * The answer to give the client for a request the connection failed: it says so, and
 * its `data` carries {@link REMOTE_FAILURE} so that the CLI names it (not "the agent
 * reported an error").
 */
function failedAnswer(message: AnyMessage, endpoint: Endpoint): AnyMessage {
  if (!("error" in message)) return message;
  const data = message.error.data as { status?: unknown };
  const status = typeof data.status === "number" ? data.status : undefined;
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: message.error.code,
      message: `the connection to the remote agent at ${endpoint.shown} failed: ${endpoint.scrub(plainWords(message.error.message))}`,
      data: { [REMOTE_FAILURE]: status === undefined ? {} : { status } },
    },
  };
}

/** `initialize` gets the remote client profile; everything else passes unchanged. */
function profiled(
  message: AnyMessage,
  allow: { readFiles: boolean; writeFiles: boolean; terminal: boolean },
): AnyMessage {
  if (!("method" in message) || message.method !== "initialize" || !("id" in message))
    return message;
  const params = (message.params ?? {}) as { clientCapabilities?: ClientCapabilities };
  return {
    ...message,
    params: { ...params, clientCapabilities: restrictForRemote(params.clientCapabilities, allow) },
  };
}

/** The refusal of an `fs/*` or `terminal/*` request the profile does not allow, if it is one. */
function refuse(
  message: AnyMessage,
  allow: { readFiles: boolean; writeFiles: boolean; terminal: boolean },
): AnyMessage | undefined {
  if (!("method" in message) || !("id" in message)) return undefined;
  const { method } = message;
  // Which request needs which part of the profile is the library's to say.
  if (remoteAllows(method, allow)) return undefined;
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: -32601,
      message: `${method} is not offered to a remote agent (acp-kit --url; allow it with --remote-fs / --remote-terminal)`,
    },
  };
}
