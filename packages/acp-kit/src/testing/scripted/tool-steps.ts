/**
 * What the steps that involve the client's tools do: tool calls, permission requests,
 * files and terminals.
 *
 * @module
 */
import { askPermission, isAllowed, permissionOptions } from "../../agent/permission.js";
import type * as schema from "../../schema/types.gen.js";
import type {
  ScenarioLocation,
  ScenarioToolContent,
  ToolCallFields,
} from "../scenario/step-types.js";
import type { StepOf } from "../scenario/vocabulary.js";
import type { Flow, StepRunner } from "./runner.js";
import type { ToolCallView } from "./sessions.js";

type ToolStepKind =
  "toolCall" | "toolUpdate" | "permission" | "readFile" | "writeFile" | "terminal";
type Handlers = {
  readonly [K in ToolStepKind]: (runner: StepRunner, step: StepOf<K>) => Promise<Flow>;
};

function toolContent(item: ScenarioToolContent, runner: StepRunner): schema.ToolCallContent {
  if ("type" in item) {
    const content = runner.deep(item);
    if (content.type === "diff") content.path = runner.path(content.path);
    return content;
  }
  if ("diff" in item) {
    const diff: schema.ToolCallContent = {
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

function location(item: ScenarioLocation, runner: StepRunner): schema.ToolCallLocation {
  if (typeof item === "string") return { path: runner.path(item) };
  const found: schema.ToolCallLocation = { path: runner.path(item.path) };
  if (item.line !== undefined) found.line = item.line;
  return found;
}

/** The rendered fields of a tool call step, in protocol form and key order. */
function fields(source: ToolCallFields & { title?: string }, runner: StepRunner) {
  const out: Partial<schema.ToolCallUpdate> = {};
  if (source.title !== undefined) out.title = runner.text(source.title);
  if (source.kind !== undefined) out.kind = source.kind;
  if (source.status !== undefined) out.status = source.status;
  if (source.content !== undefined) out.content = source.content.map((c) => toolContent(c, runner));
  if (source.locations !== undefined) {
    out.locations = source.locations.map((l) => location(l, runner));
  }
  if (source.rawInput !== undefined) out.rawInput = runner.deep(source.rawInput);
  if (source.rawOutput !== undefined) out.rawOutput = runner.deep(source.rawOutput);
  return out;
}

function view(runner: StepRunner, toolCallId: string): ToolCallView {
  const found = runner.session.toolCalls.get(toolCallId);
  if (found !== undefined) return found;
  // A tool call of an earlier run (or the client's own idea): start from a blank view.
  const blank: ToolCallView = {
    title: "",
    kind: "other",
    status: "pending",
    content: [],
    locations: [],
  };
  runner.session.toolCalls.set(toolCallId, blank);
  return blank;
}

function applyFields(target: ToolCallView, patch: Partial<schema.ToolCallUpdate>): void {
  if (typeof patch.title === "string") target.title = patch.title;
  if (patch.kind !== undefined && patch.kind !== null) target.kind = patch.kind;
  if (patch.status !== undefined && patch.status !== null) target.status = patch.status;
  if (Array.isArray(patch.content)) target.content = patch.content;
  if (Array.isArray(patch.locations)) target.locations = patch.locations;
  if (patch.rawInput !== undefined) target.rawInput = patch.rawInput;
}

async function sendToolUpdate(
  runner: StepRunner,
  toolCallId: string,
  patch: Partial<schema.ToolCallUpdate>,
) {
  applyFields(view(runner, toolCallId), patch);
  await runner.send({ sessionUpdate: "tool_call_update", toolCallId, ...patch });
}

function permissionToolCall(toolCallId: string, call: ToolCallView): schema.ToolCallUpdate {
  const { title, kind, status, content, locations, rawInput } = call;
  const update: schema.ToolCallUpdate = { toolCallId, title, kind, status };
  if (content.length > 0) update.content = structuredClone(content);
  if (locations.length > 0) update.locations = structuredClone(locations);
  if (rawInput !== undefined) update.rawInput = rawInput;
  return update;
}

/**
 * The tool call of a permission step's `call` (never reported with `tool_call`): recorded
 * for the request and later steps; returns its id.
 */
function unannounced(runner: StepRunner, step: StepOf<"permission">): string {
  const call = step.call;
  const session = runner.session;
  const toolCallId =
    step.toolCallId === undefined
      ? `call_${++session.toolCallCount}`
      : runner.text(step.toolCallId);
  const view: ToolCallView = {
    title: call === undefined ? "" : runner.text(call.title),
    kind: "other",
    status: "pending",
    content: [],
    locations: [],
  };
  if (call !== undefined) applyFields(view, fields(call, runner));
  session.toolCalls.set(toolCallId, view);
  runner.lastToolCallId = toolCallId;
  return toolCallId;
}

/** The handlers of the tool, permission, file and terminal steps. @internal */
export const TOOL_STEP_HANDLERS: Handlers = {
  toolCall: async (runner, step) => {
    const session = runner.session;
    const toolCallId =
      step.toolCallId === undefined
        ? `call_${++session.toolCallCount}`
        : runner.text(step.toolCallId);
    const patch = fields(step, runner);
    const title = runner.text(step.toolCall);
    const fresh: ToolCallView = {
      title,
      kind: "other",
      status: "pending",
      content: [],
      locations: [],
    };
    applyFields(fresh, patch);
    session.toolCalls.set(toolCallId, fresh);
    runner.lastToolCallId = toolCallId;
    const { kind, content, locations, rawInput, rawOutput } = patch;
    const update: schema.SessionUpdate = { sessionUpdate: "tool_call", toolCallId, title };
    if (kind !== undefined && kind !== null) update.kind = kind;
    update.status = fresh.status;
    if (content !== undefined && content !== null) update.content = content;
    if (locations !== undefined && locations !== null) update.locations = locations;
    if (rawInput !== undefined) update.rawInput = rawInput;
    if (rawOutput !== undefined) update.rawOutput = rawOutput;
    await runner.send(update);
    return undefined;
  },
  toolUpdate: async (runner, step) => {
    await sendToolUpdate(
      runner,
      runner.toolCallId(step.toolCallId),
      fields(step.toolUpdate, runner),
    );
    return undefined;
  },
  permission: async (runner, step) => {
    const toolCallId =
      step.call === undefined ? runner.toolCallId(step.toolCallId) : unannounced(runner, step);
    const request: schema.RequestPermissionRequest = {
      sessionId: runner.turn.sessionId,
      toolCall: permissionToolCall(toolCallId, view(runner, toolCallId)),
      options: permissionOptions(runner.deep([...step.permission])),
    };
    const decision = await askPermission(runner.turn.connection, request, runner.turn.signal);
    if (decision !== "cancelled") return runner.run(isAllowed(decision) ? step.allow : step.reject);
    runner.afterCancel = true;
    return (await runner.run(step.cancelled)) ?? { stop: "cancelled" };
  },
  readFile: (runner, step) =>
    runner.callClient(
      step,
      () => {
        runner.requireCapability(
          runner.env.clientCapabilities().fs?.readTextFile,
          "fs.readTextFile",
        );
        const options: { line?: number; limit?: number } = {};
        if (step.line !== undefined) options.line = step.line;
        if (step.limit !== undefined) options.limit = step.limit;
        return runner.turn.readTextFile(runner.path(step.readFile), options);
      },
      (content) => {
        if (step.saveAs !== undefined) runner.set(step.saveAs, content);
      },
    ),
  writeFile: (runner, step) =>
    runner.callClient(
      step,
      () => {
        runner.requireCapability(
          runner.env.clientCapabilities().fs?.writeTextFile,
          "fs.writeTextFile",
        );
        return runner.turn.writeTextFile(runner.path(step.writeFile), runner.text(step.content));
      },
      () => undefined,
    ),
  terminal: (runner, step) =>
    runner.callClient(
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

async function runTerminal(runner: StepRunner, step: StepOf<"terminal">) {
  runner.requireCapability(runner.env.clientCapabilities().terminal, "terminal");
  const toolCallId = runner.toolCallId(step.toolCallId);
  const params: Omit<schema.CreateTerminalRequest, "sessionId"> = {
    command: runner.text(step.terminal),
  };
  if (step.args !== undefined) params.args = step.args.map((arg) => runner.text(arg));
  if (step.env !== undefined) params.env = runner.deep([...step.env]);
  if (step.cwd !== undefined) params.cwd = runner.path(step.cwd);
  if (step.outputByteLimit !== undefined) params.outputByteLimit = step.outputByteLimit;
  const terminal = await runner.turn.createTerminal(params);
  try {
    const content = [
      ...view(runner, toolCallId).content,
      { type: "terminal" as const, terminalId: terminal.id },
    ];
    await sendToolUpdate(runner, toolCallId, { content });
    const options = { signal: runner.turn.signal };
    const exit = step.wait === false ? undefined : await terminal.waitForExit(options);
    const output = await terminal.currentOutput(options);
    const exitCode = exit?.exitCode ?? output.exitStatus?.exitCode ?? null;
    return { output: output.output, exitCode };
  } finally {
    // Released in every case, also when cancelled (this kills a command still running).
    await terminal.release().catch(() => undefined);
  }
}
