/**
 * {@link ViewState}: the change signal every state class of the CLI gives its view.
 *
 * @module
 */

/**
 * State that a React view follows with `useSyncExternalStore`: `subscribe` a listener and
 * read `snapshot()`, a number that changes on every {@link ViewState.changed}.
 */
export abstract class ViewState {
  private version = 0;
  private readonly listeners = new Set<() => void>();

  /** Subscribes to changes; returns an unsubscribe. (A bound function.) */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** A number that changes on every change. (A bound function.) */
  snapshot = (): number => this.version;

  /** Signals a change to the view (listeners added meanwhile wait for the next one). */
  protected changed(): void {
    this.version++;
    for (const listener of [...this.listeners]) listener();
  }
}
