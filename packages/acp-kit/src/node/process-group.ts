/**
 * Process groups: signalling a whole group, telling whether anything in it still runs,
 * and a last-resort hook that SIGKILLs every group still alive when this process exits.
 *
 * An agent is started as the leader of its own process group (`detached: true`, which
 * calls `setsid()` on POSIX), so that a signal sent to `-pid` reaches everything it
 * started too: a wrapper such as `npx` or `sh -c` and the real agent behind it, and
 * their helpers. Windows has no process groups: there only the child itself is signalled.
 *
 * @module
 */
import { readFileSync, readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * How long a process group is given after SIGTERM before SIGKILL, by default: 2 s. Used by
 * `spawnAgent` (`killGraceMs`, on close) and the `TerminalManager` (`killGraceMs`, on kill
 * and release).
 */
export const DEFAULT_KILL_GRACE_MS = 2000;

/** True where agents get their own process group (everywhere but Windows). */
export const USES_PROCESS_GROUPS = process.platform !== "win32";

/**
 * Sends `signal` to every process in the group led by `pgid`. Returns false when the
 * group no longer exists (or cannot be signalled).
 * @internal
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** What `/proc/<pid>/stat` says of a process, or undefined when unreadable. */
interface ProcStat {
  /** The state letter (`R`, `S`, `Z` for a zombie, ...). */
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  /** Field 22, the start time: a later process given the same pid does not share it. */
  readonly startTime: string;
}

function procStat(pid: string): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  // utime stime cutime cstime priority nice num_threads itrealvalue starttime ...": comm
  // may contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  if (state === undefined) return undefined;
  return {
    state,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: fields[19] ?? "",
  };
}

/** Whether `/proc/<pid>` is a running (not zombie) member of the group `pgid`. */
function runningMember(pid: string, pgid: number): boolean {
  return liveProc(pid)?.pgid === pgid;
}

/**
 * Tells whether a process group still runs, as cheaply as it can when asked again and
 * again: a signal 0 to the group first (no such group: gone, no file read); then the
 * members found running last time (the leader, at first); only when none of them runs
 * any more is the whole of `/proc` scanned, for the group's zombies and new members.
 */
class GroupProbe {
  /** The members seen running by the last look, as `/proc` entries. */
  private members: string[];

  constructor(private readonly pgid: number) {
    this.members = [String(pgid)];
  }

  alive(): boolean {
    const { pgid } = this;
    try {
      process.kill(-pgid, 0);
    } catch (error) {
      // EPERM: a member exists that we may not signal; it is alive.
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
    // Only Linux is read through /proc; elsewhere the group existing has to do.
    if (process.platform !== "linux") return true;
    if (this.members.some((pid) => runningMember(pid, pgid))) return true;
    let entries: string[];
    try {
      entries = readdirSync("/proc");
    } catch {
      return true;
    }
    this.members = entries.filter((entry) => {
      const first = entry.charCodeAt(0);
      return first >= 48 && first <= 57 && runningMember(entry, pgid);
    });
    return this.members.length > 0;
  }
}

/** A process found by {@link groupEscapees}, told apart from a later process given its pid. */
export interface Escapee {
  /** Its process id. */
  readonly pid: number;
  /** Its start time (`/proc/<pid>/stat` field 22), which a reused pid would not share. */
  readonly startTime: string;
}

/** A process that has not exited, as `/proc` says (zombies do not count). */
function liveProc(pid: string): ProcStat | undefined {
  const stat = procStat(pid);
  return stat === undefined || stat.state === "Z" || stat.state === "X" ? undefined : stat;
}

/**
 * The processes descended from `leader` (its children, their children, ...) that are no
 * longer in its process group: those a program moved out with `setsid` or bash job
 * control (`set -m`), which a signal to the group does not reach. Linux only (from
 * `/proc`); elsewhere, or when `/proc` cannot be read, `[]`.
 *
 * Only what still descends from the leader can be found: a process whose parent has
 * exited is adopted by init (or a subreaper) and no longer leads back to the leader. The
 * walk still goes through group members, so an escapee's own children are found too.
 * @internal
 */
export function groupEscapees(leader: number): Escapee[] {
  if (process.platform !== "linux") return [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  const info = new Map<number, { pgid: number; startTime: string }>();
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const family = liveProc(entry);
    if (family === undefined) continue;
    const pid = Number(entry);
    info.set(pid, family);
    const siblings = children.get(family.ppid);
    if (siblings === undefined) children.set(family.ppid, [pid]);
    else siblings.push(pid);
  }
  const found: Escapee[] = [];
  const queue = [...(children.get(leader) ?? [])];
  const seen = new Set<number>([leader]);
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    const known = info.get(next);
    if (known !== undefined && known.pgid !== leader) {
      found.push({ pid: next, startTime: known.startTime });
    }
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

/**
 * Sends `signal` to each escapee that still runs and is still the same process (its start
 * time unchanged, so a reused pid is left alone). Returns those it signalled.
 * @internal
 */
export function signalEscapees(escapees: readonly Escapee[], signal: NodeJS.Signals): Escapee[] {
  const signalled: Escapee[] = [];
  for (const escapee of escapees) {
    if (liveProc(String(escapee.pid))?.startTime !== escapee.startTime) continue;
    try {
      process.kill(escapee.pid, signal);
      signalled.push(escapee);
    } catch {
      // Gone meanwhile, or not ours to signal.
    }
  }
  return signalled;
}

/**
 * True while some process of the group has not exited. Zombies (exited, not yet reaped
 * by their parent) do not count: they run nothing, and in containers whose init never
 * reaps orphans they would otherwise count forever.
 * @internal
 */
export function groupAlive(pgid: number): boolean {
  return new GroupProbe(pgid).alive();
}

/**
 * True while the process `pid` exists and is not a zombie.
 * @internal
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  return liveProc(String(pid)) !== undefined;
}

const liveGroups = new Set<number>();

/** Runs while this process exits: only synchronous work is possible here. */
function killLiveGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
  liveGroups.clear();
}

/**
 * Remembers a group to SIGKILL if this process exits while it is still running.
 *
 * The hook runs on `process.exit()`, on returning from the event loop and after an
 * uncaught exception. It cannot run when this process is killed by a signal it does not
 * handle (SIGKILL always; SIGINT, SIGTERM and SIGHUP unless you handle them, for example
 * with `process.on("SIGINT", () => process.exit(130))`), nor when Node aborts.
 * @internal
 */
export function trackGroup(pgid: number): void {
  if (liveGroups.size === 0) process.on("exit", killLiveGroups);
  liveGroups.add(pgid);
}

/**
 * Forgets a group once it is gone.
 * @internal
 */
export function untrackGroup(pgid: number): void {
  if (!liveGroups.delete(pgid)) return;
  if (liveGroups.size === 0) process.removeListener("exit", killLiveGroups);
}

/** A process group to end with {@link endProcessGroup}, seen through its leader. */
export interface GroupLeader {
  /** The leader's process id, which is also the group's id. */
  readonly pid: number;
  /** Resolves when the leader has exited. */
  readonly exited: Promise<unknown>;
  /** True once the leader has exited. */
  hasExited(): boolean;
  /** Signals the leader alone (where there are no groups, or its group is gone). */
  killLeader(signal: NodeJS.Signals): void;
}

/**
 * How often {@link endProcessGroup} looks whether the group is gone after a signal: first
 * after this many ms, then twice as long each time, up to {@link GROUP_POLL_MAX_MS}. (The
 * leader's exit is heard at once, without polling.)
 */
const GROUP_POLL_MS = 50;
const GROUP_POLL_MAX_MS = 400;
/** The same after SIGKILL, which the kernel carries out quickly. */
const KILL_POLL_MS = 10;
const KILL_POLL_MAX_MS = 100;
/** How long {@link endProcessGroup} waits for SIGKILLed members to be gone. */
const KILL_WAIT_MS = 1000;

/**
 * Sends `signal` to the whole group, or to the leader alone when there is no group to
 * signal (Windows, or the group is already gone) and the leader still runs.
 * @internal
 */
export function signalGroupOf(leader: GroupLeader, signal: NodeJS.Signals): void {
  const sent = USES_PROCESS_GROUPS && signalGroup(leader.pid, signal);
  if (!sent && !leader.hasExited()) leader.killLeader(signal);
}

/**
 * True while the leader or anything else in its group runs.
 * @internal
 */
export function groupRunning(leader: GroupLeader): boolean {
  return !leader.hasExited() || (USES_PROCESS_GROUPS && groupAlive(leader.pid));
}

/** Waits `ms`, or less when the leader exits meanwhile. */
async function pause(ms: number, leader: GroupLeader): Promise<void> {
  if (leader.hasExited()) return sleep(ms);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, ms))), leader.exited]);
  clearTimeout(timer);
}

/**
 * Ends a process group: `signal` (SIGTERM by default) to all of it, SIGKILL to whatever
 * is left after `graceMs`; resolves once the leader has exited and nothing of the group
 * runs, and forgets the group in the exit hook. `send` sends each of the two signals
 * (default {@link signalGroupOf}), for callers that watch them.
 * @internal
 */
export async function endProcessGroup(
  leader: GroupLeader,
  options: {
    readonly graceMs: number;
    readonly signal?: NodeJS.Signals;
    readonly send?: (signal: NodeJS.Signals) => void;
  },
): Promise<void> {
  const send = options.send ?? ((signal: NodeJS.Signals) => signalGroupOf(leader, signal));
  const probe = new GroupProbe(leader.pid);
  const running = (): boolean => !leader.hasExited() || (USES_PROCESS_GROUPS && probe.alive());
  const deadline = Date.now() + options.graceMs;
  send(options.signal ?? "SIGTERM");
  let wait = GROUP_POLL_MS;
  while (running() && Date.now() < deadline) {
    await pause(Math.min(wait, Math.max(1, deadline - Date.now())), leader);
    wait = Math.min(wait * 2, GROUP_POLL_MAX_MS);
  }
  if (running()) {
    send("SIGKILL");
    // SIGKILL is not instant: wait (bounded) until the kernel has ended every member, so
    // that "resolved" means nothing of the group runs any more.
    const killDeadline = Date.now() + KILL_WAIT_MS;
    wait = KILL_POLL_MS;
    while (USES_PROCESS_GROUPS && probe.alive() && Date.now() < killDeadline) {
      await sleep(wait);
      wait = Math.min(wait * 2, KILL_POLL_MAX_MS);
    }
  }
  await leader.exited;
  untrackGroup(leader.pid);
}
