/**
 * How one parsed permission rule matches a tool call's paths or command (the language
 * is described in `permission-rules.ts`).
 *
 * @module
 */
import picomatch from "picomatch/posix.js";
import type { ToolCallUpdate } from "../../schema/types.gen.js";
import type { PermissionRule, PermissionRuleEffect } from "./rule-types.js";
import { isAbsolutePath } from "../../agent/ids.js";
import { type PermissionPath, toolCallCommand, toolCallKind, toolCallPaths } from "./subjects.js";

/** What rules match in one tool call: its paths, or its command for `execute` calls. */
export interface RuleSubjects {
  /** The call's kind (`other` when it has none). */
  readonly kind: string;
  /** The call's paths, or its command (at most one) when the kind is `execute`. */
  readonly items: readonly (PermissionPath | string)[];
}

/** A rule made ready to match. */
export interface RuleMatcher {
  /** The rule's effect. */
  readonly effect: PermissionRuleEffect;
  /** The rule's kind, or `*`. */
  readonly kind: string;
  /** The pattern is `*`: it matches every call of the kind, with or without subjects. */
  readonly everything: boolean;
  /** Whether the pattern matches one path, or one command (a string). */
  test(item: PermissionPath | string): boolean;
}

/** The subjects of `toolCall` for rules: its command if it is an `execute` call, else its paths. */
export function subjectsOf(
  toolCall: ToolCallUpdate,
  cwd: string | undefined,
  nocase: boolean,
): RuleSubjects {
  const kind = toolCallKind(toolCall);
  if (kind !== "execute") return { kind, items: toolCallPaths(toolCall, cwd, nocase) };
  const command = toolCallCommand(toolCall);
  return { kind, items: command === undefined ? [] : [command] };
}

/** Compiles `rule`; patterns were checked by the parser. */
export function ruleMatcher(rule: PermissionRule, nocase: boolean): RuleMatcher {
  const everything = rule.pattern === "*";
  const testPath = rule.kind === "execute" || everything ? never : pathTest(rule.pattern, nocase);
  const testCommand =
    rule.kind !== "execute" && rule.kind !== "*"
      ? never
      : commandTest(rule.pattern, rule.effect === "deny", nocase);
  return {
    effect: rule.effect,
    kind: rule.kind,
    everything,
    test: (item) => everything || (typeof item === "string" ? testCommand(item) : testPath(item)),
  };
}

function never(): boolean {
  return false;
}

function pathTest(pattern: string, nocase: boolean): (path: PermissionPath) => boolean {
  const isMatch = picomatch(pattern, { dot: true, nocase });
  if (isAbsolutePath(pattern)) {
    return (path) => path.absolute !== undefined && isMatch(path.absolute);
  }
  return ({ relative }) => {
    if (relative === undefined) return false;
    // The cwd itself: `**` means "anywhere inside the cwd", so it includes the cwd.
    if (relative === ".") return pattern === "**" || isMatch(".");
    return isMatch(relative);
  };
}

/** Characters the wildcards of allow rules never match: shell control and substitution. */
const SHELL_SPECIAL = ";&|<>$()`\\r\\n";

/**
 * A whole-command matcher: `*` is any run of characters, `?` one character, the rest
 * literal. Unless `wildcardsMatchAll`, wildcards skip {@link SHELL_SPECIAL} characters.
 */
function commandTest(
  pattern: string,
  wildcardsMatchAll: boolean,
  nocase: boolean,
): (command: string) => boolean {
  const any = wildcardsMatchAll ? "[\\s\\S]" : `[^${SHELL_SPECIAL}]`;
  let source = "";
  for (const char of pattern) {
    if (char === "*") source += `${any}*`;
    else if (char === "?") source += any;
    else source += char.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
  }
  const regex = new RegExp(`^${source}$`, nocase ? "i" : "");
  return (command) => regex.test(command);
}
