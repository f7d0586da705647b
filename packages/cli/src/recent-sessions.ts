/**
 * {@link RecentSessions}: the sessions `run` and `prompt` opened, remembered per agent and
 * working directory in one small JSON file under the user's state directory, so that
 * `prompt --session NAME`, `prompt --continue` and `run --resume` can find them again.
 *
 * Several CLI processes may write at once: every change takes a lock file (created
 * exclusively, taken over when stale), reads the file afresh, changes it and writes it back
 * through a temporary file and a rename, so that a reader never sees half a file and no
 * process's change is lost. A file that cannot be read as a store is set aside (renamed
 * `.corrupt`) with a warning, and the store starts afresh. Something that is not a file
 * at its path (a FIFO, a directory, a socket) is left alone: the list is unusable until it
 * is moved away ({@link SessionListUnusableError}), and nothing waits on it (a FIFO is
 * opened without blocking). Only ids, names, titles, directories, times and how the agent
 * was named are kept: never an environment value.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { kindOf, READ_WITHOUT_WAITING } from "./regular-file.js";

/** One remembered session. */
export interface SessionRecord {
  /** The agent, as named on the command line (see {@link agentKey}). */
  readonly agent: string;
  /** The session's working directory (absolute). */
  readonly cwd: string;
  /** The agent's session id. */
  readonly sessionId: string;
  /** The name given with `prompt --session NAME`, if any. */
  readonly name?: string;
  /** The session's title (from the agent's `session_info_update` or `session/list`). */
  readonly title?: string;
  /** When it was first remembered (ISO 8601). */
  readonly createdAt: string;
  /** When it was last opened or prompted (ISO 8601). */
  readonly lastUsedAt: string;
}

/** What {@link RecentSessions.remember} is told about a session. */
export interface SessionUse {
  readonly agent: string;
  readonly cwd: string;
  readonly sessionId: string;
  /** A name to give it (taken from any other session of this agent and directory). */
  readonly name?: string;
  /** Its current title. */
  readonly title?: string;
}

/** Options of {@link RecentSessions}. */
export interface RecentSessionsOptions {
  /** The directory of the store (default: {@link defaultStateDir}). */
  readonly dir?: string;
  /** How many sessions are kept; the least recently used go first. Default 200. */
  readonly maxRecords?: number;
  /** Told when the file was unreadable or a change could not be saved. */
  readonly warn?: (message: string) => void;
  /** How long a change waits for another process's lock, in ms. Default 5000. */
  readonly lockTimeoutMs?: number;
}

/** The file's format. */
interface StoreFile {
  readonly version: 1;
  readonly sessions: SessionRecord[];
}

/** The default number of sessions kept. */
export const DEFAULT_MAX_RECORDS = 200;
/** A lock older than this is taken to be left by a process that died. */
const STALE_LOCK_MS = 10_000;

/**
 * The user's state directory for acp-kit: `$XDG_STATE_HOME/acp-kit` (default
 * `~/.local/state/acp-kit`) on Linux, macOS and other Unixes, `%LOCALAPPDATA%\acp-kit` on
 * Windows. `ACP_KIT_STATE_DIR` overrides them.
 */
export function defaultStateDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.ACP_KIT_STATE_DIR !== undefined && env.ACP_KIT_STATE_DIR !== "") {
    return env.ACP_KIT_STATE_DIR;
  }
  const home = (platform === "win32" ? env.USERPROFILE : env.HOME) ?? homedir();
  if (platform === "win32") {
    return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "acp-kit");
  }
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative path is invalid and is to be ignored.
  const base = xdg?.startsWith("/") === true ? xdg : join(home, ".local", "state");
  return join(base, "acp-kit");
}

/**
 * How an agent is known in the store: its name or registry id, its command line, or for
 * `--url` the URL without credentials or query (which may hold tokens).
 */
export function agentKey(label: string): string {
  if (/^(https?|wss?):\/\//.test(label)) {
    try {
      const url = new URL(label);
      return `${url.protocol}//${url.host}${url.pathname}`;
    } catch {
      return label;
    }
  }
  return label;
}

function isRecord(value: unknown): value is SessionRecord {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  const optional = (v: unknown): boolean => v === undefined || typeof v === "string";
  return (
    typeof r.agent === "string" &&
    typeof r.cwd === "string" &&
    typeof r.sessionId === "string" &&
    typeof r.createdAt === "string" &&
    typeof r.lastUsedAt === "string" &&
    optional(r.name) &&
    optional(r.title)
  );
}

/**
 * The session list's path holds something that is not a file (a FIFO, a directory, a
 * socket, or a path through a file), or cannot be opened: it cannot be read or written
 * until it is moved away.
 */
export class SessionListUnusableError extends Error {
  /**
   * @param file - The session list's path.
   * @param what - What is there, or why it cannot be opened.
   */
  constructor(
    readonly file: string,
    what: string,
  ) {
    super(`the session list ${file} ${what}: sessions are not remembered until it is moved away`);
    this.name = "SessionListUnusableError";
  }
}

/**
 * The text of the file at `file`, or undefined when there is none. It is opened without
 * blocking (a FIFO would wait for a writer forever) and read only when it is a regular
 * file (after a symbolic link); anything else is a {@link SessionListUnusableError}.
 */
async function readListFile(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, READ_WITHOUT_WAITING);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    // ENXIO: a socket; ENOTDIR: a file where a directory of the path should be.
    if (code === "ENXIO") throw new SessionListUnusableError(file, "is a socket, not a file");
    throw new SessionListUnusableError(
      file,
      `cannot be opened (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const kind = kindOf(info);
      throw new SessionListUnusableError(file, `is ${kind}, not a file`);
    }
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** Most recently used first. */
function byRecency(a: SessionRecord, b: SessionRecord): number {
  return b.lastUsedAt.localeCompare(a.lastUsedAt);
}

/** See the module comment. */
export class RecentSessions {
  /** The store's file. */
  readonly file: string;
  private readonly dir: string;
  private readonly maxRecords: number;
  private readonly warn: (message: string) => void;
  private readonly lockTimeoutMs: number;
  /** Changes of this process, one after another. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The warnings given. */
  private readonly warned = new Set<string>();

  /** @param options - See {@link RecentSessionsOptions}. */
  constructor(options: RecentSessionsOptions = {}) {
    this.dir = options.dir ?? defaultStateDir();
    this.file = join(this.dir, "sessions.json");
    this.maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
    this.warn = options.warn ?? (() => undefined);
    this.lockTimeoutMs = options.lockTimeoutMs ?? 5000;
  }

  /**
   * Every remembered session, most recently used first.
   *
   * @throws {@link SessionListUnusableError} when the list's path is not a file.
   */
  async all(): Promise<SessionRecord[]> {
    const { sessions } = await this.read(false);
    return [...sessions].sort(byRecency);
  }

  /**
   * The sessions of an agent in a directory, most recently used first. None (with a
   * warning) when the list's path is not a file: `run` and `prompt` go on without.
   */
  async list(agent: string, cwd: string): Promise<SessionRecord[]> {
    try {
      return (await this.all()).filter((r) => r.agent === agent && r.cwd === cwd);
    } catch (error) {
      if (!(error instanceof SessionListUnusableError)) throw error;
      this.warnOnce(error.message);
      return [];
    }
  }

  /**
   * Remembers that a session was opened or used now: adds it, or updates its last use
   * (and its title and name when given). A name moves from any other session of the same
   * agent and directory. The least recently used sessions beyond the limit are dropped.
   * Failing to save is not fatal: it is told to `warn`.
   */
  remember(use: SessionUse, now: Date = new Date()): Promise<void> {
    return this.change((sessions) => {
      const same = (r: SessionRecord): boolean => r.agent === use.agent && r.cwd === use.cwd;
      const time = now.toISOString();
      const old = sessions.find((r) => same(r) && r.sessionId === use.sessionId);
      const name = use.name ?? old?.name;
      const title = use.title ?? old?.title;
      const record: SessionRecord = {
        agent: use.agent,
        cwd: use.cwd,
        sessionId: use.sessionId,
        ...(name === undefined ? {} : { name }),
        ...(title === undefined || title === "" ? {} : { title }),
        createdAt: old?.createdAt ?? time,
        lastUsedAt: time,
      };
      const rest = sessions
        .filter((r) => r !== old)
        .map((r) => {
          if (use.name === undefined || !same(r) || r.name !== use.name) return r;
          const { name: _dropped, ...unnamed } = r;
          return unnamed;
        });
      return [record, ...rest].sort(byRecency).slice(0, this.maxRecords);
    });
  }

  /** Forgets one session. */
  forget(agent: string, cwd: string, sessionId: string): Promise<void> {
    return this.change((sessions) =>
      sessions.filter((r) => !(r.agent === agent && r.cwd === cwd && r.sessionId === sessionId)),
    );
  }

  /** Settles once every change asked for so far is saved (or given up). */
  flush(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  private change(edit: (sessions: SessionRecord[]) => SessionRecord[]): Promise<void> {
    const next = this.queue.then(async () => {
      try {
        await mkdir(this.dir, { recursive: true });
        await this.locked(async () => {
          const { sessions } = await this.read(true);
          await this.write({ version: 1, sessions: edit(sessions) });
        });
      } catch (error) {
        this.warnOnce(
          error instanceof SessionListUnusableError
            ? error.message
            : `could not save the session list ${this.file}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
    this.queue = next;
    return next;
  }

  /** Reads the file; a missing one is empty, an unreadable one is set aside (when `fix`). */
  private async read(fix: boolean): Promise<StoreFile> {
    const text = await readListFile(this.file);
    if (text === undefined) return { version: 1, sessions: [] };
    try {
      const parsed = JSON.parse(text) as unknown;
      const sessions = (parsed as { sessions?: unknown }).sessions;
      if ((parsed as { version?: unknown }).version === 1 && Array.isArray(sessions)) {
        return { version: 1, sessions: sessions.filter(isRecord) };
      }
      throw new Error("not a session list");
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      if (fix) {
        await rename(this.file, `${this.file}.corrupt`).catch(() => undefined);
        this.warn(
          `the session list ${this.file} was unreadable (${why}); it was moved to ${this.file}.corrupt and a new one started`,
        );
      } else {
        this.warn(`the session list ${this.file} is unreadable (${why}); starting afresh`);
      }
      return { version: 1, sessions: [] };
    }
  }

  /** Tells `warn` a message it was not told yet (a run saves after every turn). */
  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.warn(message);
  }

  /** Writes the whole file through a temporary file and a rename. */
  private async write(content: StoreFile): Promise<void> {
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      await writeFile(temp, JSON.stringify(content, null, 1) + "\n", { mode: 0o600 });
      await rename(temp, this.file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** Runs `body` holding the lock file (waiting for another process's, taking a stale one). */
  private async locked(body: () => Promise<void>): Promise<void> {
    const lock = `${this.file}.lock`;
    const deadline = Date.now() + this.lockTimeoutMs;
    for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
      try {
        const handle = await open(lock, "wx");
        await handle.close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        // Another process holds it (the error itself says nothing more).
        const age = await stat(lock).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (age > STALE_LOCK_MS) {
          await rm(lock, { force: true });
          continue;
        }
        if (Date.now() > deadline) {
          throw new Error("another acp-kit process holds its lock", { cause: error });
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
    try {
      await body();
    } finally {
      await rm(lock, { force: true });
    }
  }
}

/**
 * The session a command line names among `records` (of one agent and directory) and the
 * agent's own list: an exact id, a remembered name, or a unique start of an id. Returns
 * `undefined` when nothing matches; throws when a start of an id matches several.
 */
export function findSession(
  query: string,
  records: readonly SessionRecord[],
  agentIds: readonly string[] = [],
): string | undefined {
  const ids = [...new Set([...records.map((r) => r.sessionId), ...agentIds])];
  if (ids.includes(query)) return query;
  const named = records.find((r) => r.name === query);
  if (named !== undefined) return named.sessionId;
  const matches = ids.filter((id) => id.startsWith(query));
  if (matches.length > 1) {
    throw new AmbiguousSessionError(query, matches);
  }
  return matches[0];
}

/** A start of a session id that fits several sessions. */
export class AmbiguousSessionError extends Error {
  /**
   * @param query - What was given.
   * @param matches - The ids it fits.
   */
  constructor(
    readonly query: string,
    readonly matches: readonly string[],
  ) {
    super(
      `"${query}" fits several sessions (${matches.slice(0, 5).join(", ")}${matches.length > 5 ? ", ..." : ""}): give more of the id.`,
    );
    this.name = "AmbiguousSessionError";
  }
}
