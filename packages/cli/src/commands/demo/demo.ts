/**
 * `acp-kit demo`: `run` against the built-in demo agent (the scripted demo scenario) in a
 * temporary working directory. No account, no network.
 *
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { allowAll } from "acp-kit/node";
import { policiesFromFlags, type PolicyFlags } from "../../policy-flags.js";
import { runInteractive } from "../../run/run-command.js";
import type { AgentTarget } from "../../target.js";

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Print a plain transcript (stdout is not a terminal, or `--plain`). */
  readonly plain: boolean;
  /** No pauses between the demo's steps. */
  readonly fast: boolean;
  /** Keep the temporary directory when the demo ends (it is removed by default). */
  readonly keep: boolean;
  readonly color: boolean;
  /**
   * Permission flags. Without any, the plain transcript grants every request (inside the
   * temporary directory) and the live view asks.
   */
  readonly flags: PolicyFlags;
}

const DEMO_README = `# Sample project

A tiny project for the acp-kit demo. The demo agent reads this file, proposes an edit to
a file of its own, and runs a harmless command here.

- It lives in a temporary directory.
- Nothing outside it is touched.
`;

/**
 * How to start the demo agent: the `acp-scripted-agent` program of the installed `acp-kit`
 * package, or (when running from source) the library's TypeScript entry through tsx.
 */
export function demoAgentTarget(fast: boolean): AgentTarget {
  const here = fileURLToPath(import.meta.url);
  const fromSource = here.endsWith(".ts");
  const entry = fromSource
    ? join(here, "../../../../..", "acp-kit", "src", "testing", "scripted", "agent-main.ts")
    : join(
        dirname(createRequire(here).resolve("acp-kit/package.json")),
        "dist",
        "scripted-agent.js",
      );
  // From source, tsx is resolved here: the agent runs in a temporary directory.
  const loader = fromSource ? ["--import", import.meta.resolve("tsx")] : [];
  const args = [...loader, entry, "--demo", ...(fast ? ["--no-delays"] : [])];
  return { command: process.execPath, args, label: "the acp-kit demo agent" };
}

/** Runs the demo; resolves with the exit code. */
export async function runDemo(options: DemoOptions): Promise<number> {
  const cwd = mkdtempSync(join(tmpdir(), "acp-kit-demo-"));
  writeFileSync(join(cwd, "README.md"), DEMO_README);
  const { yes, allowReads, denyAll, policy } = options.flags;
  const flagged = [yes, allowReads, denyAll, policy].some((flag) => flag !== undefined);
  const grantAll = options.plain && !flagged;
  const banner = [
    `acp-kit demo: a scripted agent working in ${cwd}`,
    options.plain
      ? `(plain transcript${grantAll ? "; permission requests are granted inside that directory" : ""})`
      : "Type anything for the tour, /explain, /mode code, /help. Ctrl-C cancels a turn; twice exits.",
  ].join("\n");
  // Also when a signal ends the program (it exits without coming back here).
  const removeDirectory = (): void => rmSync(cwd, { recursive: true, force: true });
  if (!options.keep) process.once("exit", removeDirectory);
  try {
    return await runInteractive({
      target: demoAgentTarget(options.fast),
      cwd,
      policies: grantAll ? [allowAll()] : policiesFromFlags(options.flags),
      plain: options.plain,
      color: options.color,
      banner,
      initialPrompt: "Give me the tour, please.",
      ...(options.plain
        ? { scriptedPrompts: ["Give me the tour, please.", "/explain README.md"] }
        : {}),
    });
  } finally {
    if (options.keep) process.stdout.write(`The demo's files are kept in ${cwd}\n`);
    else {
      process.off("exit", removeDirectory);
      removeDirectory();
    }
  }
}
