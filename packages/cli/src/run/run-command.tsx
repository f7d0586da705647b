/**
 * `acp-kit run`: the live view on a terminal, a plain transcript otherwise.
 *
 * @module
 */
import { openSync } from "node:fs";
import { createInterface } from "node:readline";
import { ReadStream } from "node:tty";
import type * as schema from "acp-kit";
import type { PermissionPolicy } from "acp-kit/node";
import { AgentController } from "../controller.js";
import { describeFailure, ExitCodes, exitCodeForStopReason } from "../exit-codes.js";
import { endOnSignals, signalExitCode } from "../signals.js";
import type { SessionChoices } from "../session-options.js";
import type { AgentTarget } from "../target.js";
import { PlainTranscript } from "./plain-transcript.js";
import { UiModel } from "./ui-model.js";

/** Options of {@link runInteractive}. */
export interface RunOptions {
  readonly target: AgentTarget;
  readonly cwd: string;
  readonly policies: readonly PermissionPolicy[];
  /** Print a plain transcript (no live view, no questions). */
  readonly plain: boolean;
  readonly color: boolean;
  /** Sent as soon as the session is ready (the demo's first turn). */
  readonly initialPrompt?: string;
  /** In plain mode: the prompts to send, in order (default: lines read from stdin). */
  readonly scriptedPrompts?: readonly string[];
  /** Printed before anything else. */
  readonly banner?: string;
  /** The mode and model each session gets (`--mode`, `--model`). */
  readonly choices?: SessionChoices;
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
  const [{ render }, { App }] = await Promise.all([import("ink"), import("./app.js")]);
  const ui = new UiModel();
  const controller = new AgentController({
    target: options.target,
    cwd: options.cwd,
    policies: options.policies,
    ...(options.choices === undefined ? {} : { choices: options.choices }),
    askPermission: ui.askPermission,
    onTerminalOutput: ui.onTerminalOutput,
  });
  if (options.banner !== undefined) ui.notify("info", options.banner);
  let exitCode: number = ExitCodes.OK;
  const flags = { quitting: false };
  const onQuit = (): void => {
    flags.quitting = true;
  };
  let keyboard = openKeyboard();
  const mount = (): ReturnType<typeof render> =>
    render(
      <App
        controller={controller}
        ui={ui}
        suspend={suspend}
        onQuit={onQuit}
        {...(options.initialPrompt === undefined ? {} : { initialPrompt: options.initialPrompt })}
      />,
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
    const failure = describeFailure(error);
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
  }
  if (startFailure !== undefined) process.stderr.write(`acp-kit: ${startFailure}\n`);
  return exitCode;
}

/** How long a turn cancelled because stdin closed may take to end before `run` exits anyway. */
const CANCEL_GRACE_MS = 5000;

async function runPlain(options: RunOptions): Promise<number> {
  const out = process.stdout;
  const transcript = new PlainTranscript(out);
  const controller = new AgentController({
    target: options.target,
    cwd: options.cwd,
    policies: options.policies,
    ...(options.choices === undefined ? {} : { choices: options.choices }),
    wrapClient: (client) => ({
      ...client,
      requestPermission: async (params, context) => {
        const response = await client.requestPermission(params, context);
        transcript.permission(params, response);
        return response;
      },
    }),
  });
  controller.sessions.subscribe(transcript.update);
  if (options.banner !== undefined) transcript.line(options.banner);
  let lastCode: number = ExitCodes.OK;
  const signals = endOnSignals(controller, { cancelTurns: true });
  try {
    await controller.start();
    const info = controller.info?.agentInfo;
    transcript.line(
      `connected to ${info == null ? options.target.label : `${info.title ?? info.name} ${info.version}`}`,
    );
    if (controller.phase === "auth-required") {
      const methods = controller.authMethods.map((m) => m.name).join(", ");
      transcript.line(
        `The agent requires authentication (${methods}); run acp-kit on a terminal to log in.`,
      );
      return ExitCodes.AUTH_REQUIRED;
    }
    const prompts =
      options.scriptedPrompts ??
      (options.initialPrompt === undefined ? undefined : [options.initialPrompt]);
    // stdin is the conversation: when it closes while a turn runs, whoever was typing has
    // gone, so the turn is cancelled and the program exits after it.
    const input = prompts ?? createInterface({ input: process.stdin, terminal: false });
    let turnRunning = false;
    // Set by the close handler (an object: the loop must read it afresh after each await).
    const stdinState = { closedDuringTurn: false };
    let onClosedDuringTurn = (): void => undefined;
    if (prompts === undefined) {
      (input as ReturnType<typeof createInterface>).once("close", () => {
        if (!turnRunning || signals.received !== undefined) return;
        stdinState.closedDuringTurn = true;
        transcript.line("stdin closed: cancelling the turn");
        void controller.cancel().catch(() => undefined);
        onClosedDuringTurn();
      });
    }
    for await (const text of input) {
      if (text.trim() === "") continue;
      let timer: NodeJS.Timeout | undefined;
      // Settles only when the agent does not end a turn cancelled this way in time: the
      // agent is then ended with the connection.
      const giveUp = new Promise<schema.PromptResponse>((resolve) => {
        onClosedDuringTurn = () => {
          timer = setTimeout(() => resolve({ stopReason: "cancelled" }), CANCEL_GRACE_MS);
        };
      });
      turnRunning = true;
      let response: schema.PromptResponse;
      try {
        response = await Promise.race([controller.prompt([{ type: "text", text }]), giveUp]);
      } finally {
        turnRunning = false;
        onClosedDuringTurn = () => undefined;
        clearTimeout(timer);
      }
      transcript.line(`(${response.stopReason})`);
      lastCode = exitCodeForStopReason(response.stopReason);
      if (stdinState.closedDuringTurn) break;
    }
    return lastCode;
  } catch (error) {
    const signal = signals.received;
    const { exitCode, message } =
      signal === undefined
        ? describeFailure(error)
        : { exitCode: signalExitCode(signal), message: `ended by ${signal}` };
    transcript.line(`acp-kit: ${message}`);
    return exitCode;
  } finally {
    signals.dispose();
    await controller.close();
  }
}
