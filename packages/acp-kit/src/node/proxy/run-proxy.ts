/**
 * {@link runProxy}: the main function of a proxy program, under a conductor or
 * standalone.
 *
 * @module
 */
import type { Logger } from "../../base/logger.js";
import type { ProxyDialect } from "../../proxy/dialect.js";
import type { ProxyDefinition } from "../../proxy/proxy.js";
import { agentStdioStream } from "../agent-stdio.js";
import { commandComponent } from "./command-component.js";

/** Options of {@link runProxy}. */
export interface RunProxyOptions {
  /** The program's arguments (default `process.argv.slice(2)`). */
  readonly argv?: readonly string[];
  /** The dialect to speak until the conductor's own is known (default `"rust"`). */
  readonly dialect?: ProxyDialect;
  /** Where the connections' problems go. */
  readonly logger?: Logger;
}

/**
 * Runs `proxy` as this program, on its stdio: under a conductor when started without an
 * agent, or standalone when the arguments end with `-- <agent command...>` (the proxy then
 * starts that agent and is an agent to whoever started it). Resolves when the
 * conversation is over (the client or the agent left); `console.log` goes to stderr
 * meanwhile, since stdout carries the protocol.
 *
 * ```ts
 * // guard.js: `acp-kit conductor agent "node guard.js" "my-agent"`, or `node guard.js -- my-agent`
 * await runProxy(defineProxy().onRequestFromAgent("fs/write_text_file", () => {
 *   throw RequestError.invalidRequest(undefined, "writes are not allowed here");
 * }));
 * ```
 */
export async function runProxy(
  proxy: ProxyDefinition,
  options: RunProxyOptions = {},
): Promise<void> {
  const argv = options.argv ?? process.argv.slice(2);
  const dash = argv.indexOf("--");
  const agentWords = dash < 0 ? [] : argv.slice(dash + 1);
  const logger = options.logger === undefined ? {} : { logger: options.logger };
  const stdio = agentStdioStream(logger);
  const [command, ...args] = agentWords;
  if (command === undefined) {
    const running = proxy.serve(stdio, {
      ...logger,
      ...(options.dialect === undefined ? {} : { dialect: options.dialect }),
    });
    await running.closed;
    return;
  }
  const agent = await commandComponent({ command, args }).start();
  const running = proxy.standalone(stdio, agent.stream, logger);
  void agent.ended?.then(() => running.close(new Error("the agent ended")));
  await running.closed;
  await agent.close();
}
