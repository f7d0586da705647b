/**
 * Node 20's `Writable.toWeb(process.stdout)` drops a chunk written while stdout needs a
 * drain (its sink skips `write()` when `writableNeedDrain` is set, and resolves once the
 * drain comes): other code writing to stdout is enough. A real agent process
 * (`fixtures/stdout-drain-agent.ts`) sends numbered session updates while other code
 * writes 64 KiB log lines to stdout, and the parent counts every update that arrives.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/stdout-drain-agent.ts", import.meta.url));
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);
const UPDATES = 200;

interface Count {
  /** The numbers of the updates that arrived, in order. */
  readonly updates: number[];
  /** Whether the prompt was answered. */
  readonly answered: boolean;
  /** Lines of stdout that were not JSON (the log lines when they stay on stdout). */
  readonly junk: number;
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Runs the fixture in `mode`, prompts it for {@link UPDATES} updates, reading its stdout
 * a chunk at a time (paused between chunks), and ends its stdin once the prompt is
 * answered, or once the agent says on stderr that its prompt handler returned (the
 * answer may be what was lost).
 */
function run(mode: string): Promise<Count> {
  const child = spawn(process.execPath, ["--import", "tsx", fixture, mode], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const updates: number[] = [];
  let answered = false;
  let junk = 0;
  let stderr = "";
  let carry = "";
  const send = (message: object): void => void child.stdin.write(`${JSON.stringify(message)}\n`);
  const finish = (): void => {
    if (!child.stdin.writableEnded) child.stdin.end();
  };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    carry += chunk;
    let nl: number;
    while ((nl = carry.indexOf("\n")) !== -1) {
      const line = carry.slice(0, nl);
      carry = carry.slice(nl + 1);
      let message: { id?: number; method?: string; params?: unknown };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        junk++;
        continue;
      }
      if (message.method === "session/update") {
        const params = message.params as { update: { content: { text: string } } };
        updates.push(Number(params.update.content.text));
      } else if (message.id === 1) {
        send({
          jsonrpc: "2.0",
          id: 2,
          method: "session/new",
          params: { cwd: "/", mcpServers: [] },
        });
      } else if (message.id === 2) {
        const prompt = [{ type: "text", text: String(UPDATES) }];
        send({
          jsonrpc: "2.0",
          id: 3,
          method: "session/prompt",
          params: { sessionId: "s", prompt },
        });
      } else if (message.id === 3) {
        answered = true;
        finish();
      }
    }
    // A slow reader: the next chunk is taken on a later turn of the event loop.
    child.stdout.pause();
    setImmediate(() => child.stdout.resume());
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    if (stderr.includes("prompt handled")) finish();
  });
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {} },
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise<Count>((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ updates, answered, junk, code, stderr: stderr.slice(-2000) });
    });
  });
}

const ALL = Array.from({ length: UPDATES }, (_, i) => i);

describe("an agent's stdout while other code writes to it too", () => {
  it.runIf(NODE_MAJOR === 20)(
    "the classic recipe, Writable.toWeb(process.stdout), loses messages on Node 20",
    async () => {
      const { updates, code, stderr } = await run("to-web");
      expect(code, stderr).toBe(0);
      // The writes were resolved all the same: the agent's prompt handler returned.
      expect(stderr).toContain("prompt handled");
      expect(updates.length).toBeLessThan(UPDATES);
    },
    90_000,
  );

  it("agentStdioStream({ redirectStdout: false }) delivers every message, in order", async () => {
    const { updates, answered, junk, code, stderr } = await run("helper");
    expect(code, stderr).toBe(0);
    expect(updates).toEqual(ALL);
    expect(answered).toBe(true);
    expect(junk).toBe(UPDATES / 10); // the log lines, on stdout as asked
  }, 90_000);

  it("agentStdioStream() delivers every message, and the log lines go to stderr", async () => {
    const { updates, answered, junk, code, stderr } = await run("helper-redirect");
    expect(code, stderr).toBe(0);
    expect(updates).toEqual(ALL);
    expect(answered).toBe(true);
    expect(junk).toBe(0);
  }, 90_000);
});
