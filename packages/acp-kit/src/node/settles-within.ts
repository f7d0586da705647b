/**
 * Waiting for something, but not for ever.
 *
 * @module
 */

/**
 * Resolves `true` once `promise` settles (fulfilled or rejected: only the timing matters),
 * or `false` after `ms` milliseconds if it has not by then. Never rejects; the timer is
 * cleared either way.
 * @internal
 */
export function settlesWithin(promise: PromiseLike<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = Promise.resolve(promise).then(
    () => true,
    () => true,
  );
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}
