/**
 * Whether to use colours: only on a terminal, and never with `NO_COLOR` set (any
 * non-empty value) — see https://no-color.org. `FORCE_COLOR` forces them on.
 *
 * @module
 */

/** True when output to `stream` should be coloured. */
export function useColor(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true;
}
