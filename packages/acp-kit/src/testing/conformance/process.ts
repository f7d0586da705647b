/**
 * Starting an agent process for conformance checks: its own process group (so that
 * stopping it also stops what it started), stdout fed byte for byte to a
 * {@link WireConnection}, the last stderr lines kept for the report.
 *
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { stat } from "node:fs/promises";
import {
  USES_PROCESS_GROUPS,
  signalGroup,
  trackGroup,
  untrackGroup,
} from "../../node/process-group.js";
import { AgentStartupError, spawnFailure } from "../../node/spawn/errors.js";
import { StderrRing } from "../../node/spawn/stderr-ring.js";
import type { WireLog } from "./log.js";
import { WireConnection, type InboundHandler } from "./wire.js";

/** How to start the agent under test. */
export interface AgentCommand {
  /** The program: a name looked up on the `PATH`, or a path. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Its working directory (default: this process's). */
  readonly cwd?: string;
  /** Environment variables merged over `process.env` (`undefined` removes one). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Pass the arguments to Windows as they are (a batch file's command line built by hand). */
  readonly windowsVerbatimArguments?: boolean;
}

/** How long the agent gets to exit by itself once its stdin is closed. */
const EXIT_GRACE_MS = 1000;
/** How long between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A running agent process with a {@link WireConnection} on its stdio. */
export class AgentProcess {
  /** The connection over its stdin and stdout. */
  readonly wire: WireConnection;
  /** Resolves when the process has exited, with a description of how. */
  readonly exited: Promise<string>;
  /** Resolves when stdout has ended (everything the agent wrote has been fed). */
  private readonly drained: Promise<void>;
  private readonly stderr = new StderrRing({ capacity: 40 });
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly pid: number,
    name: string,
    log: WireLog,
    handler: InboundHandler,
  ) {
    const { stdin, stdout, stderr } = child;
    if (stdin === null || stdout === null || stderr === null)
      throw new Error("stdio pipes are missing");
    stdin.on("error", () => undefined);
    const write = (line: string): Promise<void> =>
      new Promise((resolve) => {
        if (stdin.destroyed || stdin.writableEnded) resolve();
        else stdin.write(line, () => resolve());
      });
    this.wire = new WireConnection(name, log, write, handler);
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) =>
        resolve(
          signal === null
            ? `the agent exited with code ${code ?? "?"}`
            : `the agent was killed by ${signal}`,
        ),
      );
    });
    stdout.on("data", (chunk: Buffer) => this.wire.feed(chunk));
    this.drained = new Promise((resolve) => {
      stdout.once("close", resolve);
      stdout.once("end", () => {
        resolve();
        // Name the exit when it follows closely; otherwise just say stdout ended.
        void Promise.race([this.exited, delay(200).then(() => "the agent closed its stdout")]).then(
          (reason) => this.wire.end(reason),
        );
      });
    });
    stderr.on("data", (chunk: Buffer) => this.stderr.push(chunk));
    stderr.once("end", () => this.stderr.end());
  }

  /**
   * Starts the agent. Rejects with an `AgentStartupError` when it cannot be started
   * (missing command or working directory, not executable).
   */
  static async start(
    command: AgentCommand,
    name: string,
    log: WireLog,
    handler: InboundHandler,
  ): Promise<AgentProcess> {
    const cwd = command.cwd ?? process.cwd();
    const isDirectory = await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDirectory) {
      throw new AgentStartupError(
        `Could not start the agent: its working directory ${JSON.stringify(cwd)} does not exist.`,
        {
          phase: "spawn",
          code: "invalid_cwd",
          command: command.command,
        },
      );
    }
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [key, value] of Object.entries(command.env ?? {})) {
      if (value === undefined) Reflect.deleteProperty(env, key);
      else env[key] = value;
    }
    const child = spawn(command.command, [...(command.args ?? [])], {
      cwd,
      env,
      detached: USES_PROCESS_GROUPS,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
      windowsVerbatimArguments: command.windowsVerbatimArguments === true,
    });
    for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) => reject(spawnFailure(error, command.command, cwd)));
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error("The agent process started without a pid");
    if (USES_PROCESS_GROUPS) trackGroup(pid);
    child.on("error", () => undefined);
    return new AgentProcess(child, pid, name, log, handler);
  }

  /** The last lines the agent wrote to stderr. */
  stderrTail(count?: number): string[] {
    return this.stderr.tail(count);
  }

  /**
   * Stops the agent: closes its stdin, waits a moment for it to exit by itself, then
   * SIGTERM and finally SIGKILL to its process group.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const gone = this.exited.then(() => true);
      this.child.stdin?.end();
      if (!(await Promise.race([gone, delay(EXIT_GRACE_MS).then(() => false)]))) {
        this.signal("SIGTERM");
        if (!(await Promise.race([gone, delay(KILL_GRACE_MS).then(() => false)]))) {
          this.signal("SIGKILL");
          await Promise.race([gone, delay(KILL_GRACE_MS)]);
        }
      } else if (USES_PROCESS_GROUPS) {
        // The agent is gone; whatever it left in its group goes too.
        signalGroup(this.pid, "SIGKILL");
      }
      if (USES_PROCESS_GROUPS) untrackGroup(this.pid);
      // The exit can be reported before the last bytes of stdout are read: read them
      // first (a line cut in two would look like a broken one). A process left in the
      // group could keep the pipe open: wait a bounded time.
      await Promise.race([this.drained, delay(EXIT_GRACE_MS)]);
      this.wire.end("the checker stopped the agent");
    })();
    return this.closing;
  }

  private signal(signal: NodeJS.Signals): void {
    if (!USES_PROCESS_GROUPS || !signalGroup(this.pid, signal)) this.child.kill(signal);
  }
}
