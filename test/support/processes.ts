/**
 * Whether a process still runs, for tests that check what was ended.
 */
import { existsSync, readFileSync } from "node:fs";

/**
 * True while `pid` runs: it exists and is not a zombie (ended, not yet reaped: this
 * machine's init may never reap it). Without `/proc` (not Linux), existing is enough.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (name) S ...": the state follows the last ")".
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return !existsSync("/proc/self/stat");
  }
}
