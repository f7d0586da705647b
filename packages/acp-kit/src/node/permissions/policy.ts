/**
 * Permission policies: small pure functions that decide a `session/request_permission`,
 * how they compose, and how a decision becomes one of the options the agent offered.
 *
 * @module
 */
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "../../schema/types.gen.js";
import { permissionMemoryKey, toolCallKind } from "./subjects.js";

/** Allow or reject: what a policy, a rule or a remembered answer wants. */
export type PolicyDecision = "allow" | "reject";

/** A policy's opinion about one permission request. */
export interface PermissionVerdict {
  /** Allow the tool call or reject it. */
  readonly decision: PolicyDecision;
  /**
   * Answer with the agent's `*_always` option, so that the choice is remembered (by the
   * agent, and by a {@link PermissionBroker} for the session). Default `false`.
   */
  readonly always?: boolean;
}

/** What a policy knows besides the request itself. */
export interface PermissionContext {
  /** The session asking. */
  readonly sessionId: string;
  /** The session's working directory (absolute), if known; relative path rules need it. */
  readonly cwd: string | undefined;
  /**
   * The session's remembered `*_always` answers, keyed by {@link permissionMemoryKey}.
   */
  readonly remembered: ReadonlyMap<string, PolicyDecision>;
}

/**
 * A permission policy: a pure function answering a request with a verdict, or
 * `undefined` for "no opinion" (the next policy decides).
 */
export type PermissionPolicy = (
  request: RequestPermissionRequest,
  context: PermissionContext,
) => PermissionVerdict | undefined;

/** Options shared by the built-in policies. */
export interface PolicyOptions {
  /** Answer with `*_always` options (see {@link PermissionVerdict.always}). Default `false`. */
  readonly always?: boolean;
}

/** Which option kinds carry a verdict, best first. */
const OPTION_KINDS: Record<PolicyDecision, Record<"once" | "always", PermissionOptionKind[]>> = {
  // Allowing once never grants "always": without `allow_once`, the verdict cannot apply.
  allow: { once: ["allow_once"], always: ["allow_always", "allow_once"] },
  // A broader no is still a no.
  reject: { once: ["reject_once", "reject_always"], always: ["reject_always", "reject_once"] },
};

/**
 * The option that carries `verdict`, or `undefined` when the agent offered none:
 *
 * - allow: `allow_once` (with `always`: `allow_always`, else `allow_once`);
 * - reject: `reject_once`, else `reject_always` (with `always`: the other way round).
 */
export function selectOption(
  options: readonly PermissionOption[],
  verdict: PermissionVerdict,
): PermissionOption | undefined {
  const kinds = OPTION_KINDS[verdict.decision][verdict.always === true ? "always" : "once"];
  for (const kind of kinds) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option !== undefined) return option;
  }
  return undefined;
}

/** A fresh `{ outcome: { outcome: "cancelled" } }`. */
export function cancelledResponse(): RequestPermissionResponse {
  return { outcome: { outcome: "cancelled" } };
}

/** A fresh `{ outcome: { outcome: "selected", optionId } }`. */
export function selectedResponse(optionId: string): RequestPermissionResponse {
  return { outcome: { outcome: "selected", optionId } };
}

/**
 * The answer when nothing decided: the agent's `reject_once` option, else its
 * `reject_always` option, else `cancelled`. Never an allow.
 */
export function safePermissionResponse(
  request: RequestPermissionRequest,
): RequestPermissionResponse {
  const option = selectOption(request.options, { decision: "reject" });
  return option === undefined ? cancelledResponse() : selectedResponse(option.optionId);
}

/**
 * Runs `policies` in order; the first with an applicable opinion decides.
 *
 * An allow verdict applies only if the agent offered an option carrying it
 * ({@link selectOption}); otherwise the next policy is asked. A reject verdict always
 * applies: it is answered with a reject option, or `cancelled` when the agent offered
 * none, so a later, more permissive policy never turns a "no" into a "yes".
 *
 * @returns The response, or `undefined` when no policy decided.
 */
export function decidePermission(
  request: RequestPermissionRequest,
  policies: PermissionPolicy | readonly PermissionPolicy[],
  context: PermissionContext,
): RequestPermissionResponse | undefined {
  const list = typeof policies === "function" ? [policies] : policies;
  for (const policy of list) {
    const verdict = policy(request, context);
    if (verdict === undefined) continue;
    const option = selectOption(request.options, verdict);
    if (option !== undefined) return selectedResponse(option.optionId);
    if (verdict.decision === "reject") return cancelledResponse();
  }
  return undefined;
}

/**
 * One policy made of several: the first with an applicable opinion wins, with the same
 * fall-through as {@link decidePermission}.
 */
export function composePolicies(...policies: readonly PermissionPolicy[]): PermissionPolicy {
  return (request, context) => {
    for (const policy of policies) {
      const verdict = policy(request, context);
      if (verdict === undefined) continue;
      if (verdict.decision === "reject") return verdict;
      if (selectOption(request.options, verdict) !== undefined) return verdict;
    }
    return undefined;
  };
}

/** A context for calling policies directly (tests, one-off decisions). */
export function permissionContext(
  sessionId: string,
  cwd?: string,
  remembered: ReadonlyMap<string, PolicyDecision> = new Map(),
): PermissionContext {
  return { sessionId, cwd, remembered };
}

/** Allows every request. */
export function allowAll(options: PolicyOptions = {}): PermissionPolicy {
  const verdict: PermissionVerdict = { decision: "allow", always: options.always === true };
  return () => verdict;
}

/** Rejects every request. */
export function denyAll(options: PolicyOptions = {}): PermissionPolicy {
  const verdict: PermissionVerdict = { decision: "reject", always: options.always === true };
  return () => verdict;
}

/**
 * The tool kinds {@link allowReadOnly} allows by default: `read`, `search` and `think`.
 * Not `fetch` (network access can leak data) nor `switch_mode` (leaving a planning mode
 * is what permission requests of that kind are about).
 */
export const READ_ONLY_KINDS: readonly string[] = ["read", "search", "think"];

/** Options of {@link allowReadOnly}. */
export interface AllowReadOnlyOptions extends PolicyOptions {
  /** The kinds to allow. Default {@link READ_ONLY_KINDS}. */
  readonly kinds?: readonly string[];
}

/**
 * Allows tool calls of read-only kinds (a call without a kind is `other`, so it is not
 * read-only); no opinion about the others.
 */
export function allowReadOnly(options: AllowReadOnlyOptions = {}): PermissionPolicy {
  const kinds = new Set(options.kinds ?? READ_ONLY_KINDS);
  const verdict: PermissionVerdict = { decision: "allow", always: options.always === true };
  return (request) => (kinds.has(toolCallKind(request.toolCall)) ? verdict : undefined);
}

/**
 * Answers the way the session answered before with an `*_always` option
 * ({@link PermissionContext.remembered}, keyed by {@link permissionMemoryKey}),
 * preferring the same `*_always` option again.
 */
export function rememberedAnswers(): PermissionPolicy {
  return (request, context) => {
    const key = permissionMemoryKey(request.toolCall);
    const decision = key === undefined ? undefined : context.remembered.get(key);
    return decision === undefined ? undefined : { decision, always: true };
  };
}
