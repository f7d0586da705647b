/**
 * `acp-kit run`: the live view on a terminal, a plain transcript otherwise.
 *
 * @module
 */
import { openSync } from "node:fs";
import { createInterface } from "node:readline";
import { ReadStream } from "node:tty";
import type { PermissionPolicy } from "acp-kit/node";
import { AgentController } from "../controller.js";
import { describeFailure, ExitCodes, exitCodeForStopReason } from "../exit-codes.js";
import { endOnSignals, signalExitCode } from "../signals.js";
import type { SessionSettings } from "../session-options.js";
import type { McpServers } from "../mcp-config.js";
import type { AgentTarget } from "../target.js";
import {
  promptSession,
  rememberSessions,
  requireRestore,
  resolveResume,
  restoreOrNew,
  resumeCommand,
  sessionEntries,
  SessionUnavailableError,
  type SessionEntry,
  type SessionMemory,
} from "../session-memory.js";
import { PermissionAnswers } from "./permission-answers.js";
import { PlainTranscript } from "./plain-transcript.js";
// Types only: the picker's module loads Ink, which must wait for FORCE_COLOR (see runLive).
import type { SessionPick, SessionPickerSlot } from "./session-picker.js";
import { UiModel } from "./ui-model.js";
import { printable } from "../terminal-text.js";

/** Options of {@link runInteractive}. */
export interface RunOptions {
  readonly target: AgentTarget;
  readonly cwd: string;
  readonly policies: readonly PermissionPolicy[];
  /** Print a plain transcript (no live view, no questions). */
  readonly plain: boolean;
  readonly color: boolean;
  /**
   * Sent as soon as the session is ready (the demo's first turn, `run AGENT "task"`); in
   * plain mode, before the lines of stdin.
   */
  readonly initialPrompt?: string;
  /** In plain mode: the prompts to send, in order (default: lines read from stdin). */
  readonly scriptedPrompts?: readonly string[];
  /** Printed before anything else. */
  readonly banner?: string;
  /** The mode and model each session gets (`--mode`, `--model`). */
  readonly settings?: SessionSettings;
  /** The MCP servers each session gets (`--mcp-config`). */
  readonly mcpServers?: McpServers;
  /**
   * Remember the sessions opened; `resume`: open a remembered one (`true`: choose);
   * `continue`: open the most recent one (`run --continue`, as `prompt --continue`).
   */
  readonly sessions?: {
    readonly memory: SessionMemory;
    readonly resume?: string | true;
    readonly continue?: boolean;
  };
}

/** Esc in the `--resume` picker: the program ends without opening a session. */
class PickerLeft extends Error {}

/**
 * The controller's `firstSession` for `--resume`: the session named (an id, a start of
 * one, a name), or the one picked among the recent ones (`pick`; without it, the most
 * recent).
 */
function resumeFirst(
  sessions: RunOptions["sessions"],
  pick?: (entries: readonly SessionEntry[]) => Promise<SessionPick>,
  notify: (text: string) => void = () => undefined,
): ((controller: AgentController) => Promise<void>) | undefined {
  const resume = sessions?.resume;
  if (sessions?.continue === true) {
    const { memory } = sessions;
    return async (controller) => {
      await restoreOrNew(controller, await promptSession(controller, memory, { continue: true }));
    };
  }
  if (sessions === undefined || resume === undefined) return undefined;
  const { memory } = sessions;
  return async (controller) => {
    if (typeof resume === "string") {
      await restoreOrNew(controller, await resolveResume(controller, memory, resume));
      return;
    }
    requireRestore(controller, "--resume");
    const entries = await sessionEntries(controller, memory);
    if (pick === undefined) {
      const latest = entries[0];
      if (latest === undefined) {
        throw new SessionUnavailableError(
          `No session to resume: none is remembered for this agent in ${memory.cwd}, and the agent lists none.`,
        );
      }
      await restoreOrNew(controller, latest.sessionId);
      return;
    }
    if (entries.length === 0) {
      notify("No earlier session of this agent here: a new one is opened.");
      await controller.openSession();
      return;
    }
    const picked = await pick(entries);
    if (picked.type === "leave") throw new PickerLeft();
    await restoreOrNew(controller, picked.type === "session" ? picked.sessionId : undefined);
  };
}

/** Says on stderr how to open the session again, when the agent can. */
function printResume(
  sessions: RunOptions["sessions"],
  remembering: ReturnType<typeof rememberSessions> | undefined,
): void {
  const sessionId = remembering?.resumable();
  if (sessions === undefined || sessionId === undefined) return;
  process.stderr.write(
    `To resume this session: ${printable(resumeCommand(sessions.memory, sessionId))}\n`,
  );
}

/** Runs the command; resolves with the exit code. */
export async function runInteractive(options: RunOptions): Promise<number> {
  if (!options.color) process.env.FORCE_COLOR = "0";
  return options.plain ? runPlain(options) : runLive(options);
}

/**
 * The keyboard for one mount of the live view: the terminal opened afresh (`/dev/tty`),
 * so that it can be closed when the terminal is handed to a login command. A paused
 * `process.stdin` keeps reading the terminal underneath and would swallow what the person
 * types into that command. Falls back to `process.stdin` where there is no `/dev/tty`.
 */
function openKeyboard(): { stdin: NodeJS.ReadStream; close(): void } {
  try {
    const stream = new ReadStream(openSync("/dev/tty", "r"));
    return { stdin: stream, close: () => stream.destroy() };
  } catch {
    return { stdin: process.stdin, close: () => undefined };
  }
}

async function runLive(options: RunOptions): Promise<number> {
  // Ink and the views are loaded only now: the colour library that Ink uses reads
  // `FORCE_COLOR` (set above for NO_COLOR) when it is first imported. React picks its
  // build from `NODE_ENV` then too: unless the user set it, it is "production" for that
  // moment only (the development build checks every render: measured 1.5x slower),
  // so that the agent and the commands started later do not inherit it.
  const nodeEnv = process.env.NODE_ENV;
  if (nodeEnv === undefined) process.env.NODE_ENV = "production";
  const [{ render }, { liveView }, { SessionPickerSlot: PickerSlot }] = await Promise.all([
    import("ink"),
    import("./app.js"),
    import("./session-picker.js"),
  ]).finally(() => {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
  });
  const ui = new UiModel();
  const picker: SessionPickerSlot | undefined =
    options.sessions?.resume === true ? new PickerSlot() : undefined;
  const firstSession = resumeFirst(
    options.sessions,
    picker === undefined ? undefined : (entries) => picker.pick(entries),
    (text) => ui.notify("info", text),
  );
  // (The controller is made below; the answers reach its sessions once it is.)
  const answers = new PermissionAnswers(() => controller.sessions);
  const controller: AgentController = new AgentController({
    target: options.target,
    cwd: options.cwd,
    policies: options.policies,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    askPermission: answers.asked(ui.askPermission),
    wrapClient: answers.wrap,
    onTerminalOutput: ui.onTerminalOutput,
    // What the agent prints for the user outside ACP (a login URL, a code): shown.
    onStdout: (line) => ui.notify("info", `[agent] ${printable(line)}`),
    ...(firstSession === undefined ? {} : { firstSession }),
  });
  const remembering =
    options.sessions === undefined
      ? undefined
      : rememberSessions(controller, options.sessions.memory);
  if (options.banner !== undefined) ui.notify("info", options.banner);
  let exitCode: number = ExitCodes.OK;
  const flags = { quitting: false };
  const onQuit = (): void => {
    flags.quitting = true;
  };
  let keyboard = openKeyboard();
  const mount = (): ReturnType<typeof render> =>
    render(
      liveView({
        controller,
        ui,
        suspend,
        onQuit,
        answers,
        cwd: options.cwd,
        ...(options.initialPrompt === undefined ? {} : { initialPrompt: options.initialPrompt }),
        ...(picker === undefined ? {} : { sessionPicker: { slot: picker, cwd: options.cwd } }),
      }),
      {
        exitOnCtrlC: false,
        stdin: keyboard.stdin,
      },
    );
  // Set while the terminal is handed to an interactive command (terminal login).
  const suspension: { remounted: Promise<void> | undefined; active: boolean } = {
    remounted: undefined,
    active: false,
  };
  const suspend = async <T,>(run: () => Promise<T>): Promise<T> => {
    let done!: () => void;
    suspension.remounted = new Promise((resolve) => (done = resolve));
    suspension.active = true;
    instance.unmount();
    keyboard.close();
    try {
      return await run();
    } finally {
      suspension.active = false;
      keyboard = openKeyboard();
      instance = mount();
      done();
    }
  };
  let instance = mount();
  // In raw mode Ctrl-C is a key (see the app); a signal ends the session, except a SIGINT
  // while a login command has the terminal: that Ctrl-C is the command's.
  const signals = endOnSignals(controller, { ignoreInterrupt: () => suspension.active });
  let startFailure: string | undefined;
  controller.start().catch((error: unknown) => {
    // Left while the agent started (a /quit typed ahead, the picker's Esc): closing the
    // agent then fails the start, which is no failure of the agent's.
    if (error instanceof PickerLeft || flags.quitting) {
      ui.leave();
      return;
    }
    const failure = describeFailure(error, options.target);
    exitCode = failure.exitCode;
    startFailure = failure.message;
    ui.leave();
  });
  try {
    for (;;) {
      await instance.waitUntilExit();
      // A suspended app (terminal login) is mounted again: wait for the new one.
      const pending = suspension.remounted;
      suspension.remounted = undefined;
      if (pending === undefined || flags.quitting) break;
      await pending;
    }
  } finally {
    signals.dispose();
    keyboard.close();
    await controller.close();
    await remembering?.done();
  }
  if (startFailure !== undefined) process.stderr.write(`acp-kit: ${startFailure}\n`);
  printResume(options.sessions, remembering);
  return exitCode;
}

/**
 * The prompts of a plain run: the scripted ones (the demo), else the first one given and
 * then each line of stdin, until it ends.
 */
async function* plainPrompts(options: RunOptions): AsyncGenerator<string> {
  if (options.scriptedPrompts !== undefined) {
    yield* options.scriptedPrompts;
    return;
  }
  if (options.initialPrompt !== undefined) yield options.initialPrompt;
  yield* createInterface({ input: process.stdin, terminal: false });
}

async function runPlain(options: RunOptions): Promise<number> {
  const out = process.stdout;
  const transcript = new PlainTranscript(out);
  const resume = resumeFirst(options.sessions);
  let connected = false;
  const sayConnected = (): void => {
    if (connected) return;
    connected = true;
    const info = controller.info?.agentInfo;
    const version = controller.protocol === undefined ? "" : ` (ACP v${controller.protocol})`;
    transcript.line(
      `connected to ${info == null ? options.target.label : `${info.title ?? info.name} ${info.version}`}${version}`,
    );
  };
  // A resumed session's history is replayed while it opens: say who is talking first.
  const plainFirst =
    resume === undefined
      ? undefined
      : async (c: AgentController): Promise<void> => {
          sayConnected();
          await resume(c);
        };
  const controller = new AgentController({
    target: options.target,
    cwd: options.cwd,
    policies: options.policies,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    wrapClient: (client) => ({
      ...client,
      requestPermission: async (params, context) => {
        const response = await client.requestPermission(params, context);
        transcript.permission(params, response);
        return response;
      },
    }),
    onStdout: (line) => process.stderr.write(`[agent] ${printable(line)}\n`),
    ...(plainFirst === undefined ? {} : { firstSession: plainFirst }),
  });
  const remembering =
    options.sessions === undefined
      ? undefined
      : rememberSessions(controller, options.sessions.memory);
  controller.sessions.subscribe(transcript.update);
  if (options.banner !== undefined) transcript.line(options.banner);
  let lastCode: number = ExitCodes.OK;
  const signals = endOnSignals(controller, { cancelTurns: true });
  try {
    await controller.start();
    sayConnected();
    if (controller.phase === "auth-required") {
      const methods = controller.authMethods.map((m) => m.name).join(", ");
      transcript.line(
        `The agent requires authentication (${methods}); run acp-kit on a terminal to log in.`,
      );
      return ExitCodes.AUTH_REQUIRED;
    }
    // stdin holds the prompts, one a line. Its end means that no more will come: the
    // turns already sent run to their end (`echo task | acp-kit run AGENT` waits for the
    // answer), then the program exits. Ctrl-C cancels a turn.
    for await (const text of plainPrompts(options)) {
      if (text.trim() === "") continue;
      const response = await controller.prompt([{ type: "text", text }]);
      transcript.line(`(${response.stopReason})`);
      lastCode = exitCodeForStopReason(response.stopReason);
    }
    return lastCode;
  } catch (error) {
    const signal = signals.received;
    const { exitCode, message } =
      signal === undefined
        ? describeFailure(error, options.target)
        : { exitCode: signalExitCode(signal), message: `ended by ${signal}` };
    transcript.line(`acp-kit: ${message}`);
    return exitCode;
  } finally {
    signals.dispose();
    await controller.close();
    await remembering?.done();
    printResume(options.sessions, remembering);
  }
}
