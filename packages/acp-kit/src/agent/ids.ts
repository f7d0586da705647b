/**
 * Identifier helpers: random hex from the runtime's Web Crypto, and unique ids for the
 * things an agent names (tool calls, messages).
 *
 * @module
 */

/**
 * `byteCount` random bytes as lowercase hex (twice as many characters), from
 * `crypto.getRandomValues`, which every supported runtime offers as a global.
 *
 * @param byteCount - How many random bytes. Default 16 (128 bits).
 */
export function randomHex(byteCount = 16): string {
  const bytes = new Uint8Array(byteCount);
  crypto.getRandomValues(bytes);
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Makes ids that never repeat within one source: a random salt fixed at creation plus a
 * counter, e.g. `call_5f0c9a2e7b1d_1`. The counter makes them unique; the salt keeps them
 * apart from ids another process (or an earlier run of this one) handed out in the same
 * session, as can happen after `session/load`.
 */
export class IdSource {
  private readonly salt = randomHex(6);
  private count = 0;

  /**
   * The next id.
   *
   * @param prefix - Put in front, separated by `_` (e.g. `call`, `msg`).
   */
  next(prefix: string): string {
    this.count += 1;
    return `${prefix}_${this.salt}_${this.count.toString(36)}`;
  }
}

/**
 * True for an absolute path on POSIX (`/x`) or Windows (`C:\x`, `C:/x`, `\\server\x`).
 * The protocol requires every file-system path it carries to be absolute.
 */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}
