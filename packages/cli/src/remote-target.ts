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
import { connectHttp } from "acp-kit/http";
import { connectWebSocket } from "acp-kit/http";
import { restrictForRemote } from "acp-kit/http";
import type { RemoteStream } from "acp-kit/http";
import type { ClientCapabilities } from "acp-kit";
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

/** Checks a URL given to `--url`. */
function checkUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url: "${value}" is not a URL (for example http://127.0.0.1:8787/acp).`);
  }
  if (!["http:", "https:", "ws:", "wss:"].includes(url.protocol)) {
    throw new UsageError(`--url: use http(s):// or ws(s)://, not ${url.protocol}`);
  }
  return url;
}

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
  const args = [...process.execArgv, script, "remote-stdio", url.href];
  if (flags.tokenEnv !== undefined) args.push("--token-env", flags.tokenEnv);
  if (flags.remoteFs === true) args.push("--remote-fs");
  if (flags.remoteTerminal === true) args.push("--remote-terminal");
  return { command: process.execPath, args, label: url.href };
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

/**
 * `remote-stdio URL`: the bridge. Reads ACP from stdin, sends it to the remote agent, and
 * writes what comes back to stdout. Resolves with the exit code once either side ends.
 */
export async function runRemoteStdio(url: string, flags: RemoteFlags): Promise<number> {
  const target = checkUrl(url);
  const token = tokenFromEnv(flags.tokenEnv);
  const headers: Record<string, string> =
    token === undefined ? {} : { Authorization: `Bearer ${token}` };
  const allow = {
    readFiles: flags.remoteFs === true,
    writeFiles: flags.remoteFs === true,
    terminal: flags.remoteTerminal === true,
  };
  const remote: RemoteStream =
    target.protocol === "ws:" || target.protocol === "wss:"
      ? connectWebSocket(target, { headers })
      : connectHttp(target, { headers });
  const local = agentStdioStream();
  const toRemote = remote.writable.getWriter();
  const toLocal = local.writable.getWriter();
  let failure: Error | undefined;

  const upstream = (async () => {
    const reader = local.readable.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      await toRemote.write(profiled(next.value, allow));
    }
  })();
  const downstream = (async () => {
    const reader = remote.readable.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      const refusal = refuse(next.value, allow);
      if (refusal === undefined) await toLocal.write(next.value);
      else await toRemote.write(refusal);
    }
  })();
  try {
    await Promise.race([upstream, downstream]);
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
  }
  await remote.close().catch(() => undefined);
  await toLocal.close().catch(() => undefined);
  if (failure !== undefined) {
    process.stderr.write(`acp-kit: the remote agent at ${target.href}: ${failure.message}\n`);
    return 1;
  }
  return 0;
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
  const allowed =
    method === "fs/read_text_file"
      ? allow.readFiles
      : method === "fs/write_text_file"
        ? allow.writeFiles
        : method.startsWith("terminal/")
          ? allow.terminal
          : true;
  if (allowed) return undefined;
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: -32601,
      message: `${method} is not offered to a remote agent (acp-kit --url; allow it with --remote-fs / --remote-terminal)`,
    },
  };
}
