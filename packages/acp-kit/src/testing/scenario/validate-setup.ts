/**
 * Validation of the setup parts of a scenario: the agent section, modes, config options
 * and pre-existing sessions with their history.
 *
 * @module
 */
import { isPlainObject } from "../../base/messages.js";
import { isAbsolutePath } from "../../agent/ids.js";
import type * as schema from "../../schema/types.gen.js";
import { join, type Checker } from "./check.js";
import { selectValues } from "./validate-values.js";

const AGENT_KEYS = [
  "info",
  "protocolVersions",
  "capabilities",
  "authMethods",
  "requiresAuth",
  "listPageSize",
  "loginOutput",
];
/** @internal */
export function checkAgent(agent: unknown, checker: Checker): void {
  if (agent === undefined || !checker.object(agent, "agent")) return;
  checker.keys(agent, "agent", AGENT_KEYS);
  if (agent.info !== undefined) checker.protocol("Implementation", agent.info, "agent.info");
  const versions = agent.protocolVersions;
  if (versions !== undefined && checker.array(versions, "agent.protocolVersions")) {
    if (versions.length === 0)
      checker.fail("agent.protocolVersions", "is empty", "at least one version");
    versions.forEach((version, index) =>
      checker.integer(version, join("agent.protocolVersions", index), 0, 65535),
    );
  }
  if (agent.capabilities !== undefined) {
    checker.protocol("AgentCapabilities", agent.capabilities, "agent.capabilities");
  }
  const methods = agent.authMethods;
  if (methods !== undefined && checker.array(methods, "agent.authMethods")) {
    methods.forEach((method, index) =>
      checker.protocol("AuthMethod", method, join("agent.authMethods", index)),
    );
  }
  const requiresAuth = agent.requiresAuth;
  if (
    requiresAuth !== undefined &&
    (requiresAuth === "prompt" ||
      checker.boolean(requiresAuth, "agent.requiresAuth", 'true, false or "prompt"'))
  ) {
    const usable =
      Array.isArray(methods) && methods.some((m) => isPlainObject(m) && m.type !== "terminal");
    if (requiresAuth !== false && !usable) {
      checker.fail(
        "agent.requiresAuth",
        "is true but no auth method can be used with authenticate",
        'an "agent.authMethods" entry without type "terminal"',
      );
    }
  }
  if (agent.listPageSize !== undefined)
    checker.integer(agent.listPageSize, "agent.listPageSize", 1);
  const output = agent.loginOutput;
  if (output !== undefined && checker.object(output, "agent.loginOutput")) {
    for (const [methodId, lines] of Object.entries(output)) {
      const path = join("agent.loginOutput", methodId);
      if (checker.array(lines, path)) {
        lines.forEach((line, index) => checker.string(line, join(path, index)));
      }
    }
  }
}

/** @internal */
export function checkModes(modes: unknown, checker: Checker): string[] | undefined {
  if (modes === undefined || !checker.protocol("SessionModeState", modes, "modes"))
    return undefined;
  const state = modes as schema.SessionModeState;
  const ids = state.availableModes.map((mode) => mode.id);
  checker.oneOf(state.currentModeId, "modes.currentModeId", ids);
  return ids;
}

/** @internal */
export function checkConfigOptions(options: unknown, checker: Checker) {
  if (options === undefined || !checker.array(options, "configOptions")) return undefined;
  const ids = new Set<string>();
  const valid: schema.SessionConfigOption[] = [];
  options.forEach((option, index) => {
    const path = join("configOptions", index);
    if (!checker.protocol("SessionConfigOption", option, path)) return;
    const typed = option as schema.SessionConfigOption;
    valid.push(typed);
    if (ids.has(typed.id))
      checker.fail(join(path, "id"), `repeats the id "${typed.id}"`, "distinct ids");
    ids.add(typed.id);
    if (typed.type === "select") {
      checker.oneOf(typed.currentValue, join(path, "currentValue"), selectValues(typed.options));
    }
  });
  return valid;
}

/** @internal */
export function checkSessions(sessions: unknown, checker: Checker): void {
  if (sessions === undefined || !checker.array(sessions, "sessions")) return;
  const ids = new Set<string>();
  sessions.forEach((session, index) => {
    const path = join("sessions", index);
    if (
      !checker.object(session, path, '{ "sessionId", "cwd", "title"?, "updatedAt"?, "history"? }')
    )
      return;
    checker.keys(session, path, ["sessionId", "cwd", "title", "updatedAt", "history"]);
    if (checker.string(session.sessionId, join(path, "sessionId"), false)) {
      if (ids.has(session.sessionId))
        checker.fail(
          join(path, "sessionId"),
          `repeats "${session.sessionId}"`,
          "distinct session ids",
        );
      ids.add(session.sessionId);
    }
    if (checker.string(session.cwd, join(path, "cwd"), false) && !isAbsolutePath(session.cwd)) {
      checker.fail(join(path, "cwd"), "is not an absolute path", "an absolute path");
    }
    for (const key of ["title", "updatedAt"]) {
      if (session[key] !== undefined) checker.string(session[key], join(path, key));
    }
    const history = session.history;
    if (history !== undefined && checker.array(history, join(path, "history"))) {
      history.forEach((entry, at) =>
        checkHistoryEntry(entry, join(join(path, "history"), at), checker),
      );
    }
  });
}

/** @internal */
export function checkHistoryEntry(entry: unknown, path: string, checker: Checker): void {
  const expected = '{ "user" }, { "agent" }, { "thought" } or a SessionUpdate';
  if (!checker.object(entry, path, expected)) return;
  if ("sessionUpdate" in entry) {
    checker.protocol("SessionUpdate", entry, path);
    return;
  }
  const keys = Object.keys(entry);
  const [key] = keys;
  if (keys.length === 1 && key !== undefined && ["user", "agent", "thought"].includes(key)) {
    checker.string(entry[key], join(path, key));
  } else {
    checker.keys(entry, path, ["user", "agent", "thought", "sessionUpdate"]);
    if (keys.length !== 1) checker.fail(path, "is not a history entry", expected);
  }
}
