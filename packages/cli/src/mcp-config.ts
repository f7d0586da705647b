/**
 * `--mcp-config FILE`: the MCP servers to give the agent, read from a file in the format
 * editors use: an `mcpServers` object (Claude Desktop, Cursor, VS Code's `servers` too) or
 * Zed's `context_servers`, each server by name:
 *
 * - a local process: `{ "command": "npx", "args": [...], "env": { "KEY": "value" } }`
 *   (Zed's older `{ "command": { "path", "args", "env" } }` too);
 * - a remote one: `{ "url": "https://...", "type": "http" | "sse", "headers": {...} }`
 *   (`type` defaults to `http`).
 *
 * A value of `env` or `headers` may be `${NAME}` or `${env:NAME}`, read from the
 * environment, so that the file need not hold a secret. Values are never part of a
 * message: errors name the server and the field only.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import type * as schema from "acp-kit";
import { UsageError } from "./target.js";

/** The servers of a config file, in the protocol's form (`session/new`'s `mcpServers`). */
export type McpServers = readonly schema.McpServer[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value with `${NAME}` / `${env:NAME}` read from the environment. */
function expand(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
    const found = env[name];
    if (found === undefined) {
      throw new UsageError(`--mcp-config: ${where} names \${${name}}, which is not set.`);
    }
    return found;
  });
}

/** `{ "K": "v" }` as `[{ name, value }]`; anything but strings is an error. */
function pairs(
  value: unknown,
  where: string,
  env: NodeJS.ProcessEnv,
): { name: string; value: string }[] {
  if (value === undefined || value === null) return [];
  if (!isObject(value)) throw new UsageError(`--mcp-config: ${where} is not an object.`);
  return Object.entries(value).map(([name, v]) => {
    if (typeof v !== "string") {
      throw new UsageError(`--mcp-config: ${where}.${name} is not a string.`);
    }
    return { name, value: expand(v, env, `${where}.${name}`) };
  });
}

function strings(value: unknown, where: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new UsageError(`--mcp-config: ${where} is not a list.`);
  return value.map((v: unknown) => {
    if (typeof v !== "string")
      throw new UsageError(`--mcp-config: ${where} is not a list of strings.`);
    return v;
  });
}

/** One server of the file as the protocol has it. */
function server(name: string, entry: unknown, env: NodeJS.ProcessEnv): schema.McpServer {
  const where = `server "${name}"`;
  if (!isObject(entry)) throw new UsageError(`--mcp-config: ${where} is not an object.`);
  // Zed's older form: { "command": { "path", "args", "env" } }.
  const command = isObject(entry.command)
    ? { ...entry.command, command: entry.command.path }
    : entry;
  if (typeof command.command === "string") {
    return {
      name,
      command: command.command,
      args: strings(command.args, `${where}.args`),
      env: pairs(command.env, `${where}.env`, env),
    };
  }
  const url = entry.url ?? entry.serverUrl;
  if (typeof url === "string") {
    const type = entry.type ?? entry.transport ?? "http";
    const headers = pairs(entry.headers, `${where}.headers`, env);
    if (type === "http" || type === "streamable-http" || type === "streamableHttp") {
      return { type: "http", name, url, headers };
    }
    if (type === "sse") return { type: "sse", name, url, headers };
    throw new UsageError(
      `--mcp-config: ${where} has type ${JSON.stringify(type)}; give "http" or "sse".`,
    );
  }
  throw new UsageError(`--mcp-config: ${where} has neither a "command" nor a "url".`);
}

/**
 * The servers of a parsed config file (see the module comment). Throws a `UsageError`
 * naming what is wrong (never a value).
 */
export function mcpServersOf(config: unknown, env: NodeJS.ProcessEnv = process.env): McpServers {
  if (!isObject(config)) throw new UsageError("--mcp-config: the file is not a JSON object.");
  const servers = config.mcpServers ?? config.context_servers ?? config.servers;
  if (!isObject(servers)) {
    throw new UsageError(
      '--mcp-config: the file has no "mcpServers" object (name → { command, args, env } or { url, type, headers }).',
    );
  }
  return Object.entries(servers).map(([name, entry]) => server(name, entry, env));
}

/** Reads and checks `--mcp-config FILE`. */
export async function readMcpConfig(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<McpServers> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `--mcp-config ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message quotes the text, which may hold a secret.
    throw new UsageError(`--mcp-config ${file}: not valid JSON.`);
  }
  return mcpServersOf(parsed, env);
}

/**
 * Why the agent cannot have these servers (the ones its `mcpCapabilities` do not take, as
 * the library's `SessionClient.refusedMcpServers` finds them): a message naming them, or
 * undefined when there are none.
 */
export function refusedServersText(refused: McpServers): string | undefined {
  if (refused.length === 0) return undefined;
  return `the agent does not take ${refused
    .map((s) => `${"type" in s ? s.type : "stdio"} MCP servers (${s.name})`)
    .join(", ")}: it does not list them in its mcpCapabilities.`;
}

/** What a secret value is replaced with. */
const HIDDEN = "***";

/** A server entry with its `env` and `headers` values hidden (names kept). */
function hideServer(server: unknown): unknown {
  if (!isObject(server)) return server;
  const hide = (list: unknown): unknown =>
    Array.isArray(list)
      ? list.map((pair: unknown) => (isObject(pair) ? { ...pair, value: HIDDEN } : pair))
      : list;
  return {
    ...server,
    ...("env" in server ? { env: hide(server.env) } : {}),
    ...("headers" in server ? { headers: hide(server.headers) } : {}),
  };
}

/**
 * A JSON-RPC message with the values of its `params.mcpServers` (`env` and `headers`)
 * hidden, for a trace; undefined when it has none to hide (record it as it is).
 */
export function withoutMcpSecrets(message: unknown): unknown {
  if (!isObject(message) || !isObject(message.params)) return undefined;
  const servers = message.params.mcpServers;
  if (!Array.isArray(servers)) return undefined;
  const secret = servers.some(
    (s: unknown) =>
      isObject(s) &&
      ((Array.isArray(s.env) && s.env.length > 0) ||
        (Array.isArray(s.headers) && s.headers.length > 0)),
  );
  if (!secret) return undefined;
  return { ...message, params: { ...message.params, mcpServers: servers.map(hideServer) } };
}

/**
 * The text of a line that could not be recorded as parsed JSON (too long, so cut short;
 * too deep; not JSON at all), with every string after a `"value"` key that follows
 * `"mcpServers"` replaced by `"***"`: the values of MCP servers' `env` and `headers`. A
 * value cut off by truncation is hidden to the end of the text. Lines that do not
 * mention `mcpServers` come back unchanged. It hides more than it must (any `"value"`
 * string after that key), never less.
 */
export function withoutRawMcpSecrets(text: string): string {
  const start = text.indexOf('"mcpServers"');
  if (start < 0) return text;
  const tail = text.slice(start).replace(RAW_SECRET_VALUE, '"value":"***"');
  return text.slice(0, start) + tail;
}

/** A `"value"` key and its string, which may be cut short at the end of the text. */
const RAW_SECRET_VALUE = /"value"\s*:\s*"(?:[^"\\]|\\.)*(?:"|\\?$)/g;
