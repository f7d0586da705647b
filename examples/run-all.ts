/**
 * Runs every example end to end, each as its own Node process, and prints its output.
 * Exits non-zero if any example fails or runs longer than its time limit.
 *
 *   npm run examples            (or: npx tsx examples/run-all.ts)
 *
 * `client.ts` drives `agent.ts`, so running the client exercises both sides: once with
 * permission granted and once with it denied. `toolkit-client.ts` drives it too, through
 * acp-kit/node's `connectAgent`.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(here);

interface Example {
  /** What the run shows. */
  readonly name: string;
  /** The script, relative to `examples/`. */
  readonly file: string;
  readonly args?: readonly string[];
  /** Milliseconds before the run counts as hung. */
  readonly timeoutMs?: number;
}

const EXAMPLES: readonly Example[] = [
  { name: "client + agent (permission approved)", file: "client.ts" },
  { name: "client + agent (permission denied)", file: "client.ts", args: ["--deny"] },
  { name: "toolkit client (connectAgent) + agent", file: "toolkit-client.ts" },
];

const DEFAULT_TIMEOUT_MS = 60_000;

interface Outcome {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly ms: number;
}

function prefixLines(prefix: string): (chunk: Buffer) => void {
  let carry = "";
  return (chunk) => {
    carry += chunk.toString("utf8");
    const lines = carry.split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
  };
}

function run(example: Example): Promise<Outcome> {
  const started = Date.now();
  const timeoutMs = example.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const args = ["--import", "tsx", join(here, example.file), ...(example.args ?? [])];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", prefixLines("  "));
    child.stderr.on("data", prefixLines("  [stderr] "));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    const finish = (ok: boolean, detail: string): void => {
      clearTimeout(timer);
      resolve({ name: example.name, ok, detail, ms: Date.now() - started });
    };
    child.on("error", (error) => finish(false, `could not start: ${error.message}`));
    child.on("close", (code, signal) => {
      if (timedOut) finish(false, `timed out after ${timeoutMs} ms`);
      else if (code === 0) finish(true, "exit code 0");
      else finish(false, code === null ? `killed by ${signal ?? "a signal"}` : `exit code ${code}`);
    });
  });
}

const outcomes: Outcome[] = [];
for (const example of EXAMPLES) {
  const command = [example.file, ...(example.args ?? [])].join(" ");
  process.stdout.write(`\n=== ${example.name}: examples/${command}\n`);
  const outcome = await run(example);
  outcomes.push(outcome);
  process.stdout.write(
    `=== ${outcome.ok ? "PASS" : "FAIL"} ${example.name} (${outcome.detail}, ${outcome.ms} ms)\n`,
  );
}

const failed = outcomes.filter((outcome) => !outcome.ok);
process.stdout.write(`\n${outcomes.length - failed.length}/${outcomes.length} examples passed\n`);
for (const outcome of failed)
  process.stdout.write(`  failed: ${outcome.name} (${outcome.detail})\n`);
process.exitCode = failed.length === 0 ? 0 : 1;
