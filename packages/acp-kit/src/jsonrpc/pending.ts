/**
 * Outbound requests waiting for their response. Each one settles exactly once: with the
 * result, with the peer's error, or with a local error (close, abort, timeout).
 *
 * @module
 */
import { STRICT_CHECK, type RawValidator, type ValueCheck } from "../base/validation.js";
import type { Logger } from "../base/logger.js";
import { ConnectionError, RequestError } from "./errors.js";
import { isPlainObject, type JsonRpcId } from "../base/messages.js";

/** How to check and normalise the result of one outbound request. */
export interface ResultShape {
  /** Validates the result; an invalid one rejects with a `ConnectionError("invalid_response")`. */
  readonly validate?: RawValidator | undefined;
  /** When true, a `null` result is read as `{}` (lenient peers send `null` for empty results). */
  readonly emptyResult?: boolean | undefined;
}

/** How results are checked, connection-wide. */
export interface ResultPolicy {
  /** Says why a result failed its validator's fast pass, or repairs it (when lenient). */
  readonly check: ValueCheck;
  /** Where repairs are reported. */
  readonly logger: Logger;
}

/** One request waiting for its answer. */
export class PendingRequest {
  /**
   * One request kept alive for good (never sent nor settled), so that V8 keeps this
   * class's hidden classes. V8 drops a hidden class at a full garbage collection once no
   * object has it, and throws away the optimized code that relied on it (`--trace-deopt`:
   * "weak objects"). The objects a request makes live only until it is answered, so every
   * full collection that found no request in flight threw away the optimized request
   * path, and the next requests ran on unoptimized code until it was optimized again.
   */
  static readonly shapeKeeper: PendingRequest = new PendingRequest(
    -1,
    "",
    () => undefined,
    () => undefined,
    undefined,
    { check: STRICT_CHECK, logger: {} },
  );

  timer: ReturnType<typeof setTimeout> | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;

  constructor(
    readonly id: number,
    readonly method: string,
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (error: unknown) => void,
    private readonly shape: ResultShape | undefined,
    private readonly policy: ResultPolicy,
  ) {}

  /** Settles with a response message (`result` or `error`). */
  settleWith(response: Record<string, unknown>): void {
    this.cleanup();
    if ("error" in response) {
      const error = response.error;
      if (
        isPlainObject(error) &&
        Number.isInteger(error.code) &&
        typeof error.message === "string"
      ) {
        this.reject(new RequestError(error.code as number, error.message, error.data));
      } else {
        this.reject(
          new ConnectionError(
            "invalid_response",
            `The peer answered ${this.method} with a malformed error`,
          ),
        );
      }
      return;
    }
    let result = response.result;
    if (result === null && this.shape?.emptyResult === true) result = {};
    const validate = this.shape?.validate;
    if (validate !== undefined && !validate(result, undefined)) {
      const outcome = this.policy.check.recheck(validate, result);
      if (!outcome.ok) {
        this.reject(
          new ConnectionError(
            "invalid_response",
            `The peer's result for ${this.method} is invalid`,
            { issues: outcome.issues, received: result },
          ),
        );
        return;
      }
      if (outcome.repaired.length > 0) {
        this.policy.logger.warn?.("Repaired invalid optional parts of a result", {
          method: this.method,
          repaired: outcome.repaired,
        });
      }
      result = outcome.value;
    }
    this.resolve(result);
  }

  /** Settles with a local error. */
  fail(error: unknown): void {
    this.cleanup();
    this.reject(error);
  }

  private cleanup(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onAbort !== undefined) this.signal?.removeEventListener("abort", this.onAbort);
    this.timer = undefined;
    this.onAbort = undefined;
  }
}

/** The table of outbound requests by id. */
export class PendingRequests {
  private readonly byId = new Map<JsonRpcId, PendingRequest>();

  /** How many requests are waiting. */
  get size(): number {
    return this.byId.size;
  }

  add(request: PendingRequest): void {
    this.byId.set(request.id, request);
  }

  /** True while the request with this id waits for its answer. */
  has(id: JsonRpcId): boolean {
    return this.byId.has(id);
  }

  /** Removes and returns the request with this id, if it is still waiting. */
  take(id: unknown): PendingRequest | undefined {
    const request = this.byId.get(id as JsonRpcId);
    if (request !== undefined) this.byId.delete(id as JsonRpcId);
    return request;
  }

  /** Fails every waiting request with `error` and empties the table. */
  failAll(error: unknown): void {
    const all = [...this.byId.values()];
    this.byId.clear();
    for (const request of all) request.fail(error);
  }
}
