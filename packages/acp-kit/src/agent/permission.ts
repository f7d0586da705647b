/**
 * Permission requests bound to a tool call: default options, and the answer reduced to
 * the kind of the chosen option.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import type * as schema from "../schema/types.gen.js";

/**
 * The four options offered when none are given, one per kind; each option's id is its
 * kind.
 */
export const DEFAULT_PERMISSION_OPTIONS: readonly schema.PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
];

/**
 * An option to offer: a full {@link PermissionOption}, or just a kind, which stands for
 * the default option of that kind (see {@link DEFAULT_PERMISSION_OPTIONS}).
 */
export type PermissionChoice = schema.PermissionOption | schema.PermissionOptionKind;

/**
 * What the user decided: the kind of the option they chose, or `"cancelled"` when the
 * turn was cancelled before they chose.
 */
export type PermissionDecision = schema.PermissionOptionKind | "cancelled";

/**
 * True when the decision allows the tool call (`allow_once` or `allow_always`).
 *
 * @param decision - What {@link ToolCallHandle.requestPermission} returned.
 */
export function isAllowed(decision: PermissionDecision): boolean {
  return decision === "allow_once" || decision === "allow_always";
}

/** What a permission request needs: implemented by {@link AgentSideConnection}. */
export interface PermissionSender {
  /** Sends `session/request_permission`. */
  requestPermission(
    params: schema.RequestPermissionRequest,
    options?: SendRequestOptions,
  ): Promise<schema.RequestPermissionResponse>;
}

/**
 * The options to send: defaults for bare kinds, checked for duplicate ids.
 * @internal
 */
export function permissionOptions(
  choices: readonly PermissionChoice[] | undefined,
): schema.PermissionOption[] {
  if (choices === undefined) return [...DEFAULT_PERMISSION_OPTIONS];
  if (choices.length === 0) throw new TypeError("A permission request needs at least one option");
  const options = choices.map((choice) =>
    typeof choice === "string" ? defaultOption(choice) : choice,
  );
  const ids = new Set(options.map((option) => option.optionId));
  if (ids.size !== options.length) {
    throw new TypeError("Permission options must have distinct optionIds");
  }
  return options;
}

function defaultOption(kind: schema.PermissionOptionKind): schema.PermissionOption {
  const option = DEFAULT_PERMISSION_OPTIONS.find((candidate) => candidate.kind === kind);
  if (option === undefined) throw new TypeError(`Unknown permission option kind: ${kind}`);
  return { ...option };
}

/**
 * Asks the client and maps the answer to a {@link PermissionDecision}. A request that
 * fails once `signal` has aborted (the turn was cancelled) is `"cancelled"` too; an
 * option id the client was not offered is an error, never read as a permission.
 * @internal
 */
export async function askPermission(
  sender: PermissionSender,
  request: schema.RequestPermissionRequest,
  signal: AbortSignal,
): Promise<PermissionDecision> {
  let response: schema.RequestPermissionResponse;
  try {
    response = await sender.requestPermission(request, { signal });
  } catch (error) {
    // Whatever the request failed with, the cancellation caused it.
    if (signal.aborted) return "cancelled";
    throw error;
  }
  const outcome = response.outcome;
  if (outcome.outcome === "cancelled") return "cancelled";
  const chosen = request.options.find((option) => option.optionId === outcome.optionId);
  if (chosen === undefined) {
    throw new Error(
      `The client chose a permission option it was not offered: ${JSON.stringify(outcome.optionId)}`,
    );
  }
  return chosen.kind;
}
