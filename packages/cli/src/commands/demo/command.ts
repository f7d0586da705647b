/**
 * `acp-kit demo`: its options and its action (see `demo.ts`).
 *
 * @module
 */
import type { Command } from "commander";
import { useColor } from "../../color.js";
import type { PolicyFlags } from "../../policy-flags.js";
import { fail, plainMode } from "../context.js";
import { withPolicyOptions } from "../options.js";

/** Adds `demo`: the built-in demo agent in a temporary directory. */
export function addDemoCommand(program: Command): void {
  withPolicyOptions(
    program
      .command("demo")
      .description(
        "run against the built-in demo agent in a temporary directory (no account, no network)",
      )
      .option("--plain", "print a plain transcript instead of the live view")
      .option("--fast", "no pauses between the demo's steps")
      .option("--keep", "keep the temporary directory when the demo ends")
      .addHelpText(
        "after",
        `
The demo agent shows a plan, reads a file, proposes an edit as a diff and applies it only
with your permission, runs a harmless command in a terminal, and has a /explain command
and two modes. It only touches files in its temporary directory, which is removed when the
demo ends (unless --keep). When stdout is not a terminal (or CI is set), it prints a
plain transcript (and, unless a permission flag says otherwise, grants permission requests
inside that directory).`,
      ),
  ).action(async (opts: PolicyFlags & { plain?: boolean; fast?: boolean; keep?: boolean }) => {
    try {
      const { runDemo } = await import("./demo.js");
      process.exitCode = await runDemo({
        plain: plainMode(opts.plain),
        fast: opts.fast === true,
        keep: opts.keep === true,
        flags: opts,
        color: useColor(process.stdout),
      });
    } catch (error) {
      fail(error);
    }
  });
}
