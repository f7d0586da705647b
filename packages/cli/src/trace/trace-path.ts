/**
 * Where `acp-kit trace` writes when no `--out` is given.
 *
 * The proxy usually runs from an editor's agent settings, with whatever working directory
 * the editor gives it (often the project, sometimes `/`): writing there would litter the
 * project or fail. So traces go to the temporary directory instead:
 * `$TMPDIR/acp-kit-traces/acp-trace-<UTC time>-<pid>.ndjson` (the pid keeps two agents
 * started in the same millisecond apart). The proxy names the file on stderr when it
 * starts.
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directory under the temporary directory that default traces go to. */
export const TRACE_DIRECTORY_NAME = "acp-kit-traces";

/**
 * The default trace file for a proxy started at `date`:
 * `<tmpdir>/acp-kit-traces/acp-trace-2026-08-22T10-11-12-345Z-4242.ndjson`.
 *
 * @param date - The start time (default: now).
 * @param pid - The proxy's process id (default: this process).
 * @param directory - The base directory (default: `os.tmpdir()`, which honours `$TMPDIR`).
 */
export function defaultTracePath(
  date: Date = new Date(),
  pid: number = process.pid,
  directory: string = tmpdir(),
): string {
  const stamp = date.toISOString().replace(/[:.]/g, "-");
  return join(directory, TRACE_DIRECTORY_NAME, `acp-trace-${stamp}-${pid}.ndjson`);
}
