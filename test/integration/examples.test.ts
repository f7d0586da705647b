/**
 * Runs the examples end to end the way `npm run examples` does (`examples/run-all.ts`,
 * which runs `examples/client.ts`, which starts `examples/agent.ts`), as real processes.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const runAll = fileURLToPath(new URL("../../examples/run-all.ts", import.meta.url));

function run(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", runAll], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill("SIGKILL"), 28_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

it("runs every example end to end and exits 0", { timeout: 30_000 }, async () => {
  const { code, stdout, stderr } = await run();
  const output = stdout + stderr;
  expect(code, output).toBe(0);
  expect(stdout).toContain("3/3 examples passed");

  // Both runs completed a whole turn, with a clean agent shutdown.
  expect(count(stdout, "connected to acp-kit example agent 0.1.0 (protocol 1)")).toBe(2);
  expect(count(stdout, "the agent exited with code 0")).toBe(2);
  expect(count(stdout, "[example-agent] the client closed the connection; exiting")).toBe(2);

  // The streamed updates were printed: message chunks, the tool calls and their updates.
  expect(stdout).toContain("agent> Let me take a look at notes.txt.");
  expect(stdout).toMatch(/\* tool call read-\w+ \[read\] Read notes\.txt \(pending\)/);
  expect(stdout).toMatch(/read-\w+: completed - 4 lines, 32 characters/);
  expect(stdout).toMatch(/\* tool call run-\w+ \[execute\] /);
  expect(stdout).toMatch(/run-\w+: in_progress - terminal term-\w+/);
  expect(stdout).toContain("| notes.txt");
  expect(stdout).toContain("agent> The command exited with code 0 and listed 1 file(s).");

  // Approved once (the file changed), denied once (it did not).
  expect(stdout).toContain(
    '? permission for "Add a review note to notes.txt": approved (allow_once)',
  );
  expect(stdout).toContain(
    '? permission for "Add a review note to notes.txt": denied (reject_once)',
  );
  expect(stdout).toContain("agent> Understood, I left the file unchanged.");

  // The toolkit client: files, terminal and permission served by acp-kit/node, thread folded.
  expect(stdout).toContain("user> Please tidy up my notes.");
  expect(stdout).toContain("[completed] Read notes.txt");
  expect(stdout).toContain("[completed] Add a review note to notes.txt");
  expect(stdout).toContain("[completed] List the files of the session directory");
  expect(count(stdout, "stop reason: end_turn")).toBe(3);
  expect(count(stdout, "Reviewed by the example agent.")).toBe(2);
});
