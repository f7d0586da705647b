/**
 * `acp-kit sessions`: the remembered sessions (see `recent-sessions.ts`), listed,
 * shown (what acp-kit recorded, see `transcripts.ts`), exported and forgotten from the
 * command line.
 *
 * @module
 */
import { dirname } from "node:path";
import {
  agentKey,
  findSession,
  RecentSessions,
  type SessionRecord,
} from "../../recent-sessions.js";
import { age, shellWord } from "../../session-memory.js";
import { UsageError } from "../../target.js";
import {
  forgetTranscript,
  readTranscript,
  transcriptMarkdown,
  transcriptPrompts,
  transcriptText,
} from "../../transcripts.js";
import { printable } from "../../terminal-text.js";

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

/** The one remembered session `session` names; a {@link UsageError} when none or several. */
async function oneRecord(
  store: RecentSessions,
  query: SessionsQuery,
  session: string,
): Promise<SessionRecord> {
  const records = matching(await store.all(), query);
  let sessionId: string | undefined;
  try {
    sessionId = findSession(session, records);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const found = records.filter((r) => r.sessionId === sessionId);
  const [record] = found;
  if (sessionId === undefined || record === undefined) {
    throw new UsageError(`No remembered session matches "${session}".`);
  }
  if (found.length > 1) {
    throw new UsageError(
      `Session ${printable(sessionId)} is remembered for several agents or directories; name the agent, or run this in its directory.`,
    );
  }
  return record;
}

/**
 * Forgets one remembered session (the agent keeps it; only acp-kit's list changes).
 * Throws a {@link UsageError} when nothing, or more than one session, matches.
 */
export async function runSessionsForget(options: SessionsForgetOptions): Promise<number> {
  const store = options.store ?? new RecentSessions();
  const record = await oneRecord(store, options, options.session);
  await store.forget(record.agent, record.cwd, record.sessionId);
  await store.flush();
  await forgetTranscript(dirname(store.file), record.agent, record.cwd, record.sessionId);
  options.out.write(
    printable(`Forgot session ${record.sessionId} (${record.agent}, ${record.cwd}).`) + "\n",
  );
  return 0;
}

/** Options of {@link runSessionsTranscript}. */
export interface SessionsTranscriptOptions extends SessionsForgetOptions {
  /**
   * `show`: the transcript as text; `history`: the prompts sent, numbered; `markdown`
   * and `json`: `export`.
   */
  readonly as: "show" | "history" | "markdown" | "json";
}

/**
 * `sessions show`, `history` and `export`: what acp-kit recorded of a session's turns,
 * without opening the agent. Exit 1 when nothing was recorded.
 */
export async function runSessionsTranscript(options: SessionsTranscriptOptions): Promise<number> {
  const store = options.store ?? new RecentSessions();
  const record = await oneRecord(store, options, options.session);
  const transcript = await readTranscript(
    dirname(store.file),
    record.agent,
    record.cwd,
    record.sessionId,
  );
  if (transcript === undefined) {
    options.out.write(
      printable(
        `Nothing recorded of session ${record.sessionId}: acp-kit records a session's turns from the first one it runs.`,
      ) + "\n",
    );
    return 1;
  }
  const text =
    options.as === "json"
      ? JSON.stringify(transcript, null, 2)
      : options.as === "markdown"
        ? transcriptMarkdown(transcript)
        : options.as === "history"
          ? transcriptPrompts(transcript)
              .map((p, i) => `${String(i + 1).padStart(3)}  ${p.replace(/\n/g, "\n     ")}`)
              .join("\n")
          : transcriptText(transcript);
  // JSON is data (escaped by JSON itself); text goes to a terminal: no escape sequences.
  options.out.write(`${options.as === "json" ? text : printable(text, true)}\n`);
  return 0;
}

/** The remembered session a `sessions` subcommand names (for `close`). */
export async function sessionRecord(
  query: SessionsQuery,
  session: string,
  store: RecentSessions = new RecentSessions(),
): Promise<SessionRecord> {
  return oneRecord(store, query, session);
}
