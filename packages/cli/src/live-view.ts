/**
 * Whether `run` and `demo` can show the live view, or must print a plain transcript.
 *
 * The live view needs a terminal on both stdin and stdout, and Ink (which draws it) writes
 * no frames at all when the environment says it runs in CI (`CI` or
 * `CONTINUOUS_INTEGRATION` set to anything but `0` or `false`): a permission question
 * would never show. So CI means a plain transcript, as when output goes to a pipe.
 *
 * @module
 */

/** The parts of the process that decide it. */
export interface LiveViewContext {
  readonly stdin: { readonly isTTY?: boolean };
  readonly stdout: { readonly isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

/** True when the environment says it runs in CI, by the rule Ink follows. */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  const set = (key: string): boolean =>
    env[key] !== undefined && env[key] !== "0" && env[key] !== "false";
  return set("CI") || set("CONTINUOUS_INTEGRATION");
}

/**
 * Why the live view cannot be used (a sentence for the user), or `undefined` when it can.
 * `--plain` needs no explanation and gives `""`.
 */
export function plainReason(
  plainFlag: boolean | undefined,
  context: LiveViewContext = process,
): string | undefined {
  if (plainFlag === true) return "";
  if (context.stdout.isTTY !== true || context.stdin.isTTY !== true) return "";
  if (inCi(context.env))
    return "CI is set in the environment, so this is a plain transcript (unset CI for the live view).";
  return undefined;
}
