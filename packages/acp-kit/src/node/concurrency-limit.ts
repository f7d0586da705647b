/**
 * {@link ConcurrencyLimit}: at most N tasks at once; the others wait their turn, in
 * order, and leave the queue when their signal aborts.
 *
 * @module
 */

/** Runs at most `max` tasks at a time (first come, first served). */
export class ConcurrencyLimit {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  /** @param max - How many tasks may run at once: a whole number above 0, or `Infinity`. */
  constructor(private readonly max: number) {}

  /**
   * Runs `task` once a slot is free. If `signal` aborts while it waits, it never runs and
   * the promise rejects with the signal's reason.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.queue.indexOf(start);
        if (index !== -1) this.queue.splice(index, 1);
        reject(signal?.reason);
      };
      const start = (): void => {
        signal?.removeEventListener("abort", onAbort);
        this.running++;
        resolve();
      };
      this.queue.push(start);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private release(): void {
    this.running--;
    this.queue.shift()?.();
  }
}
