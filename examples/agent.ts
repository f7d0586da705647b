/**
 * An example ACP agent, run over stdio.
 *
 * There is no language model here: each prompt turn follows a fixed script that shows
 * what an agent can do with the protocol:
 *
 *   1. stream a reply as `agent_message_chunk` updates;
 *   2. report a `read` tool call and read the file the user attached through the client
 *      (`fs/read_text_file`);
 *   3. propose an edit, ask the user's permission (`session/request_permission`) and write
 *      the file (`fs/write_text_file`) only if allowed;
 *   4. run a command in a client terminal (`terminal/create` -> `wait_for_exit` ->
 *      `output` -> `release`) embedded in an `execute` tool call;
 *   5. honour `session/cancel` at any point by answering `stopReason: "cancelled"`.
 *
 * Start it from a client (see `client.ts`), e.g. `node --import tsx examples/agent.ts`.
 * stdout carries the protocol only: everything the agent wants to say to a human goes
 * to stderr.
 */
import { randomUUID } from "node:crypto";
import { basename, isAbsolute } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  AgentSideConnection,
  PROTOCOL_VERSION,
  RequestError,
  ndJsonStream,
  type Agent,
  type AuthenticateRequest,
  type CancelNotification,
  type ClientCapabilities,
  type ContentBlock,
  type InitializeRequest,
  type InitializeResponse,
  type LoadSessionRequest,
  type LoadSessionResponse,
  type NewSessionRequest,
  type NewSessionResponse,
  type PromptRequest,
  type PromptResponse,
  type SessionModeState,
  type SessionUpdate,
  type SetSessionModeRequest,
} from "acp-kit";

/** Logs to stderr: stdout belongs to the protocol. */
function log(...args: unknown[]): void {
  console.error("[example-agent]", ...args);
}

/** The modes every session offers. */
const MODES: SessionModeState["availableModes"] = [
  { id: "ask", name: "Ask", description: "Ask for permission before changing files" },
  { id: "read_only", name: "Read only", description: "Never change files" },
];

interface Session {
  readonly id: string;
  readonly cwd: string;
  modeId: string;
  /** Every update sent for this session, replayed by `session/load`. */
  readonly history: SessionUpdate[];
  /** Aborts the running prompt turn; set while a turn runs. */
  turn: AbortController | undefined;
}

/** Waits `ms` milliseconds, or rejects as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** The absolute path of the first file the prompt links to or embeds, if any. */
function attachedFile(prompt: ContentBlock[]): string | undefined {
  for (const block of prompt) {
    let uri: string | undefined;
    if (block.type === "resource_link") uri = block.uri;
    else if (block.type === "resource") uri = block.resource.uri;
    if (uri?.startsWith("file://")) return fileURLToPath(uri);
  }
  return undefined;
}

/** The text of the prompt's text blocks. */
function promptText(prompt: ContentBlock[]): string {
  return prompt
    .map((block) => (block.type === "text" ? block.text : ""))
    .join(" ")
    .trim();
}

class ExampleAgent implements Agent {
  private readonly sessions = new Map<string, Session>();
  private clientCapabilities: ClientCapabilities = {};

  constructor(private readonly client: AgentSideConnection) {}

  initialize(params: InitializeRequest): InitializeResponse {
    this.clientCapabilities = params.clientCapabilities ?? {};
    log(`initialize from ${params.clientInfo?.name ?? "an unnamed client"}`);
    return {
      // We speak version 1 only: answer with it whatever the client asked for.
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { embeddedContext: true },
      },
      // No authentication needed; an agent that needs it lists its methods here.
      authMethods: [],
      agentInfo: {
        name: "acp-kit-example-agent",
        title: "acp-kit example agent",
        version: "0.1.0",
      },
    };
  }

  authenticate(_params: AuthenticateRequest): void {
    // Nothing to do: we advertised no authentication methods.
  }

  newSession(params: NewSessionRequest): NewSessionResponse {
    const session: Session = {
      id: randomUUID(),
      cwd: params.cwd,
      modeId: "ask",
      history: [],
      turn: undefined,
    };
    this.sessions.set(session.id, session);
    log(`new session ${session.id} in ${session.cwd}`);
    return {
      sessionId: session.id,
      modes: { currentModeId: session.modeId, availableModes: MODES },
    };
  }

  async loadSession(params: LoadSessionRequest): Promise<LoadSessionResponse> {
    const session = this.session(params.sessionId);
    // Replay the whole conversation before answering, as the protocol requires.
    for (const update of session.history) {
      await this.client.sessionUpdate({ sessionId: session.id, update });
    }
    return { modes: { currentModeId: session.modeId, availableModes: MODES } };
  }

  async setSessionMode(params: SetSessionModeRequest): Promise<void> {
    const session = this.session(params.sessionId);
    if (!MODES.some((mode) => mode.id === params.modeId)) {
      throw RequestError.invalidParams({ modeId: params.modeId }, `unknown mode ${params.modeId}`);
    }
    session.modeId = params.modeId;
    await this.send(session, {
      sessionUpdate: "current_mode_update",
      currentModeId: session.modeId,
    });
  }

  async prompt(params: PromptRequest): Promise<PromptResponse> {
    const session = this.session(params.sessionId);
    // One turn at a time per session: a new prompt supersedes a running one.
    session.turn?.abort();
    const turn = new AbortController();
    session.turn = turn;
    try {
      for (const block of params.prompt) {
        session.history.push({ sessionUpdate: "user_message_chunk", content: block });
      }
      await this.runTurn(session, params.prompt, turn.signal);
      return { stopReason: "end_turn" };
    } catch (error) {
      // Whatever failed because of the cancellation (an aborted request to the client, a
      // pause), the answer is "cancelled", not an error.
      if (turn.signal.aborted) {
        log(`turn cancelled in session ${session.id}`);
        return { stopReason: "cancelled" };
      }
      throw error;
    } finally {
      if (session.turn === turn) session.turn = undefined;
    }
  }

  cancel(params: CancelNotification): void {
    log(`cancel requested for session ${params.sessionId}`);
    this.sessions.get(params.sessionId)?.turn?.abort();
  }

  // --- the scripted turn ---------------------------------------------------------------

  private async runTurn(
    session: Session,
    prompt: ContentBlock[],
    signal: AbortSignal,
  ): Promise<void> {
    const text = promptText(prompt);
    log(`prompt in session ${session.id}: ${JSON.stringify(text)}`);
    const file = attachedFile(prompt);
    if (file === undefined || !isAbsolute(file)) {
      await this.say(
        session,
        signal,
        "Attach a file to your prompt (a resource link) and I will review it.",
      );
      return;
    }
    const name = basename(file);
    await this.say(session, signal, `Let me take a look at ${name}.`);

    const content = await this.readStep(session, file, signal);
    if (content === undefined) return;
    await this.editStep(session, file, content, signal);
    await this.terminalStep(session, signal);
    await this.say(session, signal, "All done.");
  }

  /** Reads the file through the client, reported as a `read` tool call. */
  private async readStep(
    session: Session,
    file: string,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    if (this.clientCapabilities.fs?.readTextFile !== true) {
      await this.say(session, signal, "Your client cannot read files for me, so I stop here.");
      return undefined;
    }
    const toolCallId = "read-" + randomUUID().slice(0, 8);
    await this.send(session, {
      sessionUpdate: "tool_call",
      toolCallId,
      title: `Read ${basename(file)}`,
      kind: "read",
      status: "pending",
      locations: [{ path: file }],
      rawInput: { path: file },
    });
    await pause(20, signal);
    await this.send(session, {
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "in_progress",
    });
    const { content } = await this.client.readTextFile(
      { sessionId: session.id, path: file },
      { signal },
    );
    const lines = content.split("\n").length;
    await this.send(session, {
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "completed",
      content: [
        {
          type: "content",
          content: { type: "text", text: `${lines} lines, ${content.length} characters` },
        },
      ],
    });
    return content;
  }

  /** Proposes an edit, asks permission, and writes through the client only if allowed. */
  private async editStep(
    session: Session,
    file: string,
    oldText: string,
    signal: AbortSignal,
  ): Promise<void> {
    if (session.modeId === "read_only") {
      await this.say(session, signal, "I am in read-only mode, so I will not change anything.");
      return;
    }
    if (this.clientCapabilities.fs?.writeTextFile !== true) return;
    const newText = oldText.endsWith("\n")
      ? `${oldText}Reviewed by the example agent.\n`
      : `${oldText}\nReviewed by the example agent.\n`;
    const toolCallId = "edit-" + randomUUID().slice(0, 8);
    const title = `Add a review note to ${basename(file)}`;
    await this.send(session, {
      sessionUpdate: "tool_call",
      toolCallId,
      title,
      kind: "edit",
      status: "pending",
      locations: [{ path: file }],
      content: [{ type: "diff", path: file, oldText, newText }],
    });

    const answer = await this.client.requestPermission(
      {
        sessionId: session.id,
        toolCall: { toolCallId, title, kind: "edit", status: "pending" },
        options: [
          { optionId: "allow", name: "Allow this edit", kind: "allow_once" },
          { optionId: "reject", name: "Skip it", kind: "reject_once" },
        ],
      },
      { signal },
    );
    if (answer.outcome.outcome === "cancelled") {
      // The client cancelled the turn while asking: stop here.
      signal.throwIfAborted();
      throw new DOMException("The permission request was cancelled", "AbortError");
    }
    if (answer.outcome.optionId !== "allow") {
      await this.send(session, {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "failed",
        content: [
          { type: "content", content: { type: "text", text: "The user declined the edit." } },
        ],
      });
      await this.say(session, signal, "Understood, I left the file unchanged.");
      return;
    }
    await this.send(session, {
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "in_progress",
    });
    await this.client.writeTextFile(
      { sessionId: session.id, path: file, content: newText },
      { signal },
    );
    await this.send(session, {
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "completed",
    });
  }

  /** Runs a command in a client terminal shown inside an `execute` tool call. */
  private async terminalStep(session: Session, signal: AbortSignal): Promise<void> {
    if (this.clientCapabilities.terminal !== true) return;
    // The client runs this on the machine it shares with us: Node lists the session directory.
    const command = process.execPath;
    const args = [
      "-e",
      "for (const name of require('node:fs').readdirSync('.').sort()) console.log(name)",
    ];
    const toolCallId = "run-" + randomUUID().slice(0, 8);
    await this.send(session, {
      sessionUpdate: "tool_call",
      toolCallId,
      title: "List the files of the session directory",
      kind: "execute",
      status: "pending",
      rawInput: { command, args, cwd: session.cwd },
    });
    const terminal = await this.client.createTerminal(
      { sessionId: session.id, command, args, cwd: session.cwd, outputByteLimit: 64 * 1024 },
      { signal },
    );
    try {
      // Embed the terminal so the client shows its live output (before releasing it).
      await this.send(session, {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "in_progress",
        content: [{ type: "terminal", terminalId: terminal.id }],
      });
      const exit = await terminal.waitForExit({ signal });
      const { output, truncated } = await terminal.currentOutput({ signal });
      await this.send(session, {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: exit.exitCode === 0 ? "completed" : "failed",
        rawOutput: { exitCode: exit.exitCode ?? null, signal: exit.signal ?? null, truncated },
      });
      const files = output.split("\n").filter((line) => line !== "");
      await this.say(
        session,
        signal,
        `The command exited with code ${exit.exitCode ?? "none"} and listed ${files.length} file(s).`,
      );
    } finally {
      // Release in every case (also when cancelled): this kills the command if it still runs.
      await terminal
        .release()
        .catch((error: unknown) => log("releasing the terminal failed:", error));
    }
  }

  // --- helpers -------------------------------------------------------------------------

  private session(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw RequestError.resourceNotFound(`session ${sessionId}`);
    return session;
  }

  /** Sends an update for the session and remembers it for `session/load`. */
  private async send(session: Session, update: SessionUpdate): Promise<void> {
    session.history.push(update);
    await this.client.sessionUpdate({ sessionId: session.id, update });
  }

  /** Streams a sentence word by word, the way a model's reply arrives. */
  private async say(session: Session, signal: AbortSignal, sentence: string): Promise<void> {
    const words = sentence.split(" ");
    for (const [index, word] of words.entries()) {
      signal.throwIfAborted();
      const text = index === words.length - 1 ? `${word}\n` : `${word} `;
      await this.send(session, {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text },
      });
      await pause(5, signal);
    }
  }
}

const connection = new AgentSideConnection(
  (client) => new ExampleAgent(client),
  // (Node types its web streams apart from the DOM ones, hence the cast.)
  ndJsonStream(
    Writable.toWeb(process.stdout),
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  ),
);
log("ready, waiting for a client on stdin");
await connection.closed;
log("the client closed the connection; exiting");
