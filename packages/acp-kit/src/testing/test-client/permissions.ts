/**
 * How a {@link TestClient} answers `session/request_permission`: a fixed policy or a
 * callback, with pending answers turned into `cancelled` when the test cancels the turn.
 *
 * @module
 */
import type { MaybePromise } from "../../base/messages.js";
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionOutcome,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "../../schema/types.gen.js";

/**
 * A permission policy:
 * - `"allow"`: the first `allow_once` option, else the first `allow_always`;
 * - `"deny"`: the first `reject_once` option, else the first `reject_always`;
 * - `"first"`: the first option offered;
 * - `"cancel"`: outcome `cancelled`;
 * - a callback returning an outcome, or the `optionId` to select (it may be async: while
 *   it is pending, `TestClient.cancel` answers the request `cancelled`).
 *
 * When the wanted kind is not offered, the answer is `cancelled`.
 */
export type TestClientPermission =
  | "allow"
  | "deny"
  | "first"
  | "cancel"
  | ((request: RequestPermissionRequest) => MaybePromise<RequestPermissionOutcome | string>);

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

function select(option: PermissionOption | undefined): RequestPermissionResponse {
  return option === undefined
    ? CANCELLED
    : { outcome: { outcome: "selected", optionId: option.optionId } };
}

function byKind(
  options: readonly PermissionOption[],
  kinds: readonly PermissionOptionKind[],
): PermissionOption | undefined {
  for (const kind of kinds) {
    const found = options.find((option) => option.kind === kind);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The answer a fixed policy gives (callbacks are handled by {@link PendingTestPermissions}). */
export function fixedAnswer(
  policy: Exclude<TestClientPermission, (request: RequestPermissionRequest) => unknown>,
  request: RequestPermissionRequest,
): RequestPermissionResponse {
  switch (policy) {
    case "allow":
      return select(byKind(request.options, ["allow_once", "allow_always"]));
    case "deny":
      return select(byKind(request.options, ["reject_once", "reject_always"]));
    case "first":
      return select(request.options[0]);
    case "cancel":
      return CANCELLED;
  }
}

/** Permission requests whose answer is still being decided, by session. */
export class PendingTestPermissions {
  private readonly pending = new Map<string, Set<(response: RequestPermissionResponse) => void>>();

  /**
   * Answers `request` with `policy`; a pending answer is answered `cancelled` when its
   * session is cancelled or `withdrawn` aborts (the agent sent `$/cancel_request`).
   */
  answer(
    policy: TestClientPermission,
    request: RequestPermissionRequest,
    withdrawn?: AbortSignal,
  ): MaybePromise<RequestPermissionResponse> {
    if (withdrawn?.aborted === true) return CANCELLED;
    if (typeof policy !== "function") return fixedAnswer(policy, request);
    const decided = Promise.resolve(policy(request)).then((outcome): RequestPermissionResponse =>
      typeof outcome === "string"
        ? { outcome: { outcome: "selected", optionId: outcome } }
        : { outcome },
    );
    const sessionId = request.sessionId;
    let settle!: (response: RequestPermissionResponse) => void;
    const cancelled = new Promise<RequestPermissionResponse>((resolve) => (settle = resolve));
    const waiting = this.pending.get(sessionId) ?? new Set();
    this.pending.set(sessionId, waiting);
    waiting.add(settle);
    const withdraw = (): void => settle(CANCELLED);
    withdrawn?.addEventListener("abort", withdraw, { once: true });
    return Promise.race([decided, cancelled]).finally(() => {
      withdrawn?.removeEventListener("abort", withdraw);
      waiting.delete(settle);
      if (waiting.size === 0) this.pending.delete(sessionId);
    });
  }

  /** Answers every pending request of `sessionId` with `cancelled`. */
  cancelSession(sessionId: string): void {
    for (const settle of this.pending.get(sessionId) ?? []) settle(CANCELLED);
  }

  /** How many requests of `sessionId` are pending. */
  count(sessionId: string): number {
    return this.pending.get(sessionId)?.size ?? 0;
  }
}
