/**
 * Permission rules: a small text language for path and command rules, and the policy
 * that applies them.
 *
 * A rule is one line, `<allow|deny> <kind|*> <pattern>`:
 *
 * - the effect, `allow` or `deny`;
 * - a tool kind (`read`, `edit`, `delete`, `move`, `search`, `execute`, `think`,
 *   `fetch`, `switch_mode`, `other`; a call without a kind is `other`) or `*` for any;
 * - the pattern: the rest of the line, trimmed. It is matched against the call's
 *   command when the call's kind is `execute`, otherwise against its paths.
 *
 * Blank lines and lines starting with `#` are ignored. The pattern `*` alone matches
 * every call of the kind, even one without paths or command.
 *
 * Paths: each `locations[].path` and each `diff` path of the call, normalised (`..`
 * resolved). A pattern starting with `/` (or a drive letter) is a glob over the
 * absolute path; any other pattern is a glob over the path relative to the session's
 * cwd, and never matches a path outside the cwd (`**` is "anywhere inside the cwd",
 * including the cwd itself). Globs are picomatch globs with `dot: true`, so `*` and `**`
 * match dotfiles. A leading `./` is ignored; `..` segments and `!` negation are errors.
 *
 * Commands (see {@link toolCallCommand}): the whole command must match. `*` matches any
 * run of characters and `?` one character; everything else is literal (runs of blanks
 * count as one space). In `allow` rules the wildcards never match the shell characters
 * `; & | < > $ ( )`, a backtick or a newline, so `allow execute git status*` does not
 * allow `git status; rm -rf ~`; in `deny` rules they match anything.
 *
 * @module
 */
import picomatch from "picomatch/posix.js";
import { ALL_TOOL_KINDS } from "../../schema/tool-kinds.js";
import type { ToolKind } from "../../schema/types.gen.js";
import type { PermissionPolicy, PermissionVerdict } from "./policy.js";
import { normalizeCommand } from "./subjects.js";
import { ruleMatcher, type RuleMatcher, type RuleSubjects, subjectsOf } from "./match.js";
import type { PermissionRule } from "./rule-types.js";

export type { PermissionRule, PermissionRuleEffect } from "./rule-types.js";

/** A rule that cannot be parsed; the message names the line, the rule and the problem. */
export class PermissionRuleError extends Error {
  /** The rule's line number, counting from 1. */
  readonly line: number;
  /** The rule as written. */
  readonly rule: string;

  /**
   * Creates the error for the rule on `line`.
   *
   * @param problem - What is wrong; the line and the rule are added to the message.
   */
  constructor(line: number, rule: string, problem: string) {
    super(`Invalid permission rule on line ${line} (${JSON.stringify(rule)}): ${problem}`);
    this.name = "PermissionRuleError";
    this.line = line;
    this.rule = rule;
  }
}

/** The tool kinds a rule may name (besides `*`). */
export const TOOL_KINDS: readonly ToolKind[] = ALL_TOOL_KINDS;

const SYNTAX = "expected `<allow|deny> <kind|*> <pattern>`";

/**
 * Parses rules: one string with a rule per line, or a list of rules.
 *
 * @throws {@link PermissionRuleError} for the first invalid rule.
 */
export function parsePermissionRules(rules: string | readonly string[]): PermissionRule[] {
  const lines = typeof rules === "string" ? rules.split(/\r?\n/) : rules;
  const parsed: PermissionRule[] = [];
  lines.forEach((source, index) => {
    const text = source.trim();
    if (text === "" || text.startsWith("#")) return;
    parsed.push(parseRule(text, index + 1));
  });
  return parsed;
}

function parseRule(text: string, line: number): PermissionRule {
  const fail = (problem: string): never => {
    throw new PermissionRuleError(line, text, problem);
  };
  const [, effect = "", kind, rest = ""] = /^(\S+)(?:\s+(\S+))?(?:\s+(.*))?$/s.exec(text) ?? [];
  if (effect !== "allow" && effect !== "deny") {
    return fail(`unknown effect ${JSON.stringify(effect)}; ${SYNTAX}`);
  }
  if (kind === undefined) return fail(`missing tool kind and pattern; ${SYNTAX}`);
  if (kind !== "*" && !(TOOL_KINDS as readonly string[]).includes(kind)) {
    const expected = `* or one of ${TOOL_KINDS.join(", ")}`;
    return fail(`unknown tool kind ${JSON.stringify(kind)}; expected ${expected}`);
  }
  if (rest === "") return fail(`missing pattern; ${SYNTAX} (the pattern * matches everything)`);
  const pattern = kind === "execute" ? normalizeCommand(rest) : rest.trim().replace(/^(\.\/)+/, "");
  if (kind !== "execute" && pattern !== "*") checkPathPattern(pattern, fail);
  return { effect, kind: kind as ToolKind | "*", pattern, source: text, line };
}

function checkPathPattern(pattern: string, fail: (problem: string) => never): void {
  if (pattern === "") fail("the pattern is only `./`; write ** for everything inside the cwd");
  if (pattern.startsWith("!")) {
    fail("negated patterns (`!`) are not supported; write a deny rule instead");
  }
  if (pattern.split("/").includes("..")) {
    fail("`..` segments never match (paths are normalised); write an absolute pattern instead");
  }
  try {
    picomatch(pattern, { dot: true });
  } catch (error) {
    fail(`invalid glob: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Options of {@link permissionRules}. */
export interface PermissionRulesOptions {
  /**
   * Match paths and commands ignoring case. Default: `true` on macOS and Windows, whose
   * file systems usually ignore case (`deny edit .env` must catch `.ENV` there), `false`
   * elsewhere.
   */
  readonly nocase?: boolean;
  /** Answer with `*_always` options (see {@link PermissionVerdict.always}). Default `false`. */
  readonly always?: boolean;
}

/** Whether file names usually ignore case on this platform (macOS, Windows). */
const CASE_INSENSITIVE_FILES = process.platform === "darwin" || process.platform === "win32";

/**
 * A policy applying rules (parsed with {@link parsePermissionRules}, so invalid rules
 * throw here). For a request, only rules of the call's kind (or `*`) count, then:
 *
 * 1. deny, if any deny rule matches any of the call's paths (or its command);
 * 2. allow, if every path of the call (or its command) matches some allow rule; a
 *    call with no path (or no command) is allowed only by an allow rule with pattern `*`;
 * 3. otherwise no opinion.
 *
 * Deny wins whatever the order. To make exceptions ("deny every command but
 * `npm test`"), compose two policies: `[permissionRules("allow execute npm test"),
 * permissionRules("deny execute *")]`.
 */
export function permissionRules(
  rules: string | readonly string[],
  options: PermissionRulesOptions = {},
): PermissionPolicy {
  const nocase = options.nocase ?? CASE_INSENSITIVE_FILES;
  const compiled = parsePermissionRules(rules).map((rule) => ruleMatcher(rule, nocase));
  const allow: PermissionVerdict = { decision: "allow", always: options.always === true };
  const reject: PermissionVerdict = { decision: "reject", always: options.always === true };
  return (request, context) => {
    const subjects: RuleSubjects = subjectsOf(request.toolCall, context.cwd, nocase);
    const applicable = compiled.filter((m) => m.kind === "*" || m.kind === subjects.kind);
    if (applicable.some((m) => m.effect === "deny" && matchesAny(m, subjects))) return reject;
    const allows = applicable.filter((m) => m.effect === "allow");
    if (allows.some((m) => m.everything)) return allow;
    const covered =
      subjects.items.length > 0 && subjects.items.every((item) => allows.some((m) => m.test(item)));
    return covered ? allow : undefined;
  };
}

function matchesAny(matcher: RuleMatcher, subjects: RuleSubjects): boolean {
  return matcher.everything || subjects.items.some((item) => matcher.test(item));
}
