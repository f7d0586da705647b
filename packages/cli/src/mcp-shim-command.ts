/**
 * `acp-kit mcp-shim`: the stdio shim of the loopback MCP bridge, for agents that only
 * launch stdio MCP servers. The bearer token comes from the environment, never argv.
 *
 * @module
 */
import { runMcpStdioShim } from "acp-kit/node";

/**
 * Runs the shim on this process's stdio until its input ends.
 *
 * @param url - The server's bridge URL.
 * @param tokenEnv - The environment variable holding the bearer token.
 * @throws Error when the variable is unset or empty.
 */
export async function runMcpShimCommand(url: string, tokenEnv: string): Promise<void> {
  const token = process.env[tokenEnv];
  if (token === undefined || token === "")
    throw new Error(`The environment variable ${tokenEnv} holds no token.`);
  await runMcpStdioShim({ url, token });
}
