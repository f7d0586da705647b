/**
 * The errors of the registry: what went wrong, said so that a user can act on it.
 *
 * @module
 */

/** What kind of failure a {@link RegistryError} is. */
export type RegistryErrorCode =
  | "unknown_agent"
  | "unsupported_platform"
  | "download_failed"
  | "checksum_mismatch"
  | "unsafe_archive"
  | "bad_archive"
  | "install_failed"
  | "tool_missing"
  | "invalid_entry"
  | "insecure_download"
  | "too_large";

/** A failure to find, install or start an agent from the registry. */
export class RegistryError extends Error {
  /** What kind of failure it is. */
  readonly code: RegistryErrorCode;

  /**
   * Creates the error.
   * @param code - What kind of failure it is.
   * @param message - What went wrong and what to do.
   * @param options - The underlying error.
   */
  constructor(code: RegistryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RegistryError";
    this.code = code;
  }
}
