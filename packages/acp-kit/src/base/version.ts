/**
 * The version of this package.
 *
 * @module
 */

/** The version of acp-kit (kept equal to package.json by a test). */
export const VERSION = "0.1.0";
