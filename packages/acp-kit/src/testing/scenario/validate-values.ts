/**
 * Validation of each step kind's value and options.
 *
 * @module
 */
import { isPlainObject } from "../../base/messages.js";
import { join, type Checker, type StepContext } from "./check.js";
import { BUILTIN_PLACEHOLDERS } from "./placeholders.js";
import {
  PERMISSION_KINDS,
  PLAN_PRIORITIES,
  PLAN_STATUSES,
  STOP_REASONS,
  TOOL_KIND_VALUES,
  TOOL_STATUSES,
  type StepKind,
} from "./vocabulary.js";

type Step = Record<string, unknown>;
type ValueCheck = (step: Step, path: string, context: StepContext) => void;

const I32 = 2 ** 31;

/**
 * Checks the value and options of a step of kind `kind` (unknown keys are checked apart).
 * @internal
 */
export function checkStepValue(kind: StepKind, step: Step, path: string, context: StepContext) {
  const { checker } = context;
  const at = (key: string): string => join(path, key);
  const optional = (key: string, check: (value: unknown, where: string) => unknown): void => {
    if (step[key] !== undefined) check(step[key], at(key));
  };
  optional("messageId", (value, where) => checker.string(value, where, false));
  optional("toolCallId", (value, where) => checker.string(value, where, false));
  optional("saveAs", (value, where) => checkSaveAs(value, where, checker));
  optional("line", (value, where) => checker.integer(value, where, 1));
  optional("limit", (value, where) => checker.integer(value, where, 1));
  optional("outputByteLimit", (value, where) => checker.integer(value, where, 0));
  optional("wait", (value, where) => checker.boolean(value, where));
  optional("cwd", (value, where) => checker.string(value, where, false));
  optional("args", (value, where) => stringList(value, where, checker));
  optional("env", (value, where) => list(value, where, checker, "EnvVariable"));
  CHECKS[kind](step, path, context);
}

const streamCheck: ValueCheck = (step, path, { checker }) => {
  const kind = "text" in step ? "text" : "thought";
  const value = step[kind];
  if (Array.isArray(value)) {
    if (value.length === 0) checker.fail(join(path, kind), "is an empty array", "chunks");
    stringList(value, join(path, kind), checker);
  } else checker.string(value, join(path, kind));
  const chunk = step.chunk;
  if (chunk !== undefined && chunk !== "word" && chunk !== "line") {
    if (typeof chunk === "string") checker.oneOf(chunk, join(path, "chunk"), ["word", "line"]);
    else checker.integer(chunk, join(path, "chunk"), 1);
  }
  if (step.delayMs !== undefined) checker.integer(step.delayMs, join(path, "delayMs"), 0);
};

const toolFields = (fields: Step, path: string, { checker }: StepContext): void => {
  if (fields.kind !== undefined) checker.oneOf(fields.kind, join(path, "kind"), TOOL_KIND_VALUES);
  if (fields.status !== undefined) {
    checker.oneOf(fields.status, join(path, "status"), TOOL_STATUSES);
  }
  if (fields.title !== undefined) checker.string(fields.title, join(path, "title"));
  const content = fields.content;
  if (content !== undefined && checker.array(content, join(path, "content"))) {
    content.forEach((item, index) =>
      checkToolContent(item, join(join(path, "content"), index), checker),
    );
  }
  const locations = fields.locations;
  if (locations !== undefined && checker.array(locations, join(path, "locations"))) {
    locations.forEach((item, index) => {
      const where = join(join(path, "locations"), index);
      if (typeof item === "string") checker.string(item, where, false);
      else if (checker.object(item, where, "a path, or { path, line }")) {
        checker.keys(item, where, ["path", "line"]);
        checker.string(item.path, join(where, "path"), false);
        if (item.line !== undefined) checker.integer(item.line, join(where, "line"), 1);
      }
    });
  }
};

function checkToolContent(item: unknown, path: string, checker: Checker): void {
  const expected = '{ "text" }, { "diff", "newText" } or a ToolCallContent with "type"';
  if (!checker.object(item, path, expected)) return;
  if ("type" in item) {
    checker.protocol("ToolCallContent", item, path);
  } else if ("diff" in item) {
    checker.keys(item, path, ["diff", "oldText", "newText"]);
    checker.string(item.diff, join(path, "diff"), false);
    if (item.oldText !== undefined && item.oldText !== null) {
      checker.string(item.oldText, join(path, "oldText"));
    }
    if (checker.required(item, path, "newText", "a string")) {
      checker.string(item.newText, join(path, "newText"));
    }
  } else if ("text" in item) {
    checker.keys(item, path, ["text"]);
    checker.string(item.text, join(path, "text"));
  } else checker.fail(path, "is not tool call content", expected);
}

const CHECKS: Readonly<Record<StepKind, ValueCheck>> = {
  text: streamCheck,
  thought: streamCheck,
  message: (step, path, { checker }) =>
    checker.protocol("ContentBlock", step.message, join(path, "message")),
  delay: (step, path, { checker }) => checker.integer(step.delay, join(path, "delay"), 0),
  plan: (step, path, { checker }) => {
    const where = join(path, "plan");
    if (!checker.array(step.plan, where, "an array of plan entries")) return;
    step.plan.forEach((entry, index) => {
      const at = join(where, index);
      if (typeof entry === "string") return;
      if (!checker.object(entry, at, 'a string or { "content", "priority", "status" }')) return;
      checker.keys(entry, at, ["content", "priority", "status"]);
      checker.string(entry.content, join(at, "content"));
      if (entry.priority !== undefined) {
        checker.oneOf(entry.priority, join(at, "priority"), PLAN_PRIORITIES);
      }
      if (entry.status !== undefined)
        checker.oneOf(entry.status, join(at, "status"), PLAN_STATUSES);
    });
  },
  planEntry: (step, path, { checker }) => {
    if (typeof step.planEntry !== "string") {
      checker.integer(step.planEntry, join(path, "planEntry"), 0);
    }
    if (checker.required(step, path, "status", `one of ${PLAN_STATUSES.join(", ")}`)) {
      checker.oneOf(step.status, join(path, "status"), PLAN_STATUSES);
    }
  },
  toolCall: (step, path, context) => {
    context.checker.string(step.toolCall, join(path, "toolCall"), false);
    toolFields(step, path, context);
  },
  toolUpdate: (step, path, context) => {
    const where = join(path, "toolUpdate");
    if (!context.checker.object(step.toolUpdate, where, "the fields to change")) return;
    const fields = ["title", "kind", "status", "content", "locations", "rawInput", "rawOutput"];
    context.checker.keys(step.toolUpdate, where, fields);
    toolFields(step.toolUpdate, where, context);
  },
  permission: (step, path, context) => {
    const { checker } = context;
    const call = step.call;
    const at = join(path, "call");
    if (call !== undefined && checker.object(call, at, "the fields of the tool call asked about")) {
      const fields = ["title", "kind", "status", "content", "locations", "rawInput", "rawOutput"];
      checker.keys(call, at, fields);
      if (checker.required(call, at, "title", "the tool call's title")) {
        checker.string(call.title, join(at, "title"));
      }
      toolFields(call, at, context);
    }
    const where = join(path, "permission");
    if (!checker.array(step.permission, where, "an array of permission options")) return;
    if (step.permission.length === 0) checker.fail(where, "is empty", "at least one option");
    const ids = new Set<string>();
    step.permission.forEach((option, index) => {
      const at = join(where, index);
      if (typeof option === "string") {
        checker.oneOf(option, at, PERMISSION_KINDS);
        option = { optionId: option };
      } else checker.protocol("PermissionOption", option, at);
      const id = isPlainObject(option) ? option.optionId : undefined;
      if (typeof id !== "string") return;
      if (ids.has(id)) checker.fail(at, `repeats the optionId "${id}"`, "distinct option ids");
      ids.add(id);
    });
  },
  readFile: (step, path, { checker }) =>
    checker.string(step.readFile, join(path, "readFile"), false),
  writeFile: (step, path, { checker }) => {
    checker.string(step.writeFile, join(path, "writeFile"), false);
    if (checker.required(step, path, "content", "the file's new text")) {
      checker.string(step.content, join(path, "content"));
    }
  },
  terminal: (step, path, { checker }) =>
    checker.string(step.terminal, join(path, "terminal"), false),
  mode: (step, path, { checker, modes }) => {
    if (modes === undefined) {
      checker.fail(
        join(path, "mode"),
        "needs modes, but the scenario declares none",
        'a "modes" section',
      );
    } else checker.oneOf(step.mode, join(path, "mode"), modes);
  },
  commands: (step, path, { checker }) =>
    list(step.commands, join(path, "commands"), checker, "AvailableCommand"),
  setConfig: (step, path, { checker, configOptions }) => {
    const where = join(path, "setConfig");
    if (!checker.object(step.setConfig, where, "config option ids and values")) return;
    if (configOptions === undefined) {
      checker.fail(
        where,
        "needs config options, but the scenario declares none",
        'a "configOptions" section',
      );
      return;
    }
    const ids = configOptions.map((option) => option.id);
    for (const [id, value] of Object.entries(step.setConfig)) {
      const option = configOptions.find((candidate) => candidate.id === id);
      if (option === undefined) {
        checker.oneOf(id, join(where, id), ids);
      } else if (option.type === "boolean") {
        checker.boolean(value, join(where, id));
      } else checker.oneOf(value, join(where, id), selectValues(option.options));
    }
  },
  sessionInfo: (step, path, { checker }) => {
    const where = join(path, "sessionInfo");
    if (!checker.object(step.sessionInfo, where, '{ "title", "updatedAt" }')) return;
    checker.keys(step.sessionInfo, where, ["title", "updatedAt"]);
    for (const [key, value] of Object.entries(step.sessionInfo)) {
      if (value !== null) checker.string(value, join(where, key));
    }
  },
  usage: (step, path, { checker }) => {
    const where = join(path, "usage");
    if (checker.object(step.usage, where, '{ "used", "size", "cost"? }')) {
      checker.protocol("UsageUpdate", step.usage, where);
    }
  },
  update: (step, path, { checker }) =>
    checker.protocol("SessionUpdate", step.update, join(path, "update")),
  waitForCancel: (step, path, { checker }) => {
    if (step.waitForCancel !== true && !Array.isArray(step.waitForCancel)) {
      checker.fail(
        join(path, "waitForCancel"),
        "is not true or steps",
        "true, or the steps to run once cancelled",
      );
    }
  },
  fail: (step, path, { checker }) => {
    const where = join(path, "fail");
    if (!checker.object(step.fail, where, '{ "code", "message", "data"? }')) return;
    checker.keys(step.fail, where, ["code", "message", "data"]);
    checker.integer(step.fail.code, join(where, "code"), -I32, I32 - 1);
    checker.string(step.fail.message, join(where, "message"), false);
  },
  stop: (step, path, { checker }) => checker.oneOf(step.stop, join(path, "stop"), STOP_REASONS),
};

function checkSaveAs(value: unknown, path: string, checker: Checker): void {
  if (!checker.string(value, path, false)) return;
  if (!/^[A-Za-z_][\w-]*$/.test(value)) {
    checker.fail(
      path,
      `"${value}" is not a name`,
      "letters, digits, _ and -, not starting with a digit",
    );
  } else if (BUILTIN_PLACEHOLDERS.includes(value) || value === "match") {
    checker.fail(path, `"${value}" is a built-in placeholder`, "another name");
  }
}

function stringList(value: unknown, path: string, checker: Checker): void {
  if (!checker.array(value, path, "an array of strings")) return;
  value.forEach((item, index) => checker.string(item, join(path, index)));
}

function list(
  value: unknown,
  path: string,
  checker: Checker,
  type: "EnvVariable" | "AvailableCommand",
) {
  if (!checker.array(value, path, `an array of ${type}`)) return;
  value.forEach((item, index) => checker.protocol(type, item, join(path, index)));
}

/** The value ids of a select option (grouped or flat). @internal */
export function selectValues(options: unknown): string[] {
  if (!Array.isArray(options)) return [];
  return options.flatMap((option: unknown) => {
    if (!isPlainObject(option)) return [];
    if (Array.isArray(option.options)) return selectValues(option.options);
    return typeof option.value === "string" ? [option.value] : [];
  });
}
