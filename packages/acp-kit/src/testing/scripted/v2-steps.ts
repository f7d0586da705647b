/**
 * The scripted agent's turns in ACP v2: each scenario step said through an
 * {@link AgentSession} (message writers, tool call writers, agent-owned terminals, plans,
 * permission requests with a tool call subject). See docs/scripted-agent.md, "ACP v2".
 *
 * @module
 */
import { isAllowed } from "../../agent/permission.js";
import { permissionOptions } from "../../agent/permission.js";
import { ErrorCodes } from "../../base/error-codes.js";
import type { MaybePromise } from "../../base/messages.js";
import { RequestError } from "../../jsonrpc/errors.js";
import type * as v1 from "../../schema/types.gen.js";
import type * as v2 from "../../schema/v2/types.gen.js";
import type { AgentSession, MessageWriter, ToolCallWriter, Turn } from "../../v2/agent-session.js";
import {
  renderDeep,
  renderTemplate,
  resolvePath,
  solePlaceholder,
} from "../scenario/placeholders.js";
import type {
  ClientCallBranches,
  ScenarioLocation,
  ScenarioPlanEntry,
  ScenarioStep,
  ScenarioToolContent,
  ToolCallFields,
} from "../scenario/step-types.js";
import { stepKind, type StepKind, type StepOf } from "../scenario/vocabulary.js";
import type { ScriptedSession } from "./sessions.js";
import { aborted, errorMessage, pause, splitText } from "./timing.js";
import {
  noV2Equivalent,
  v2Commands,
  v2PlainUpdate,
  v2SessionOptions,
  v2ToolFields,
} from "./v2-convert.js";

/** A command the v2 scripted agent runs for a `terminal` step (v2 has no client terminals). */
export interface ScriptedCommand {
  /** The command. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Extra environment variables. */
  readonly env: readonly { readonly name: string; readonly value: string }[];
  /** Its working directory (absolute). */
  readonly cwd: string;
  /** The most output bytes to keep (the tail), when the step limits it. */
  readonly outputByteLimit?: number;
}

/** How a command of a `terminal` step ended. */
export interface ScriptedCommandResult {
  /** Everything it wrote (stdout and stderr). */
  readonly output: string;
  /** Its exit code (`null` when a signal ended it). */
  readonly exitCode: number | null;
  /** The signal that ended it, if one did. */
  readonly signal?: string | null;
}

/**
 * Runs the command of a `terminal` step for the v2 scripted agent, which shows it as its
 * own terminal. Stop the command when `signal` aborts (the turn was cancelled).
 */
export type ScriptedCommandRunner = (
  command: ScriptedCommand,
  signal: AbortSignal,
) => Promise<ScriptedCommandResult>;

/** The files the v2 scripted agent reads and writes itself (v2 has no client file system). */
export interface ScriptedFileSystem {
  /** Reads a text file (`line` is 1-based; `limit` is a number of lines). */
  readTextFile(
    path: string,
    options: { readonly line?: number; readonly limit?: number },
  ): MaybePromise<string>;
  /** Writes a text file (creating or replacing it). */
  writeTextFile(path: string, content: string): MaybePromise<void>;
}

/** A v2 session of the scripted agent: the scenario's session and its `AgentSession`. @internal */
export interface V2ScriptedSession {
  /** The scenario state (plan, modes, config options, counters). */
  readonly scripted: ScriptedSession;
  /** Emits the session as v2 requires. */
  readonly agent: AgentSession;
  /** The tool calls it reported, by id. */
  readonly tools: Map<string, ToolCallWriter>;
  /** How many terminals it made. */
  terminalCount: number;
}

/** What a v2 turn needs from its agent. @internal */
export interface V2TurnEnvironment {
  /** Multiplies every delay; 0 turns them off. */
  readonly delayScale: number;
  /** Runs the commands of `terminal` steps; absent: those steps fail. */
  readonly runCommand?: ScriptedCommandRunner | undefined;
  /** Serves `readFile` and `writeFile` steps; absent: those steps fail. */
  readonly fileSystem?: ScriptedFileSystem | undefined;
}

type Flow = { readonly stop: v1.StopReason } | undefined;
type Handler<S> = (runner: V2StepRunner, step: S) => Promise<Flow>;
type Handlers = { readonly [K in StepKind]: Handler<StepOf<K>> };

type MessageKind = "agent_message" | "agent_thought" | "user_message";

/** Runs the steps of one v2 turn. @internal */
export class V2StepRunner {
  /** True once the turn is cancelled and the steps that run after it are running. */
  afterCancel = false;
  /** The tool call the latest `toolCall` step reported. */
  lastToolCallId: string | undefined;
  private readonly values: Map<string, string>;
  /** The message an id-less chunk continues (v1 clients join such chunks the same way). */
  private current: { kind: MessageKind; writer: MessageWriter } | undefined;
  /** True while the prompt is the thread's last item: a user chunk then echoes it. */
  private echoOpen = true;

  constructor(
    readonly turn: Turn,
    readonly session: V2ScriptedSession,
    readonly env: V2TurnEnvironment,
    values: ReadonlyMap<string, string>,
  ) {
    this.values = new Map(values);
    this.values.set("cwd", session.scripted.cwd);
    this.values.set("sessionId", session.scripted.sessionId);
  }

  /** The scenario state of the session. */
  get scripted(): ScriptedSession {
    return this.session.scripted;
  }

  /** The session's v2 emitter. */
  get agent(): AgentSession {
    return this.session.agent;
  }

  /** Runs steps in order; returns how the turn ends, or `undefined` to go on. */
  async run(steps: readonly ScenarioStep[] | undefined): Promise<Flow> {
    for (const step of steps ?? []) {
      if (!this.afterCancel && this.turn.signal.aborted) throw this.turn.signal.reason;
      const handler = V2_STEP_HANDLERS[stepKind(step)] as Handler<ScenarioStep>;
      const flow = await handler(this, step);
      if (flow !== undefined) return flow;
    }
    return undefined;
  }

  /** Sets (or, with `undefined`, unsets) a placeholder value. */
  set(name: string, value: string | undefined): void {
    if (value === undefined) this.values.delete(name);
    else this.values.set(name, value);
  }

  /** The value of a placeholder. */
  lookup = (name: string): string | undefined => this.values.get(name);

  /** A string with its placeholders replaced. */
  text(template: string): string {
    return renderTemplate(template, this.lookup);
  }

  /** A value with the placeholders of every string inside replaced. */
  deep<T>(value: T): T {
    return renderDeep(value, this.lookup);
  }

  /** A rendered path, resolved against the session's cwd when relative. */
  path(template: string): string {
    return resolvePath(this.scripted.cwd, this.text(template));
  }

  /** True when `template` is exactly one placeholder that has no value. */
  isUnset(template: string): boolean {
    const name = solePlaceholder(template);
    return name !== undefined && !this.values.has(name);
  }

  /** Waits `ms` (scaled); skipped after cancellation. */
  async sleep(ms: number | undefined): Promise<void> {
    if (this.afterCancel || ms === undefined) return;
    await pause(ms * this.env.delayScale, this.turn.signal);
  }

  /** The id of the tool call a step names, or the turn's latest. */
  toolCallId(template: string | undefined): string {
    if (template !== undefined) return this.text(template);
    if (this.lastToolCallId !== undefined) return this.lastToolCallId;
    throw new RequestError(ErrorCodes.INTERNAL_ERROR, "The scenario names no tool call here");
  }

  /**
   * Appends a block to a message: the one `messageId` names, else the message the last
   * id-less chunk went to when it is of the same kind and nothing came in between in the
   * thread, else a new one.
   */
  async chunk(kind: MessageKind, content: v2.ContentBlock, messageId?: string): Promise<void> {
    if (kind === "user_message" && this.echoOpen) {
      // The agent echoing the prompt, as v1 agents do: in v2 the prompt's own message
      // (its id is the prompt answer's) takes the echoed content, as a v1 client's
      // record of the prompt does.
      this.echoOpen = false;
      const writer = this.agent.userMessage(this.turn.messageId);
      this.current = messageId === undefined ? { kind, writer } : undefined;
      await writer.replace([content]);
      return;
    }
    this.echoOpen = false;
    if (messageId !== undefined) {
      // An id-less chunk after it starts a new message, as v1 clients fold them.
      this.current = undefined;
      await this.writer(kind, messageId).append(content);
      return;
    }
    const writer = this.current?.kind === kind ? this.current.writer : this.writer(kind);
    this.current = { kind, writer };
    await writer.append(content);
  }

  /** Something new in the thread (a tool call): the next chunk starts a new message. */
  breakMessage(): void {
    this.current = undefined;
    this.echoOpen = false;
  }

  /** Reports a tool call: creates it (first update) or patches it. */
  async tool(toolCallId: string, fields: Record<string, unknown>): Promise<ToolCallWriter> {
    const known = this.session.tools.get(toolCallId);
    if (known !== undefined) {
      await known.update(fields);
      return known;
    }
    this.breakMessage();
    const writer = await this.agent.toolCall({ ...fields, toolCallId });
    this.session.tools.set(toolCallId, writer);
    return writer;
  }

  /**
   * A step with `then` / `onError` branches (files and terminals): on success `done` runs,
   * then the `then` steps; on failure the `onError` steps with `${error}` set (a failure
   * without `onError`, or caused by the cancellation, is thrown).
   */
  async branch<T>(
    step: ClientCallBranches,
    call: () => Promise<T>,
    done: (result: T) => void,
  ): Promise<Flow> {
    let result: T;
    try {
      result = await call();
    } catch (error) {
      if (this.turn.signal.aborted || step.onError === undefined) throw error;
      this.set("error", errorMessage(error));
      return this.run(step.onError);
    }
    done(result);
    return this.run(step.then);
  }

  /** Sends the session's config options (v1 modes as the `mode` option). */
  sendConfigOptions(): Promise<void> {
    const configOptions = v2SessionOptions(this.scripted.configOptions, this.scripted.modes) ?? [];
    return this.agent.update({ sessionUpdate: "config_option_update", configOptions });
  }

  /** Says a v1 update in v2 (the `update` step). */
  async update(update: v1.SessionUpdate): Promise<void> {
    const json = update as Record<string, unknown>;
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk":
      case "user_message_chunk": {
        const kind = update.sessionUpdate.slice(0, -"_chunk".length) as MessageKind;
        const id = typeof json.messageId === "string" ? json.messageId : undefined;
        await this.chunk(kind, update.content, id);
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        const { sessionUpdate: _kind, toolCallId, ...fields } = json;
        await this.tool(String(toolCallId), v2ToolFields(fields, this.scripted.cwd));
        return;
      }
      case "current_mode_update":
        await modeStep(this, update.currentModeId);
        return;
      default:
        await this.agent.update(v2PlainUpdate(update));
    }
  }

  private writer(kind: MessageKind, messageId?: string): MessageWriter {
    if (kind === "agent_message") return this.agent.agentMessage(messageId);
    if (kind === "agent_thought") return this.agent.agentThought(messageId);
    return this.agent.userMessage(messageId);
  }
}

async function modeStep(runner: V2StepRunner, mode: string): Promise<void> {
  const modes = runner.scripted.modes;
  if (modes === undefined) {
    throw noV2Equivalent(
      "a mode change in a scenario without modes (v2 has no modes, only a config option of category mode)",
    );
  }
  modes.currentModeId = mode;
  await runner.sendConfigOptions();
}

async function stream(
  runner: V2StepRunner,
  kind: "agent_message" | "agent_thought",
  value: string | readonly string[],
  step: { chunk?: StepOf<"text">["chunk"]; delayMs?: number; messageId?: string },
): Promise<Flow> {
  const chunks =
    typeof value === "string"
      ? splitText(runner.text(value), step.chunk)
      : value.map((chunk) => runner.text(chunk));
  const messageId = step.messageId === undefined ? undefined : runner.text(step.messageId);
  for (const text of chunks) {
    await runner.sleep(step.delayMs);
    await runner.chunk(kind, { type: "text", text }, messageId);
  }
  return undefined;
}

function planEntry(entry: ScenarioPlanEntry, runner: V2StepRunner): v1.PlanEntry {
  if (typeof entry === "string") {
    return { content: runner.text(entry), priority: "medium", status: "pending" };
  }
  return {
    content: runner.text(entry.content),
    priority: entry.priority ?? "medium",
    status: entry.status ?? "pending",
  };
}

function sendPlan(runner: V2StepRunner): Promise<void> {
  return runner.agent.plan(runner.scripted.plan.map((entry) => ({ ...entry })));
}

function toolContent(item: ScenarioToolContent, runner: V2StepRunner): v1.ToolCallContent {
  if ("type" in item) {
    const content = runner.deep(item);
    if (content.type === "diff") content.path = runner.path(content.path);
    return content;
  }
  if ("diff" in item) {
    const diff: v1.ToolCallContent = {
      type: "diff",
      path: runner.path(item.diff),
      newText: runner.text(item.newText),
    };
    const old = item.oldText;
    if (old !== undefined && old !== null && !runner.isUnset(old)) diff.oldText = runner.text(old);
    return diff;
  }
  return { type: "content", content: { type: "text", text: runner.text(item.text) } };
}

function location(item: ScenarioLocation, runner: V2StepRunner): v1.ToolCallLocation {
  if (typeof item === "string") return { path: runner.path(item) };
  const found: v1.ToolCallLocation = { path: runner.path(item.path) };
  if (item.line !== undefined) found.line = item.line;
  return found;
}

/** The rendered fields of a tool call step, in v2 form. */
function fields(source: ToolCallFields & { title?: string }, runner: V2StepRunner) {
  const out: Record<string, unknown> = {};
  if (source.title !== undefined) out.title = runner.text(source.title);
  if (source.kind !== undefined) out.kind = source.kind;
  if (source.status !== undefined) out.status = source.status;
  if (source.content !== undefined) out.content = source.content.map((c) => toolContent(c, runner));
  if (source.locations !== undefined) {
    out.locations = source.locations.map((l) => location(l, runner));
  }
  if (source.rawInput !== undefined) out.rawInput = runner.deep(source.rawInput);
  if (source.rawOutput !== undefined) out.rawOutput = runner.deep(source.rawOutput);
  return v2ToolFields(out, runner.scripted.cwd);
}

async function runTerminal(runner: V2StepRunner, step: StepOf<"terminal">) {
  const run = runner.env.runCommand;
  if (run === undefined) {
    throw noV2Equivalent(
      "a client terminal (terminal/create): v2 terminals are the agent's own, and this scripted agent was given no runCommand",
    );
  }
  const toolCallId = runner.toolCallId(step.toolCallId);
  const command: ScriptedCommand = {
    command: runner.text(step.terminal),
    args: (step.args ?? []).map((arg) => runner.text(arg)),
    env: runner.deep([...(step.env ?? [])]),
    cwd: step.cwd === undefined ? runner.scripted.cwd : runner.path(step.cwd),
    ...(step.outputByteLimit === undefined ? {} : { outputByteLimit: step.outputByteLimit }),
  };
  const session = runner.session;
  const terminalId = `term-${++session.terminalCount}`;
  const terminal = await runner.agent.terminal({
    terminalId,
    command: [command.command, ...command.args].join(" "),
    cwd: command.cwd,
  });
  const current = session.tools.get(toolCallId)?.state.content ?? [];
  await runner.tool(toolCallId, { content: [...current, { type: "terminal", terminalId }] });
  // `wait: false` reads what the command wrote so far and stops it, as a v1 release does.
  const controller = new AbortController();
  const stop = (): void => controller.abort(runner.turn.signal.reason);
  runner.turn.signal.addEventListener("abort", stop, { once: true });
  if (step.wait === false) controller.abort(new Error("released without waiting"));
  try {
    const result = await run(command, controller.signal).catch(async (error: unknown) => {
      if (step.wait === false) return { output: "", exitCode: null, signal: "SIGKILL" };
      // Stopped by the cancellation (or failed to start): the terminal shows it ended.
      await terminal.exit(runner.turn.signal.aborted ? { signal: "SIGTERM" } : {});
      throw error;
    });
    if (result.output !== "") await terminal.write(result.output);
    const exitStatus: v2.TerminalExitStatus = {};
    if (result.exitCode !== null) exitStatus.exitCode = result.exitCode;
    if (result.signal !== undefined && result.signal !== null) exitStatus.signal = result.signal;
    await terminal.exit(exitStatus);
    return { output: result.output, exitCode: step.wait === false ? null : result.exitCode };
  } finally {
    runner.turn.signal.removeEventListener("abort", stop);
  }
}

function needFiles(runner: V2StepRunner, what: string): ScriptedFileSystem {
  const files = runner.env.fileSystem;
  if (files === undefined) {
    throw noV2Equivalent(
      `the client's file system (${what}): in v2 the agent uses files itself, and this scripted agent was given no fileSystem`,
    );
  }
  return files;
}

/** The handler of every step kind in v2. @internal */
export const V2_STEP_HANDLERS: Handlers = {
  text: (runner, step) => stream(runner, "agent_message", step.text, step),
  thought: (runner, step) => stream(runner, "agent_thought", step.thought, step),
  message: async (runner, step) => {
    const id = step.messageId === undefined ? undefined : runner.text(step.messageId);
    await runner.chunk("agent_message", runner.deep(step.message), id);
    return undefined;
  },
  delay: async (runner, step) => {
    await runner.sleep(step.delay);
    return undefined;
  },
  plan: async (runner, step) => {
    runner.scripted.plan = step.plan.map((entry) => planEntry(entry, runner));
    await sendPlan(runner);
    return undefined;
  },
  planEntry: async (runner, step) => {
    const plan = runner.scripted.plan;
    const ref = typeof step.planEntry === "number" ? step.planEntry : runner.text(step.planEntry);
    const entry = typeof ref === "number" ? plan[ref] : plan.find((e) => e.content === ref);
    if (entry === undefined) {
      throw new RequestError(
        ErrorCodes.INTERNAL_ERROR,
        `The plan has no entry ${JSON.stringify(ref)}`,
      );
    }
    entry.status = step.status;
    await sendPlan(runner);
    return undefined;
  },
  mode: async (runner, step) => {
    await modeStep(runner, step.mode);
    return undefined;
  },
  commands: async (runner, step) => {
    const availableCommands = runner.deep([...step.commands]);
    runner.scripted.commands = availableCommands;
    await runner.agent.update({
      sessionUpdate: "available_commands_update",
      availableCommands: v2Commands(availableCommands),
    });
    return undefined;
  },
  setConfig: async (runner, step) => {
    const options = runner.scripted.configOptions ?? [];
    for (const [id, value] of Object.entries(step.setConfig)) {
      const option = options.find((candidate) => candidate.id === id);
      if (option !== undefined) (option as { currentValue: unknown }).currentValue = value;
    }
    await runner.sendConfigOptions();
    return undefined;
  },
  sessionInfo: async (runner, step) => {
    const info = runner.deep(step.sessionInfo);
    const update: v2.SessionUpdate = { sessionUpdate: "session_info_update" };
    if (info.title !== undefined) {
      update.title = info.title;
      runner.scripted.title = info.title;
    }
    if (info.updatedAt !== undefined) {
      update.updatedAt = info.updatedAt;
      runner.scripted.updatedAt = info.updatedAt;
    }
    await runner.agent.update(update);
    return undefined;
  },
  usage: async (runner, step) => {
    const usage: v2.UsageUpdate = runner.deep(step.usage);
    await runner.agent.update({ sessionUpdate: "usage_update", ...usage });
    return undefined;
  },
  update: async (runner, step) => {
    await runner.update(runner.deep(step.update));
    return undefined;
  },
  waitForCancel: async (runner, step) => {
    await aborted(runner.turn.signal);
    runner.afterCancel = true;
    const flow = step.waitForCancel === true ? undefined : await runner.run(step.waitForCancel);
    return flow ?? { stop: "cancelled" };
  },
  fail: (runner, step) => {
    const { code, message, data } = step.fail;
    return Promise.reject(new RequestError(code, runner.text(message), runner.deep(data)));
  },
  stop: (_runner, step) => Promise.resolve({ stop: step.stop }),
  toolCall: async (runner, step) => {
    const scripted = runner.scripted;
    const toolCallId =
      step.toolCallId === undefined
        ? `call_${++scripted.toolCallCount}`
        : runner.text(step.toolCallId);
    const patch = fields(step, runner);
    // A toolCall step always announces a new call, also for an id seen before.
    runner.session.tools.delete(toolCallId);
    runner.breakMessage();
    await runner.tool(toolCallId, {
      title: runner.text(step.toolCall),
      ...patch,
      status: patch.status ?? "pending",
    });
    runner.lastToolCallId = toolCallId;
    return undefined;
  },
  toolUpdate: async (runner, step) => {
    const toolCallId = runner.toolCallId(step.toolCallId);
    await runner.tool(toolCallId, fields(step.toolUpdate, runner));
    return undefined;
  },
  permission: async (runner, step) => {
    let toolCall: v2.ToolCallUpdate;
    if (step.call === undefined) {
      const toolCallId = runner.toolCallId(step.toolCallId);
      const known = runner.session.tools.get(toolCallId);
      toolCall = structuredClone(known === undefined ? { toolCallId } : { ...known.state });
    } else {
      // A call not reported before (see the step's `call`): only the request carries it.
      const toolCallId =
        step.toolCallId === undefined
          ? `call_${++runner.scripted.toolCallCount}`
          : runner.text(step.toolCallId);
      runner.lastToolCallId = toolCallId;
      toolCall = { toolCallId, status: "pending", ...fields(step.call, runner) };
    }
    const options = permissionOptions(runner.deep([...step.permission]));
    const title =
      typeof toolCall.title === "string" && toolCall.title !== ""
        ? toolCall.title
        : toolCall.toolCallId;
    const answer = await runner.agent.requestPermission({
      title,
      subject: { type: "tool_call", toolCall },
      options,
    });
    const outcome = answer.outcome as { outcome: string; optionId?: string };
    if (outcome.outcome === "selected") {
      const chosen = options.find((option) => option.optionId === outcome.optionId);
      if (chosen === undefined) {
        throw new RequestError(
          ErrorCodes.INTERNAL_ERROR,
          `The client chose an option it was not offered: ${String(outcome.optionId)}`,
        );
      }
      return runner.run(isAllowed(chosen.kind) ? step.allow : step.reject);
    }
    if (outcome.outcome !== "cancelled") {
      throw new RequestError(
        ErrorCodes.INTERNAL_ERROR,
        `Unknown permission outcome: ${outcome.outcome}`,
      );
    }
    runner.afterCancel = true;
    return (await runner.run(step.cancelled)) ?? { stop: "cancelled" };
  },
  readFile: (runner, step) =>
    runner.branch(
      step,
      async () => {
        const files = needFiles(runner, "fs/read_text_file");
        const options: { line?: number; limit?: number } = {};
        if (step.line !== undefined) options.line = step.line;
        if (step.limit !== undefined) options.limit = step.limit;
        return await files.readTextFile(runner.path(step.readFile), options);
      },
      (content) => {
        if (step.saveAs !== undefined) runner.set(step.saveAs, content);
      },
    ),
  writeFile: (runner, step) =>
    runner.branch(
      step,
      async () => {
        const files = needFiles(runner, "fs/write_text_file");
        await files.writeTextFile(runner.path(step.writeFile), runner.text(step.content));
      },
      () => undefined,
    ),
  terminal: (runner, step) =>
    runner.branch(
      step,
      () => runTerminal(runner, step),
      (result) => {
        if (step.saveAs === undefined) return;
        runner.set(step.saveAs, result.output);
        runner.set(
          `${step.saveAs}.exitCode`,
          result.exitCode === null ? "" : String(result.exitCode),
        );
      },
    ),
};
