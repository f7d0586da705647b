/**
 * `acp-kit sessions`: the remembered sessions (see `recent-sessions.ts`), listed and
 * forgotten from the command line.
 *
 * @module
 */
import { agentKey, findSession, RecentSessions, type SessionRecord } from "./recent-sessions.js";
import { age, shellWord } from "./session-memory.js";
import { UsageError } from "./target.js";
import { printable } from "./terminal-text.js";

/** What to list: one agent in one directory, or everything. */
export interface SessionsQuery {
  /** The agent as `run` names it (a name, a command line, a URL); undefined: every agent. */
  readonly agent?: string;
  /** The directory; undefined: every directory. */
  readonly cwd?: string;
}

/** Options of {@link runSessionsList}. */
export interface SessionsListOptions extends SessionsQuery {
  readonly json?: boolean;
  readonly out: NodeJS.WritableStream;
  readonly store?: RecentSessions;
  readonly now?: Date;
}

function matching(records: readonly SessionRecord[], query: SessionsQuery): SessionRecord[] {
  const agent = query.agent === undefined ? undefined : agentKey(query.agent);
  return records.filter(
    (r) =>
      (agent === undefined || r.agent === agent) &&
      (query.cwd === undefined || r.cwd === query.cwd),
  );
}

/** One line per session: its id, name, title, age, and agent and directory when mixed. */
function formatRecords(records: readonly SessionRecord[], query: SessionsQuery, now: Date): string {
  return records
    .map((r) => {
      const parts = [r.sessionId];
      if (r.name !== undefined) parts.push(`[${r.name}]`);
      parts.push(JSON.stringify(r.title ?? "(no title)"), age(r.lastUsedAt, now));
      if (query.agent === undefined) parts.push(`agent ${r.agent}`);
      if (query.cwd === undefined) parts.push(`in ${r.cwd}`);
      return parts.join("  ");
    })
    .join("\n");
}

/** Lists the remembered sessions; returns the exit code. */
export async function runSessionsList(options: SessionsListOptions): Promise<number> {
  const store = options.store ?? new RecentSessions();
  const records = matching(await store.all(), options);
  if (options.json === true) {
    options.out.write(JSON.stringify(records, null, 2) + "\n");
    return 0;
  }
  if (records.length === 0) {
    const where = [
      options.agent === undefined ? "" : ` of ${options.agent}`,
      options.cwd === undefined ? "" : ` in ${options.cwd}`,
    ].join("");
    options.out.write(`No remembered sessions${where}.\n`);
    return 0;
  }
  options.out.write(
    printable(formatRecords(records, options, options.now ?? new Date()), true) + "\n",
  );
  const first = records[0];
  if (first !== undefined) {
    options.out.write(
      `\nResume one: acp-kit run ${shellWord(first.agent)} --resume ID (in its directory)\n`,
    );
  }
  return 0;
}

/** Options of {@link runSessionsForget}. */
export interface SessionsForgetOptions extends SessionsQuery {
  /** An id, a start of one, or a name. */
  readonly session: string;
  readonly out: NodeJS.WritableStream;
  readonly store?: RecentSessions;
}

/**
 * Forgets one remembered session (the agent keeps it; only acp-kit's list changes).
 * Throws a {@link UsageError} when nothing, or more than one session, matches.
 */
export async function runSessionsForget(options: SessionsForgetOptions): Promise<number> {
  const store = options.store ?? new RecentSessions();
  const records = matching(await store.all(), options);
  let sessionId: string | undefined;
  try {
    sessionId = findSession(options.session, records);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const found = records.filter((r) => r.sessionId === sessionId);
  if (sessionId === undefined || found.length === 0) {
    throw new UsageError(`No remembered session matches "${options.session}".`);
  }
  if (found.length > 1) {
    throw new UsageError(
      `Session ${printable(sessionId)} is remembered for several agents or directories; name the agent, or run this in its directory.`,
    );
  }
  const [record] = found;
  if (record === undefined) return 0;
  await store.forget(record.agent, record.cwd, record.sessionId);
  await store.flush();
  options.out.write(
    printable(`Forgot session ${record.sessionId} (${record.agent}, ${record.cwd}).`) + "\n",
  );
  return 0;
}
