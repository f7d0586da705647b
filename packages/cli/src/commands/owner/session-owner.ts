/**
 * The owner of a named session (`prompt --session NAME`, `prompt --continue`): a small
 * background process that keeps the agent warm and runs the prompts sent to it, one after
 * another, from any shell. It serves a Unix socket in a private directory of the state
 * directory (see {@link ownerPaths}); `owner-client.ts` is the other end.
 *
 * One owner per session: the owner takes the session's lock file (created exclusively,
 * taken over when its process is gone) before it listens. The prompts not yet finished are
 * kept in the session's queue file, so that a crash of the owner or the agent is reported
 * by the next call (the prompts of callers still waiting are reported to them at once).
 * The owner ends after an idle time with nothing to run.
 *
 * The wire, one JSON object per line. A caller sends `{type:"prompt", text, wait, flags}`,
 * `{type:"status"}`, `{type:"cancel"}` or `{type:"close"}`; the owner answers a prompt
 * with `queued`, then (when `wait`) the report's `out` and `err` text and `end` with the
 * exit code. A permission question no policy answers goes to the caller whose turn runs,
 * when it said it can `ask` (its terminal): `{type:"ask", id, request}`, answered by
 * `{type:"answer", id, outcome}`, or taken back by `{type:"withdraw", id}`.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { chmod, link, lstat, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { Writable } from "node:stream";
import { threadLength } from "acp-kit";
import type { RequestPermissionOutcome } from "acp-kit";
import type { PermissionPolicy, PermissionPrompt } from "acp-kit/node";
import { AgentController } from "../../controller.js";
import { describeFailure, ExitCodes, exitCodeForStopReason } from "../../exit-codes.js";
import type { McpServers } from "../../mcp-config.js";
import { policiesFromFlags, policySource, type PolicyFlags } from "../../policy-flags.js";
import { PromptReport, type PermissionDecider } from "../../prompt-report.js";
import {
  promptSession,
  rememberSessions,
  restoreOrNew,
  type SessionMemory,
} from "../../session-memory.js";
import type { SessionSettings } from "../../session-options.js";
import type { AgentTarget } from "../../target.js";

/** Where a session's owner keeps its socket, lock, queue and description. */
export interface OwnerPaths {
  /** The private directory (0700) of every owner. */
  readonly dir: string;
  readonly socket: string;
  readonly lock: string;
  /** The prompts not yet finished (a crashed owner's are reported by the next call). */
  readonly queue: string;
  /** What `acp-kit status` lists: the session, agent, directory and the owner's pid. */
  readonly info: string;
  /**
   * The owners' stderr (0600), appended to by each owner of the session: what a caller
   * quotes when the owner could not start or ended before its prompt finished.
   */
  readonly log: string;
}

/** The default idle time of an owner: 10 minutes. */
export const DEFAULT_OWNER_IDLE_MS = 10 * 60_000;

/**
 * The paths of the owner of a session: `key` says which (the agent, the directory, and
 * the session's name or id). A socket path must be short (about 100 bytes): a long state
 * directory gives way to the system's temporary directory (per user).
 */
export function ownerPaths(stateDir: string, key: string, tmp = "/tmp"): OwnerPaths {
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 20);
  let dir = join(stateDir, "owners");
  if (join(dir, `${hash}.sock`).length > 100) {
    dir = join(tmp, `acp-kit-${process.getuid?.() ?? "user"}`, "owners");
  }
  return {
    dir,
    socket: join(dir, `${hash}.sock`),
    lock: join(dir, `${hash}.lock`),
    queue: join(dir, `${hash}.queue.json`),
    info: join(dir, `${hash}.json`),
    log: join(dir, `${hash}.log`),
  };
}

/** The key of a session's owner: agent, directory, and `name:NAME` or `id:ID`. */
export function ownerKey(agent: string, cwd: string, session: string): string {
  return `${agent}\0${cwd}\0${session}`;
}

/**
 * Makes the owners' directory (and its parent) private: 0700, owned by this user. Throws
 * when it is someone else's or a symbolic link: no prompt goes through it then.
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) throw new Error(`${dir} belongs to another user`);
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/**
 * Whether a process is alive. A zombie (ended, not yet reaped: a killed owner whose parent
 * has not collected it) is not: on Linux its state in `/proc` says so.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (name) S ...": the state follows the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** The line each owner starts its part of the log with (its pid, then the time). */
export function ownerLogHeader(pid: number): string {
  return `acp-kit session owner ${pid} started `;
}

/** A message from a caller (checked field by field where it is used). */
interface OwnerRequest {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly wait?: unknown;
  readonly flags?: unknown;
  readonly ask?: unknown;
  readonly sameTerminal?: unknown;
  readonly id?: unknown;
  readonly outcome?: unknown;
}

/** One prompt waiting or running. */
interface Entry {
  readonly text: string;
  readonly flags: PolicyFlags;
  /** The caller waiting for the answer (none: `--no-wait`, or it went away). */
  conn: Socket | undefined;
  readonly queuedAt: string;
  /** The caller can ask its terminal the permission questions no policy answers. */
  readonly canAsk: boolean;
  /** The caller's stdout and stderr are one terminal (see `PromptReport`). */
  readonly sameTerminal: boolean;
}

/** A prompt in the queue file. */
export interface QueuedPrompt {
  readonly text: string;
  readonly queuedAt: string;
  /** Whether it was running when the owner ended. */
  readonly running?: boolean;
}

/** What the owner is given by the call that starts it (on its stdin). */
export interface OwnerOptions {
  readonly target: AgentTarget;
  readonly memory: SessionMemory;
  readonly paths: OwnerPaths;
  readonly name?: string;
  readonly continue?: boolean;
  readonly settings?: SessionSettings;
  readonly mcpServers?: McpServers;
  /** How long to wait with nothing to do before ending (0: end as soon as the queue is empty). */
  readonly idleMs: number;
  /** The owner sets `to`: where the session list's warnings go (the callers waiting). */
  readonly warnings?: { to?: (message: string) => void };
}

function send(conn: Socket | undefined, message: object): void {
  if (conn === undefined || conn.destroyed) return;
  conn.write(`${JSON.stringify(message)}\n`);
}

/** A stream that sends what is written to the caller as `{type, text}`. */
function toCaller(entry: Entry, type: "out" | "err"): NodeJS.WritableStream {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      send(entry.conn, { type, text: chunk.toString() });
      done();
    },
  });
}

/** Whether something answers on the socket. */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const conn = connect(socket);
    conn.once("connect", () => {
      conn.destroy();
      resolve(true);
    });
    conn.once("error", () => resolve(false));
  });
}

/**
 * Takes the session's lock: false when a live owner holds it and serves. An owner on its
 * way out (alive, no longer serving) is waited for (a bounded wait); a dead one's lock is
 * taken over.
 */
async function takeLock(paths: OwnerPaths): Promise<boolean> {
  const deadline = Date.now() + 20_000;
  for (let wait = 5; Date.now() < deadline; wait = Math.min(wait * 2, 100)) {
    // The pid is in the lock from its first moment: written aside, then linked in place.
    const temp = `${paths.lock}.${process.pid}`;
    await writeFile(temp, String(process.pid), { mode: 0o600 });
    try {
      await link(temp, paths.lock);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = Number(await readFile(paths.lock, "utf8").catch(() => ""));
      if (!(Number.isInteger(pid) && pid > 0 && alive(pid))) {
        await rm(paths.lock, { force: true });
        continue;
      }
      if (await answers(paths.socket)) return false;
      await new Promise((resolve) => setTimeout(resolve, wait));
    } finally {
      await rm(temp, { force: true });
    }
  }
  return false;
}

/**
 * Runs the owner until it has been idle for `idleMs`, or the agent ended. Resolves when it
 * has ended (its socket, lock and description removed; a queue file left only when
 * prompts were not run).
 */
export async function runSessionOwner(options: OwnerOptions): Promise<void> {
  const { paths, memory } = options;
  await privateDir(paths.dir);
  if (!(await takeLock(paths))) return;
  // Where this owner's part of the log begins (see `ownerLogSince`).
  process.stderr.write(`${ownerLogHeader(process.pid)}${new Date().toISOString()}\n`);
  // Prompts a previous owner did not finish: reported to the first caller.
  const leftover = await readQueue(paths.queue);
  await rm(paths.socket, { force: true });
  const queue: Entry[] = [];
  let running: Entry | undefined;
  let ending = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let turnPolicies: readonly PermissionPolicy[] = [];
  const deciders = new Map<string, PermissionDecider>();
  let report: PromptReport | undefined;

  const saveQueue = async (): Promise<void> => {
    const entries: QueuedPrompt[] = [
      ...(running === undefined
        ? []
        : [{ text: running.text, queuedAt: running.queuedAt, running: true }]),
      ...queue.map((e) => ({ text: e.text, queuedAt: e.queuedAt })),
    ];
    if (entries.length === 0) await rm(paths.queue, { force: true });
    else await writeFile(paths.queue, JSON.stringify(entries), { mode: 0o600 });
  };

  const policy: PermissionPolicy = (request, context) => {
    for (const p of turnPolicies) {
      const verdict = p(request, context);
      if (verdict !== undefined) {
        deciders.set(request.toolCall.toolCallId, { by: "policy", source: policySource(p) });
        return verdict;
      }
    }
    return undefined;
  };
  // Permission questions sent to the caller whose turn runs, by id: how to answer each.
  const asks = new Map<number, (outcome: RequestPermissionOutcome | undefined) => void>();
  let askIds = 0;
  const askCaller: PermissionPrompt = (request, info) => {
    const entry = running;
    const conn = entry?.conn;
    if (entry === undefined || conn === undefined || !entry.canAsk) return undefined;
    const id = ++askIds;
    return new Promise((resolve) => {
      const settle = (outcome: RequestPermissionOutcome | undefined): void => {
        if (!asks.delete(id)) return;
        // Only an option offered (or a cancel) counts; anything else is the safe answer.
        const offered =
          outcome?.outcome === "cancelled" ||
          (outcome?.outcome === "selected" &&
            request.options.some((o) => o.optionId === outcome.optionId));
        if (offered) deciders.set(request.toolCall.toolCallId, { by: "you" });
        resolve(offered ? outcome : undefined);
      };
      asks.set(id, settle);
      report?.endOutLine();
      info.signal.addEventListener(
        "abort",
        () => {
          send(conn, { type: "withdraw", id });
          settle(undefined);
        },
        { once: true },
      );
      conn.once("close", () => settle(undefined));
      send(conn, { type: "ask", id, request });
    });
  };
  const controller: AgentController = new AgentController({
    target: options.target,
    cwd: memory.cwd,
    policies: [policy],
    askPermission: askCaller,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    wrapClient: (client) => ({
      ...client,
      requestPermission: async (params, context) => {
        deciders.delete(params.toolCall.toolCallId);
        const response = await client.requestPermission(params, context);
        report?.permission(
          params,
          response,
          deciders.get(params.toolCall.toolCallId) ?? { by: "nobody" },
        );
        return response;
      },
    }),
    firstSession: async (c) => {
      const sessionId = await promptSession(c, memory, {
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.continue === true ? { continue: true } : {}),
      });
      const name = options.name;
      await restoreOrNew(
        c,
        sessionId,
        name === undefined
          ? undefined
          : async (lost) => {
              await memory.store.forget(memory.agent, memory.cwd, lost);
              broadcast(
                `acp-kit: the agent no longer has session ${lost}; "${name}" is now a new session.\n`,
              );
              return true;
            },
      );
    },
  });
  const remembering = rememberSessions(controller, memory, options.name);
  if (options.warnings !== undefined) {
    options.warnings.to = (message) => broadcast(`acp-kit: ${message}\n`);
  }
  /** Said to every caller waiting (before the turns start: the start's news). */
  const broadcast = (text: string): void => {
    for (const e of [running, ...queue]) send(e?.conn, { type: "err", text });
  };

  const server: Server = createServer((conn) => serve(conn));

  let started: Promise<void> | undefined;
  let startFailure: { exitCode: number; message: string } | undefined;
  /** The agent started and the session opened. */
  let agentUp = false;
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));

  const end = async (): Promise<void> => {
    if (ending) return;
    ending = true;
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(paths.socket, { force: true });
    await rm(paths.info, { force: true });
    await controller.close().catch(() => undefined);
    await remembering.done();
    await saveQueue();
    await rm(paths.lock, { force: true });
    finished();
  };

  /** Read through a call: the checks after an await see what the callbacks set. */
  const isEnding = (): boolean => ending;

  const idle = (): void => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = undefined;
    if (running !== undefined || queue.length > 0 || ending) return;
    if (options.idleMs <= 0) void end();
    else idleTimer = setTimeout(() => void end(), options.idleMs);
  };

  /** Fails every prompt not run (the agent could not start, or ended). */
  const failAll = async (failure: { exitCode: number; message: string }): Promise<void> => {
    for (const entry of queue) {
      send(entry.conn, { type: "err", text: `acp-kit: ${failure.message}\n` });
      send(entry.conn, { type: "end", exitCode: failure.exitCode });
    }
    // Those nobody waits for stay in the queue file, for the next call to report.
    queue.splice(0, queue.length, ...queue.filter((e) => e.conn === undefined || e.conn.destroyed));
    await saveQueue();
    await end();
  };

  const next = async (): Promise<void> => {
    if (running !== undefined || ending) return;
    const entry = queue.shift();
    if (entry === undefined) return idle();
    running = entry;
    await saveQueue();
    for (const e of queue) send(e.conn, { type: "queued", ahead: queue.indexOf(e) + 1 });
    turnPolicies = policiesFromFlags(entry.flags);
    const turnReport = new PromptReport(
      toCaller(entry, "out"),
      toCaller(entry, "err"),
      entry.sameTerminal,
    );
    report = turnReport;
    const off = controller.sessions.subscribe(turnReport.update);
    let exitCode: number;
    let agentGone = false;
    try {
      const sessionId = controller.sessionId ?? "";
      const before = controller.sessions.get(sessionId);
      turnReport.beginTurn(sessionId, before === undefined ? 0 : threadLength(before));
      const { stopReason } = await controller.prompt([{ type: "text", text: entry.text }]);
      turnReport.finish(stopReason, false, controller.sessions.get(sessionId));
      exitCode = exitCodeForStopReason(stopReason);
    } catch (error) {
      const failure = describeFailure(error, options.target);
      turnReport.finish(undefined, false, controller.state);
      turnReport.line(`acp-kit: ${failure.message}`);
      exitCode = failure.exitCode;
      agentGone = controller.phase === "exited" || controller.client === undefined;
    } finally {
      off();
      report = undefined;
    }
    await memory.store.flush();
    running = undefined;
    await saveQueue();
    send(entry.conn, {
      type: "end",
      exitCode,
      sessionId: controller.sessionId,
      resumable: remembering.resumable() !== undefined,
    });
    if (agentGone) {
      await failAll({
        exitCode: ExitCodes.AGENT_CRASHED,
        message: "the agent ended before this prompt was sent; send it again",
      });
      return;
    }
    void next();
  };

  const enqueue = (entry: Entry, caller: Socket): void => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = undefined;
    queue.push(entry);
    void saveQueue();
    send(caller, {
      type: "queued",
      ahead: queue.length - 1 + (running === undefined ? 0 : 1),
      owner: process.pid,
    });
    if (leftover.length > 0) {
      const lost = leftover.splice(0, leftover.length);
      send(caller, {
        type: "err",
        text: `acp-kit: the session's previous owner ended before finishing ${lost.length === 1 ? "a prompt" : `${lost.length} prompts`} (send again what you still want): ${lost.map((p) => `${JSON.stringify(p.text.slice(0, 60))}${p.running === true ? " (was running)" : " (not sent)"}`).join(", ")}\n`,
      });
    }
    started ??= controller.start().then(
      () => {
        if (controller.phase === "auth-required") {
          startFailure = {
            exitCode: ExitCodes.AUTH_REQUIRED,
            message:
              "The agent requires authentication first: log in with `--auth METHOD` (an env_var method reads its variables from the environment), or with `acp-kit run`, then try again.",
          };
          void failAll(startFailure);
          return;
        }
        agentUp = true;
        void next();
      },
      (error: unknown) => {
        startFailure = describeFailure(error, options.target);
        void failAll(startFailure);
      },
    );
    if (startFailure === undefined && controller.phase !== "starting") void next();
  };

  const serve = (conn: Socket): void => {
    let buffer = "";
    conn.setEncoding("utf8");
    conn.on("error", () => undefined);
    conn.on("data", (chunk: string) => {
      buffer += chunk;
      for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        let message: OwnerRequest;
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          conn.destroy();
          return;
        }
        handle(conn, message);
      }
    });
  };

  const handle = (conn: Socket, message: OwnerRequest): void => {
    if (ending) {
      send(conn, { type: "ending" });
      conn.end();
      return;
    }
    if (message.type === "prompt" && typeof message.text === "string") {
      const entry: Entry = {
        text: message.text,
        flags: policyFlagsOf(message.flags),
        conn: message.wait === false ? undefined : conn,
        queuedAt: new Date().toISOString(),
        canAsk: message.ask === true && message.wait !== false,
        sameTerminal: message.sameTerminal === true,
      };
      conn.on("close", () => {
        entry.conn = undefined;
      });
      enqueue(entry, conn);
      if (message.wait === false) conn.end();
    } else if (message.type === "answer" && typeof message.id === "number") {
      const outcome = message.outcome;
      asks.get(message.id)?.(
        typeof outcome === "object" && outcome !== null
          ? (outcome as RequestPermissionOutcome)
          : undefined,
      );
    } else if (message.type === "status") {
      send(conn, {
        type: "status",
        pid: process.pid,
        agent: memory.agent,
        cwd: memory.cwd,
        ...(options.name === undefined ? {} : { name: options.name }),
        sessionId: controller.sessionId ?? null,
        phase: controller.phase,
        running: running?.text ?? null,
        queued: queue.map((e) => e.text),
        idleMs: options.idleMs,
      });
      conn.end();
    } else if (message.type === "cancel" && queue.some((e) => e.conn === conn)) {
      // A caller's own prompt, not run yet (Ctrl-C, --timeout): taken out of the queue.
      const index = queue.findIndex((e) => e.conn === conn);
      const [entry] = queue.splice(index, 1);
      void saveQueue();
      send(entry?.conn, { type: "err", text: "acp-kit: the prompt was taken out of the queue\n" });
      send(entry?.conn, { type: "end", exitCode: ExitCodes.CANCELLED });
      idle();
    } else if (message.type === "cancel" && running?.conn === conn) {
      // A caller's own turn.
      report?.cancelling();
      void controller.cancel().catch(() => undefined);
    } else if (message.type === "cancel") {
      const turn = running !== undefined && controller.phase === "prompting";
      if (turn) {
        report?.cancelling();
        void controller.cancel().catch(() => undefined);
      }
      send(conn, { type: "cancelled", turn });
      conn.end();
    } else if (message.type === "close") {
      // `acp-kit sessions close`: the turn is cancelled, the queued prompts are told, the
      // agent closes the session when it can, and the owner ends.
      if (running !== undefined && controller.phase === "prompting") {
        void controller.cancel().catch(() => undefined);
      }
      const sessionId = controller.sessionId;
      const client = controller.client;
      void (async () => {
        // `session/close` only when the agent supports it: the library decides.
        if (sessionId !== undefined) await client?.closeSession(sessionId).catch(() => undefined);
        send(conn, { type: "closed", sessionId: sessionId ?? null });
        conn.end();
        await failAll({
          exitCode: ExitCodes.CANCELLED,
          message: "the session was closed (acp-kit sessions close) before this prompt ran",
        });
      })();
    } else {
      conn.destroy();
    }
  };

  controller.onChange(() => {
    // The agent ended between turns: nothing to keep warm.
    if (agentUp && controller.phase === "exited" && running === undefined && !ending) {
      void failAll({
        exitCode: ExitCodes.AGENT_CRASHED,
        message: "the agent ended before this prompt was sent; send it again",
      });
    }
  });
  // The call that started the owner connects at once; one that went away leaves it idle.
  // Armed before the socket listens: a prompt that comes in while the owner is still
  // writing its description then clears it (armed after, it ended the owner mid-turn).
  idleTimer = setTimeout(() => void end(), Math.max(options.idleMs, 30_000));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(paths.socket, () => resolve());
  });
  await chmod(paths.socket, 0o600);
  await writeFile(
    paths.info,
    JSON.stringify({
      pid: process.pid,
      agent: memory.agent,
      cwd: memory.cwd,
      ...(options.name === undefined ? {} : { name: options.name }),
      socket: paths.socket,
    }),
    { mode: 0o600 },
  );
  // Its turn may already be over (an owner that ends at once): no description left behind.
  if (isEnding()) await rm(paths.info, { force: true });
  await done;
}

/** The permission flags a caller sent (only the fields of {@link PolicyFlags}). */
function policyFlagsOf(value: unknown): PolicyFlags {
  if (typeof value !== "object" || value === null) return {};
  const v = value as Record<string, unknown>;
  return {
    ...(v.yes === true ? { yes: true } : {}),
    ...(v.allowReads === true ? { allowReads: true } : {}),
    ...(v.denyAll === true ? { denyAll: true } : {}),
    ...(typeof v.policy === "string" ? { policy: v.policy } : {}),
  };
}

/** The prompts in a queue file (none when there is none or it is unreadable). */
export async function readQueue(file: string): Promise<QueuedPrompt[]> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as unknown;
    return Array.isArray(parsed)
      ? parsed.filter(
          (p): p is QueuedPrompt =>
            typeof p === "object" && p !== null && typeof (p as QueuedPrompt).text === "string",
        )
      : [];
  } catch {
    return [];
  }
}
