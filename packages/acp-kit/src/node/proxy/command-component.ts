/**
 * {@link commandComponent}: a conductor component that is a program speaking ACP on its
 * stdio, started in a process group of its own.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import type { ConductorComponent, StartedComponent } from "../../proxy/conductor.js";
import { ndJsonStream } from "../../transport/ndjson.js";
import {
  DEFAULT_KILL_GRACE_MS,
  endProcessGroup,
  trackGroup,
  USES_PROCESS_GROUPS,
} from "../process-group.js";
import { spawnFailure } from "../spawn/errors.js";
import { splitCommandLine } from "./command-line.js";

/** Options of a {@link commandComponent}. */
export interface CommandComponentOptions {
  /** Its working directory (default: this process's). */
  readonly cwd?: string;
  /** Its environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Where its stderr goes (default `"inherit"`: this process's stderr). */
  readonly stderr?: "inherit" | "ignore";
  /** How long it has to exit after SIGTERM before SIGKILL, in ms (default 2000). */
  readonly killGraceMs?: number;
  /** What the trace calls it (default: the command line). */
  readonly name?: string;
  /**
   * Gets each line it writes to stdout that is not JSON (a login URL, a message), which is
   * never answered with a parse error. Default: written to this process's stderr, after
   * the component's name.
   */
  readonly onStdout?: (line: string) => void;
}

/**
 * A program as a conductor component: `command` is one command line (split as a shell
 * would, without expanding anything: see {@link splitCommandLine}) or a command with its
 * arguments. It is started when the chain is first initialized, in a process group of its
 * own; `close()` ends the group (SIGTERM, then SIGKILL after the grace).
 *
 * ```ts
 * new Conductor({ proxies: [commandComponent("node guard.js --rules rules.json")], agent: commandComponent("my-agent") });
 * ```
 */
export function commandComponent(
  command: string | { readonly command: string; readonly args?: readonly string[] },
  options: CommandComponentOptions = {},
): ConductorComponent {
  const words =
    typeof command === "string"
      ? splitCommandLine(command)
      : [command.command, ...(command.args ?? [])];
  const [program, ...args] = words;
  if (program === undefined || program === "") throw new TypeError("A component needs a command");
  const name = options.name ?? (typeof command === "string" ? command : words.join(" "));
  const onStdout =
    options.onStdout ??
    // Control characters (escape sequences) are not passed to the terminal.
    ((line: string) => process.stderr.write(`[${name}] ${line.replace(/\p{Cc}/gu, "?")}\n`));
  return {
    name,
    start: () => startCommand(program, args, { ...options, onStdout }),
  };
}

async function startCommand(
  program: string,
  args: readonly string[],
  options: CommandComponentOptions,
): Promise<StartedComponent> {
  const cwd = options.cwd ?? process.cwd();
  const child = spawn(program, [...args], {
    cwd,
    env: options.env ?? process.env,
    detached: USES_PROCESS_GROUPS,
    stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
    windowsHide: true,
  });
  for (const pipe of [child.stdin, child.stdout]) pipe.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (error) => reject(spawnFailure(error, program, cwd)));
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${program} started without a pid`);
  if (USES_PROCESS_GROUPS) trackGroup(pid);
  let exitedFlag = false;
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => {
      exitedFlag = true;
      resolve(
        signal === null ? `exited with code ${code ?? "unknown"}` : `was killed by ${signal}`,
      );
    });
  });
  let closing: Promise<void> | undefined;
  return {
    stream: ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      {
        closeOutput: true,
        ...(options.onStdout === undefined ? {} : { onNonJsonLine: options.onStdout }),
      },
    ),
    ended: exited,
    close: () =>
      (closing ??= endProcessGroup(
        {
          pid,
          exited,
          hasExited: () => exitedFlag,
          killLeader: (signal) => child.kill(signal),
        },
        { graceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS },
      )),
  };
}
