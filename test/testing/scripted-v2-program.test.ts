/**
 * The built `acp-scripted-agent` (packages/acp-kit/dist/scripted-agent.js) as a child
 * process with `--protocol auto | 2`: one program serves a v1 client and a v2 client;
 * v2 only refuses v1 with -32022; in v2, terminal steps really run their command and
 * file steps use the local files (v2 has no client terminals or file system).
 */
import { spawn, spawnSync, type ChildProcessByStdio } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { TestClient } from "../../packages/acp-kit/src/testing/index.js";
import { ndJsonStream } from "../../packages/acp-kit/src/v2/index.js";
import { V2Checker } from "./fixtures/v2-parity.js";

const binary = new URL("../../packages/acp-kit/dist/scripted-agent.js", import.meta.url).pathname;
const basic = new URL("./fixtures/scenario-basic.json", import.meta.url).pathname;
const temp = realpathSync(mkdtempSync(join(tmpdir(), "acp-scripted-v2-")));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const children: ChildProcessByStdio<Writable, Readable, Readable>[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
});

/** Starts the built program; returns the NDJSON stream of its stdio. */
function start(args: string[]) {
  const child = spawn(process.execPath, [binary, "--no-delays", ...args], {
    cwd: temp,
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  return ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    { closeOutput: true },
  );
}

describe.skipIf(!existsSync(binary))("acp-scripted-agent --protocol (built binary)", () => {
  it("--protocol auto serves a v1 client and a v2 client", async () => {
    const v1 = new TestClient({ protocol: 1, cwd: temp });
    clients.push(v1);
    expect(await v1.open(start(["--protocol", "auto", basic]))).toBe(1);
    const first = await v1.newSession();
    expect(await v1.prompt(first.sessionId, "hello")).toEqual({ stopReason: "end_turn" });
    expect(v1.textOf(first.sessionId)).toBe(`Hello from ${temp}!`);

    const v2 = new TestClient({ protocol: "auto", cwd: temp });
    clients.push(v2);
    expect(await v2.open(start(["--protocol", "auto", basic]))).toBe(2);
    const checker = new V2Checker();
    v2.agentV2.observe((direction, message) => {
      if (direction === "in") checker.fromAgent(message);
      else checker.fromClient(message);
    });
    const second = await v2.newSessionV2();
    expect(await v2.prompt(second.sessionId, "hello")).toEqual({ stopReason: "end_turn" });
    expect(await v2.prompt(second.sessionId, "other")).toEqual({ stopReason: "refusal" });
    expect(v2.textOf(second.sessionId)).toBe(`Hello from ${temp}!Say hello, or /echo something.`);
    expect(v2.state(second.sessionId)?.activity).toMatchObject({ state: "idle" });
    expect(checker.issues).toEqual([]);
    expect(checker.checked).toBeGreaterThan(5);
  });

  it("--protocol 2 refuses a v1 client with -32022", async () => {
    const v1 = new TestClient({ protocol: 1 });
    clients.push(v1);
    await expect(v1.open(start(["--protocol", "2", basic]))).rejects.toMatchObject({
      code: -32022,
    });
  });

  it("--protocol 2 runs terminal commands itself and uses the local files", async () => {
    writeFileSync(join(temp, "in.txt"), "from disk\n");
    const scenario = join(temp, "files.json");
    writeFileSync(
      scenario,
      JSON.stringify({
        turns: [
          {
            steps: [
              { readFile: "in.txt", saveAs: "in" },
              { writeFile: "out.txt", content: "wrote ${in}" },
              { toolCall: "Run node", kind: "execute" },
              {
                terminal: process.execPath,
                args: ["-e", "console.log(6 * 7); process.exit(3)"],
                saveAs: "run",
              },
              { text: "${run}|${run.exitCode}" },
            ],
          },
        ],
      }),
    );
    const client = new TestClient({ protocol: 2, cwd: temp });
    clients.push(client);
    expect(await client.open(start(["--protocol", "2", scenario]))).toBe(2);
    const { sessionId } = await client.newSessionV2();
    expect(await client.prompt(sessionId, "go")).toEqual({ stopReason: "end_turn" });
    expect(readFileSync(join(temp, "out.txt"), "utf8")).toBe("wrote from disk\n");
    expect(client.textOf(sessionId)).toBe("42\n|3");
    const state = client.state(sessionId);
    expect(state?.terminals[0]).toMatchObject({
      terminalId: "term-1",
      exitStatus: { exitCode: 3 },
    });
    expect(state?.thread.find((item) => item.type === "tool_call")).toMatchObject({
      content: [{ type: "terminal", terminalId: "term-1" }],
    });
  });

  it("--protocol takes 1, 2 or auto (anything else: usage error, exit 2)", () => {
    const bad = spawnSync(process.execPath, [binary, "--protocol", "3", basic], {
      encoding: "utf8",
      input: "",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--protocol needs 1, 2 or auto, got 3");
    const good = spawnSync(process.execPath, [binary, "--protocol=auto", basic], {
      encoding: "utf8",
      input: "",
    });
    expect(good.status).toBe(0);
  });
});
