/**
 * What `run` and `prompt` do with {@link RecentSessions}: remember every session they open
 * (and its title after each turn), find the session `prompt --session NAME`,
 * `prompt --continue` and `run --resume [ID]` mean, and say how to resume one.
 *
 * @module
 */
import { dirname } from "node:path";
import { ErrorCodes, RequestError } from "acp-kit";
import type * as schema from "acp-kit";
import type { AgentController } from "./controller.js";
import { findSession, type RecentSessions, type SessionRecord } from "./recent-sessions.js";
import { UsageError } from "./target.js";
import { saveTranscript, titleFromPrompt, transcriptItems } from "./transcripts.js";

/** The store, and which agent and directory the sessions of this command belong to. */
export interface SessionMemory {
  readonly store: RecentSessions;
  /** The agent's key in the store (see `agentKey`). */
  readonly agent: string;
  /** The working directory. */
  readonly cwd: string;
  /**
   * The words after `acp-kit run` that start this agent in this directory again, the
   * session aside (`["claude"]`, `["--cwd", "/p", "--", "node", "agent.js"]`).
   */
  readonly runArgs: readonly string[];
}

/**
 * The session asked for cannot be opened: the agent can neither load nor resume sessions,
 * does not know it, or there is none to continue.
 */
export class SessionUnavailableError extends Error {
  /** @param message - What cannot be done, and what to do instead. */
  constructor(message: string) {
    super(message);
    this.name = "SessionUnavailableError";
  }
}

/** A word as a POSIX shell reads it (quoted only when it must be). */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that opens this session again in `run`. */
export function resumeCommand(memory: SessionMemory, sessionId: string): string {
  const args = memory.runArgs;
  const dash = args.indexOf("--");
  const words =
    dash === -1
      ? ["acp-kit", "run", ...args, "--resume", sessionId]
      : ["acp-kit", "run", ...args.slice(0, dash), "--resume", sessionId, ...args.slice(dash)];
  return words.map(shellWord).join(" ");
}

/**
 * Remembers every session the controller opens, once a turn of it ended without the agent
 * asking for a login (a session whose login failed is not kept), and after each turn its
 * title (the agent's, else the first prompt's), its last use and its transcript (see
 * `transcripts.ts`). `name` goes to the first session kept. `done` waits for the last
 * save; `resumable` is the last session opened, if the agent can load or resume it.
 */
export function rememberSessions(
  controller: AgentController,
  memory: SessionMemory,
  name?: string,
): { done(): Promise<void>; resumable(): string | undefined } {
  let sessionId: string | undefined;
  let phase = controller.phase;
  let pendingName = name;
  const stateDir = dirname(memory.store.file);
  const writes = new Set<Promise<void>>();
  const kept = new Set<string>();
  let restorable = false;
  /** The agent asked for a login before a turn of this session ended. */
  let loginFailed = false;
  const save = (id: string): void => {
    kept.add(id);
    const state = controller.sessions.get(id);
    const items = state === undefined ? [] : transcriptItems(state);
    const title = state?.info.title ?? titleFromPrompt(items);
    void memory.store.remember({
      agent: memory.agent,
      cwd: memory.cwd,
      sessionId: id,
      ...(pendingName === undefined ? {} : { name: pendingName }),
      ...(title == null || title === "" ? {} : { title }),
    });
    pendingName = undefined;
    if (items.length === 0) return;
    const write = saveTranscript(stateDir, {
      agent: memory.agent,
      cwd: memory.cwd,
      sessionId: id,
      ...(title == null || title === "" ? {} : { title }),
      savedAt: new Date().toISOString(),
      items,
    }).catch(() => undefined);
    writes.add(write);
    void write.then(() => writes.delete(write));
  };
  const unsubscribe = controller.onChange(() => {
    const id = controller.sessionId;
    const turnEnded = phase === "prompting" && controller.phase !== "prompting";
    phase = controller.phase;
    if (id === undefined) return;
    sessionId = id;
    if (controller.restoreMethod !== undefined) restorable = true;
    loginFailed = phase === "auth-required" && !kept.has(id);
    if (turnEnded && controller.phase !== "auth-required") save(id);
  });
  return {
    done: async () => {
      unsubscribe();
      await Promise.all([...writes]);
      await memory.store.flush();
    },
    resumable: () => (restorable && !loginFailed ? sessionId : undefined),
  };
}

/** Throws {@link SessionUnavailableError} when the agent can neither load nor resume. */
export function requireRestore(controller: AgentController, what: string): void {
  if (controller.restoreMethod !== undefined) return;
  throw new SessionUnavailableError(
    `This agent can neither load nor resume sessions, so ${what} cannot continue one.`,
  );
}

/** True for the agent's "no such session" (`-32002`). */
function isNotFound(error: unknown): boolean {
  return error instanceof RequestError && error.code === ErrorCodes.RESOURCE_NOT_FOUND;
}

/**
 * The first session of `prompt --session NAME` / `--continue`, for the controller's
 * `firstSession`: the remembered one, or (`--session` only) none yet, for a new one.
 */
export async function promptSession(
  controller: AgentController,
  memory: SessionMemory,
  wanted: { readonly name?: string; readonly continue?: boolean },
): Promise<string | undefined> {
  const flag = wanted.name === undefined ? "--continue" : "--session";
  requireRestore(controller, flag);
  const records = await memory.store.list(memory.agent, memory.cwd);
  const record =
    wanted.name === undefined ? records[0] : records.find((r) => r.name === wanted.name);
  if (record === undefined && wanted.name === undefined) {
    throw new SessionUnavailableError(
      `No session to continue: none is remembered for this agent in ${memory.cwd}.`,
    );
  }
  return record?.sessionId;
}

/**
 * Opens the first session the way `choose` says (see {@link promptSession},
 * {@link resumeSession}): restores the id it gives, or opens a new session. The agent's
 * "no such session" becomes a {@link SessionUnavailableError}, unless `onLost` decides
 * otherwise (it may forget the session and ask for a new one by returning true).
 */
export async function restoreOrNew(
  controller: AgentController,
  sessionId: string | undefined,
  onLost?: (sessionId: string) => Promise<boolean>,
): Promise<void> {
  if (sessionId === undefined) {
    await controller.openSession();
    return;
  }
  try {
    await controller.openExisting(sessionId);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    if (onLost !== undefined && (await onLost(sessionId))) {
      await controller.openSession();
      return;
    }
    throw new SessionUnavailableError(
      `The agent has no session ${sessionId} (it says: ${(error as Error).message}).`,
    );
  }
}

/** One row of the `run --resume` picker. */
export interface SessionEntry {
  readonly sessionId: string;
  readonly title?: string;
  readonly name?: string;
  /** The session's directory. */
  readonly cwd: string;
  /** Last use or activity (ISO 8601), when known. */
  readonly time?: string;
}

/**
 * The remembered sessions and the agent's own (`session/list`) as one list, most recent
 * first: a session in both takes its title from the agent when the store has none, and
 * the later of the two times.
 */
export function mergeSessions(
  records: readonly SessionRecord[],
  listed: readonly schema.SessionInfo[],
): SessionEntry[] {
  const byId = new Map<string, SessionEntry>();
  for (const r of records) {
    byId.set(r.sessionId, {
      sessionId: r.sessionId,
      cwd: r.cwd,
      time: r.lastUsedAt,
      ...(r.title === undefined ? {} : { title: r.title }),
      ...(r.name === undefined ? {} : { name: r.name }),
    });
  }
  for (const s of listed) {
    const known = byId.get(s.sessionId);
    const title = known?.title ?? s.title ?? undefined;
    const times = [known?.time, s.updatedAt ?? undefined].filter(
      (t): t is string => t !== undefined,
    );
    const time = times.sort().at(-1);
    byId.set(s.sessionId, {
      ...known,
      sessionId: s.sessionId,
      cwd: known?.cwd ?? s.cwd,
      ...(title === undefined ? {} : { title }),
      ...(time === undefined ? {} : { time }),
    });
  }
  return [...byId.values()].sort((a, b) => (b.time ?? "").localeCompare(a.time ?? ""));
}

/** How long ago `time` was, in a few characters ("just now", "5 min ago", "3 days ago"). */
export function age(time: string | undefined, now: Date = new Date()): string {
  if (time === undefined) return "";
  const ms = now.getTime() - new Date(time).getTime();
  if (!Number.isFinite(ms)) return "";
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  return `${days} day${days === 1 ? "" : "s"} ago`;
}

/** The sessions `run --resume` offers: remembered ones and the agent's own list, if it has one. */
export async function sessionEntries(
  controller: AgentController,
  memory: SessionMemory,
): Promise<SessionEntry[]> {
  const records = await memory.store.list(memory.agent, memory.cwd);
  const listed = controller.client?.canList === true ? await agentSessions(controller) : [];
  return mergeSessions(records, listed);
}

/** The agent's sessions in this directory; a failure to list is no reason to stop. */
async function agentSessions(controller: AgentController): Promise<schema.SessionInfo[]> {
  try {
    return await controller.listSessions();
  } catch {
    return [];
  }
}

/**
 * The session `run --resume ID` means: an exact id, a remembered name, or a unique start
 * of an id among the remembered sessions and the agent's; otherwise `query` as it is.
 */
export async function resolveResume(
  controller: AgentController,
  memory: SessionMemory,
  query: string,
): Promise<string> {
  requireRestore(controller, "--resume");
  const entries = await sessionEntries(controller, memory);
  try {
    return (
      findSession(
        query,
        entries.map((c) => ({
          agent: memory.agent,
          cwd: c.cwd,
          sessionId: c.sessionId,
          ...(c.name === undefined ? {} : { name: c.name }),
          createdAt: "",
          lastUsedAt: "",
        })),
      ) ?? query
    );
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
