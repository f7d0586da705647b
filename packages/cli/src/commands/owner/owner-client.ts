/**
 * The caller's end of a session's owner (see `session-owner.ts`): `prompt --session NAME`
 * sends its prompt to the owner (starting one when there is none) and prints what the
 * owner sends back; `status` and `cancel` ask a running owner.
 *
 * @module
 */
import { constants } from "node:fs";
import { open, readdir, readFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import type { RequestPermissionRequest } from "acp-kit";
import type { PermissionPrompt } from "acp-kit/node";
import { ExitCodes } from "../../exit-codes.js";
import type { PolicyFlags } from "../../policy-flags.js";
import { alive, ownerLogHeader, readQueue, type OwnerPaths } from "./session-owner.js";
import { printable } from "../../terminal-text.js";

/** A message from the owner. */
interface OwnerMessage {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly exitCode?: unknown;
  readonly ahead?: unknown;
  readonly sessionId?: unknown;
  readonly resumable?: unknown;
  readonly [key: string]: unknown;
}

/** How long a caller waits for a new owner's socket. */
const START_TIMEOUT_MS = 30_000;

function tryConnect(socket: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const conn = connect(socket);
    conn.once("connect", () => resolve(conn));
    conn.once("error", () => resolve(undefined));
  });
}

/** An owner process this call started. */
export interface StartedOwner {
  /** Its exit code (`null`: killed by a signal, or it could not be started). */
  readonly exited: Promise<number | null>;
  /** The size of the session's log when it started: what it writes comes after. */
  readonly logOffset: number;
}

/** How a call reached the owner: a connection, or the exit of the owner it started. */
type Reached =
  { readonly conn: Socket } | { readonly exitCode: number; readonly logOffset: number } | undefined;

/**
 * A connection to the session's owner; `start` starts one when none answers, which is
 * then waited for (a bounded wait) unless it exits first with a failure (exiting 0, it
 * found another owner serving the session: that one is waited for). Undefined when none
 * answers.
 */
async function ownerConnection(
  paths: OwnerPaths,
  start: () => Promise<StartedOwner>,
): Promise<Reached> {
  const first = await tryConnect(paths.socket);
  if (first !== undefined) return { conn: first };
  const started = await start();
  const owner: { exit?: number | null } = {};
  void started.exited.then((code) => (owner.exit = code));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (let wait = 5; Date.now() < deadline; wait = Math.min(wait * 2, 100)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    const conn = await tryConnect(paths.socket);
    if (conn !== undefined) return { conn };
    if (owner.exit !== undefined && owner.exit !== 0) {
      return { exitCode: owner.exit ?? ExitCodes.FAILURE, logOffset: started.logOffset };
    }
  }
  return undefined;
}

/** How much of the log's end is read for a quote. */
const LOG_TAIL_BYTES = 64 * 1024;

/** The session log's text from `offset` (its last 64 KiB at most); undefined without one. */
async function logText(file: string, offset = 0): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const { size } = await handle.stat();
    const from = Math.max(offset, size - LOG_TAIL_BYTES);
    if (size <= from) return "";
    const buffer = Buffer.alloc(size - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** The last lines of a part of the log, indented for a person, or undefined when none. */
function lastLines(text: string | undefined): string | undefined {
  const lines = (text ?? "").split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) return undefined;
  return `${lines
    .slice(-10)
    .map((line) => `  ${printable(line)}`)
    .join("\n")}\n`;
}

/** What an owner started at `offset` wrote to the log (its last lines). */
export async function ownerLogSince(file: string, offset: number): Promise<string | undefined> {
  return lastLines(await logText(file, offset));
}

/** What the owner of this pid wrote to the log after its first line (its last lines). */
export async function ownerLogOf(file: string, pid: number): Promise<string | undefined> {
  const text = await logText(file);
  const header = ownerLogHeader(pid);
  const at = text?.lastIndexOf(header) ?? -1;
  if (text === undefined || at === -1) return undefined;
  const end = text.indexOf("\n", at);
  return end === -1 ? undefined : lastLines(text.slice(end + 1));
}

/** Reads the owner's messages, one per line, until it closes the connection. */
function messages(conn: Socket, on: (message: OwnerMessage) => void): Promise<void> {
  return new Promise((resolve) => {
    let buffer = "";
    conn.setEncoding("utf8");
    conn.on("data", (chunk: string) => {
      buffer += chunk;
      for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        try {
          on(JSON.parse(line) as OwnerMessage);
        } catch {
          // Not a message: nothing to show.
        }
      }
    });
    conn.on("close", () => resolve());
    conn.on("error", () => undefined);
  });
}

/** Options of {@link promptThroughOwner}. */
export interface OwnerPromptOptions {
  readonly paths: OwnerPaths;
  /** Starts the owner (a detached process). */
  readonly start: () => Promise<StartedOwner>;
  readonly text: string;
  /** `--no-wait`: queue the prompt and return. */
  readonly noWait: boolean;
  readonly flags: PolicyFlags;
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  /** The command that resumes the session, for a person at a terminal. */
  readonly resumeHint?: (sessionId: string) => string | undefined;
  /** What `status` and `cancel` need to name this session (`--session NAME [agent]`). */
  readonly sessionWords: string;
  /** Asks the permission questions no policy answers (the terminal). */
  readonly ask?: PermissionPrompt;
  /** Whether stdout and stderr are one terminal. */
  readonly sameTerminal?: boolean;
  /** `--timeout`: how long the call may take, in ms; then its turn is cancelled (exit 15). */
  readonly timeoutMs?: number;
}

/** Sends the prompt to the session's owner; resolves with the exit code. */
export async function promptThroughOwner(options: OwnerPromptOptions): Promise<number> {
  const { err, out } = options;
  for (let attempt = 0; attempt < 20; attempt++) {
    let reached: Reached;
    try {
      reached = await ownerConnection(options.paths, options.start);
    } catch (error) {
      err.write(
        `acp-kit: the session's owner could not be started: ${printable(error instanceof Error ? error.message : String(error))}\n`,
      );
      return ExitCodes.FAILURE;
    }
    if (reached === undefined) {
      err.write("acp-kit: the session's owner did not start.\n");
      return ExitCodes.FAILURE;
    }
    if (!("conn" in reached)) {
      // What it said (its error, as a prompt without a session would have said it).
      const said = await ownerLogSince(options.paths.log, reached.logOffset);
      err.write(said ?? "acp-kit: the session's owner could not start.\n");
      return reached.exitCode;
    }
    const conn = reached.conn;
    conn.write(
      `${JSON.stringify({
        type: "prompt",
        text: options.text,
        wait: !options.noWait,
        flags: options.flags,
        ask: options.ask !== undefined,
        sameTerminal: options.sameTerminal === true,
      })}\n`,
    );
    // What the owner said (set in the callback below).
    const got: {
      exitCode?: number;
      sessionId?: string;
      /** The owner's pid, for its part of the log. */
      owner?: number;
      ending: boolean;
      queued: boolean;
      resumable: boolean;
    } = { ending: false, queued: false, resumable: false };
    // Ctrl-C: cancel the turn (the owner and the session go on); again: leave.
    let interrupts = 0;
    const onSigint = (): void => {
      interrupts += 1;
      if (interrupts > 1) process.exit(130);
      err.write("acp-kit: Ctrl-C: cancelling the turn (Ctrl-C again to leave it running)\n");
      conn.write(`${JSON.stringify({ type: "cancel" })}\n`);
    };
    if (!options.noWait) process.on("SIGINT", onSigint);
    // --timeout: the turn is cancelled (the owner and the session go on); exit 15.
    const timeout = { reached: false };
    const timeoutMs = options.timeoutMs;
    const timer =
      timeoutMs === undefined || options.noWait
        ? undefined
        : setTimeout(() => {
            timeout.reached = true;
            err.write(`acp-kit: --timeout ${timeoutMs}ms reached: cancelling the turn\n`);
            conn.write(`${JSON.stringify({ type: "cancel" })}\n`);
          }, timeoutMs);
    const questions = new Map<number, AbortController>();
    await messages(conn, (m) => {
      if (m.type === "ending") got.ending = true;
      else if (m.type === "queued") {
        got.queued = true;
        if (typeof m.owner === "number") got.owner = m.owner;
        const ahead = typeof m.ahead === "number" ? m.ahead : 0;
        if (options.noWait) {
          err.write(
            `acp-kit: queued${ahead > 0 ? ` behind ${ahead} prompt${ahead === 1 ? "" : "s"}` : ""}; see \`acp-kit status ${options.sessionWords}\`.\n`,
          );
        } else if (ahead > 0) {
          err.write(
            `acp-kit: waiting behind ${ahead} prompt${ahead === 1 ? "" : "s"} of this session\n`,
          );
        }
      } else if (m.type === "out" && typeof m.text === "string") out.write(m.text);
      else if (m.type === "err" && typeof m.text === "string") err.write(m.text);
      else if (m.type === "ask" && typeof m.id === "number" && options.ask !== undefined) {
        const id = m.id;
        const question = new AbortController();
        questions.set(id, question);
        void Promise.resolve(
          options.ask(m.request as RequestPermissionRequest, {
            signal: question.signal,
            context: { sessionId: "", cwd: undefined, remembered: new Map() },
          }),
        ).then(
          (outcome) => {
            questions.delete(id);
            if (!question.signal.aborted) {
              conn.write(`${JSON.stringify({ type: "answer", id, outcome: outcome ?? null })}\n`);
            }
          },
          () => questions.delete(id),
        );
      } else if (m.type === "withdraw" && typeof m.id === "number") {
        questions.get(m.id)?.abort();
      } else if (m.type === "end") {
        got.exitCode = typeof m.exitCode === "number" ? m.exitCode : ExitCodes.FAILURE;
        if (typeof m.sessionId === "string") got.sessionId = m.sessionId;
        got.resumable = m.resumable === true;
        conn.end();
      }
    });
    process.off("SIGINT", onSigint);
    if (timer !== undefined) clearTimeout(timer);
    for (const question of questions.values()) question.abort();
    const { exitCode, sessionId, resumable } = got;
    if (got.ending) {
      // The owner was on its way out: wait for it to go, then start a new one.
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (options.noWait) {
      if (got.queued) return ExitCodes.OK;
      err.write("acp-kit: the session's owner ended before taking the prompt; it was not sent.\n");
      return ExitCodes.AGENT_CRASHED;
    }
    if (exitCode === undefined) {
      const said =
        got.owner === undefined ? undefined : await ownerLogOf(options.paths.log, got.owner);
      err.write(
        `acp-kit: the session's owner ended before this prompt finished (it may not have reached the agent)${said === undefined ? ".\n" : `; its last words:\n${said}`}`,
      );
      return ExitCodes.AGENT_CRASHED;
    }
    if (timeout.reached) return ExitCodes.TIMED_OUT;
    if (sessionId !== undefined && resumable) {
      const hint = options.resumeHint?.(sessionId);
      if (hint !== undefined) err.write(`To resume this session: ${printable(hint)}\n`);
    }
    return exitCode;
  }
  err.write("acp-kit: the session's owner kept ending; try again.\n");
  return ExitCodes.FAILURE;
}

/** Sends one request to a running owner; its answer, or undefined when none runs. */
export async function ownerRequest(
  socket: string,
  request: { type: "status" | "cancel" | "close" },
): Promise<OwnerMessage | undefined> {
  const conn = await tryConnect(socket);
  if (conn === undefined) return undefined;
  let answer: OwnerMessage | undefined;
  conn.write(`${JSON.stringify(request)}\n`);
  await messages(conn, (m) => {
    answer ??= m;
  });
  return answer;
}

/** A running owner's status, as `acp-kit status` prints it. */
export function statusText(status: OwnerMessage): string {
  const queued = Array.isArray(status.queued) ? status.queued : [];
  const lines = [
    `session ${typeof status.name === "string" ? `"${status.name}" ` : ""}${typeof status.sessionId === "string" ? status.sessionId : "(opening)"}`,
    `  agent ${String(status.agent)} in ${String(status.cwd)}; owner pid ${String(status.pid)}`,
    typeof status.running === "string"
      ? `  running: ${JSON.stringify(status.running.slice(0, 80))}`
      : `  idle (${String(status.phase)})`,
    `  queued: ${queued.length}`,
  ];
  return printable(lines.join("\n"), true);
}

/** The owners described in the owners' directory whose process is alive. */
export async function runningOwners(dir: string): Promise<{ socket: string; queue: string }[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found: { socket: string; queue: string }[] = [];
  for (const name of names.filter((n) => n.endsWith(".json") && !n.endsWith(".queue.json"))) {
    try {
      const info = JSON.parse(await readFile(join(dir, name), "utf8")) as {
        pid?: unknown;
        socket?: unknown;
      };
      if (typeof info.pid === "number" && alive(info.pid) && typeof info.socket === "string") {
        found.push({
          socket: info.socket,
          queue: join(dir, name.replace(/\.json$/, ".queue.json")),
        });
      }
    } catch {
      // Gone meanwhile, or not ours.
    }
  }
  return found;
}

/** Prompts a crashed owner left unrun, as a line to print (or undefined). */
export async function leftoverText(paths: OwnerPaths): Promise<string | undefined> {
  const left = await readQueue(paths.queue);
  if (left.length === 0) return undefined;
  return `${left.length} prompt${left.length === 1 ? "" : "s"} left unfinished by an owner that ended: ${left.map((p) => JSON.stringify(p.text.slice(0, 60))).join(", ")}`;
}
