/**
 * An example ACP client: the part an editor plays.
 *
 * It starts the example agent (`agent.ts`) as a child process, speaks ACP over the
 * child's stdin/stdout, opens a session in a fresh temporary directory holding one file,
 * sends one prompt, prints every streamed update as it arrives, and exits after the turn.
 *
 * It serves the agent's calls the way an editor would: file reads and writes go to disk,
 * terminals are child processes, and permission requests are approved automatically
 * (pass `--deny` to reject them instead).
 *
 * Run it with `npx tsx examples/client.ts [--deny] [--mode=<modeId>] [--cancel-after=<ms>]`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  ClientSideConnection,
  ConnectionError,
  PROTOCOL_VERSION,
  RequestError,
  ndJsonStream,
  type Client,
  type CreateTerminalRequest,
  type CreateTerminalResponse,
  type KillTerminalRequest,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type ReleaseTerminalRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type TerminalExitStatus,
  type TerminalOutputRequest,
  type TerminalOutputResponse,
  type ToolCallContent,
  type WaitForTerminalExitRequest,
  type WaitForTerminalExitResponse,
  type WriteTextFileRequest,
} from "acp-kit";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(here);
const agentPath = join(here, "agent.ts");

const args = process.argv.slice(2);
const deny = args.includes("--deny");
const modeArg = args.find((arg) => arg.startsWith("--mode="))?.slice("--mode=".length);
const cancelArg = args
  .find((arg) => arg.startsWith("--cancel-after="))
  ?.slice("--cancel-after=".length);

// --- printing ----------------------------------------------------------------------------

/** True while the last thing printed is a message still being streamed (no newline yet). */
let midLine = false;

function print(line: string): void {
  if (midLine) process.stdout.write("\n");
  midLine = false;
  process.stdout.write(line + "\n");
}

function printChunk(text: string): void {
  if (!midLine) process.stdout.write("agent> ");
  // A chunk ending a line ends the streamed message.
  const ends = text.endsWith("\n");
  process.stdout.write(
    ends ? text.slice(0, -1).replaceAll("\n", "\n       ") : text.replaceAll("\n", "\n       "),
  );
  if (ends) process.stdout.write("\n");
  midLine = !ends;
}

function describeContent(content: ToolCallContent): string {
  switch (content.type) {
    case "content":
      return content.content.type === "text" ? content.content.text : `[${content.content.type}]`;
    case "diff":
      return `diff of ${content.path}`;
    case "terminal":
      return `terminal ${content.terminalId}`;
    default:
      return `[${content.type}]`;
  }
}

// --- terminals ---------------------------------------------------------------------------

interface Terminal {
  readonly process: ChildProcess;
  readonly limit: number | undefined;
  output: Buffer;
  truncated: boolean;
  exitStatus: TerminalExitStatus | undefined;
  readonly exited: Promise<TerminalExitStatus>;
}

/** Keeps the last `limit` bytes, starting on a character boundary. */
function keepTail(buffer: Buffer, limit: number | undefined): { buffer: Buffer; cut: boolean } {
  if (limit === undefined || buffer.length <= limit) return { buffer, cut: false };
  let start = buffer.length - limit;
  // Skip UTF-8 continuation bytes (10xxxxxx) so the kept text decodes cleanly.
  while (start < buffer.length && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;
  return { buffer: buffer.subarray(start), cut: true };
}

// --- the client --------------------------------------------------------------------------

class ExampleClient implements Client {
  private readonly terminals = new Map<string, Terminal>();

  requestPermission(params: RequestPermissionRequest): RequestPermissionResponse {
    const wanted = deny ? ["reject_once", "reject_always"] : ["allow_once", "allow_always"];
    const option = params.options.find((o) => wanted.includes(o.kind)) ?? params.options[0];
    if (option === undefined) return { outcome: { outcome: "cancelled" } };
    print(
      `  ? permission for "${params.toolCall.title ?? params.toolCall.toolCallId}": ${deny ? "denied" : "approved"} (${option.kind})`,
    );
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  }

  sessionUpdate({ update }: SessionNotification): void {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type === "text") printChunk(update.content.text);
        break;
      case "agent_thought_chunk":
        if (update.content.type === "text") print(`  (thinking) ${update.content.text.trim()}`);
        break;
      case "tool_call":
        print(
          `  * tool call ${update.toolCallId} [${update.kind ?? "other"}] ${update.title} (${update.status ?? "pending"})`,
        );
        break;
      case "tool_call_update": {
        const details = (update.content ?? []).map(describeContent).join("; ");
        const status = update.status ?? "updated";
        print(`    ${update.toolCallId}: ${status}${details === "" ? "" : ` - ${details}`}`);
        break;
      }
      case "current_mode_update":
        print(`  mode is now ${update.currentModeId}`);
        break;
      case "plan":
        print(
          `  plan: ${update.entries.map((entry) => `${entry.content} [${entry.status}]`).join(", ")}`,
        );
        break;
      default:
        print(`  (update ${update.sessionUpdate})`);
    }
  }

  async readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    let content: string;
    try {
      content = await readFile(params.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw RequestError.resourceNotFound(pathToFileURL(params.path).href);
      }
      throw error;
    }
    print(`  < read ${params.path}`);
    if (params.line == null && params.limit == null) return { content };
    const lines = content.split("\n");
    const start = Math.max((params.line ?? 1) - 1, 0);
    const end = params.limit == null ? lines.length : start + params.limit;
    return { content: lines.slice(start, end).join("\n") };
  }

  async writeTextFile(params: WriteTextFileRequest): Promise<void> {
    await mkdir(dirname(params.path), { recursive: true });
    await writeFile(params.path, params.content, "utf8");
    print(`  > wrote ${params.path}`);
  }

  createTerminal(params: CreateTerminalRequest): CreateTerminalResponse {
    const env = { ...process.env };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? undefined,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const terminalId = "term-" + randomUUID().slice(0, 8);
    const terminal: Terminal = {
      process: child,
      limit: params.outputByteLimit ?? undefined,
      output: Buffer.alloc(0),
      truncated: false,
      exitStatus: undefined,
      exited: new Promise<TerminalExitStatus>((resolve) => {
        child.on("error", (error) => {
          append(Buffer.from(`${error.message}\n`));
          terminal.exitStatus = { exitCode: 127, signal: null };
          resolve(terminal.exitStatus);
        });
        child.on("close", (code, signal) => {
          terminal.exitStatus ??= { exitCode: code, signal };
          resolve(terminal.exitStatus);
        });
      }),
    };
    const append = (chunk: Buffer): void => {
      const kept = keepTail(Buffer.concat([terminal.output, chunk]), terminal.limit);
      terminal.output = kept.buffer;
      terminal.truncated ||= kept.cut;
    };
    child.stdout.on("data", append);
    child.stderr.on("data", append);
    this.terminals.set(terminalId, terminal);
    print(`  $ ${[params.command, ...(params.args ?? [])].join(" ")}  (${terminalId})`);
    return { terminalId };
  }

  terminalOutput(params: TerminalOutputRequest): TerminalOutputResponse {
    const terminal = this.terminal(params.terminalId);
    const output = terminal.output.toString("utf8");
    for (const line of output.split("\n")) if (line !== "") print(`  | ${line}`);
    return { output, truncated: terminal.truncated, exitStatus: terminal.exitStatus ?? null };
  }

  async waitForTerminalExit(
    params: WaitForTerminalExitRequest,
  ): Promise<WaitForTerminalExitResponse> {
    const status = await this.terminal(params.terminalId).exited;
    print(`  terminal ${params.terminalId} exited with code ${status.exitCode ?? "none"}`);
    return status;
  }

  killTerminal(params: KillTerminalRequest): void {
    const terminal = this.terminal(params.terminalId);
    if (terminal.exitStatus === undefined) terminal.process.kill();
  }

  releaseTerminal(params: ReleaseTerminalRequest): void {
    this.killTerminal(params);
    this.terminals.delete(params.terminalId);
  }

  /** Kills whatever still runs (the agent went away without releasing). */
  dispose(): void {
    for (const id of [...this.terminals.keys()])
      this.releaseTerminal({ sessionId: "", terminalId: id });
  }

  private terminal(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (terminal === undefined)
      throw RequestError.invalidParams({ terminalId }, `unknown terminal ${terminalId}`);
    return terminal;
  }
}

// --- the run -----------------------------------------------------------------------------

async function main(): Promise<number> {
  const workspace = await mkdtemp(join(tmpdir(), "acp-kit-example-"));
  const notes = join(workspace, "notes.txt");
  await writeFile(notes, "Shopping list\n- apples\n- coffee\n", "utf8");

  print(`starting the agent: node --import tsx ${relative(process.cwd(), agentPath) || agentPath}`);
  // `cwd` is the repository so that `--import tsx` and the tsconfig paths resolve; the
  // session's own directory is given to the agent in `session/new`.
  const agentProcess = spawn(process.execPath, ["--import", "tsx", agentPath], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const agentExited = new Promise<number | null>((resolve) =>
    agentProcess.on("exit", (code) => resolve(code)),
  );

  const client = new ExampleClient();
  const agent = new ClientSideConnection(
    () => client,
    ndJsonStream(
      Writable.toWeb(agentProcess.stdin),
      Readable.toWeb(agentProcess.stdout) as ReadableStream<Uint8Array>,
      // The agent's stdin is ours to end: agent.close() closes it.
      { closeOutput: true },
    ),
  );

  try {
    const init = await agent.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: "acp-kit-example-client", version: "0.1.0" },
    });
    const info = init.agentInfo;
    print(
      `connected to ${info?.title ?? info?.name ?? "an agent"} ${info?.version ?? ""} (protocol ${init.protocolVersion})`,
    );
    if (init.protocolVersion !== PROTOCOL_VERSION) {
      print(`the agent speaks protocol ${init.protocolVersion}, which this client does not`);
      return 1;
    }

    const session = await agent.newSession({ cwd: workspace, mcpServers: [] });
    const modes = session.modes?.availableModes.map((mode) => mode.id).join(", ") ?? "none";
    print(`session ${session.sessionId} in ${workspace} (modes: ${modes})`);
    if (modeArg !== undefined)
      await agent.setSessionMode({ sessionId: session.sessionId, modeId: modeArg });

    const text = "Please review my notes and tidy them up.";
    print(`you> ${text}`);
    const turn = agent.prompt({
      sessionId: session.sessionId,
      prompt: [
        { type: "text", text },
        { type: "resource_link", uri: pathToFileURL(notes).href, name: "notes.txt" },
      ],
    });
    if (cancelArg !== undefined) {
      setTimeout(() => {
        print("cancelling the turn");
        void agent.cancel({ sessionId: session.sessionId });
      }, Number(cancelArg));
    }
    const { stopReason } = await turn;
    print(`stop reason: ${stopReason}`);

    const after = await readFile(notes, "utf8");
    print("notes.txt after the turn:");
    for (const line of after.trimEnd().split("\n")) print(`  ${line}`);
    return 0;
  } catch (error) {
    if (error instanceof RequestError)
      print(`the agent answered an error: ${error.code} ${error.message}`);
    else if (error instanceof ConnectionError)
      print(`connection problem (${error.code}): ${error.message}`);
    else print(`failed: ${String(error)}`);
    return 1;
  } finally {
    // Shutting down: close the connection (and so the agent's stdin), give the agent a
    // moment to exit, then make sure.
    agent.close();
    client.dispose();
    const code = await Promise.race([
      agentExited,
      new Promise<"timeout">((r) => setTimeout(r, 2000, "timeout")),
    ]);
    if (code === "timeout") {
      agentProcess.kill();
      print("the agent did not exit on its own; killed it");
    } else {
      print(`the agent exited with code ${code ?? "none"}`);
    }
    await rm(workspace, { recursive: true, force: true });
  }
}

// A safety net so the example can never hang a script that runs it.
const watchdog = setTimeout(() => {
  print("timed out");
  process.exit(1);
}, 30_000);
watchdog.unref();

process.exitCode = await main();
