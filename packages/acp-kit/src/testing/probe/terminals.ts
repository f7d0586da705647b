/**
 * The client probe's terminal step: run a command (create returns at once, output and
 * exit arrive, release invalidates the id), kill a command that would run forever, and
 * overflow `outputByteLimit` with multi-byte characters.
 *
 * The commands are this Node.js executable with `-e` scripts: the probe runs on the
 * client's machine, so the program exists there.
 *
 * @module
 */
import type { TerminalHandle } from "../../peer/terminal-handle.js";
import { failed, passed, skipped, type CheckOutcome } from "../conformance/catalog.js";
import { attempt, errorAnswer, errorText, type ProbeContext } from "./context.js";

/** What the command of the run check prints. */
export const TERMINAL_MARKER = "acp-kit-probe-ok";
/** The byte limit of the output-limit check: odd, so that a cut can land inside a character. */
const OUTPUT_LIMIT = 101;

/** The outcomes of the terminal step. */
export interface TerminalOutcomes {
  /** `terminal-run`. */
  readonly run: CheckOutcome;
  /** `terminal-kill`. */
  readonly kill: CheckOutcome;
  /** `terminal-output-limit`. */
  readonly limit: CheckOutcome;
}

function script(context: ProbeContext, code: string, outputByteLimit?: number) {
  return {
    sessionId: context.sessionId,
    command: process.execPath,
    args: ["-e", code],
    cwd: context.cwd,
    ...(outputByteLimit === undefined ? {} : { outputByteLimit }),
  };
}

async function runChecked(
  context: ProbeContext,
  terminal: TerminalHandle,
  params: unknown,
): Promise<CheckOutcome> {
  const early = await terminal.currentOutput();
  if (early.exitStatus != null) {
    return failed(
      "terminal/create answered only after the command had finished (it must answer at once)",
      context.quote("terminal/output", { terminalId: terminal.id }, early),
    );
  }
  await context.send({
    sessionUpdate: "tool_call_update",
    toolCallId: "probe-terminal",
    status: "in_progress",
    content: [{ type: "terminal", terminalId: terminal.id }],
  });
  const options = { timeoutMs: context.timeouts.terminalMs };
  const exit = await terminal.waitForExit(options);
  const output = await terminal.currentOutput(options);
  const quote = context.quote("terminal/create", params, { terminalId: terminal.id });
  if (exit.exitCode !== 0) {
    return failed(`The command exited with ${JSON.stringify(exit)}, not code 0`, quote);
  }
  if (!output.output.includes(TERMINAL_MARKER)) {
    return failed("terminal/output does not contain what the command printed", [
      ...quote,
      ...context.quote("terminal/output", { terminalId: terminal.id }, output),
    ]);
  }
  await terminal.release();
  const after = await attempt(() => terminal.currentOutput());
  if (after.ok) {
    return failed(
      "terminal/output still answered after terminal/release: the id must be invalid",
      context.quote("terminal/output", { terminalId: terminal.id }, after.value),
    );
  }
  return passed(
    output.exitStatus == null ? ["terminal/output gave no exitStatus after the exit."] : [],
  );
}

async function probeRun(context: ProbeContext): Promise<CheckOutcome> {
  const code = `setTimeout(() => console.log(${JSON.stringify(TERMINAL_MARKER)}), 1500)`;
  const params = script(context, code);
  await context.send({
    sessionUpdate: "tool_call",
    toolCallId: "probe-terminal",
    title: "Run a command in a terminal (acp-kit probe)",
    kind: "execute",
    status: "pending",
    rawInput: { command: params.command, args: params.args },
  });
  const created = await attempt(() => context.connection.createTerminal(params));
  if (!created.ok) {
    return failed(
      `terminal/create failed: ${errorText(created.error)}`,
      context.quote("terminal/create", params, errorAnswer(created.error)),
    );
  }
  const terminal = created.value;
  const outcome = await attempt(() => runChecked(context, terminal, params));
  await terminal.release().catch(() => undefined);
  await context.send({
    sessionUpdate: "tool_call_update",
    toolCallId: "probe-terminal",
    status: outcome.ok && outcome.value.status === "pass" ? "completed" : "failed",
  });
  return outcome.ok ? outcome.value : failed(`A terminal call failed: ${errorText(outcome.error)}`);
}

async function probeKill(context: ProbeContext): Promise<CheckOutcome> {
  const params = script(context, "console.log('started'); setInterval(() => {}, 1000)");
  const created = await attempt(() => context.connection.createTerminal(params));
  if (!created.ok) return failed(`terminal/create failed: ${errorText(created.error)}`);
  const terminal = created.value;
  try {
    const options = { timeoutMs: context.timeouts.terminalMs };
    const killed = await attempt(() => terminal.kill(options));
    if (!killed.ok) return failed(`terminal/kill failed: ${errorText(killed.error)}`);
    const exit = await attempt(() => terminal.waitForExit(options));
    if (!exit.ok)
      return failed(`terminal/wait_for_exit after kill failed: ${errorText(exit.error)}`);
    const output = await attempt(() => terminal.currentOutput(options));
    if (!output.ok) {
      return failed(
        `terminal/output after terminal/kill failed (${errorText(output.error)}); the terminal must stay usable until released`,
      );
    }
    return passed();
  } finally {
    await terminal.release().catch(() => undefined);
  }
}

async function probeLimit(context: ProbeContext): Promise<CheckOutcome> {
  // 300 two-byte characters then "END\n": 604 bytes for a limit of 101.
  const params = script(
    context,
    "process.stdout.write('\\u00e9'.repeat(300) + 'END\\n')",
    OUTPUT_LIMIT,
  );
  const created = await attempt(() => context.connection.createTerminal(params));
  if (!created.ok) return failed(`terminal/create failed: ${errorText(created.error)}`);
  const terminal = created.value;
  try {
    const options = { timeoutMs: context.timeouts.terminalMs };
    await terminal.waitForExit(options);
    const output = await terminal.currentOutput(options);
    const bytes = new TextEncoder().encode(output.output).length;
    const quote = context.quote("terminal/output", { terminalId: terminal.id }, output);
    if (bytes > OUTPUT_LIMIT)
      return failed(`The output is ${bytes} bytes, over the limit of ${OUTPUT_LIMIT}`, quote);
    if (!output.truncated) return failed("The output was cut but truncated is not true", quote);
    if (output.output.includes("\uFFFD"))
      return failed("The output was cut inside a character", quote);
    if (!output.output.endsWith("END\n"))
      return failed("The output kept is not the end of what was printed", quote);
    return passed();
  } catch (error) {
    return failed(`A terminal call failed: ${errorText(error)}`);
  } finally {
    await terminal.release().catch(() => undefined);
  }
}

/** Runs the terminal step (skipped when the client did not advertise `terminal`). */
export async function probeTerminals(context: ProbeContext): Promise<TerminalOutcomes> {
  if (context.capabilities.terminal !== true) {
    const outcome = skipped("Not advertised (terminal)");
    return { run: outcome, kill: outcome, limit: outcome };
  }
  const run = await probeRun(context);
  const kill = await probeKill(context);
  const limit = await probeLimit(context);
  return { run, kill, limit };
}
