/**
 * The shape of a parsed permission rule, shared by the parser and the matcher.
 *
 * @module
 */
import type { ToolKind } from "../../schema/types.gen.js";

/** `allow` or `deny`: what a matching rule does. */
export type PermissionRuleEffect = "allow" | "deny";

/** One parsed rule. */
export interface PermissionRule {
  /** What the rule does when it matches. */
  readonly effect: PermissionRuleEffect;
  /** The tool kind it applies to, or `*` for every kind. */
  readonly kind: ToolKind | "*";
  /** The glob or command pattern (trimmed; a leading `./` removed). */
  readonly pattern: string;
  /** The line as written. */
  readonly source: string;
  /** The rule's line number, counting from 1 (its index + 1 when given as a list). */
  readonly line: number;
}
