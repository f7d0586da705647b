/**
 * Asking permission questions on a terminal, line by line, for the commands without a
 * live view (`prompt`): the request, its options numbered, the first one-time allow as
 * the answer to Enter (as in `run`'s box). Ctrl-C at the question is a Ctrl-C of the
 * program (it cancels the turn, which withdraws the question).
 *
 * @module
 */
import { openSync } from "node:fs";
import { createInterface } from "node:readline";
import { ReadStream } from "node:tty";
import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest } from "acp-kit";
import type { PermissionPrompt } from "acp-kit/node";
import { printable } from "./terminal-text.js";

/** Where {@link terminalPermissionPrompt} reads answers and writes its questions. */
export interface TerminalIo {
  /** Opens the keyboard for one question (`process.stdin`, or `/dev/tty` when stdin is a pipe). */
  readonly open: () => { readonly input: NodeJS.ReadableStream; close(): void } | undefined;
  /** Where the question goes (stderr: stdout is the agent's answer). */
  readonly output: NodeJS.WritableStream;
}

/**
 * The keyboard of the terminal the program runs in: stdin when it is one, else `/dev/tty`
 * (the prompt came through a pipe), else `undefined`.
 */
export function openKeyboard(): { input: NodeJS.ReadableStream; close(): void } | undefined {
  if (process.stdin.isTTY) {
    return { input: process.stdin, close: () => process.stdin.pause() };
  }
  try {
    const stream = new ReadStream(openSync("/dev/tty", "r"));
    return { input: stream, close: () => stream.destroy() };
  } catch {
    return undefined;
  }
}

/** The option Enter picks: the first one-time allow, else the first one-time reject, else the first. */
export function defaultOption(options: readonly PermissionOption[]): PermissionOption | undefined {
  return (
    options.find((o) => o.kind === "allow_once") ??
    options.find((o) => o.kind === "reject_once") ??
    options[0]
  );
}

/** The question for a request, as printed. */
function questionText(request: RequestPermissionRequest): string {
  const call = request.toolCall;
  const title = printable(call.title ?? call.toolCallId);
  const kind = call.kind == null ? "" : ` (${call.kind})`;
  const lines = [`The agent asks permission: ${title}${kind}`];
  request.options.forEach((option, index) => {
    lines.push(`  ${index + 1}. ${printable(option.name)}`);
  });
  return `${lines.join("\n")}\n`;
}

/**
 * A {@link PermissionPrompt} that asks on the terminal. Without a keyboard (no terminal
 * after all) it gives the safe answer.
 */
export function terminalPermissionPrompt(io: TerminalIo): PermissionPrompt {
  // One question at a time: agents may ask in parallel.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionOutcome | undefined> => {
    if (signal.aborted || request.options.length === 0) return Promise.resolve(undefined);
    const keyboard = io.open();
    if (keyboard === undefined) return Promise.resolve(undefined);
    const fallback = defaultOption(request.options);
    const count = request.options.length;
    const hint = `Choose 1-${count}${fallback === undefined ? "" : ` (Enter: ${printable(fallback.name)})`}: `;
    io.output.write(questionText(request));
    return new Promise((resolve) => {
      const rl = createInterface({ input: keyboard.input, output: io.output, terminal: true });
      let settled = false;
      const finish = (outcome: RequestPermissionOutcome | undefined): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        rl.close();
        keyboard.close();
        resolve(outcome);
      };
      const onAbort = (): void => {
        io.output.write("\n(the question was withdrawn)\n");
        finish(undefined);
      };
      signal.addEventListener("abort", onAbort);
      // In raw mode Ctrl-C is a key: it is the program's Ctrl-C (cancel the turn).
      rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
      const prompt = (): void => {
        rl.question(hint, (answer) => {
          const text = answer.trim();
          const chosen = text === "" ? fallback : request.options[Number(text) - 1];
          if (chosen === undefined || (text !== "" && !/^\d+$/.test(text))) {
            io.output.write(`Type a number from 1 to ${count}.\n`);
            prompt();
            return;
          }
          finish({ outcome: "selected", optionId: chosen.optionId });
        });
      };
      prompt();
    });
  };
  return (request, { signal }) => {
    const answer = queue.then(() => ask(request, signal));
    queue = answer.catch(() => undefined);
    return answer;
  };
}

/**
 * The terminal prompt when the program runs on a terminal (stderr is one, and so is stdin
 * or `/dev/tty`), else `undefined`.
 */
export function terminalAsker(): PermissionPrompt | undefined {
  if (!process.stderr.isTTY) return undefined;
  const probe = openKeyboard();
  if (probe === undefined) return undefined;
  if (probe.input !== process.stdin) probe.close();
  return terminalPermissionPrompt({ open: openKeyboard, output: process.stderr });
}
