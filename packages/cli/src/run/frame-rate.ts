/**
 * Drawing the live view at a frame rate rather than on every update: a long turn brings
 * thousands of updates a second, and each drawing lays out the whole live area (Ink's
 * layout measures and wraps every line of it), so drawing per update made a turn cost
 * milliseconds per chunk. Changes are instead gathered into frames: the first change draws
 * at once, the ones that follow within a frame draw together at its end.
 *
 * @module
 */
import { useMemo, useSyncExternalStore } from "react";

/** The shortest time between two drawings of the view, in milliseconds (about 30 a second, as Ink writes). */
export const FRAME_MS = 32;

/** A `subscribe` function as `useSyncExternalStore` takes it. */
type Subscribe = (listener: () => void) => () => void;

/**
 * `subscribe` whose listeners are called at most once per `intervalMs`: at once when the
 * last call is that long ago, otherwise once at the end of the interval (however many
 * changes came in it). A change for which `urgent` says true is passed on at once (one
 * that must be drawn before anything else happens, such as leaving). Unsubscribing
 * cancels a call still waiting.
 */
export function throttleSubscribe(
  subscribe: Subscribe,
  intervalMs = FRAME_MS,
  urgent: () => boolean = () => false,
): Subscribe {
  return (listener) => {
    let last = -Infinity;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fire = (): void => {
      clearTimeout(timer);
      timer = undefined;
      last = performance.now();
      listener();
    };
    const unsubscribe = subscribe(() => {
      if (urgent()) {
        fire();
        return;
      }
      if (timer !== undefined) return;
      const wait = last + intervalMs - performance.now();
      if (wait <= 0) fire();
      else timer = setTimeout(fire, wait);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  };
}

/**
 * `useSyncExternalStore` over a store, re-rendering at most once per frame (see
 * {@link throttleSubscribe}). A render caused by anything else still reads the latest
 * snapshot.
 */
export function useStoreByFrame<T>(
  subscribe: Subscribe,
  getSnapshot: () => T,
  urgent?: () => boolean,
): T {
  const throttled = useMemo(
    () => throttleSubscribe(subscribe, FRAME_MS, urgent),
    // `urgent` is read when a change comes; a new function need not subscribe again.
    [subscribe],
  );
  return useSyncExternalStore(throttled, getSnapshot);
}
