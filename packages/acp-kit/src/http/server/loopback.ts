/**
 * Which listen addresses stay on this machine.
 *
 * @module
 */

/** Whether a listen address is loopback only (`127.x.x.x`, `::1`, `localhost`). */
export function isLoopbackHost(host: string): boolean {
  return (
    host === "localhost" ||
    host === "::1" ||
    host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
