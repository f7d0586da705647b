/**
 * The permission requests a {@link PermissionBroker} is waiting on, per session: each
 * is answered exactly once, by its prompt, by a cancel, or by an abort of its request.
 *
 * @module
 */
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "../../schema/types.gen.js";
import { cancelledResponse } from "./policy.js";

/** One request waiting for an answer. */
export interface PendingPermission {
  /** The request. */
  readonly request: RequestPermissionRequest;
  /** Aborts when something other than the prompt answers the request. */
  readonly signal: AbortSignal;
  /** The answer, once settled. */
  readonly response: Promise<RequestPermissionResponse>;
  /** Answers the request (the prompt's answer); `false` if it was already answered. */
  settle(response: RequestPermissionResponse): boolean;
  /** Fails the request with `error` (the prompt threw), unless already answered. */
  fail(error: unknown): void;
}

/** Pending permission requests grouped by session. */
export class PendingPermissions {
  private readonly bySession = new Map<string, Set<Entry>>();

  /**
   * Adds a request. When `external` (the inbound request's signal) aborts, the request
   * is answered `cancelled`.
   */
  add(request: RequestPermissionRequest, external: AbortSignal | undefined): PendingPermission {
    let set = this.bySession.get(request.sessionId);
    if (set === undefined) {
      set = new Set();
      this.bySession.set(request.sessionId, set);
    }
    const entry = new Entry(request, () => {
      set.delete(entry);
      if (set.size === 0 && this.bySession.get(request.sessionId) === set) {
        this.bySession.delete(request.sessionId);
      }
    });
    set.add(entry);
    if (external !== undefined) {
      const onAbort = (): void => {
        entry.settleWith(cancelledResponse(), "the permission request was cancelled");
      };
      external.addEventListener("abort", onAbort, { once: true });
      entry.onDone(() => external.removeEventListener("abort", onAbort));
    }
    return entry;
  }

  /** The session's pending requests, oldest first. */
  ofSession(sessionId: string): PendingPermission[] {
    return [...(this.bySession.get(sessionId) ?? [])];
  }

  /**
   * Answers each pending request of the session for which `answer` gives a response,
   * aborting its prompt's signal with `reason`.
   *
   * @returns How many were answered.
   */
  settleSession(
    sessionId: string,
    answer: (entry: PendingPermission) => RequestPermissionResponse | undefined,
    reason: string,
  ): number {
    let count = 0;
    for (const entry of this.bySession.get(sessionId) ?? []) {
      const response = answer(entry);
      if (response !== undefined && entry.settleWith(response, reason)) count++;
    }
    return count;
  }
}

class Entry implements PendingPermission {
  readonly signal: AbortSignal;
  readonly response: Promise<RequestPermissionResponse>;
  private readonly controller = new AbortController();
  private readonly cleanups: (() => void)[] = [];
  private resolve: (response: RequestPermissionResponse) => void = () => undefined;
  private reject: (error: unknown) => void = () => undefined;
  private done = false;

  constructor(
    readonly request: RequestPermissionRequest,
    remove: () => void,
  ) {
    this.signal = this.controller.signal;
    this.response = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.cleanups.push(remove);
  }

  onDone(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  settle(response: RequestPermissionResponse): boolean {
    if (!this.finish()) return false;
    this.resolve(response);
    return true;
  }

  /** Answers the request from outside the prompt, then aborts the prompt's signal. */
  settleWith(response: RequestPermissionResponse, reason: string): boolean {
    if (!this.settle(response)) return false;
    this.controller.abort(new DOMException(reason, "AbortError"));
    return true;
  }

  fail(error: unknown): void {
    if (this.finish()) this.reject(error);
  }

  private finish(): boolean {
    if (this.done) return false;
    this.done = true;
    for (const cleanup of this.cleanups) cleanup();
    return true;
  }
}
