/**
 * {@link startTracedAgent}: the agent process behind the trace proxy, in its own process
 * group, and the ways the proxy ends that group.
 *
 * @module
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import {
  USES_PROCESS_GROUPS,
  endProcessGroup,
  groupRunning,
  signalGroupOf,
  trackGroup,
  untrackGroup,
  type GroupLeader,
} from "acp-kit/internal";

/** How a process ended: an exit code, or the signal that killed it. */
export interface ExitStatus {
  /** The exit code, `null` when a signal ended the process. */
  readonly code: number | null;
  /** The signal that ended the process, or `null`. */
  readonly signal: NodeJS.Signals | null;
}

/** What {@link startTracedAgent} starts. */
export interface TracedAgentSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** A started agent process; see {@link startTracedAgent}. */
export class TracedAgent {
  /** Resolves when the agent process exits. Never rejects. */
  readonly exited: Promise<ExitStatus>;
  private status: ExitStatus | undefined;
  private ending: Promise<void> | undefined;
  private killedHard = false;
  private readonly leader: GroupLeader;
  /** Called with every signal the proxy sends to the group. */
  onSignal: (signal: NodeJS.Signals) => void = () => undefined;

  /** Wraps a child that has started. */
  constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly pid: number,
  ) {
    this.exited = new Promise<ExitStatus>((resolve) => {
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        this.status = { code, signal };
        resolve(this.status);
      };
      if (child.exitCode !== null || child.signalCode !== null) {
        onExit(child.exitCode, child.signalCode);
      } else {
        child.once("exit", onExit);
      }
    });
    this.leader = {
      pid,
      exited: this.exited,
      hasExited: () => this.status !== undefined,
      killLeader: (signal) => child.kill(signal),
    };
  }

  /** How the agent ended, once it has. */
  get exitStatus(): ExitStatus | undefined {
    return this.status;
  }

  /** True while anything of the agent's group still runs. */
  get running(): boolean {
    return groupRunning(this.leader);
  }

  /**
   * Ends the group: `signal` (SIGTERM by default) to every process in it, then SIGKILL to
   * whatever is left after `graceMs`. Resolves once nothing of the group runs. A second
   * call while the first is under way sends SIGKILL at once when `force` is set.
   */
  terminate(graceMs: number, signal: NodeJS.Signals = "SIGTERM", force = false): Promise<void> {
    if (this.ending !== undefined) {
      if (force) this.send("SIGKILL");
      return this.ending;
    }
    this.ending = endProcessGroup(this.leader, {
      graceMs,
      signal,
      send: (s) => this.send(s),
    });
    return this.ending;
  }

  /** Forgets the group (once it is gone) so that the exit hook does not signal it. */
  release(): void {
    if (!this.running) untrackGroup(this.pid);
  }

  /** Sends a signal to the group, at most one SIGKILL, and tells {@link onSignal}. */
  private send(signal: NodeJS.Signals): void {
    if (signal === "SIGKILL") {
      if (this.killedHard) return;
      this.killedHard = true;
    }
    this.onSignal(signal);
    signalGroupOf(this.leader, signal);
  }
}

/**
 * Starts the agent as the leader of its own process group (so that ending it also ends
 * what it started: the real agent behind `npx` or `sh -c`, its helpers), remembered by the
 * exit hook of `process-group.ts` that SIGKILLs live groups when this process exits.
 * Rejects with the spawn error (`ENOENT`, `EACCES`, ...) when it cannot start.
 */
export function startTracedAgent(spec: TracedAgentSpec): Promise<TracedAgent> {
  const child = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    env: spec.env,
    detached: USES_PROCESS_GROUPS,
    stdio: "pipe",
    windowsHide: true,
  });
  for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe.on("error", () => undefined);
  return new Promise<TracedAgent>((resolve, reject) => {
    const onSpawn = (): void => {
      child.removeListener("error", onError);
      child.on("error", () => undefined);
      const pid = child.pid;
      if (pid === undefined) {
        reject(new Error("the agent process started without a pid"));
        return;
      }
      if (USES_PROCESS_GROUPS) trackGroup(pid);
      resolve(new TracedAgent(child, pid));
    };
    const onError = (error: Error): void => {
      child.removeListener("spawn", onSpawn);
      reject(error);
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
}
