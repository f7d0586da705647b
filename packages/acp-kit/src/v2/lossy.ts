/**
 * The count of what a bridge could not carry across versions.
 *
 * @module
 */
import type { Logger } from "../base/logger.js";

/** One step a bridge could not represent exactly in the other version. */
export interface LossyEvent {
  /** What was lost, e.g. `"diff_without_patch"`, `"status_paused"`, `"message_rewrite"`. */
  readonly kind: string;
  /** The session concerned, when there is one. */
  readonly sessionId?: string | undefined;
  /** A few words on the instance. */
  readonly detail?: string | undefined;
}

/** Counts lossy steps by kind, and tells the logger and a listener of each. */
export class LossyCounter {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly logger: Logger | undefined,
    private readonly listener: ((event: LossyEvent) => void) | undefined,
  ) {}

  /** Records one lossy step. */
  count(kind: string, sessionId?: string, detail?: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    const event: LossyEvent = { kind, sessionId, detail };
    this.logger?.debug?.("bridge: lossy step", { ...event });
    try {
      this.listener?.(event);
    } catch (error) {
      this.logger?.error?.("bridge: an onLossy listener threw", { error });
    }
  }

  /** The counts so far, by kind. */
  snapshot(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.counts);
  }

  /** The total so far. */
  get total(): number {
    let total = 0;
    for (const value of this.counts.values()) total += value;
    return total;
  }
}
