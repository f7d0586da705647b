/**
 * What the scripted agent's v2 side says instead of v1: auth methods, config options (and
 * v1 modes as a `mode` option), slash commands, tool call content and session updates.
 * What has no v2 form is an explicit error ({@link noV2Equivalent}), never dropped.
 *
 * @module
 */
import { ErrorCodes } from "../../base/error-codes.js";
import { RequestError } from "../../jsonrpc/errors.js";
import type * as v1 from "../../schema/types.gen.js";
import type * as v2 from "../../schema/v2/types.gen.js";
import { unifiedDiff } from "../../v2/line-diff.js";

type Json = Record<string, unknown>;

/** The id of the config option that stands for a scenario's v1 `modes`. @internal */
export const MODE_CONFIG_ID = "mode";

/**
 * The error for a scenario feature that v2 does not have (`-32603`, with
 * `data.noV2Equivalent` naming it).
 *
 * @param what - The feature, e.g. `the "mode" step without modes`.
 * @internal
 */
export function noV2Equivalent(what: string): RequestError {
  return new RequestError(
    ErrorCodes.INTERNAL_ERROR,
    `The scripted agent cannot say this in ACP v2: ${what} has no v2 equivalent`,
    { noV2Equivalent: what },
  );
}

/**
 * v1 `authMethods` as v2's: `id` becomes `methodId`; a method without `type` (the agent
 * logs in) and an `env_var` method (v2 has none: the agent checks its environment at
 * `auth/login`, as for v1 `authenticate`) become `type: "agent"`; `terminal` stays.
 * @internal
 */
export function v2AuthMethods(methods: readonly v1.AuthMethod[]): v2.AuthMethod[] {
  return methods.map((method) => {
    const { id, type, vars: _vars, ...rest } = method as Json;
    return {
      ...rest,
      type: type === "terminal" ? "terminal" : "agent",
      methodId: id,
    } as v2.AuthMethod;
  });
}

/** v1 config options (`id`) as v2's (`configId`). @internal */
export function v2ConfigOptions(
  options: readonly v1.SessionConfigOption[],
): v2.SessionConfigOption[] {
  return options.map((option) => {
    const { id, ...rest } = structuredClone(option) as Json;
    return { ...rest, configId: id } as v2.SessionConfigOption;
  });
}

/**
 * The session's config options in v2: its own, plus a `mode` option (`category: "mode"`)
 * standing for v1 modes, unless one of its own options is already a mode option.
 * @internal
 */
export function v2SessionOptions(
  options: readonly v1.SessionConfigOption[] | undefined,
  modes: v1.SessionModeState | undefined,
): v2.SessionConfigOption[] | undefined {
  const list = options === undefined ? undefined : v2ConfigOptions(options);
  if (modes === undefined) return list;
  if ((list ?? []).some((option) => option.category === "mode")) return list;
  const option = {
    configId: MODE_CONFIG_ID,
    name: "Mode",
    category: "mode",
    type: "select",
    currentValue: modes.currentModeId,
    options: modes.availableModes.map((mode) => ({
      value: mode.id,
      name: mode.name,
      ...(mode.description === undefined || mode.description === null
        ? {}
        : { description: mode.description }),
    })),
  } as v2.SessionConfigOption;
  return [...(list ?? []), option];
}

/** v1 slash commands as v2's (`type: "command"`, a text input gets `type: "text"`). @internal */
export function v2Commands(commands: readonly v1.AvailableCommand[]): v2.AvailableCommand[] {
  return commands.map((command) => {
    const { input, ...rest } = structuredClone(command) as Json;
    return (
      input !== undefined && input !== null
        ? { type: "command", ...rest, input: { type: "text", ...(input as Json) } }
        : { type: "command", ...rest }
    ) as v2.AvailableCommand;
  });
}

/**
 * One v1 tool call content item as v2's. A diff (`path`, `oldText`, `newText`) becomes one
 * change (`add` when `oldText` is absent, else `modify`) with a git patch; `content` and
 * `terminal` items are the same (in v2 a terminal is the agent's own: the scripted agent's
 * `terminal` step makes one). Other items are an error.
 *
 * @param item - The v1 item.
 * @param cwd - The session's directory (the patch names files relative to it, as git does).
 * @internal
 */
export function v2ToolContent(item: v1.ToolCallContent, cwd: string): v2.ToolCallContent {
  if (item.type === "content") return structuredClone(item);
  if (item.type === "diff") {
    const oldText = typeof item.oldText === "string" ? item.oldText : null;
    const root = cwd.replace(/\/+$/, "");
    const shown = item.path.startsWith(`${root}/`)
      ? item.path.slice(root.length + 1)
      : item.path.replace(/^\/+/, "");
    return {
      type: "diff",
      changes: [{ operation: oldText === null ? "add" : "modify", path: item.path }],
      patch: { format: "git_patch", text: unifiedDiff(shown, oldText, item.newText) },
      ...(item._meta === undefined || item._meta === null ? {} : { _meta: item._meta }),
    };
  }
  if (item.type === "terminal") return structuredClone(item);
  throw noV2Equivalent(`a tool call's "${String((item as Json).type)}" content`);
}

/** v1 tool call fields (of `tool_call` or `tool_call_update`) as v2's. @internal */
export function v2ToolFields(fields: Json, cwd: string): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (key === "content" && Array.isArray(value)) {
      out.content = (value as v1.ToolCallContent[]).map((item) => v2ToolContent(item, cwd));
    } else out[key] = structuredClone(value);
  }
  return out;
}

/**
 * A v1 session update (of a scenario's `update` step or a declared session's history)
 * that is not a message chunk or a tool call, as v2's. Message chunks and tool calls go
 * through the session's writers instead; `current_mode_update` needs the session's modes
 * (see the caller). Throws {@link noV2Equivalent} for what v2 lacks.
 * @internal
 */
export function v2PlainUpdate(update: v1.SessionUpdate): v2.SessionUpdate {
  const kind = update.sessionUpdate as string;
  const json = structuredClone(update) as Json;
  switch (kind) {
    case "plan":
      return {
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "plan", entries: json.entries },
        ...(json._meta === undefined ? {} : { _meta: json._meta }),
      } as v2.SessionUpdate;
    case "available_commands_update":
      return {
        ...json,
        availableCommands: v2Commands((json.availableCommands ?? []) as v1.AvailableCommand[]),
      } as v2.SessionUpdate;
    case "config_option_update":
      return {
        ...json,
        configOptions: v2ConfigOptions((json.configOptions ?? []) as v1.SessionConfigOption[]),
      } as v2.SessionUpdate;
    case "session_info_update":
    case "usage_update":
    case "notice":
    case "compaction_update":
    case "compaction_summary_chunk":
    case "plan_update": // this and the next: v1's unstable kinds, the same in v2
    case "plan_removed":
    case "subagent_update":
    case "session_message":
    case "session_message_chunk":
      return json as v2.SessionUpdate;
    default:
      throw noV2Equivalent(`the "${kind}" session update`);
  }
}
