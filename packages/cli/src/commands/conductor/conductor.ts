/**
 * `acp-kit conductor`: runs a proxy chain on stdio, with the Rust conductor's argument
 * shape (`agent "PROXY" ... "AGENT"`, or `proxy "PROXY" ...` for a chain nested in
 * another), so that an editor's settings carry over.
 *
 * @module
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { agentStdioStream, commandComponent, conductorMcpBridge } from "acp-kit/node";
import { Conductor, type ConductorTraceEvent, type ProxyDialect } from "acp-kit/proxy";
import { signalExitCode } from "../../signals.js";
import { printable } from "../../terminal-text.js";

/** Options of {@link runConductorCommand}. */
export interface ConductorCommandOptions {
  /** How it speaks to its proxies. */
  readonly dialect: ProxyDialect;
  /** Where to write the trace (JSON lines), if anywhere. */
  readonly trace?: string;
  /**
   * Whether to bridge `acp` MCP servers to an agent without MCP-over-ACP support over
   * loopback HTTP (default true).
   */
  readonly mcpBridge?: boolean;
}

function note(text: string): void {
  process.stderr.write(`acp-kit conductor: ${printable(text, true)}\n`);
}

/**
 * Runs the chain until the client leaves or a component ends; resolves with the exit
 * code: 0 when the client left, 1 when a component ended the chain, 128+n on a signal.
 *
 * @param mode - `agent`: the last command is the agent; `proxy`: every command is a proxy.
 * @param commands - One command line each, client side first.
 */
export async function runConductorCommand(
  mode: "agent" | "proxy",
  commands: readonly string[],
  options: ConductorCommandOptions,
): Promise<number> {
  const components = commands.map((command) => commandComponent(command));
  const agent = mode === "agent" ? components.pop() : undefined;
  let trace: WriteStream | undefined;
  if (options.trace !== undefined) {
    trace = createWriteStream(options.trace, { flags: "a", mode: 0o600 });
    trace.on("error", (error) => note(`cannot write the trace: ${error.message}`));
  }
  const write = (event: ConductorTraceEvent): void => {
    trace?.write(`${JSON.stringify(event)}\n`);
  };
  const conductor = new Conductor({
    mode,
    dialect: options.dialect,
    proxies: components,
    ...(agent === undefined ? {} : { agent }),
    ...(options.mcpBridge === false
      ? {}
      : { mcpBridge: conductorMcpBridge(), mcpStdioShim: thisCliShim() }),
    trace: (event) => {
      write(event);
      if (event.type === "ended") note(`${event.component} ${event.cause ?? "ended"}`);
    },
  });
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    signalled ??= signal;
    conductor.close(`stopped by ${signal}`);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);
  const end = await conductor.connect(agentStdioStream({ closeOutput: true }));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(signal, onSignal);
  if (trace !== undefined) await new Promise<void>((resolve) => trace.end(resolve));
  if (signalled !== undefined) return signalExitCode(signalled);
  return end.by === "component" ? 1 : 0;
}

/**
 * This very CLI as the stdio MCP shim (`acp-kit mcp-shim`), run by the node that runs it
 * with the same flags (a loader, when run from source), for agents that take MCP servers
 * only by command.
 */
function thisCliShim(): { command: string; args: readonly string[] } | undefined {
  const script = process.argv[1];
  if (script === undefined) return undefined;
  return { command: process.execPath, args: [...process.execArgv, script, "mcp-shim"] };
}
