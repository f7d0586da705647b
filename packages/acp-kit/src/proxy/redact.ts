/**
 * {@link redactSecrets}: a message as a trace or a log may keep it, without the secrets
 * a session setup carries (MCP servers' environment values and HTTP header values).
 *
 * @module
 */
import { isPlainObject } from "../base/messages.js";

/** What a secret's value is replaced with. */
export const REDACTED = "[redacted]";

function redactPairs(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((pair: unknown) =>
    isPlainObject(pair) && "value" in pair ? { ...pair, value: REDACTED } : pair,
  );
}

function redactServers(servers: unknown): unknown {
  if (!Array.isArray(servers)) return servers;
  return servers.map((server: unknown) => {
    if (!isPlainObject(server)) return server;
    const copy: Record<string, unknown> = { ...server };
    if ("env" in copy) copy.env = redactPairs(copy.env);
    if ("headers" in copy) copy.headers = redactPairs(copy.headers);
    return copy;
  });
}

function redactParams(params: unknown, depth: number): unknown {
  if (!isPlainObject(params) || depth > 4) return params;
  let copy: Record<string, unknown> | undefined;
  if (Array.isArray(params.mcpServers)) {
    copy = { ...params, mcpServers: redactServers(params.mcpServers) };
  }
  // A proxy envelope carries the real message's params inside its own.
  if (typeof params.method === "string" && isPlainObject(params.params)) {
    copy = { ...(copy ?? params), params: redactParams(params.params, depth + 1) };
  }
  return copy ?? params;
}

/**
 * `message` with the values of every MCP server's `env` and `headers` replaced by
 * `"[redacted]"` (in its params, or in the message a proxy envelope carries); anything
 * else is the same object. The message itself is not changed.
 */
export function redactSecrets(message: unknown): unknown {
  if (!isPlainObject(message) || !isPlainObject(message.params)) return message;
  const params = redactParams(message.params, 0);
  return params === message.params ? message : { ...message, params };
}
