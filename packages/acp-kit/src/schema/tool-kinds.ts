/**
 * Every {@link ToolKind} of the protocol, as a list (for checking names people write:
 * permission rules, scenarios).
 *
 * @module
 */
import type { ToolKind } from "./types.gen.js";

/** Every `ToolKind`, in the schema's order. @internal */
export const ALL_TOOL_KINDS = [
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "switch_mode",
  "other",
] as const satisfies readonly ToolKind[];

type AssertNever<T extends never> = T;

/** Fails to compile when the schema gains a kind the list lacks. @internal */
type _ToolKindsAreComplete = AssertNever<Exclude<ToolKind, (typeof ALL_TOOL_KINDS)[number]>>;
