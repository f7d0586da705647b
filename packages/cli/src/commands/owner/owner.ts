/**
 * The commands around a session's owner: `prompt --session NAME` / `--continue` through
 * the owner (started when none runs), the hidden `session-owner` command that is the
 * owner, and `status` and `cancel`.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import type { PermissionPrompt } from "acp-kit/node";
import { resolve } from "node:path";
import { ExitCodes } from "../../exit-codes.js";
import {
  leftoverText,
  ownerRequest,
  promptThroughOwner,
  runningOwners,
  statusText,
  type StartedOwner,
} from "./owner-client.js";
import type { PolicyFlags } from "../../policy-flags.js";
import { defaultStateDir, type SessionRecord } from "../../recent-sessions.js";
import { printable } from "../../terminal-text.js";
import { resumeCommand, shellWord, type SessionMemory } from "../../session-memory.js";
import {
  DEFAULT_OWNER_IDLE_MS,
  ownerKey,
  ownerPaths,
  privateDir,
  type OwnerPaths,
} from "./session-owner.js";

/** The flags of `prompt` the owner starts the agent and opens the session with. */
export interface OwnerFlags {
  readonly cwd: string;
  readonly url?: string;
  readonly tokenEnv?: string;
  readonly remoteFs?: boolean;
  readonly remoteTerminal?: boolean;
  readonly protocol?: "auto" | 1 | 2;
  readonly mode?: string;
  readonly model?: string;
  /** An absolute path. */
  readonly mcpConfig?: string;
  readonly auth?: string;
  readonly session?: string;
  readonly continue?: boolean;
}

/** What the owner process is given on its stdin: how to start the agent, and the session. */
export interface OwnerSpec {
  /** The agent's words (`--` first when it was given as a command). */
  readonly words: readonly string[];
  /** The flags of `prompt` that say which agent, session, mode, model and MCP servers. */
  readonly opts: OwnerFlags;
  /** Which session: see {@link ownerKey}. */
  readonly key: string;
  readonly idleMs: number;
}

/** The owner's idle time: `--idle`, else `ACP_KIT_SESSION_IDLE` (ms), else 10 minutes. */
export function ownerIdleMs(flag: number | undefined, env = process.env): number {
  if (flag !== undefined) return flag;
  const fromEnv = Number(env.ACP_KIT_SESSION_IDLE);
  return env.ACP_KIT_SESSION_IDLE !== undefined && Number.isFinite(fromEnv) && fromEnv >= 0
    ? fromEnv
    : DEFAULT_OWNER_IDLE_MS;
}

/**
 * The owner key of `--session NAME`, or of `--continue` (the most recent session here:
 * by its name when it has one); undefined when there is nothing to continue.
 */
export async function sessionOwnerKey(
  memory: SessionMemory,
  session: { readonly name?: string; readonly continue?: boolean },
): Promise<string | undefined> {
  if (session.name !== undefined) return ownerKey(memory.agent, memory.cwd, `name:${session.name}`);
  const [latest] = await memory.store.list(memory.agent, memory.cwd);
  if (latest === undefined) return undefined;
  return ownerKey(
    memory.agent,
    memory.cwd,
    latest.name === undefined ? `id:${latest.sessionId}` : `name:${latest.name}`,
  );
}

/** The owners' paths of a key, in the state directory. */
export function pathsOf(key: string): OwnerPaths {
  return ownerPaths(defaultStateDir(), key);
}

/** Options of {@link promptViaOwner}. */
export interface ViaOwnerOptions {
  readonly memory: SessionMemory;
  readonly spec: OwnerSpec;
  readonly text: string;
  readonly noWait: boolean;
  readonly flags: PolicyFlags;
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream & { isTTY?: boolean };
  /** How `status` and `cancel` name this session. */
  readonly sessionWords: string;
  /** Asks the permission questions no policy answers (the terminal). */
  readonly ask?: PermissionPrompt;
  /** `--timeout`, in ms. */
  readonly timeoutMs?: number;
}

/** The owners' log is cut back to nothing when it has grown past this at a start. */
const MAX_OWNER_LOG_BYTES = 1024 * 1024;

/**
 * Starts the owner: this program's `session-owner`, detached, the spec on its stdin, its
 * stderr appended to the session's log (opened without following a link, in the private
 * owners' directory).
 */
async function startOwner(spec: OwnerSpec, paths: OwnerPaths): Promise<StartedOwner> {
  const script = process.argv[1];
  if (script === undefined) throw new Error("cannot tell which program to start");
  await privateDir(paths.dir);
  const log = await open(
    paths.log,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    let { size } = await log.stat();
    if (size > MAX_OWNER_LOG_BYTES) {
      await log.truncate(0);
      size = 0;
    }
    const child = spawn(process.execPath, [...process.execArgv, script, "session-owner"], {
      cwd: spec.opts.cwd,
      detached: true,
      stdio: ["pipe", "ignore", log.fd],
    });
    const exited = new Promise<number | null>((resolve) => {
      child.on("error", () => resolve(null));
      child.on("exit", (code) => resolve(code));
    });
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(JSON.stringify(spec));
    child.unref();
    return { exited, logOffset: size };
  } finally {
    await log.close();
  }
}

/** `prompt --session NAME` / `--continue` through the session's owner. */
export function promptViaOwner(options: ViaOwnerOptions): Promise<number> {
  const { memory, spec } = options;
  return promptThroughOwner({
    paths: pathsOf(spec.key),
    start: () => startOwner(spec, pathsOf(spec.key)),
    text: options.text,
    noWait: options.noWait,
    flags: {
      ...options.flags,
      ...(options.flags.policy === undefined ? {} : { policy: resolve(options.flags.policy) }),
    },
    out: options.out,
    err: options.err,
    sessionWords: options.sessionWords,
    ...(options.ask === undefined ? {} : { ask: options.ask }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    sameTerminal: options.err.isTTY === true && (options.out as { isTTY?: boolean }).isTTY === true,
    ...(options.err.isTTY === true
      ? { resumeHint: (sessionId: string) => resumeCommand(memory, sessionId) }
      : {}),
  });
}

/** Reads the owner's spec from stdin. */
export async function readOwnerSpec(): Promise<OwnerSpec> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as OwnerSpec;
}

/** How `status` and `cancel` name a session on the command line. */
export function sessionWordsOf(
  session: { readonly name?: string; readonly continue?: boolean },
  words: readonly string[],
): string {
  return [
    ...(session.name === undefined ? ["--continue"] : ["--session", session.name]),
    ...(words.length === 0 ? [] : words[0] === "--" ? words : ["--", ...words]),
  ]
    .map(shellWord)
    .join(" ");
}

/**
 * `acp-kit status`: the session's owner (or, with no session given, every owner running),
 * what it runs and what is queued; prompts a crashed owner left unrun are reported.
 */
export async function runStatusCommand(
  key: string | undefined,
  out: NodeJS.WritableStream,
  json: boolean,
): Promise<number> {
  const sockets =
    key === undefined
      ? (await runningOwners(ownerPaths(defaultStateDir(), "").dir)).map((o) => o.socket)
      : [pathsOf(key).socket];
  const statuses = [];
  for (const socket of sockets) {
    const status = await ownerRequest(socket, { type: "status" });
    if (status !== undefined) statuses.push(status);
  }
  if (json) {
    out.write(`${JSON.stringify(key === undefined ? statuses : (statuses[0] ?? null))}\n`);
    return key !== undefined && statuses.length === 0 ? ExitCodes.FAILURE : ExitCodes.OK;
  }
  const left = key === undefined ? undefined : await leftoverText(pathsOf(key));
  if (statuses.length === 0) {
    out.write(`${key === undefined ? "No session is running." : "The session is not running."}\n`);
    if (left !== undefined) out.write(`acp-kit: ${left}\n`);
    return key === undefined ? ExitCodes.OK : ExitCodes.FAILURE;
  }
  out.write(`${statuses.map(statusText).join("\n")}\n`);
  return ExitCodes.OK;
}

/** `acp-kit cancel`: cancels the turn the session's owner runs. */
export async function runCancelCommand(key: string, out: NodeJS.WritableStream): Promise<number> {
  const answer = await ownerRequest(pathsOf(key).socket, { type: "cancel" });
  if (answer === undefined) {
    out.write("The session is not running.\n");
    return ExitCodes.FAILURE;
  }
  out.write(answer.turn === true ? "Cancelling the turn.\n" : "No turn is running.\n");
  return ExitCodes.OK;
}

/** `acp-kit sessions close`: ends the owner of a remembered session, if one runs. */
export async function runCloseCommand(
  record: SessionRecord,
  out: NodeJS.WritableStream,
): Promise<number> {
  const key = ownerKey(
    record.agent,
    record.cwd,
    record.name === undefined ? `id:${record.sessionId}` : `name:${record.name}`,
  );
  const answer = await ownerRequest(pathsOf(key).socket, { type: "close" });
  out.write(
    printable(
      answer === undefined
        ? `Session ${record.sessionId} is not running (nothing to close).`
        : `Closed session ${record.sessionId}.`,
    ) + "\n",
  );
  return answer === undefined ? ExitCodes.FAILURE : ExitCodes.OK;
}
