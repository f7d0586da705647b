import { execFile } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { messageText, type ThreadItem } from "../../packages/acp-kit/src/index.js";
import { connectAgent, denyAll } from "../../packages/acp-kit/src/node/index.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const main = "packages/acp-kit/src/testing/scripted/agent-main.ts";
const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const temp = realpathSync(mkdtempSync(join(tmpdir(), "acp-scripted-")));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Runs the program to its end; resolves with its exit code and stderr. */
function run(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["--import", "tsx", main, ...args],
      { cwd: repoRoot, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : (child.exitCode ?? null), stderr, stdout }),
    );
    child.stdin?.end();
  });
}

const agentMessages = (thread: readonly ThreadItem[]) =>
  thread.flatMap((item) =>
    item.type === "message" && item.role === "agent" ? [messageText(item)] : [],
  );

describe("acp-scripted-agent as a program", () => {
  it("serves a scenario file over stdio to a real client", async () => {
    await using agent = await connectAgent({
      command: process.execPath,
      args: ["--import", "tsx", main, fixture("scenario-basic.json")],
      cwd: repoRoot,
    });
    expect(agent.info.agentInfo).toEqual({ name: "basic-agent", version: "1.2.3" });
    const session = await agent.newSession({ cwd: temp });
    expect((await session.prompt("hello there")).stopReason).toBe("end_turn");
    expect((await session.prompt("/echo one two")).stopReason).toBe("end_turn");
    expect((await session.prompt("anything")).stopReason).toBe("refusal");
    const thread = session.state.thread;
    expect(agentMessages(thread)).toEqual([
      `Hello from ${temp}!`,
      "one two",
      "Say hello, or /echo something.",
    ]);
    expect(thread.find((item) => item.type === "tool_call")).toMatchObject({
      toolCallId: "call_1",
      title: "Look around",
      kind: "search",
      status: "completed",
      statusHistory: ["in_progress", "completed"],
    });
    expect(session.state.availableCommands).toEqual([
      { name: "echo", description: "Repeat the input" },
    ]);
  });

  it("exits 0 once its stdin closes", async () => {
    expect(await run([fixture("scenario-basic.json")])).toEqual({
      code: 0,
      stderr: "",
      stdout: "",
    });
  });

  it("exits 2 with the problems on stderr for an invalid scenario", async () => {
    const { code, stderr, stdout } = await run([fixture("scenario-invalid.json")]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`Invalid ${fixture("scenario-invalid.json")} (2 problems):`);
    expect(stderr).toContain(
      'turns[0].steps[0].txet: unknown step kind "txet" (did you mean "text"?)',
    );
    expect(stderr).toContain('turns[0].steps[1].stop: is the string "done"');
  });

  it("exits 2 for a missing file, bad JSON and bad arguments", async () => {
    const bad = join(temp, "bad.json");
    writeFileSync(bad, "{ nope");
    const results = [];
    // One after the other: the machine may be small and busy.
    for (const args of [[join(temp, "missing.json")], [bad], ["--frob"], []])
      results.push(await run(args));
    expect(results.map((result) => result.code)).toEqual([2, 2, 2, 2]);
    expect(results[0]?.stderr).toMatch(/cannot read .*missing\.json/);
    expect(results[1]?.stderr).toMatch(/is not valid JSON/);
    expect(results[2]?.stderr).toMatch(/unknown option --frob\n\nUsage: acp-scripted-agent/);
    expect(results[3]?.stderr).toMatch(/missing the scenario file/);
    const check = await run(["--check", fixture("scenario-basic.json")]);
    expect([check.code, check.stderr]).toEqual([
      0,
      `acp-scripted-agent: ${fixture("scenario-basic.json")} is valid\n`,
    ]);
  });

  it("runs the built-in demo: with permission denied, no file of the user changes", async () => {
    const dir = mkdtempSync(join(temp, "demo-"));
    writeFileSync(join(dir, "README.md"), "# My project\n\nHello.\n");
    await using agent = await connectAgent({
      command: process.execPath,
      args: ["--import", "tsx", main, "--demo", "--no-delays"],
      cwd: repoRoot,
      permissions: { policies: [denyAll()] },
    });
    const session = await agent.newSession({ cwd: dir });
    expect((await session.prompt("Show me what you can do")).stopReason).toBe("end_turn");
    expect(readdirSync(dir)).toEqual(["README.md"]);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("# My project\n\nHello.\n");
    const calls = session.state.thread.filter((item) => item.type === "tool_call");
    expect(calls.map((call) => [call.toolCallId, call.status])).toEqual([
      ["call_1", "completed"],
      ["call_2", "failed"],
      ["call_3", "completed"],
    ]);
    expect(agentMessages(session.state.thread).join("")).toContain("# My project");
  });
});
